"""The search settings of the levels for Court Piece: the same players as Hokm's, chosen by
``games.bots.levels.decide``, which runs Court Piece's search with these settings.

- ``random``: any legal action; ``easy``: the greedy baseline with about one decision in three
  a random legal one; ``medium`` (``greedy``): the Court Piece greedy baseline.
- ``hard``: determinized search with few deals, card play and asking for trump only (the
  greedy baseline calls and lays the indicator), no endgame solver.
- ``expert``: many deals weighed by the call, the opponents' cards read from their plays where
  the play is Hokm's (no hidden trump, no Double Sir), its own side's later cards explored, the
  exact endgame solver, the call and the indicator searched, the match score and streak in view.
"""

from __future__ import annotations

from ..search import SearchSettings

COURT_PIECE_SEARCH_SETTINGS: dict[str, SearchSettings] = {
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
