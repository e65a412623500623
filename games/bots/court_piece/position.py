"""What one seat sees of a Court Piece deal, read from its view and nothing else (R9.15, R8.3).

``games.engine.court_piece.court_piece_view(deal, seat)`` (or its JSON round trip) is the only
input. The trump is known to the seat once it is announced or revealed, and to the caller under
``hidden_trump=chosen`` from his own indicator (R9.14.1); under Double Sir finished tricks lie
face down (their cards are ``None``), but who won and who collected each trick is public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Card, CourtPieceOptions, HiddenTrump, Suit, parse_cards

PLAYERS = 4
TRICKS = 13
#: R9.6.1: the chase is decided by the first 7 tricks.
COURT_TRICKS = 7


@dataclass(frozen=True)
class SeenTrick:
    """A finished trick as the view shows it: the cards are ``None`` once face down."""

    leader: int
    cards: tuple[Card, ...] | None
    winner: int
    collected_by: int | None


@dataclass(frozen=True)
class Position:
    """One seat's knowledge of a deal, as its view gives it."""

    options: CourtPieceOptions
    seat: int
    caller: int
    dealer: int
    phase: str
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    #: The trump as this seat knows it (None when it does not).
    trump: Suit | None
    #: The indicator card when this seat sees it (the caller under ``chosen``, or revealed).
    indicator: Card | None
    #: R9.14.2: the trick (zero-based) and the seat of the reveal, when trump is revealed.
    reveal_trick: int | None
    reveal_seat: int | None
    tricks: tuple[SeenTrick, ...]
    leader: int
    current: tuple[Card, ...]
    pile: int
    tricks_won: tuple[int, ...]
    collected: tuple[int, ...]

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Position:
        options = CourtPieceOptions.from_json(view["options"])
        indicator = view.get("indicator") or {}
        reveal = indicator.get("reveal")
        return cls(
            options=options,
            seat=view["seat"],
            caller=view["caller"],
            dealer=view["dealer"],
            phase=view["phase"],
            hand=tuple(parse_cards(view.get("hand") or ())),
            hand_counts=tuple(view["hand_counts"]),
            trump=Suit(view["trump"]) if view.get("trump") else None,
            indicator=Card.parse(indicator["card"]) if indicator.get("card") else None,
            reveal_trick=reveal["trick"] if reveal else None,
            reveal_seat=reveal["seat"] if reveal else None,
            tricks=tuple(
                SeenTrick(
                    leader=trick["leader"],
                    cards=None if trick["cards"] is None else tuple(parse_cards(trick["cards"])),
                    winner=trick["winner"],
                    collected_by=trick.get("collected_by"),
                )
                for trick in view["tricks"]
            ),
            leader=view["trick"]["leader"],
            current=tuple(parse_cards(view["trick"]["cards"])),
            pile=view.get("pile") or 0,
            tricks_won=tuple(view["tricks_won"]),
            collected=tuple(view.get("collected") or (0, 0, 0, 0)),
        )

    # -- the table's state --------------------------------------------------------------------

    @property
    def hidden(self) -> bool:
        return self.options.hidden

    @property
    def revealed(self) -> bool:
        """Trump is public: there is no hidden trump, or it has been revealed (R9.14.2)."""
        return not self.hidden or self.reveal_trick is not None

    @property
    def played(self) -> int:
        """Tricks finished."""
        return len(self.tricks)

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.current)) % PLAYERS

    @property
    def led(self) -> Suit | None:
        return self.current[0].suit if self.current else None

    @property
    def dealing_side(self) -> int:
        return self.dealer % 2

    @property
    def chase_side(self) -> int | None:
        """R9.6.1: the side that won each of the first 7 tricks, once 7 are played (no chase
        under Double Sir, R9.12.6)."""
        if self.options.double_sir or self.played < COURT_TRICKS:
            return None
        sides = {trick.winner % 2 for trick in self.tricks[:COURT_TRICKS]}
        return sides.pop() if len(sides) == 1 else None

    def reveal_index(self, trick: int, leader: int) -> int | None:
        """Where in trick ``trick`` (led by ``leader``) the reveal came: the index of the first
        card played after it, 0 for a trick after the reveal's, None before it."""
        if self.reveal_trick is None or self.reveal_seat is None or trick < self.reveal_trick:
            return None
        if trick > self.reveal_trick:
            return 0
        return (self.reveal_seat - leader) % PLAYERS

    def counted(self, trick: int, leader: int, cards: Sequence[Card]) -> list[bool]:
        """R9.14.5: which cards of a trick count as trumps (None of them while this seat does not
        know the trump: before the reveal only a led trump suit counts, and the highest card of
        the suit led wins the trick either way)."""
        if self.trump is None or not cards:
            return [False] * len(cards)
        if not self.hidden:
            return [card.suit == self.trump for card in cards]
        led_trump = cards[0].suit == self.trump
        after = self.reveal_index(trick, leader)
        return [
            card.suit == self.trump and (led_trump or (after is not None and i >= after))
            for i, card in enumerate(cards)
        ]

    def current_counted(self) -> list[bool]:
        return self.counted(self.played, self.leader, self.current)

    def visible_tricks(self) -> list[tuple[int, SeenTrick]]:
        """The finished tricks whose cards this seat sees, with their numbers."""
        return [(i, t) for i, t in enumerate(self.tricks) if t.cards is not None]


def winner_index(cards: Sequence[Card], counted: Sequence[bool]) -> int:
    """R4.3 with R9.14.5: the highest card counted as a trump, else the highest of the suit
    led (``games.engine.court_piece.trick_winner_index``, for a trick still being played)."""
    candidates = [i for i in range(len(cards)) if counted[i]]
    if not candidates:
        candidates = [i for i in range(len(cards)) if cards[i].suit == cards[0].suit]
    return max(candidates, key=lambda i: cards[i].rank)


def is_court_piece(view: Mapping[str, Any]) -> bool:
    """The view is of a Court Piece deal (``court_piece_view``), not of a Hokm hand."""
    return view.get("variant") == "court-piece"


def chosen(options: CourtPieceOptions) -> bool:
    return options.hidden_trump is HiddenTrump.CHOSEN
