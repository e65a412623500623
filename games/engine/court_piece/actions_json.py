"""The wire form of Court Piece actions: the one shape of ``games.engine.actions.to_json``."""

from __future__ import annotations

from typing import Any

from ..actions import to_json
from .deal import CourtPieceAction


def court_piece_action_json(action: CourtPieceAction) -> dict[str, Any]:
    """``{"type": "reveal_trump", "seat": 2}``, ``{"type": "choose_indicator", ...}``, or the
    Hokm shape for a call or a card."""
    return to_json(action)
