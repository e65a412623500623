"""Dates in the reader's calendar: the Solar Hijri (Jalali) calendar in Persian, the Gregorian
elsewhere. The conversion is jdatetime's (a maintained library), not ours.

:func:`format_date` takes the format names Django's ``date`` filter takes ("DATE_FORMAT",
"SHORT_DATETIME_FORMAT", ...) and formats the moment in the active language and time zone. In
Persian the formats of ``hokm_site/formats/fa`` are read with Jalali day, month and year, Persian
month and weekday names and a 24-hour clock, as Iranians write them: "۶ آذر ۱۴۰۵، ساعت ۱۴:۳۰".

:func:`parse_date` reads what a person types in a date field: an ISO date (what
``<input type="date">`` sends), or in any language a Jalali one, told apart by its year (Jalali
years are below 1700, Gregorian ones of this site above), with / - or . between its parts and in any
digit set.
"""

from __future__ import annotations

import datetime as dt
import re

import jdatetime  # type: ignore[import-untyped]  # it ships no types
from django.utils import formats, timezone
from django.utils.dateformat import format as django_format
from django.utils.translation import get_language

#: Languages that show Solar Hijri dates.
JALALI_LANGUAGES = frozenset({"fa"})

#: Jalali years are 1300s-1400s for any date this site can hold; Gregorian ones are above this.
_JALALI_YEAR_LIMIT = 1700

_DATE = re.compile(r"^\s*(\d{4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})\s*$")


def uses_jalali(language: str | None = None) -> bool:
    code = (language or get_language() or "").split("-")[0].lower()
    return code in JALALI_LANGUAGES


def format_date(value: dt.date | dt.datetime | None, format_name: str = "DATE_FORMAT") -> str:
    """``value`` formatted like Django's ``date`` filter, in the reader's calendar."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime) and timezone.is_aware(value):
        value = timezone.localtime(value)
    pattern = formats.get_format(format_name) if format_name.isupper() else format_name
    if not uses_jalali():
        return django_format(value, pattern)
    return _format_jalali(value, pattern)


def parse_date(text: str) -> dt.date | None:
    """The Gregorian date ``text`` names, or ``None`` when it names none (see the module's
    docstring). ``text`` has ASCII digits (``lib.numerals.ascii_digits`` first)."""
    match = _DATE.match(text)
    if match is None:
        return None
    year, month, day = (int(part) for part in match.groups())
    try:
        if year < _JALALI_YEAR_LIMIT:
            return jdatetime.date(year, month, day).togregorian()
        return dt.date(year, month, day)
    except ValueError:
        return None


def jalali_iso(value: dt.date) -> str:
    """A Gregorian date as the Jalali "YYYY/MM/DD" a Persian date field shows."""
    day = jdatetime.date.fromgregorian(date=value)
    return f"{day.year:04d}/{day.month:02d}/{day.day:02d}"


def _format_jalali(value: dt.date | dt.datetime, pattern: str) -> str:
    day = jdatetime.date.fromgregorian(
        date=value if not isinstance(value, dt.datetime) else value.date()
    )
    # Django's format letters for the calendar's parts; the clock's letters (G, H, i, s, ...) are
    # the same in both calendars and are left to Django.
    parts = {
        "d": f"{day.day:02d}",
        "j": str(day.day),
        "D": day.j_weekdays_fa[day.weekday()],
        "l": day.j_weekdays_fa[day.weekday()],
        "m": f"{day.month:02d}",
        "n": str(day.month),
        "F": day.j_months_fa[day.month - 1],
        "M": day.j_months_fa[day.month - 1],
        "N": day.j_months_fa[day.month - 1],
        "E": day.j_months_fa[day.month - 1],
        "b": day.j_months_fa[day.month - 1],
        "Y": str(day.year),
        "y": f"{day.year % 100:02d}",
    }
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in parts:
            out.append(parts[char])
        elif char.isalpha():
            out.append(django_format(value, char))
        else:
            out.append(char)
    return "".join(out)
