"""Per-seat views: the only way game state leaves the engine (R8.3).

``view(state, seat)`` holds what that seat may see and nothing else: its own cards, the cards
played, the public facts of the hand. ``seat=None`` is a spectator, who sees no hand at all. Both
the HTML pages and the JSON protocol render these dictionaries, so they cannot disagree about what a
seat may see. Every value is JSON-ready (cards in R1.2 notation).
"""

from __future__ import annotations

from typing import Any

from .actions import to_json
from .cards import cards_text
from .hand import HandResult, HandState, Phase, legal_actions
from .match import MatchState

SPECTATOR = None


class RevealError(ValueError):
    """Asked to reveal the hands of a hand that is not over (R8.3)."""


def view(state: HandState, seat: int | None, *, reveal: bool = False) -> dict[str, Any]:
    """What ``seat`` may see of a hand; ``None`` for a spectator.

    ``reveal=True`` shows every holding as dealt, and is refused until the hand is over (R8.3:
    finished hands become fully visible in history and replay; the caller decides when).
    """
    if seat is not None and not 0 <= seat < state.players:
        raise ValueError(f"no seat {seat} in {state.variant.name}")
    if reveal and not state.is_over:
        raise RevealError("a hand is revealed only once it is over")
    to_act = state.to_act
    data: dict[str, Any] = {
        "variant": state.variant.name,
        "players": state.players,
        "seat": seat,
        "phase": state.phase.value,
        "to_act": to_act,
        "hakem": state.hakem,
        "dealer": state.dealer,
        "trump": state.trump.value if state.trump else None,
        "hand_counts": [len(h) for h in state.holdings],
        "tricks": [
            {"leader": t.leader, "cards": cards_text(t.cards), "winner": t.winner}
            for t in state.tricks
        ],
        "trick": {"leader": state.leader, "cards": cards_text(state.current)},
        "tricks_won": list(state.tricks_won),
        "side_tricks": list(state.side_tricks()),
        "result": result_json(state.result) if state.result else None,
    }
    if seat is not None:
        data["hand"] = cards_text(state.holdings[seat])
        data["legal"] = [to_json(a) for a in legal_actions(state)] if to_act == seat else []
    if state.variant.has_draw:
        data["draw"] = _draw_view(state, seat)
    if reveal:
        data["revealed"] = _revealed(state)
    return data


def _draw_view(state: HandState, seat: int | None) -> dict[str, Any]:
    """R3.5: the stock's size and the discards' count are public; a seat sees its own discards,
    and the top card only while it is that seat's turn to look at it."""
    own_turn = state.phase is Phase.DRAW and state.to_act == seat
    top = state.stock_top
    return {
        "turn": state.draw_turn,
        "stock_left": state.stock_left,
        "discard_counts": [len(d) for d in state.discards],
        "own_discards": cards_text(state.discards[seat]) if seat is not None else [],
        "top": top.text if own_turn and top else None,
    }


def _revealed(state: HandState) -> dict[str, Any]:
    """Every seat's cards as they were when play began, and the cards no one held."""
    played_by: list[list[str]] = [[] for _ in range(state.players)]
    for trick in state.tricks:
        for index, card in enumerate(trick.cards):
            played_by[trick.seat_of(index, state.players)].append(card.text)
    data: dict[str, Any] = {
        "first5": cards_text(state.first5),
        "cards": [played_by[s] + cards_text(state.holdings[s]) for s in range(state.players)],
    }
    if state.variant.has_draw:
        data["dealer5"] = cards_text(state.dealer5)
        data["discards"] = [cards_text(d) for d in state.discards]
    return data


def result_json(result: HandResult) -> dict[str, Any]:
    return {
        "tricks_won": list(result.tricks_won),
        "winner": result.winner,
        "points": result.points,
        "kot": result.kot,
        "hakem_kot": result.hakem_kot,
        "next_hakem": result.next_hakem,
    }


def match_view(match: MatchState, seat: int | None) -> dict[str, Any]:
    """A seat's view of the whole match: score, target, the public draw, and the current hand."""
    return {
        "variant": match.variant.name,
        "target": match.target,
        "scores": list(match.scores),
        "winner": match.winner,
        "over": match.is_over,
        "hand_number": match.hand_number,
        "draw": match.draw.to_json() if match.draw else None,
        "results": [result_json(r) for r in match.results],
        "hand": view(match.hand, seat),
    }
