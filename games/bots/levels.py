"""The four levels (and the duel-only players): who decides, and how hard each one searches.

- ``random``: any legal action (duels only: the floor of the strength table).
- ``easy``: the greedy baseline, but about one decision in three is a random legal one.
- ``medium``: the greedy baseline (``games.bots.greedy``); ``greedy`` is its duel name.
- ``hard``: determinized search with few deals, card play only (the greedy baseline calls trump
  and makes the hokm2-draw decisions), no endgame solver.
- ``expert``: the full search: many deals, the trump call read as evidence and the opponents'
  cards read from their plays, its own side's later cards explored, the exact endgame solver,
  the trump call and the draw searched too, and the match score in view.

Every player is deterministic: its randomness is seeded from the view, so the same view gives
the same action (unless a deadline cuts a search short, which the time limits leave for slow
machines only).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Mapping
from typing import Any

from games.engine import Action, action_from_json

from .greedy import NoDecisionError, greedy_action
from .search import SearchSettings, search_action

#: Chance that the easy player makes a random decision instead of the greedy one.
EASY_MISTAKE_RATE = 0.35

SEARCH_SETTINGS: dict[str, SearchSettings] = {
    "hard": SearchSettings(samples=32, round_size=32),
    "expert": SearchSettings(
        samples=320,
        round_size=64,
        solve_tricks=4,
        evidence=True,
        search_bidding=True,
        match_aware=True,
        smart_leads=True,
        mistake=0.05,
        pool_factor=8,
        margin_weight=0.2,
        reading=True,
        explore_copies=8,
        explore_rate=0.25,
    ),
}


def view_rng(view: Mapping[str, Any], level: str) -> random.Random:
    """A random generator seeded from the view itself: the same view, the same choices."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.blake2b(f"{level}:{text}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def random_action(view: Mapping[str, Any], rng: random.Random) -> Action:
    legal = [action_from_json(data) for data in view.get("legal") or ()]
    if not legal:
        raise NoDecisionError(f"seat {view.get('seat')} has nothing to decide")
    return rng.choice(legal)


def decide(
    view: Mapping[str, Any], *, level: str, match: Mapping[str, Any] | None, time_limit: float
) -> Action:
    started = time.perf_counter()
    # greedy_action and random_action take either family's view; the search is each family's.
    if level in ("medium", "greedy"):
        return greedy_action(view)
    rng = view_rng(view, level)
    if level == "random":
        return random_action(view, rng)
    if level == "easy":
        if rng.random() < EASY_MISTAKE_RATE:
            return random_action(view, rng)
        return greedy_action(view)
    search, settings = search_action, SEARCH_SETTINGS
    if view.get("variant") == "court-piece":
        # Imported here: Court Piece's search builds on this module's players.
        from .court_piece import COURT_PIECE_SEARCH_SETTINGS, court_piece_search_action

        search, settings = court_piece_search_action, COURT_PIECE_SEARCH_SETTINGS
    return search(
        view,
        settings=settings[level],
        match=match,
        deadline=started + time_limit,
        rng=rng,
    )
