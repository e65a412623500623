"""The replay of a match, and the import of a record that opens in it.

Who may see a match is ``games.play.access.match_viewable``, whether its hands may be shown face up
``games.play.access.match_revealed`` (R8.3). A match the viewer may not see answers 404, as the
history pages do (as if it did not exist), except to a visitor who is not signed in, who is sent
to sign in first, as on the live page: signing in may well give access. A public table's match
that is over is anyone's to see (``games.play.access.match_public``): its replay offers to share
the position shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from accounts.http import AuthenticatedHttpRequest
from games.engine import get_variant
from games.history.records import RecordImportError, match_import_record, name_shown_safely
from games.history.replay import replay_build
from games.history.replay_court_piece import court_piece_replay_build
from games.history.replay_forms import RecordImportForm
from games.models import Match, MatchSeat
from games.play.access import match_public, match_revealed, match_viewable_in
from games.play.selectors import court_piece_deals, match_hand_states


@require_safe
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """Every hand (or Court Piece deal) of the match card by card: face up once it is over,
    before that only the cards played (R8.3; under Double Sir not even those gone face down to
    the pile, and no indicator before its reveal, R9.15.1). A fixed number of queries, whatever
    the number of hands and tricks."""
    try:
        match = Match.objects.select_related("table").get(pk=match_id)
    except Match.DoesNotExist:
        raise Http404("No such match") from None
    if not match_viewable_in(request, match):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise Http404("No such match")
    seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    you = _seat_of(seats, request.user)
    revealed = match_revealed(match)
    viewer = you if you is not None else 0
    if get_variant(match.variant).family == "court-piece":
        built = court_piece_replay_build(
            match=match,
            seats=seats,
            deals=court_piece_deals(match=match),
            revealed=revealed,
            viewer=viewer,
            you=you,
        )
    else:
        built = replay_build(
            match=match,
            seats=seats,
            states=match_hand_states(match=match),
            revealed=revealed,
            viewer=viewer,
            you=you,
        )
    context = {
        "match": match,
        "replay": built,
        "playing": match.status == Match.Status.PLAYING,
        "shareable": match_public(match),
    }
    return render(request, "games/replay.html", context)


def _seat_of(seats: list[MatchSeat], user: Any) -> int | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return next((seat.index for seat in seats if seat.user_id == user.pk), None)


@dataclass(frozen=True)
class FaultShown:
    """A record's first fault as a person reads it: where (1-based, seats by name) and what."""

    where: list[str]
    message: str
    checker: str  # the checker's own output (zero-based), for those who compare with hokm_check


_PREFIX = re.compile(r"^hand \d+(?:, trick \d+)?: ")
#: A seat or a hand the engine names in its message, counted from 0 as in the file.
_COUNTED = re.compile(r"\b(seat|hand) (\d+)\b")
#: The longest fault message shown: the engine quotes what it could not read (a card text, a
#: variant name), which a record may make a megabyte long.
MESSAGE_SHOWN_MAX = 300


def _shortened(text: str) -> str:
    return text if len(text) <= MESSAGE_SHOWN_MAX else text[: MESSAGE_SHOWN_MAX - 1] + "…"


def record_fault_shown(fault: RecordImportError, document: Any) -> FaultShown:
    """``fault`` located as people count (hand 1 is the first) and with the players' names."""
    players = document.get("players") if isinstance(document, dict) else None

    def seat_name(index: int) -> str:
        number = index + 1
        if isinstance(players, list) and 0 <= index < len(players):
            name = players[index]
            if isinstance(name, str) and name.strip() and name_shown_safely(name):
                return _("%(name)s (seat %(number)s)") % {"name": name.strip(), "number": number}
        return _("seat %(number)s") % {"number": number}

    def counted(what: str, index: int) -> str:
        if what == "seat":
            return seat_name(index)
        # In the engine's own words (its message is shown in English), counted from 1.
        return f"hand {index + 1}"

    where = []
    if fault.hand is not None:
        where.append(_("hand %(number)s") % {"number": fault.hand + 1})
    if fault.trick is not None:
        where.append(_("trick %(number)s") % {"number": fault.trick + 1})
    if fault.seat is not None:
        where.append(seat_name(fault.seat))
    # The engine's message counts from 0 as the file does: the location above says where it is
    # already, and the hands and seats it names besides are counted from 1 and named here, in
    # one pass, so that a player's name put in is not read again.
    message = _PREFIX.sub("", _shortened(fault.message))
    message = _COUNTED.sub(lambda found: counted(found.group(1), int(found.group(2))), message)
    checker = json.dumps(fault.to_json() | {"error": _shortened(fault.message)}, ensure_ascii=False)
    return FaultShown(where=where, message=message, checker=checker)


@login_required
@require_http_methods(["GET", "POST"])
def record_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Upload or paste a ``hokm-record/1`` file: checked by the engine (the faults of
    ``hokm_check``), stored only when it is correct, then opened in the replay."""
    fault = None
    if request.method == "POST":
        form = RecordImportForm(request.POST, request.FILES)
        if form.is_valid():
            document = form.cleaned_data["document"]
            try:
                match = match_import_record(document=document, imported_by=request.user)
            except RecordImportError as error:
                fault = record_fault_shown(error, document)
            else:
                return redirect("games:replay", match_id=match.pk)
    else:
        form = RecordImportForm()
    return render(request, "games/record_import.html", {"form": form, "fault": fault})
