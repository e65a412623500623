"""Reads: engine states rebuilt exactly from the stored rows.

A hand is stored as its deal order and the decisions taken in it; replaying those decisions
through the engine gives back the very state the services validated against, so the rows never
hold a second, possibly diverging, copy of the rules' bookkeeping.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from games.engine import (
    Action,
    CallTrump,
    Card,
    Discard,
    HakemDraw,
    HandResult,
    HandState,
    KeepOrThrow,
    MatchState,
    PlayCard,
    Suit,
    Variant,
    apply,
    get_variant,
    new_hand,
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


def match_state_build(*, match: Match, hands: list[Hand] | None = None) -> MatchState:
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
    return HandResult(
        tricks_won=tuple(hand.tricks_won),
        winner=hand.winner_side,
        points=hand.points,
        kot=hand.kot,
        hakem_kot=hand.hakem_kot,
        next_hakem=next_hakem,
    )
