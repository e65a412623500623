"""The quick start's page of its own: the game a visitor picked in the lobby, its computer level
and target chosen, and one Start button.

The lobby's quick start is a POST form, which a sign-in cannot replay. A signed-out visitor who
picks a game is sent to sign in with this page as the way back (issue 22), so after signing in or
signing up he lands on the game he chose rather than on the lobby again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games.engine import GAME_VARIANTS
from games.lobby.forms import TableForm
from games.lobby.services import TARGET_MAX, TARGET_MIN, default_target
from games.models import VARIANT_CHOICES, ComputerLevel


@dataclass(frozen=True, slots=True)
class QuickStart:
    """A quick start as the lobby's form sends it: a game, a computer level and a target."""

    variant: str
    computer_level: str
    target: int

    @property
    def title(self) -> str:
        return str(dict(VARIANT_CHOICES)[self.variant])


def quick_start_from(data: Mapping[str, str]) -> QuickStart | None:
    """The quick start in ``data`` (the lobby form's fields), None when it is not one offered.

    >>> quick_start_from({"variant": "hokm2", "computer_level": "hard"})
    QuickStart(variant='hokm2', computer_level='hard', target=7)
    """
    variant = data.get("variant", "hokm4")
    level = data.get("computer_level") or ComputerLevel.MEDIUM
    if variant not in GAME_VARIANTS or level not in ComputerLevel.values:
        return None
    try:
        target = int(data.get("target") or default_target(variant))
    except ValueError:
        return None
    if not TARGET_MIN <= target <= TARGET_MAX:
        return None
    return QuickStart(variant=variant, computer_level=level, target=target)


def quick_start_url(data: Mapping[str, str]) -> str:
    """This page's address for the quick start in ``data``: what a signed-out visitor who picked
    a game comes back to after signing in. The lobby's address for one not offered."""
    start = quick_start_from(data)
    if start is None:
        return reverse("games:lobby")
    query = {"variant": start.variant, "computer_level": start.computer_level}
    if data.get("target"):
        query["target"] = str(start.target)
    return f"{reverse('games:play_computer_start')}?{urlencode(query)}"


@require_safe
def play_computer_start(request: HttpRequest) -> HttpResponse:
    """The chosen quick start, ready to begin: the level cards (the chosen one checked, still
    open to change) and one Start button, which posts to the lobby's quick start."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    start = quick_start_from(request.GET)
    if start is None:
        messages.error(request, _("Choose one of the games offered."))
        return redirect("games:lobby")
    level = TableForm(initial={"computer_level": start.computer_level})["computer_level"]
    return render(
        request, "games/play_computer_start.html", {"start": start, "computer_level": level}
    )
