"""Per-seat views of Court Piece (R9.15, R8.3): the only way its state leaves the engine.

Nobody sees the indicator before its reveal except the caller under ``chosen`` (under ``blind``
not even he); under Double Sir finished tricks lie face down, but who won and who collected each
is public. ``seat=None`` is a spectator, who sees no hand.
"""

from __future__ import annotations

from typing import Any

from ..cards import cards_text
from ..view import RevealError
from .actions_json import court_piece_action_json
from .deal import CourtPieceDeal, DealResult, deal_legal_actions, face_down_count
from .match import CourtPieceMatch, DealSummary
from .options import PLAYERS, HiddenTrump


def court_piece_view(
    state: CourtPieceDeal, seat: int | None, *, reveal: bool = False
) -> dict[str, Any]:
    """What ``seat`` may see of a deal; ``None`` for a spectator. ``reveal=True`` (every
    holding as dealt) is refused until the deal is over."""
    if seat is not None and not 0 <= seat < PLAYERS:
        raise ValueError(f"no seat {seat} in court-piece")
    if reveal and not state.is_over:
        raise RevealError("a deal is revealed only once it is over")
    sees_indicator = state.revealed or (
        state.options.hidden_trump is HiddenTrump.CHOSEN and seat == state.caller
    )
    sees_trump = state.trump_known or (sees_indicator and state.trump is not None)
    face_down = 0 if reveal else face_down_count(state)
    data: dict[str, Any] = {
        "variant": "court-piece",
        # The table's settings are public, and a computer player deciding from this view alone
        # needs them (``games.bots``).
        "options": state.options.to_json(),
        "seat": seat,
        "phase": state.phase.value,
        "to_act": state.to_act,
        "dealer": state.dealer,
        "caller": state.caller,
        "trump": state.trump.value if sees_trump and state.trump else None,
        "indicator": {
            "laid": state.indicator is not None,
            "card": state.indicator.text if sees_indicator and state.indicator else None,
            "reveal": _reveal_json(state),
        }
        if state.options.hidden
        else None,
        "hand_counts": [len(h) for h in state.holdings],
        "tricks": [
            {
                "leader": t.leader,
                # Under Double Sir a trick goes face down to the pile (R9.15.1) once the next
                # is led: until then it lies in the middle as everyone saw it played.
                "cards": None if number < face_down else cards_text(t.cards),
                "winner": t.winner,
                "collected_by": t.collected_by,
            }
            for number, t in enumerate(state.tricks)
        ],
        "trick": {"leader": state.leader, "cards": cards_text(state.current)},
        "pile": len(state.pile) if state.options.double_sir else None,
        "tricks_won": list(state.tricks_won),
        "collected": list(state.collected) if state.options.double_sir else None,
        "side_tricks": list(state.side_tricks()),
        "result": deal_result_json(state.result) if state.result else None,
    }
    if seat is not None:
        # Before the call only the caller holds cards (R9.4.2); the indicator is never in a hand.
        data["hand"] = cards_text(state.holdings[seat])
        legal = deal_legal_actions(state) if state.to_act == seat else []
        data["legal"] = [court_piece_action_json(a) for a in legal]
    if reveal:
        data["revealed"] = _revealed(state)
    return data


def _reveal_json(state: CourtPieceDeal) -> dict[str, int] | None:
    return {"trick": state.reveal.trick, "seat": state.reveal.seat} if state.reveal else None


def _revealed(state: CourtPieceDeal) -> dict[str, Any]:
    played_by: list[list[str]] = [[] for _ in range(PLAYERS)]
    for trick in state.tricks:
        for index, card in enumerate(trick.cards):
            played_by[trick.seat_of(index)].append(card.text)
    cards = [played_by[s] + cards_text(state.holdings[s]) for s in range(PLAYERS)]
    if state.indicator is not None and not state.revealed:
        cards[state.caller].append(state.indicator.text)
    return {
        "first5": cards_text(state.first5),
        "indicator": state.indicator.text if state.indicator else None,
        "cards": cards,
    }


def deal_result_json(result: DealResult) -> dict[str, Any]:
    return {
        "tricks_won": list(result.tricks_won),
        "collected": list(result.collected) if result.collected is not None else None,
        "side_tricks": list(result.side_tricks),
        "winner": result.winner,
        "result": result.outcome.value,
        "goon": result.goon,
        "courts": result.courts,
    }


def summary_json(summary: DealSummary) -> dict[str, Any]:
    return {
        "dealer": summary.dealer,
        "caller": summary.caller,
        **deal_result_json(summary.result),
        "courts": summary.courts,
        "streak_court": summary.streak_court,
        "streak": {"side": summary.streak.side, "count": summary.streak.count},
        "score": list(summary.scores),
        "next_dealer": summary.next_dealer,
        "next_caller": summary.next_caller,
    }


def court_piece_match_view(match: CourtPieceMatch, seat: int | None) -> dict[str, Any]:
    """A seat's view of the match: courts, target, streak, the public draw, the current deal."""
    return {
        "variant": "court-piece",
        "options": match.options.to_json(),
        "target": match.target,
        "max_deals": match.max_deals,
        "scores": list(match.scores),
        "streak": {"side": match.streak.side, "count": match.streak.count},
        "winner": match.winner,
        "over": match.is_over,
        "deal_number": match.deal_number,
        "draw": match.draw.to_json() if match.draw else None,
        "results": [summary_json(s) for s in match.summaries],
        "deal": court_piece_view(match.deal, seat),
    }
