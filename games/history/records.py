"""Stored matches as ``hokm-record/1`` documents (shared/RECORD.md), and back.

The format and its checks belong to ``games.engine.record`` (and, for Court Piece,
``games.engine.court_piece.record``, RECORD.md "Variant court-piece"); this module maps it onto
the rows. An import is checked in full by replaying it through the engine before anything is
written, and its hands (deals) are stored by the same helpers that store live play.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn

from django.db import transaction
from django.utils import timezone

from accounts.invisible_characters import INVISIBLE_CHARACTERS
from games.engine import (
    COURT_PIECE,
    GAME_VARIANTS,
    CourtPieceMatch,
    HiddenTrump,
    build_court_piece_record,
    get_variant,
    new_deal,
    new_hand,
)
from games.engine.court_piece.record import CourtPieceReplay, replay_court_piece_record
from games.engine.record import (
    RecordFault,
    build_record,
    replay_record,
)
from games.models import Hand, Match, MatchSeat
from games.play import fairness
from games.play.rendering import seat_name
from games.play.selectors import (
    court_piece_deals,
    court_piece_options,
    dealer_draw_from_json,
    hakem_draw_from_json,
    match_hand_states,
)
from games.play.services import (
    NAME_MAX_LENGTH,
    TARGET_MAX,
    SeatSpec,
    deal_store_new,
    deal_store_progress,
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
    if get_variant(match.variant).family == "court-piece":
        options = court_piece_options(match)
        # A deal still at its call is left out by the engine: its cards are not all dealt.
        document = build_court_piece_record(
            options=options,
            target=match.target,
            max_deals=match.max_deals,
            players=players,
            draw=dealer_draw_from_json(match.hakem_draw, options),
            deals=court_piece_deals(match=match),
        )
    else:
        document = build_record(
            variant=get_variant(match.variant),
            target=match.target,
            players=players,
            draw=hakem_draw_from_json(match.hakem_draw),
            hands=match_hand_states(match=match),
        )
    _fair_blocks_add(document, match=match)
    return document


def _fair_blocks_add(document: dict[str, Any], *, match: Match) -> None:
    """The ``fair`` blocks of a match dealt fairly (RECORD.md, "Fair deals"): every hand's, its
    server seed only once the hand is over, and the flips' (never under R2.3's draw for partners,
    whose record holds no flips). One query, for a match dealt fairly only (its flips' block)."""
    if not match.draw_fair:
        return
    rows = Hand.objects.filter(match=match).exclude(fair={}).values_list("number", "fair", "status")
    blocks = {number: (fair, status == Hand.Status.FINISHED) for number, fair, status in rows}
    for number, hand in enumerate(document.get("hands", [])):
        if number in blocks:
            block, over = blocks[number]
            hand["fair"] = fairness.public(block, revealed=over)
    flips = document.get("hakem_draw") or document.get("dealer_draw")
    if match.draw_fair and flips is not None and not match.partner_draw:
        flips["fair"] = fairness.public(match.draw_fair, revealed=True)


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
    if _is_court_piece(document):
        return _court_piece_import(document=document, imported_by=imported_by)
    try:
        replay = replay_record(document)
    except RecordFault as fault:
        raise RecordImportError(
            fault.message, hand=fault.hand, trick=fault.trick, seat=fault.seat
        ) from fault
    if replay.target > TARGET_MAX:
        raise RecordImportError(f'"target" must be at most {TARGET_MAX} to be stored')
    seats = _seats_to_store(replay.players)
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


def _seats_to_store(players: Sequence[str]) -> list[SeatSpec]:
    """The seats of an imported match, or :class:`RecordImportError` for a name that cannot be
    stored and shown."""
    for seat, name in enumerate(players):
        problem = _name_fault(name)
        if problem:
            raise RecordImportError(f'"players": the name of seat {seat} {problem}')
    try:
        return [SeatSpec(name=name) for name in players]
    except ValueError as error:
        raise RecordImportError(f'"players": {error}') from error


def _is_court_piece(document: object) -> bool:
    name = document.get("variant") if isinstance(document, dict) else None
    variant = GAME_VARIANTS.get(name) if isinstance(name, str) else None
    return variant is not None and variant.family == "court-piece"


def _court_piece_import(*, document: object, imported_by: User | None) -> Match:
    """:func:`match_import_record` for a Court Piece record (R9): replayed in full by the engine
    first, then every deal stored by the helpers of live play, in one transaction."""
    try:
        replay = replay_court_piece_record(document)
    except RecordFault as fault:
        raise RecordImportError(
            fault.message, hand=fault.hand, trick=fault.trick, seat=fault.seat
        ) from fault
    if replay.target > TARGET_MAX:
        raise RecordImportError(f'"target" must be at most {TARGET_MAX} to be stored')
    if replay.max_deals is not None and replay.max_deals > TARGET_MAX:
        raise RecordImportError(f'"max_deals" must be at most {TARGET_MAX} to be stored')
    seats = _seats_to_store(replay.players)
    complete = replay.winner is not None
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            variant=COURT_PIECE.name,
            target=replay.target,
            seed=None,
            options=replay.options.to_json(),
            max_deals=replay.max_deals,
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
        _court_piece_deals_store(match=match, replay=replay, at=now)
    return match


def _court_piece_deals_store(*, match: Match, replay: CourtPieceReplay, at: datetime) -> None:
    """Each replayed deal as live play stores it: its row as dealt, then everything from the deal
    to its last card, with the match's summaries (R9.7 to R9.9) before and after it."""
    options = replay.options
    for number, played in enumerate(replay.deals):
        # Under blind hidden trump the indicator is laid as the deal is dealt (R9.14.1).
        blind = options.hidden_trump is HiddenTrump.BLIND and played.indicator is not None
        dealt = new_deal(
            options,
            dealer=played.dealer,
            deck=played.deck,
            blind_pick=played.first5.index(played.indicator) if blind else 0,
        )
        hand = deal_store_new(match=match, number=number, deal=dealt, seed=None, at=at)
        before = CourtPieceMatch(
            options=options,
            target=replay.target,
            max_deals=replay.max_deals,
            seed=None,
            draw=replay.draw,
            summaries=tuple(replay.summaries[:number]),
            deal=dealt,
            deal_seed=None,
        )
        done = number + 1 if played.is_over else number
        after = replace(before, deal=played, summaries=tuple(replay.summaries[:done]))
        deal_store_progress(hand=hand, before=before, after=after, at=at)
