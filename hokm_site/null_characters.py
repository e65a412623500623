"""Refuse a request whose path or query string holds a NUL character, before any view.

No address of this site holds one, and PostgreSQL cannot store or compare a string that does:
a NUL reaching a lookup (``/players/%00/``, an admin search) fails in the database with a
``DataError``, a 500 for what is only a malformed address. Forms already refuse NUL in what they
clean (Django's ``ProhibitNullCharactersValidator``); this covers what reaches a view unvalidated.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.views.defaults import bad_request


class NullCharacterMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.GET.lists()
        ):
            # The site's 400 page, answered here: no traceback in the log for a malformed address.
            return bad_request(request, exception=BadRequest("a NUL character in the address"))
        return self.get_response(request)
