"""Computer players. Pure Python like the engine (no Django import): each decides from a seat's
view, ``games.engine.view(state, seat)``, and nothing else, so it sees only what that seat may see
(R8.3). ``docs/bots.md`` describes them.

    >>> from games.engine import HOKM4, deal_deck, new_hand, view
    >>> state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 7))
    >>> bot_action(view(state, 0), level="medium")
    CallTrump(seat=0, suit=<Suit.DIAMONDS: 'D'>)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine import Action

from .greedy import NoDecisionError, greedy_action

#: The levels a table or seat can choose (``games.models.ComputerLevel``), weakest first.
LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "expert")

#: Players that exist for measuring strength (``bot_duel``) but are not offered at a table.
DUEL_ONLY: tuple[str, ...] = ("random", "greedy")

#: The level that plays for a player whose clock ran out or who is away (R8.1).
DEFAULT_LEVEL = "medium"

#: Each level's hard limit on the time of one decision, in seconds (checked inside the search).
TIME_LIMITS: dict[str, float] = {
    "random": 0.0,
    "greedy": 0.0,
    "easy": 0.0,
    "medium": 0.0,
    "hard": 0.06,
    "expert": 0.22,
}


class UnknownLevelError(ValueError):
    def __init__(self, level: object) -> None:
        self.level = level
        known = ", ".join(LEVELS + DUEL_ONLY)
        super().__init__(f"unknown computer level {level!r} (known: {known})")


def bot_action(
    view: Mapping[str, Any],
    *,
    level: str,
    match: Mapping[str, Any] | None = None,
    time_limit: float | None = None,
) -> Action:
    """The action of the computer player of ``level`` for the seat whose view this is.

    ``view`` is ``games.engine.view(state, seat)`` for the seat on turn (or its JSON round trip).
    ``match`` holds the public match facts the search weighs, ``{"scores": [...], "target": n}``
    (the fields of ``games.engine.match_view``); without it the hand is played on its own.
    ``time_limit`` (seconds) overrides the level's :data:`TIME_LIMITS`. The same arguments always
    give the same action: any randomness is seeded from the view.

    Raises :class:`UnknownLevelError` for an unknown level and :class:`NoDecisionError` when the
    seat has nothing to decide.
    """
    if level not in TIME_LIMITS:
        raise UnknownLevelError(level)
    from .levels import decide

    limit = TIME_LIMITS[level] if time_limit is None else time_limit
    return decide(view, level=level, match=match, time_limit=limit)


__all__ = [
    "DEFAULT_LEVEL",
    "DUEL_ONLY",
    "LEVELS",
    "TIME_LIMITS",
    "NoDecisionError",
    "UnknownLevelError",
    "bot_action",
    "greedy_action",
]
