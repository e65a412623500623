"""The reader's time zone, for the dates and times pages show (stored times are UTC).

The browser tells its zone (static/js/app.js writes the ``tz`` cookie from Intl's resolved time
zone); until it has, or when it names no zone we know, a language's own country is the better
guess than UTC: Tehran's time for Persian readers, Karachi's for Urdu, India's for Hindi.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from functools import lru_cache

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

COOKIE = "tz"

#: Where a language's readers mostly live, when the browser has not said.
LANGUAGE_ZONES = {"fa": "Asia/Tehran", "ur": "Asia/Karachi", "hi": "Asia/Kolkata"}


@lru_cache(maxsize=512)
def _zone(name: str) -> zoneinfo.ZoneInfo | None:
    # Only names the zone database has: the cookie is the client's to write.
    if not name or len(name) > 64 or name not in zoneinfo.available_timezones():
        return None
    return zoneinfo.ZoneInfo(name)


def zone_for(request: HttpRequest) -> zoneinfo.ZoneInfo | None:
    """The reader's time zone, or ``None`` for the site's (UTC)."""
    zone = _zone(request.COOKIES.get(COOKIE, ""))
    if zone is None:
        guess = LANGUAGE_ZONES.get((translation.get_language() or "").split("-")[0])
        zone = _zone(guess) if guess else None
    return zone


class TimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = zone_for(request)
        if zone is None:
            timezone.deactivate()
            return self.get_response(request)
        with timezone.override(zone):
            return self.get_response(request)
