"""Reads: engine states rebuilt exactly from the stored rows.

A hand is stored as its deal order and the decisions taken in it; replaying those decisions
through the engine gives back the very state the services validated against, so the rows never
hold a second, possibly diverging, copy of the rules' bookkeeping.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.engine import (
    Action,
    CallTrump,
    Card,
    ChooseIndicator,
    CourtPieceDeal,
    CourtPieceMatch,
    CourtPieceOptions,
    DealerDraw,
    DealSummary,
    Discard,
    GameState,
    HakemDraw,
    HandResult,
    HandState,
    HiddenTrump,
    KeepOrThrow,
    MatchState,
    PlayCard,
    RevealTrump,
    Streak,
    Suit,
    Variant,
    apply,
    deal_apply,
    get_variant,
    new_deal,
    new_hand,
    summarise,
)
from games.models import CardPlay, Hand, Match, deck_from_text

#: (seat, card text) of one stored play, in the order the hand was played.
PlayRow = tuple[int, str]


def hand_state_build(*, hand: Hand) -> HandState:
    """The engine state of a stored hand, exactly as it was after its last stored action.

    One query for the plays, whatever the number of tricks; one more if ``hand.match`` was not
    loaded with the hand (``select_related("match")``).
    """
    plays = list(
        CardPlay.objects.filter(hand=hand)
        .order_by("trick__number", "order")
        .values_list("seat", "card")
    )
    return _hand_state_from_rows(hand=hand, variant=get_variant(hand.match.variant), plays=plays)


def match_hand_states(*, match: Match) -> list[HandState]:
    """The engine state of every hand of a match, in order: two queries in all."""
    variant = get_variant(match.variant)
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    plays: dict[int, list[PlayRow]] = defaultdict(list)
    rows = (
        CardPlay.objects.filter(hand__match=match)
        .order_by("hand__number", "trick__number", "order")
        .values_list("hand_id", "seat", "card")
    )
    for hand_id, seat, card in rows:
        plays[hand_id].append((seat, card))
    return [
        _hand_state_from_rows(hand=hand, variant=variant, plays=plays[hand.pk]) for hand in hands
    ]


def match_state_build(*, match: Match, hands: list[Hand] | None = None) -> GameState:
    """The engine state of a match at its current (last) hand: two queries.

    Finished hands before the current one contribute their stored results; the current hand is
    rebuilt by :func:`hand_state_build`, so its result, when it has one, is the engine's own.
    ``hands`` are the match's hands in order when the caller has loaded them already.
    """
    variant = get_variant(match.variant)
    if hands is None:
        hands = list(Hand.objects.filter(match=match).order_by("number"))
    if not hands:
        raise Hand.DoesNotExist(f"match {match.pk} has no hand")
    if variant.family == "court-piece":
        return court_piece_state_build(match=match, hands=hands)
    for hand in hands:
        hand.match = match
    current = hands[-1]
    state = hand_state_build(hand=current)
    # R6: the next Hakem of a past hand is the Hakem the next stored hand was dealt to.
    results = [
        _stored_result(hand, next_hakem=following.hakem)
        for hand, following in zip(hands, hands[1:], strict=False)
    ]
    if state.result is not None:
        results.append(state.result)
    scores = [0] * variant.sides
    for result in results:
        scores[result.winner] += result.points
    return MatchState(
        variant=variant,
        target=match.target,
        # None for an imported match, which is never dealt another hand (see match_import_record).
        seed=match.seed,
        draw=hakem_draw_from_json(match.hakem_draw),
        scores=tuple(scores),
        results=tuple(results),
        hand=state,
        hand_seed=current.seed,
    )


@dataclass(frozen=True, slots=True)
class Position:
    """A match at one stored version: its engine state and the row of its current hand."""

    state: GameState
    hand: Hand  # the last hand's (or deal's) row as stored at that version
    hands: int  # how many hands the match has


class _Positions:
    """The positions this process stored or read under the match's lock, by stored version.

    Rebuilding a match means reading its hand's plays and replaying them through the engine: the
    larger part of a move's cost. Every change of a match's hands or scores bumps its version in
    the same transaction (``games.play.services``), so a version names one position for good, and
    the next move of a live match usually finds the position the last one left here. Entries are put
    only from committed data (after the commit, or read under the lock), and the key holds the
    match's creation time as well, so a match id used again (SQLite after a rollback) never finds
    another match's position. Hand rows are copied in and out: callers change and save theirs.
    """

    def __init__(self, *, size: int = 4096) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[Any, ...], Position] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(match: Match) -> tuple[Any, ...]:
        return (match.pk, match.version, match.created_at)

    def get(self, match: Match) -> Position | None:
        with self._lock:
            found = self._entries.get(self.key(match))
            if found is not None:
                self._entries.move_to_end(self.key(match))
        return None if found is None else _position_copy(found)

    def put(self, match: Match, position: Position) -> None:
        entry = _position_copy(position)
        with self._lock:
            self._entries[self.key(match)] = entry
            self._entries.move_to_end(self.key(match))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _position_copy(position: Position) -> Position:
    hand = position.hand
    names = [field.attname for field in Hand._meta.concrete_fields]
    row = Hand.from_db(hand._state.db, names, [copy.deepcopy(getattr(hand, n)) for n in names])
    return Position(state=position.state, hand=row, hands=position.hands)


positions = _Positions()


def match_position(*, match: Match, locked: bool = False) -> Position:
    """The match's position at the version of ``match`` as read: from this process's memory when
    it holds that version, else built from the rows (two queries) and, when ``locked`` (the row
    lock is held, so the rows read are that version's), kept for the next caller."""
    found = positions.get(match)
    if found is not None:
        return found
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    position = Position(
        state=match_state_build(match=match, hands=hands), hand=hands[-1], hands=len(hands)
    )
    if locked:
        positions.put(match, position)
    return position


def hakem_draw_from_json(data: Any) -> HakemDraw | None:
    """The :class:`HakemDraw` stored as ``HakemDraw.to_json()`` in :attr:`Match.hakem_draw`."""
    return None if data is None else HakemDraw.from_json(data)


def _hand_state_from_rows(*, hand: Hand, variant: Variant, plays: Iterable[PlayRow]) -> HandState:
    state = new_hand(variant, hakem=hand.hakem, deck=deck_from_text(hand.deck))
    for action in _stored_actions(hand=hand, state=state, plays=plays):
        state = apply(state, action)
    return state


def _stored_actions(*, hand: Hand, state: HandState, plays: Iterable[PlayRow]) -> Iterable[Action]:
    """The hand's decisions in the order they were taken (R3.1, R3.5, R4)."""
    if hand.trump is None:
        return
    yield CallTrump(hand.hakem, Suit(hand.trump))
    discards = hand.discards or []
    # R3.5: the Hakem discards first, then the dealer.
    for seat in (state.hakem, state.dealer):
        if seat < len(discards) and discards[seat]:
            yield Discard(seat, tuple(Card.parse(text) for text in discards[seat]))
    for turn, keep in enumerate(hand.keep_first or []):
        yield KeepOrThrow(state.hakem if turn % 2 == 0 else state.dealer, keep)
    for seat, card in plays:
        yield PlayCard(seat, Card.parse(card))


def _stored_result(hand: Hand, *, next_hakem: int) -> HandResult:
    # Only a hand before the current one, so a finished hand, has a result.
    assert hand.winner_side is not None and hand.points is not None, "a finished hand"
    return HandResult(
        tricks_won=tuple(hand.tricks_won),
        winner=hand.winner_side,
        points=hand.points,
        kot=hand.kot,
        hakem_kot=hand.hakem_kot,
        next_hakem=next_hakem,
    )


# -- Court Piece (R9): a deal is a Hand row, its caller in ``hakem`` -----------------------------


def court_piece_options(match: Match) -> CourtPieceOptions:
    """The match's table settings (R9.11), as stored in :attr:`Match.options`."""
    return CourtPieceOptions.from_json(match.options or {})


def dealer_draw_from_json(data: Any, options: CourtPieceOptions) -> DealerDraw | None:
    """The :class:`DealerDraw` stored as ``DealerDraw.to_json()`` in :attr:`Match.hakem_draw`."""
    if data is None:
        return None
    cards = tuple(Card.parse(text) for text in data["cards"])
    return DealerDraw(int(data["first_seat"]), cards, options.ace_caller)


def court_piece_deals(*, match: Match, hands: list[Hand] | None = None) -> list[CourtPieceDeal]:
    """Every deal of a court-piece match as the engine replays it from the rows: two queries."""
    if hands is None:
        hands = list(Hand.objects.filter(match=match).order_by("number"))
    options = court_piece_options(match)
    plays: dict[int, list[PlayRow]] = defaultdict(list)
    rows = (
        CardPlay.objects.filter(hand__match=match)
        .order_by("hand__number", "trick__number", "order")
        .values_list("hand_id", "seat", "card")
    )
    for hand_id, seat, card in rows:
        plays[hand_id].append((seat, card))
    return [court_deal_build(hand=hand, options=options, plays=plays[hand.pk]) for hand in hands]


def court_piece_state_build(*, match: Match, hands: list[Hand]) -> CourtPieceMatch:
    """The court-piece match at its current deal, every deal replayed (R9.7 to R9.9 scored)."""
    options = court_piece_options(match)
    deals = court_piece_deals(match=match, hands=hands)
    summaries: list[DealSummary] = []
    for deal in deals:
        if deal.result is not None:
            last = summaries[-1] if summaries else None
            summaries.append(
                summarise(
                    deal,
                    last.streak if last else Streak(),
                    last.scores if last else (0, 0),
                )
            )
    return CourtPieceMatch(
        options=options,
        target=match.target,
        max_deals=match.max_deals,
        seed=match.seed,
        draw=dealer_draw_from_json(match.hakem_draw, options),
        summaries=tuple(summaries),
        deal=deals[-1],
        deal_seed=hands[-1].seed,
    )


def court_deal_build(
    *, hand: Hand, options: CourtPieceOptions, plays: Iterable[PlayRow]
) -> CourtPieceDeal:
    """A deal rebuilt from its row and plays: the call or indicator, the reveal at the trick and
    seat it was asked at (R9.14.2), and every card in order."""
    deck = deck_from_text(hand.deck)
    indicator = Card.parse(hand.indicator) if hand.indicator else None
    blind = options.hidden_trump is HiddenTrump.BLIND
    pick = deck[:5].index(indicator) if blind and indicator in deck[:5] else 0
    deal = new_deal(options, dealer=hand.dealer, deck=deck, blind_pick=pick)
    if deal.phase.value == "call":
        if options.hidden_trump is HiddenTrump.CHOSEN:
            if indicator is not None:
                deal = deal_apply(deal, ChooseIndicator(deal.caller, indicator))
        elif hand.trump is not None:
            deal = deal_apply(deal, CallTrump(deal.caller, Suit(hand.trump)))
    reveal = hand.reveal
    for seat, card in plays:
        deal = _reveal_if_due(deal, reveal)
        deal = deal_apply(deal, PlayCard(seat, Card.parse(card)))
    return _reveal_if_due(deal, reveal)


def _reveal_if_due(deal: CourtPieceDeal, reveal: dict[str, int] | None) -> CourtPieceDeal:
    """Ask for trump where the row says it was asked, unless the engine revealed by itself."""
    if (
        reveal is None
        or deal.revealed
        or deal.to_act != reveal["seat"]
        or len(deal.tricks) != reveal["trick"]
    ):
        return deal
    return deal_apply(deal, RevealTrump(reveal["seat"]))
