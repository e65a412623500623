"""Computer players for Court Piece / Rang (R9), beside Hokm's: the same levels, the same
inputs (a seat's view, ``games.engine.court_piece_view``, and the public match facts), reached
through ``games.bots.bot_action`` and ``games.bots.greedy_action``, which dispatch on
``view["variant"] == "court-piece"``. ``docs/bots.md`` describes how each level plays.
"""

from .greedy import court_piece_greedy_action
from .levels import COURT_PIECE_SEARCH_SETTINGS
from .position import is_court_piece
from .search import court_piece_search_action

__all__ = [
    "COURT_PIECE_SEARCH_SETTINGS",
    "court_piece_greedy_action",
    "court_piece_search_action",
    "is_court_piece",
]
