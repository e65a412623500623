"""Small builders for engine tests: exact deals written as card texts."""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.engine import (
    CallTrump,
    HandState,
    MatchState,
    Phase,
    PlayCard,
    Suit,
    Variant,
    apply,
    deal_deck,
    deck_from_deal,
    legal_actions,
    match_apply,
    match_legal_actions,
    new_hand,
    next_hand,
    parse_cards,
)


def cards(text: str) -> list:
    """``cards("AS KS 2D")``."""
    return parse_cards(text.split())


def dealt_hand(
    variant: Variant, *, hakem: int, holdings: Sequence[str], trump: str, rest: str = ""
) -> HandState:
    """A hand whose seats hold exactly these cards, trump already called by the Hakem."""
    seats = [cards(text) for text in holdings]
    deck = deck_from_deal(
        variant, hakem=hakem, first5=seats[hakem][:5], holdings=seats, rest=cards(rest)
    )
    state = new_hand(variant, hakem=hakem, deck=deck)
    return apply(state, CallTrump(hakem, Suit(trump)))


def seeded_hand(variant: Variant, seed: int) -> HandState:
    """A new hand of ``variant`` dealt from ``seed``, the Hakem's seat turning with the seed."""
    return new_hand(variant, hakem=seed % variant.players, deck=deal_deck(variant, seed))


def play(state: HandState, *texts: str) -> HandState:
    """Play cards in order, each by the seat on turn."""
    for text in texts:
        state = apply(state, PlayCard(state.to_act, cards(text)[0]))
    return state


def seat_may_see(state: HandState, seat: int | None) -> set[str]:
    """R8.3: the cards ``seat`` may see now (``None``: a spectator, the cards played only): its
    own cards, the cards played, its own discards, the stock card on its own draw turn."""
    allowed = set(state.played)
    if seat is not None:
        allowed |= set(state.holdings[seat]) | set(state.discards[seat])
        if state.phase is Phase.DRAW and state.to_act == seat and state.stock_top is not None:
            allowed.add(state.stock_top)
    return {card.text for card in allowed}


def random_hand_action(state: HandState, rng: random.Random):
    return rng.choice(legal_actions(state))


def play_random_match(match: MatchState, rng: random.Random, *, on_step=None) -> MatchState:
    """Play a match to its end with random legal actions; ``on_step(match)`` after each."""
    while not match.is_over:
        if match.hand.is_over:
            match = next_hand(match)
        match = match_apply(match, rng.choice(match_legal_actions(match)))
        if on_step is not None:
            on_step(match)
    return match
