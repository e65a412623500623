"""Stored matches as ``hokm-record/1`` documents (shared/RECORD.md), and back.

The format and its checks belong to ``games.engine.record``; this module maps it onto the rows.
An import is checked in full by replaying it through the engine before anything is written, and
its hands are stored by the same helpers that store live play.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any, NoReturn

from django.db import transaction
from django.utils import timezone

from accounts.invisible_characters import INVISIBLE_CHARACTERS
from games.engine import get_variant, new_hand
from games.engine.record import (
    RecordFault,
    build_record,
    replay_record,
)
from games.models import Match, MatchSeat
from games.play.rendering import seat_name
from games.play.selectors import hakem_draw_from_json, match_hand_states
from games.play.services import (
    NAME_MAX_LENGTH,
    TARGET_MAX,
    SeatSpec,
    hand_store_new,
    hand_store_progress,
    match_seats_store,
)

if TYPE_CHECKING:
    from accounts.models import User


class RecordImportError(RecordFault):
    """A record that cannot be imported; nothing was written.

    ``hand``, ``trick`` and ``seat`` locate the fault as the record checker does (zero-based, None
    when the fault is not in one hand, trick or seat), so a page can show where it is.
    """


def match_export_record(*, match: Match) -> dict[str, Any]:
    """The ``hokm-record/1`` document of a stored match, finished or not: three queries.

    A computer player is named in the active language, as on the pages. It holds every card of
    every hand, the current one included: show it to a player only when no hand in it is still
    hidden from him (R8.3). A hand still at its trump call or draw has no record form yet and is
    left out (RECORD.md's ``cards`` are the holdings when play starts).
    """
    # Each seat as the replay and the summary name it: a computer player's stored name carries
    # the seat it sat down in, before any re-seating of R2.3, and RECORD.md wants play order.
    players = [
        seat_name(seat)
        for seat in MatchSeat.objects.filter(match=match)
        .order_by("index")
        .only("index", "name", "computer_level")
    ]
    return build_record(
        variant=get_variant(match.variant),
        target=match.target,
        players=players,
        draw=hakem_draw_from_json(match.hakem_draw),
        hands=match_hand_states(match=match),
    )


def json_constant_refuse(name: str) -> NoReturn:
    """``json.loads`` reads ``NaN``, ``Infinity`` and ``-Infinity``, which JSON has not (RFC 8259):
    a record holding one is not JSON."""
    raise ValueError(f"{name} is not a JSON value")


def name_shown_safely(name: str) -> bool:
    """Whether a record's player name may go into a page as it is: one that could be stored."""
    return len(name) <= NAME_MAX_LENGTH and _name_fault(name) is None


def _name_fault(name: str) -> str | None:
    """Why a player's name cannot be stored and shown, if it cannot: a control character (NUL,
    which PostgreSQL text refuses, a line break, ...) or half of a surrogate pair (JSON's
    ``"\\ud800"``), which is no character and cannot be written as UTF-8."""
    for char in name:
        category = unicodedata.category(char)
        if category == "Cs":
            return "holds half of a surrogate pair, which is not a character"
        if category == "Cc":
            return f"holds the control character U+{ord(char):04X}"
        if char in INVISIBLE_CHARACTERS:
            # Refused in display names for the same reason: a direction override or a
            # zero-width character makes a name show something else, or look like another.
            return f"holds the invisible character U+{ord(char):04X}"
    return None


def match_import_record(*, document: object, imported_by: User | None = None) -> Match:
    """Check a record by replaying it and store it as an imported match.

    Raises :class:`RecordImportError` at the record's first fault, before anything is written. The
    match is ``finished`` when the record is complete and ``abandoned`` otherwise: with no seed
    and no players behind it, an imported match is never played on.
    """
    try:
        replay = replay_record(document)
    except RecordFault as fault:
        raise RecordImportError(
            fault.message, hand=fault.hand, trick=fault.trick, seat=fault.seat
        ) from fault
    if replay.target > TARGET_MAX:
        raise RecordImportError(f'"target" must be at most {TARGET_MAX} to be stored')
    for seat, name in enumerate(replay.players):
        problem = _name_fault(name)
        if problem:
            raise RecordImportError(f'"players": the name of seat {seat} {problem}')
    try:
        seats = [SeatSpec(name=name) for name in replay.players]
    except ValueError as error:
        raise RecordImportError(f'"players": {error}') from error
    complete = replay.winner is not None
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            variant=replay.variant.name,
            target=replay.target,
            seed=None,
            hakem_draw=replay.draw.to_json() if replay.draw else None,
            status=Match.Status.FINISHED if complete else Match.Status.ABANDONED,
            scores=list(replay.scores),
            winner_side=replay.winner,
            imported=True,
            imported_by=imported_by,
            created_at=now,
            finished_at=now if complete else None,
        )
        match_seats_store(match=match, seats=seats)
        for number, replayed in enumerate(replay.hands):
            dealt = new_hand(replay.variant, hakem=replayed.hakem, deck=replayed.deck)
            hand = hand_store_new(match=match, number=number, state=dealt, seed=None, at=now)
            hand_store_progress(hand=hand, before=dealt, after=replayed.state, at=now)
    return match
