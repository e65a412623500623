"""The Content-Security-Policy header (Django 5.2 has none of its own; 6.0 will).

Every script of the site is a file of its own origin: no inline script, no event handler
attribute, no ``eval`` (htmx is told not to use it, ``templates/base.html``), so a name or a chat
line that ever slipped past the escaping still could not run. Styles come from files too, with one
exception: the templates set CSS custom properties in ``style`` attributes from the server
(``style="--i: 3"`` for a card's place in a fan, the clock's share left), which a strict
``style-src`` would block. ``style-src-attr 'unsafe-inline'`` allows those attributes and nothing
else: ``<style>`` elements stay forbidden (``style-src-elem 'self'``, which is why htmx's own
indicator ``<style>`` is turned off). A browser that knows neither directive falls back to
``style-src``, which allows inline styles, so that the table still looks right there; inline
styles cannot run scripts. Sockets go to this same host only.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"

_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "style-src-elem 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "base-uri 'none'",
)


def content_security_policy(host: str | None) -> str:
    """The policy for a page served from ``host`` (None: a host Django refused)."""
    # CSP3 lets 'self' cover ws: and wss: on the same host; older browsers need them named
    # (an IPv6 address cannot be written in a policy: 'self' alone there).
    sockets = f" ws://{host} wss://{host}" if host and not host.startswith("[") else ""
    return "; ".join((*_POLICY, f"connect-src 'self'{sockets}"))


class ContentSecurityPolicyMiddleware:
    """Adds the header to every response that has none yet.

    With ``DEBUG`` on, Django's own 404 and 500 pages are left without it: they are built with
    inline scripts and styles, and only developers see them.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if HEADER in response or (settings.DEBUG and response.status_code in (404, 500)):
            return response
        try:
            # Validated against ALLOWED_HOSTS: no character of it can break out of the header.
            host = request.get_host()
        except DisallowedHost:
            host = None
        response[HEADER] = content_security_policy(host)
        return response
