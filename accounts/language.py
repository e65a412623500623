"""Each player's language, remembered: the first time, the browser's (Django's LocaleMiddleware
reads Accept-Language); from then on, what he chose, on every device he signs in on.

* :class:`PlayerLanguageMiddleware` (after AuthenticationMiddleware) shows a signed-in player the
  language saved on his account and sets the language cookie to it, so the page's sockets, which
  read the cookie (games.lobby.consumers.scope_language), speak it too.
* :func:`set_language` is Django's language switch that also saves the choice on the account.

Until a player chooses, nothing is saved: each browser shows its own language (the cookie, else
Accept-Language), as for anyone signed out.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts.models import User


def supported(code: str | None) -> str | None:
    """``code`` when the site speaks it, else ``None``."""
    return code if code and code in dict(settings.LANGUAGES) else None


class PlayerLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        saved = supported(user.language) if user is not None and user.is_authenticated else None
        if saved and saved != translation.get_language():
            translation.activate(saved)
            request.LANGUAGE_CODE = saved
        response = self.get_response(request)
        if saved and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != saved:
            _set_cookie(response, saved)
        return response


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The header's language switch: Django's view (cookie, redirect back), and the account keeps
    the choice."""
    response = django_set_language(request)
    code = supported(request.POST.get("language"))
    user = request.user
    if code and user.is_authenticated:
        User.objects.filter(pk=user.pk).update(language=code)
        user.language = code
    return response


def _set_cookie(response: HttpResponse, code: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
