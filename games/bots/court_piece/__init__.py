"""Computer players for Court Piece / Rang (R9), beside Hokm's: the same levels, the same
inputs (a seat's view, ``games.engine.court_piece_view``, and the public match facts), reached
through ``games.bots.bot_action`` and ``games.bots.greedy_action``, which dispatch on
``view["variant"] == "court-piece"``. ``docs/bots.md`` describes how each level plays.
"""

from .greedy import court_piece_greedy_action
from .levels import court_piece_decide
from .position import is_court_piece

__all__ = ["court_piece_decide", "court_piece_greedy_action", "is_court_piece"]
