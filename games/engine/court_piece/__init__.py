"""Court Piece / Rang (R9): a pure, seeded state machine beside the Hokm engine.

    >>> from games.engine.court_piece import CourtPieceOptions, new_court_piece_match
    >>> match = new_court_piece_match(CourtPieceOptions(), seed=1, target=1)

Registered in ``VARIANTS`` as ``court-piece``; ``games.engine.game`` drives it beside Hokm.
"""

from .actions_json import court_piece_action_json
from .deal import (
    CourtPieceAction,
    CourtPieceDeal,
    CourtTrick,
    DealOutcome,
    DealPhase,
    DealResult,
    Reveal,
    deal_apply,
    deal_legal_actions,
    deck_from_court_deal,
    default_call,
    new_deal,
    playable_cards,
    side_of,
    trick_winner_index,
)
from .match import (
    DEFAULT_TARGET,
    CourtPieceMatch,
    DealerDraw,
    DealSummary,
    Streak,
    check_dealer_draw,
    court_piece_apply,
    court_piece_legal_actions,
    deal_seed,
    draw_dealer,
    match_winner,
    new_court_piece_match,
    next_deal,
    summarise,
)
from .options import NAME, CourtPieceOptions, HiddenTrump, OptionsError
from .record import (
    build_court_piece_record,
    check_court_piece_record,
    deal_record,
    replay_court_piece_record,
)
from .view import court_piece_match_view, court_piece_view, deal_result_json, summary_json

__all__ = [
    "CourtPieceAction",
    "CourtPieceDeal",
    "CourtPieceMatch",
    "CourtPieceOptions",
    "CourtTrick",
    "DEFAULT_TARGET",
    "DealOutcome",
    "DealPhase",
    "DealResult",
    "DealSummary",
    "DealerDraw",
    "HiddenTrump",
    "NAME",
    "OptionsError",
    "Reveal",
    "Streak",
    "build_court_piece_record",
    "check_court_piece_record",
    "check_dealer_draw",
    "court_piece_action_json",
    "court_piece_apply",
    "court_piece_legal_actions",
    "court_piece_match_view",
    "court_piece_view",
    "deal_apply",
    "deal_legal_actions",
    "deal_record",
    "deal_result_json",
    "deal_seed",
    "deck_from_court_deal",
    "default_call",
    "draw_dealer",
    "match_winner",
    "new_court_piece_match",
    "new_deal",
    "next_deal",
    "playable_cards",
    "replay_court_piece_record",
    "side_of",
    "summarise",
    "summary_json",
    "trick_winner_index",
]
