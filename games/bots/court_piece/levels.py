"""The levels for Court Piece: the same players as Hokm's (``games.bots.levels``), on R9.

- ``random``: any legal action; ``easy``: the greedy baseline with about one decision in three
  a random legal one; ``medium`` (``greedy``): the Court Piece greedy baseline.
- ``hard``: determinized search with few deals, card play and asking for trump only (the
  greedy baseline calls and lays the indicator), no endgame solver.
- ``expert``: many deals weighed by the call, the opponents' cards read from their plays where
  the play is Hokm's (no hidden trump, no Double Sir), its own side's later cards explored, the
  exact endgame solver, the call and the indicator searched, the match score and streak in view.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from games.engine import Action

from ..levels import EASY_MISTAKE_RATE, random_action, view_rng
from ..search import SearchSettings
from .greedy import court_piece_greedy_action
from .search import court_piece_search_action

SEARCH_SETTINGS: dict[str, SearchSettings] = {
    "hard": SearchSettings(samples=32, round_size=32),
    "expert": SearchSettings(
        samples=320,
        round_size=64,
        solve_tricks=3,
        evidence=True,
        search_bidding=True,
        match_aware=True,
        smart_leads=True,
        pool_factor=4,
        margin_weight=0.2,
        reading=True,
        explore_copies=8,
        explore_rate=0.25,
    ),
}


def court_piece_decide(
    view: Mapping[str, Any], *, level: str, match: Mapping[str, Any] | None, time_limit: float
) -> Action:
    started = time.perf_counter()
    if level in ("medium", "greedy"):
        return court_piece_greedy_action(view)
    rng = view_rng(view, level)
    if level == "random":
        return random_action(view, rng)
    if level == "easy":
        if rng.random() < EASY_MISTAKE_RATE:
            return random_action(view, rng)
        return court_piece_greedy_action(view)
    return court_piece_search_action(
        view,
        settings=SEARCH_SETTINGS[level],
        match=match,
        deadline=started + time_limit,
        rng=rng,
    )
