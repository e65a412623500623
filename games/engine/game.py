"""One face for both game families, so the site drives a match without asking which it is.

A Hokm match (:class:`~games.engine.match.MatchState`, R1 to R8) plays hands; a Court Piece match
(:class:`~games.engine.court_piece.CourtPieceMatch`, R9) plays deals. What the site does with
either (whose turn it is, apply an action, deal the next hand or deal, a seat's view, what a
computer player is told) is the same, and is asked here.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from .actions import Action, ChooseIndicator, RevealTrump
from .court_piece import (
    CourtPieceAction,
    CourtPieceDeal,
    CourtPieceMatch,
    court_piece_apply,
    court_piece_legal_actions,
    court_piece_match_view,
    court_piece_view,
    next_deal,
)
from .court_piece.deal import face_down_count
from .errors import IllegalActionError
from .hand import HandState
from .match import MatchState, match_apply, match_legal_actions, next_hand
from .view import match_view, view

GameState = MatchState | CourtPieceMatch
#: The hand (Hokm) or deal (Court Piece) being played.
Round = HandState | CourtPieceDeal


def is_court_piece(state: GameState) -> TypeGuard[CourtPieceMatch]:
    return isinstance(state, CourtPieceMatch)


def current_round(state: GameState) -> Round:
    return state.deal if isinstance(state, CourtPieceMatch) else state.hand


def to_act(state: GameState) -> int | None:
    """The seat that decides next, None between rounds and once the match is over."""
    if state.is_over or awaiting_next(state):
        return None
    return current_round(state).to_act


def awaiting_next(state: GameState) -> bool:
    """The round is decided and the match is not: the next hand or deal is to be dealt."""
    if isinstance(state, CourtPieceMatch):
        return state.awaiting_next_deal
    return state.awaiting_next_hand


def round_number(state: GameState) -> int:
    """Zero-based number of the current hand or deal."""
    if isinstance(state, CourtPieceMatch):
        return state.deal_number
    return state.hand_number


def game_legal_actions(state: GameState) -> list[Action]:
    if isinstance(state, CourtPieceMatch):
        return list(court_piece_legal_actions(state))
    return match_legal_actions(state)


def game_apply(state: GameState, action: Action) -> GameState:
    """The state after ``action``; raises an :class:`IllegalActionError` and changes nothing if
    the rules refuse it (an action of the other family included)."""
    if isinstance(state, CourtPieceMatch):
        if not isinstance(action, CourtPieceAction):
            raise IllegalActionError(
                f"{action.kind.replace('_', ' ')} is not part of court-piece", seat=action.seat
            )
        return court_piece_apply(state, action)
    if isinstance(action, ChooseIndicator | RevealTrump):
        raise IllegalActionError(
            f"{action.kind.replace('_', ' ')} is part of court-piece, not of Hokm", seat=action.seat
        )
    return match_apply(state, action)


def game_next(state: GameState) -> GameState:
    """Deal the next hand (R6) or deal (R9.9) from the match's seed."""
    if isinstance(state, CourtPieceMatch):
        return next_deal(state)
    return next_hand(state)


def round_seed(state: GameState) -> int | None:
    """The seed the current hand or deal was dealt from; None when given as a deck."""
    if isinstance(state, CourtPieceMatch):
        return state.deal_seed
    return state.hand_seed


def seat_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see of the current hand or deal (R8.3, R9.15)."""
    if isinstance(state, CourtPieceMatch):
        return court_piece_view(state.deal, seat)
    return view(state.hand, seat)


def game_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see of the whole match: the only way a match leaves the engine."""
    if isinstance(state, CourtPieceMatch):
        return court_piece_match_view(state, seat)
    return match_view(state, seat)


def bot_facts(state: GameState) -> dict[str, Any]:
    """The public match facts a computer player weighs besides its seat's view."""
    facts: dict[str, Any] = {"scores": list(state.scores), "target": state.target}
    if isinstance(state, CourtPieceMatch):
        facts["streak"] = {"side": state.streak.side, "count": state.streak.count}
        facts["max_deals"] = state.max_deals
    return facts


def face_down_tricks(state: GameState) -> frozenset[tuple[int, int]]:
    """(hand or deal number, trick) of the tricks lying face down now: under Court Piece's
    Double Sir, the finished tricks of the deal in play but the one just taken, until the next
    is led (R9.15.1). An event that named their cards as they were played must not name them
    again to a client that asks for the log later (a late spectator, a resync)."""
    if not isinstance(state, CourtPieceMatch):
        return frozenset()
    number = state.deal_number
    return frozenset((number, trick) for trick in range(face_down_count(state.deal)))
