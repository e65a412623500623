"""The reader's calendar and names in templates: a builtin library of the site's templates.

``{{ when|local_date:"DATE_FORMAT" }}`` is Django's ``date`` filter in the reader's calendar
(Jalali in Persian, lib.calendars); machine-read dates stay ``{{ when|date:"c" }}``.

``{% blocktranslate with name=seat.name|isolate %}`` puts a name inside a sentence as ``<bdi>``:
its direction is its own, and its digits stay as its owner wrote them (lib.numerals). For element
text only, not an attribute.
"""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from lib.calendars import format_date

register = template.Library()


@register.filter(expects_localtime=True, is_safe=False)
def local_date(value: dt.date | dt.datetime | None, format_name: str = "DATE_FORMAT") -> str:
    try:
        return format_date(value, format_name)
    except (AttributeError, TypeError, ValueError):
        # As Django's ``date`` filter: a value that is no date shows nothing, not an error page.
        return ""


@register.filter
def isolate(name: object) -> SafeString:
    return format_html("<bdi>{}</bdi>", name)
