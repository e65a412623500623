"""The greedy baseline (issue 3): the computer player that later, stronger players are measured
against. It follows the issue's wording exactly; ``docs/bots.md`` states the rules.

It decides from a seat's view alone (``games.engine.view(state, seat)``): the signature gives it
nothing else, so it cannot see a card its seat may not see (R8.3). It keeps no state between calls,
so the same view always gives the same action.

    >>> from games.engine import HOKM4, deal_deck, new_hand, view
    >>> state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 7))
    >>> greedy_action(view(state, 0))  # the call of R3.6 on the Hakem's first 5
    CallTrump(seat=0, suit=<Suit.DIAMONDS: 'D'>)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from games.engine import (
    Action,
    CallTrump,
    Card,
    Discard,
    KeepOrThrow,
    PlayCard,
    Suit,
    action_from_json,
    default_trump,
    get_variant,
    parse_cards,
    trick_winner_index,
)

#: Ties between equal ranks go to the suit first in this order (the issue's wording). It is not the
#: display order of ``games.engine.SUITS``.
TIE_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_TIE_INDEX = {suit: index for index, suit in enumerate(TIE_ORDER)}

#: R3.5 draw: a drawn card is kept when it is a trump or at least this rank (the jack).
KEEP_FROM_RANK = 11


class NoDecisionError(ValueError):
    """The view offers no legal action: the seat is not on turn, or the hand is over."""


def greedy_action(view: Mapping[str, Any]) -> Action:
    """The greedy baseline's action for the seat on turn, one of ``view["legal"]``.

    ``view`` is what ``games.engine.view(state, seat)`` returns for that seat (or its JSON round
    trip). Raises :class:`NoDecisionError` when the view has no legal action. A Court Piece
    view (``"variant": "court-piece"``) goes to its own baseline, ``games.bots.court_piece``.
    """
    if view.get("variant") == "court-piece":
        # Imported here: the Court Piece baseline builds on this module's helpers.
        from .court_piece import court_piece_greedy_action

        return court_piece_greedy_action(view)
    legal = [action_from_json(data) for data in view.get("legal") or ()]
    if not legal:
        raise NoDecisionError(f"seat {view.get('seat')} has nothing to decide")
    # The phase decides the kind of action: every legal action is of the first one's kind.
    first = legal[0]
    if isinstance(first, CallTrump):
        return _call(view, legal)
    if isinstance(first, Discard):
        return _discard(view, cast(list[Discard], legal))
    if isinstance(first, KeepOrThrow):
        return _keep_or_throw(view, cast(list[KeepOrThrow], legal))
    return _play(view, cast(list[PlayCard], legal))


def lowest_key(card: Card, trump: Suit | None) -> tuple[bool, int, int]:
    """Sort key of "lowest first": a non-trump before a trump, then rank, then ``TIE_ORDER``."""
    return (card.suit == trump, card.rank, _TIE_INDEX[card.suit])


def highest_key(card: Card) -> tuple[int, int]:
    """Key for ``max``: the highest rank; between equal ranks the suit first in ``TIE_ORDER``."""
    return (card.rank, -_TIE_INDEX[card.suit])


def _one_of(legal: Sequence[Action], wanted: Action) -> Action:
    if wanted not in legal:  # cannot happen with an engine view; never play an illegal action
        raise NoDecisionError(f"{wanted!r} is not among the legal actions")
    return wanted


def _call(view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
    # R3.1: at the call the Hakem holds exactly his first 5 cards.
    first5 = parse_cards(view["hand"][:5])
    return _one_of(legal, CallTrump(legal[0].seat, default_trump(first5)))


def _discard(view: Mapping[str, Any], legal: Sequence[Discard]) -> Action:
    """R3.5 (the issue leaves it open): discard the lowest cards by ``lowest_key``, which means
    the lowest non-trumps, and trumps only when there are not enough non-trumps."""
    trump = Suit(view["trump"])
    own: list[Card] = []
    for action in legal:
        own += [card for card in action.cards if card not in own]
    count = len(legal[0].cards)
    wanted = set(sorted(own, key=lambda card: lowest_key(card, trump))[:count])
    return next(action for action in legal if set(action.cards) == wanted)


def _keep_or_throw(view: Mapping[str, Any], legal: Sequence[KeepOrThrow]) -> Action:
    top = Card.parse(view["draw"]["top"])
    keep = top.suit == Suit(view["trump"]) or top.rank >= KEEP_FROM_RANK
    return _one_of(legal, KeepOrThrow(legal[0].seat, keep))


def _play(view: Mapping[str, Any], legal: Sequence[PlayCard]) -> Action:
    trump = Suit(view["trump"])
    trick = view["trick"]
    played = parse_cards(trick["cards"])

    def lowest(actions: Sequence[PlayCard]) -> PlayCard:
        return min(actions, key=lambda action: lowest_key(action.card, trump))

    if not played:
        # Leading: the highest non-trump; the highest trump when only trumps are left.
        non_trumps = [action for action in legal if action.card.suit != trump]
        return max(non_trumps or legal, key=lambda action: highest_key(action.card))
    if _partner_is_winning(view, played, trump):
        return lowest(legal)
    position = len(played)
    winning = [a for a in legal if trick_winner_index([*played, a.card], trump) == position]
    return lowest(winning or legal)


def _partner_is_winning(view: Mapping[str, Any], played: Sequence[Card], trump: Suit) -> bool:
    """Only with partnerships (R1.4: hokm4, partners opposite at seat + 2); in hokm3 and hokm2
    every player is alone."""
    variant = get_variant(view["variant"])
    if not variant.partnerships:
        return False
    players = variant.players
    leader: int = view["trick"]["leader"]
    seat: int = view["seat"]
    winner = (leader + trick_winner_index(played, trump)) % players
    return winner == (seat + 2) % players
