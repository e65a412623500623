"""Computer players. Pure Python like the engine (no Django import): each decides from a seat's
view, ``games.engine.view(state, seat)``, and nothing else, so it sees only what that seat may see
(R8.3). ``docs/bots.md`` describes them.

    >>> from games.engine import HOKM4, deal_deck, new_hand, view
    >>> state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 7))
    >>> bot_action(view(state, 0), level="medium")
    CallTrump(seat=0, suit=<Suit.DIAMONDS: 'D'>)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.engine import Action

from .greedy import NoDecisionError, greedy_action

#: The levels a table or seat can choose (``games.models.ComputerLevel``) and who plays each.
#: Only "medium", the greedy baseline, is built so far; "easy", "hard" and "expert" play exactly
#: as greedy until a later issue builds them, so they are neither weaker nor stronger yet.
PLAYERS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "easy": greedy_action,
    "medium": greedy_action,
    "hard": greedy_action,
    "expert": greedy_action,
}

#: The level that plays for a player whose clock ran out or who is away (R8.1).
DEFAULT_LEVEL = "medium"


class UnknownLevelError(ValueError):
    def __init__(self, level: object) -> None:
        self.level = level
        super().__init__(f"unknown computer level {level!r} (known: {', '.join(PLAYERS)})")


def bot_action(view: Mapping[str, Any], *, level: str) -> Action:
    """The action of the computer player of ``level`` for the seat whose view this is.

    ``view`` is ``games.engine.view(state, seat)`` for the seat on turn. Every level is the greedy
    baseline for now ("easy", "hard" and "expert" included: a later issue builds them). Raises
    :class:`UnknownLevelError` for an unknown level and :class:`NoDecisionError` when the seat has
    nothing to decide.
    """
    player = PLAYERS.get(level)
    if player is None:
        raise UnknownLevelError(level)
    return player(view)


__all__ = [
    "DEFAULT_LEVEL",
    "PLAYERS",
    "NoDecisionError",
    "UnknownLevelError",
    "bot_action",
    "greedy_action",
]
