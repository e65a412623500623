"""``{{ url|leads_to_game }}``: whether a sign-in page's way back (its ``next``) is a game the
visitor picked, so that the page can say why he is asked to sign in (issue 22)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import template
from django.urls import Resolver404, resolve

register = template.Library()

#: The pages a signed-out visitor is sent to sign in from when he picks a game: a quick start
#: (games.lobby.start_views), a table or its invite link, a match.
GAME_PAGES = frozenset(
    {"games:play_computer_start", "games:table_detail", "games:table_invite", "games:match"}
)


@register.filter
def leads_to_game(url: object) -> bool:
    """>>> leads_to_game("/play/computer/start/?variant=hokm2")
    True
    """
    if not isinstance(url, str) or not url.startswith("/") or url.startswith("//"):
        return False
    try:
        found = resolve(urlsplit(url).path)
    except Resolver404:
        return False
    return found.view_name in GAME_PAGES
