"""The greedy baseline for Court Piece: Hokm's greedy (``games.bots.greedy``) and two additions.

- The call (R9.4.3) is R3.6's suit of the first 5; under ``hidden_trump=chosen`` the indicator is
  the lowest card of that suit (R9.14.1), as the engine's ``default_call`` lays it for a caller
  out of time.
- Under hidden trump it asks for trump (``RevealTrump``) whenever it may and cannot follow suit
  (R9.14.2): a non-caller not leading, or the caller, holding no card of the suit led.

Cards are then played by Hokm's rules of thumb with the trump as this seat knows it (none while
hidden from it), and a card wins the trick only if R9.14.5 counts it: a trump-suit card played
before the reveal is an ordinary discard.

    >>> from games.engine import CourtPieceOptions, court_piece_view, new_court_piece_match
    >>> deal = new_court_piece_match(CourtPieceOptions(), seed=3).deal
    >>> court_piece_greedy_action(court_piece_view(deal, deal.caller))
    CallTrump(seat=1, suit=<Suit.SPADES: 'S'>)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import (
    Action,
    CallTrump,
    Card,
    ChooseIndicator,
    PlayCard,
    RevealTrump,
    action_from_json,
    default_trump,
    parse_cards,
)

from ..greedy import NoDecisionError, highest_key, lowest_key
from .position import PLAYERS, Position, winner_index


def court_piece_greedy_action(view: Mapping[str, Any]) -> Action:
    """The greedy baseline's action for the seat on turn, one of ``view["legal"]``."""
    legal = [action_from_json(data) for data in view.get("legal") or ()]
    if not legal:
        raise NoDecisionError(f"seat {view.get('seat')} has nothing to decide")
    first = legal[0]
    if isinstance(first, CallTrump | ChooseIndicator):
        return _one_of(legal, greedy_call(first.seat, parse_cards(view["hand"][:5]), first))
    position = Position.from_view(view)
    if should_ask(position, legal):
        return RevealTrump(position.seat)
    cards = [action for action in legal if isinstance(action, PlayCard)]
    return greedy_card(position, cards)


def greedy_call(seat: int, first5: Sequence[Card], kind: Action) -> Action:
    """R9.4.3 / R9.14.1: R3.6's suit, or under ``chosen`` the lowest card of it."""
    suit = default_trump(first5)
    if isinstance(kind, ChooseIndicator):
        return ChooseIndicator(seat, min((c for c in first5 if c.suit == suit), key=_rank))
    return CallTrump(seat, suit)


def should_ask(position: Position, legal: Sequence[Action]) -> bool:
    """R9.14.2: reveal when allowed and unable to follow suit (never when leading)."""
    led = position.led
    if led is None or not any(isinstance(action, RevealTrump) for action in legal):
        return False
    # Before the reveal the indicator is not in the caller's hand (R9.14.3), nor in the view's.
    return not any(card.suit == led for card in position.hand)


def greedy_card(position: Position, legal: Sequence[PlayCard]) -> PlayCard:
    """Hokm's greedy card (docs/bots.md) with the trump this seat knows and R9.14.5's winners."""
    trump = position.trump

    def lowest(actions: Sequence[PlayCard]) -> PlayCard:
        return min(actions, key=lambda action: lowest_key(action.card, trump))

    played = list(position.current)
    if not played:
        non_trumps = [action for action in legal if action.card.suit != trump]
        return max(non_trumps or legal, key=lambda action: highest_key(action.card))
    counted = position.current_counted()
    best = winner_index(played, counted)
    if (position.leader + best) % PLAYERS == (position.seat + 2) % PLAYERS:
        return lowest(legal)
    position_in_trick = len(played)
    winning = [
        action
        for action in legal
        if winner_index([*played, action.card], [*counted, _counts(position, action.card)])
        == position_in_trick
    ]
    return lowest(winning or legal)


def _counts(position: Position, card: Card) -> bool:
    """Whether ``card`` played now would count as a trump (R9.14.5), as this seat knows."""
    if position.trump is None or card.suit != position.trump:
        return False
    return position.revealed or position.led == position.trump


def _rank(card: Card) -> int:
    return card.rank


def _one_of(legal: Sequence[Action], wanted: Action) -> Action:
    if wanted not in legal:  # cannot happen with an engine view; never play an illegal action
        raise NoDecisionError(f"{wanted!r} is not among the legal actions")
    return wanted


__all__ = ["court_piece_greedy_action", "greedy_call", "greedy_card", "should_ask"]
