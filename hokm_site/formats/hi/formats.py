# Django's Hindi formats lack the date-and-time ones (it would fall back to English) and group
# thousands by three; Indian readers group by lakh and crore: 1,00,000.
DATETIME_FORMAT = "j F Y, G:i"
SHORT_DATETIME_FORMAT = "d-m-Y, G:i"
TIME_FORMAT = "G:i"
FIRST_DAY_OF_WEEK = 1  # Monday
NUMBER_GROUPING = (3, 2, 0)
