"""The actions a seat can take, as small typed values.

Every action names the seat that takes it, so the engine itself refuses an action out of turn.
``to_json``/``action_from_json`` give the one wire shape used by records, the protocol and the bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card, CardTextError, Suit


@dataclass(frozen=True, slots=True)
class CallTrump:
    """R3.1: the Hakem names the trump suit from his first 5 cards."""

    seat: int
    suit: Suit
    kind = "call_trump"


@dataclass(frozen=True, slots=True)
class Discard:
    """R3.5: the Hakem discards 3 of his first 5, the dealer 2 of his 5, face down."""

    seat: int
    cards: tuple[Card, ...]
    kind = "discard"


@dataclass(frozen=True, slots=True)
class KeepOrThrow:
    """R3.5: keep the top card of the stock (and throw the next) or throw it (and keep the next)."""

    seat: int
    keep: bool
    kind = "keep_or_throw"


@dataclass(frozen=True, slots=True)
class PlayCard:
    seat: int
    card: Card
    kind = "play_card"


@dataclass(frozen=True, slots=True)
class ChooseIndicator:
    """R9.14.1 (Court Piece, hidden trump ``chosen``): the caller lays one of his first 5 cards
    face down; its suit is trump."""

    seat: int
    card: Card
    kind = "choose_indicator"


@dataclass(frozen=True, slots=True)
class RevealTrump:
    """R9.14.2 (Court Piece, hidden trump): ask for trump (a seat that cannot follow) or reveal
    it (the caller); the indicator is turned face up before the seat's card."""

    seat: int
    kind = "reveal_trump"


#: Every action of either family: Hokm's engine refuses the two of Court Piece, and Court
#: Piece's the discard and the draw (``games.engine.game.game_apply``).
Action = CallTrump | Discard | KeepOrThrow | PlayCard | ChooseIndicator | RevealTrump


class ActionFormatError(ValueError):
    """A wire message that is not an action."""


def to_json(action: Action) -> dict[str, Any]:
    """The wire form of an action, e.g. ``{"type": "play_card", "seat": 2, "card": "AS"}``."""
    data: dict[str, Any] = {"type": action.kind, "seat": action.seat}
    if isinstance(action, CallTrump):
        data["suit"] = action.suit.value
    elif isinstance(action, Discard):
        data["cards"] = [card.text for card in action.cards]
    elif isinstance(action, KeepOrThrow):
        data["keep"] = action.keep
    elif isinstance(action, PlayCard | ChooseIndicator):
        data["card"] = action.card.text
    return data


def action_from_json(data: object, *, seat: int | None = None) -> Action:
    """Parse the wire form; ``seat`` overrides the message's own (servers know who is speaking).

    Raises :class:`ActionFormatError` with a readable reason on anything malformed.
    """
    if not isinstance(data, dict):
        raise ActionFormatError("an action must be a JSON object")
    if seat is None:
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ActionFormatError("an action needs its seat as a whole number")
    kind = data.get("type")
    try:
        if kind == CallTrump.kind:
            suit = data.get("suit")
            if not isinstance(suit, str) or suit not in {s.value for s in Suit}:
                raise ActionFormatError("call_trump needs a suit: S, H, D or C")
            return CallTrump(seat, Suit(suit))
        if kind == Discard.kind:
            cards = data.get("cards")
            if not isinstance(cards, list):
                raise ActionFormatError("discard needs a list of cards")
            return Discard(seat, tuple(Card.parse(text) for text in cards))
        if kind == KeepOrThrow.kind:
            keep = data.get("keep")
            if not isinstance(keep, bool):
                raise ActionFormatError("keep_or_throw needs keep: true or false")
            return KeepOrThrow(seat, keep)
        if kind == PlayCard.kind:
            return PlayCard(seat, Card.parse(data.get("card")))
        if kind == ChooseIndicator.kind:
            return ChooseIndicator(seat, Card.parse(data.get("card")))
        if kind == RevealTrump.kind:
            return RevealTrump(seat)
    except CardTextError as error:
        raise ActionFormatError(str(error)) from error
    raise ActionFormatError(f"unknown action type {kind!r}")
