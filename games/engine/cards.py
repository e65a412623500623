"""Cards, suits and their text notation (R1.1, R1.2).

A card is a small immutable tuple ``Card(rank, suit)`` so that it hashes, sorts and compares
cheaply: the engine, the record module and later the bots handle millions of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple


class Suit(StrEnum):
    """The four suits, valued by their letter in the text notation (R1.2)."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def singular(self) -> str:
        """``"spade"``: used in messages a player reads."""
        return _SUIT_WORDS[self][0]

    @property
    def plural(self) -> str:
        """``"spades"``."""
        return _SUIT_WORDS[self][1]

    @property
    def symbol(self) -> str:
        """``"♠"``: for interfaces."""
        return _SUIT_WORDS[self][2]

    def __str__(self) -> str:
        return self.value


_SUIT_WORDS = {
    Suit.SPADES: ("spade", "spades", "\u2660"),
    Suit.HEARTS: ("heart", "hearts", "\u2665"),
    Suit.DIAMONDS: ("diamond", "diamonds", "\u2666"),
    Suit.CLUBS: ("club", "clubs", "\u2663"),
}

#: Suits in the order a sorted hand shows them: alternating colours, as card players sort.
SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)

#: Ranks 2..14, ace high in every suit (R1.1).
RANKS: tuple[int, ...] = tuple(range(2, 15))
ACE = 14

_RANK_TEXT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T"}
_RANK_TEXT.update({11: "J", 12: "Q", 13: "K", 14: "A"})
_TEXT_RANK = {text: rank for rank, text in _RANK_TEXT.items()}
_RANK_NAMES = {11: "jack", 12: "queen", 13: "king", 14: "ace"}


class CardTextError(ValueError):
    """A card text that is not in the notation of R1.2."""

    def __init__(self, text: object) -> None:
        self.text = text
        super().__init__(
            f"{text!r} is not a card (write rank 2-9, T, J, Q, K, A then suit S, H, D, C)"
        )


class Card(NamedTuple):
    """One playing card. ``Card.parse("TD")`` is the ten of diamonds."""

    rank: int
    suit: Suit

    def __str__(self) -> str:
        return _TEXT_OF[self]

    @property
    def text(self) -> str:
        """The R1.2 notation, e.g. ``"AS"``."""
        # A table lookup: views and records turn hundreds of thousands of cards into text.
        return _TEXT_OF[self]

    @property
    def name(self) -> str:
        """``"ace of spades"``, ``"10 of diamonds"``."""
        return f"{_RANK_NAMES.get(self.rank, str(self.rank))} of {self.suit.plural}"

    @staticmethod
    def parse(text: object) -> Card:
        """Parse the R1.2 notation strictly; raises :class:`CardTextError`.

        >>> Card.parse("AS")
        Card(rank=14, suit=<Suit.SPADES: 'S'>)
        """
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise CardTextError(text)
        return card


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)
_TEXT_OF: dict[Card, str] = {card: _RANK_TEXT[card.rank] + card.suit.value for card in FULL_DECK}
_BY_TEXT: dict[str, Card] = {text: card for card, text in _TEXT_OF.items()}


def parse_cards(texts: Iterable[object]) -> list[Card]:
    """Parse a list of card texts; raises :class:`CardTextError` on the first bad one."""
    return [Card.parse(text) for text in texts]


def cards_text(cards: Iterable[Card]) -> list[str]:
    """The notation of each card, in order."""
    return [card.text for card in cards]


def sort_key(card: Card) -> tuple[int, int]:
    """Sort by suit (alternating colours), then rank high to low, as a hand is shown."""
    return (SUITS.index(card.suit), -card.rank)


def sorted_hand(cards: Iterable[Card], trump: Suit | None = None) -> list[Card]:
    """A hand sorted for display; the trump suit first when it is known."""

    def key(card: Card) -> tuple[int, int, int]:
        return (0 if card.suit == trump else 1, SUITS.index(card.suit), -card.rank)

    return sorted(cards, key=key)
