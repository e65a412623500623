"""What makes the site an installable web app: ``/manifest.webmanifest``, ``/favicon.ico`` and the
service worker at ``/sw.js`` (docs/app.md).

The worker's script is ``static/js/sw.js``, served from the site's root rather than from
/static/: a worker controls only the paths under the one it was loaded from, and it must see the
requests for /static/ made by every page. It is sent with ``no-cache`` so that browsers look for
a new version each time they check, and never keep an old worker for a day.
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

#: The table's felt: the colour of the browser's bar and of the splash screen.
THEME_COLOUR = "#093d22"

#: Static path, size, MIME type and purpose of each icon of the manifest.
ICONS = (
    ("img/icons/icon-192.png", "192x192", "image/png", "any"),
    ("img/icons/icon-512.png", "512x512", "image/png", "any"),
    ("img/icons/maskable-192.png", "192x192", "image/png", "maskable"),
    ("img/icons/maskable-512.png", "512x512", "image/png", "maskable"),
    ("img/icons/icon.svg", "any", "image/svg+xml", "any"),
)


def _static_bytes(path: str) -> bytes:
    """A file of the project's static sources (read each time: small, and rarely asked for)."""
    found = finders.find(path)
    if not found:
        raise FileNotFoundError(path)
    return Path(str(found)).read_bytes()


@require_safe
def web_manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the visitor's language (its name and description are his)."""
    manifest = {
        "id": "/",
        "name": _("Hokm online"),
        "short_name": _("Hokm"),
        "description": _("Play Hokm and Court Piece online, with friends or against the computer."),
        "lang": get_language(),
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "categories": ["games"],
        "icons": [
            {"src": static(path), "sizes": sizes, "type": kind, "purpose": purpose}
            for path, sizes, kind, purpose in ICONS
        ],
    }
    response = JsonResponse(
        manifest,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: asked for by browsers and tools that read no ``<link rel="icon">``."""
    return HttpResponse(_static_bytes("img/icons/favicon.ico"), content_type="image/x-icon")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the service worker, whose scope is the whole site."""
    response = HttpResponse(
        _static_bytes("js/sw.js"), content_type="text/javascript; charset=utf-8"
    )
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
