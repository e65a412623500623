"""The wire form of Court Piece actions. The Hokm ``to_json`` is left as it is, so nothing of
the Hokm protocol changes until the variant is registered."""

from __future__ import annotations

from typing import Any

from ..actions import CallTrump, ChooseIndicator, PlayCard, RevealTrump, to_json
from .deal import CourtPieceAction


def court_piece_action_json(action: CourtPieceAction) -> dict[str, Any]:
    """``{"type": "reveal_trump", "seat": 2}``, ``{"type": "choose_indicator", ...}``, or the
    Hokm shape for a call or a card."""
    if isinstance(action, ChooseIndicator):
        return {"type": action.kind, "seat": action.seat, "card": action.card.text}
    if isinstance(action, RevealTrump):
        return {"type": action.kind, "seat": action.seat}
    assert isinstance(action, CallTrump | PlayCard)
    return to_json(action)
