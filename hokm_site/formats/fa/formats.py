# Django's Persian formats, with the day's time on the 24-hour clock Iranians use. The Jalali
# calendar is lib.calendars': it reads these same letters as Jalali day, month and year.
DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y، ساعت H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "Y/m/d"
SHORT_DATETIME_FORMAT = "Y/m/d، H:i"
FIRST_DAY_OF_WEEK = 6  # Saturday
