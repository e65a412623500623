"""Finding the first Hakem (R2.2 to R2.4) from a shuffle of its own (R2.6).

The same checks serve the live draw and the record checker, so a draw the site makes is a draw the
checker accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import ACE, FULL_DECK, Card
from .seeding import derive_seed, shuffled
from .variants import HakemDrawMethod, Variant


class DrawError(ValueError):
    """A Hakem draw that breaks its own rule."""


@dataclass(frozen=True, slots=True)
class HakemDraw:
    """The public flips of the first-Hakem draw.

    ``cards[i]`` was turned to seat ``(first_seat + i) % players`` (R2.2); for R2.4 the cards go in
    pairs to the two players alternately. With R2.3, ``partner_cards`` continue the flips for the
    partner, skipping the Hakem, and ``seating[new_seat]`` is the seat each player had before the
    re-seating, so that partners sit opposite.
    """

    method: HakemDrawMethod
    first_seat: int
    cards: tuple[Card, ...]
    hakem: int
    partner_cards: tuple[Card, ...] = ()
    partner_seats: tuple[int, ...] = ()
    seating: tuple[int, ...] = ()

    @property
    def partner_drawn(self) -> bool:
        return bool(self.seating)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "method": self.method.value,
            "first_seat": self.first_seat,
            "cards": [card.text for card in self.cards],
            "hakem": self.hakem,
        }
        if self.partner_drawn:
            data["partner_cards"] = [card.text for card in self.partner_cards]
            data["partner_seats"] = list(self.partner_seats)
            data["seating"] = list(self.seating)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HakemDraw:
        """The draw as :meth:`to_json` wrote it."""
        return cls(
            method=HakemDrawMethod(data["method"]),
            first_seat=data["first_seat"],
            cards=tuple(Card.parse(text) for text in data["cards"]),
            hakem=data["hakem"],
            partner_cards=tuple(Card.parse(text) for text in data.get("partner_cards", ())),
            partner_seats=tuple(data.get("partner_seats", ())),
            seating=tuple(data.get("seating", ())),
        )


def first_ace_hakem(cards: Sequence[Card], first_seat: int, players: int) -> int:
    """R2.2: the seat that received the first ace; raises :class:`DrawError` if the flips break
    the rule (an ace before the last card, no ace last, a repeated card)."""
    _check_flips(cards, first_seat, players)
    for index, card in enumerate(cards[:-1]):
        if card.rank == ACE:
            raise DrawError(f"the draw goes on after an ace ({card}, flip {index})")
    if cards[-1].rank != ACE:
        raise DrawError(f"the draw must stop at the first ace, and {cards[-1]} is not an ace")
    return (first_seat + len(cards) - 1) % players


def high_card_hakem(cards: Sequence[Card], first_seat: int, players: int = 2) -> int:
    """R2.4: pairs alternately from ``first_seat``; equal ranks flip again; the higher card of the
    last pair makes its receiver Hakem. Raises :class:`DrawError` on a broken draw."""
    _check_flips(cards, first_seat, players)
    if len(cards) % 2:
        raise DrawError("the draw for the higher card goes in pairs")
    pairs = [(cards[i], cards[i + 1]) for i in range(0, len(cards), 2)]
    for number, (a, b) in enumerate(pairs[:-1]):
        if a.rank != b.rank:
            raise DrawError(f"pair {number} ({a}, {b}) is not a tie, so the draw should stop there")
    a, b = pairs[-1]
    if a.rank == b.rank:
        raise DrawError(f"the last pair ({a}, {b}) is a tie, so the draw cannot stop there")
    return first_seat if a.rank > b.rank else (first_seat + 1) % players


def _check_flips(cards: Sequence[Card], first_seat: int, players: int) -> None:
    if not 0 <= first_seat < players:
        raise DrawError(f"first_seat must be a seat from 0 to {players - 1}")
    if not cards:
        raise DrawError("the draw has no cards")
    if len(set(cards)) != len(cards):
        raise DrawError("the draw turns the same card twice, but it comes from one shuffle")


def draw_hakem(variant: Variant, seed: int, *, partner_draw: bool = False) -> HakemDraw:
    """Make the first-Hakem draw of a match from its own shuffle (R2.6)."""
    deck = shuffled(FULL_DECK, derive_seed(seed, "hakem-draw"))
    first_seat = derive_seed(seed, "first-seat") % variant.players
    if variant.hakem_draw is HakemDrawMethod.HIGH_CARD:
        return _draw_high_card(variant, deck, first_seat, seed)
    ace_at = next(i for i, card in enumerate(deck) if card.rank == ACE)
    cards = tuple(deck[: ace_at + 1])
    hakem = first_ace_hakem(cards, first_seat, variant.players)
    if not (partner_draw and variant.partner_draw_allowed):
        return HakemDraw(HakemDrawMethod.FIRST_ACE, first_seat, cards, hakem)
    return _draw_partner(variant, deck, first_seat, cards, hakem)


def _draw_high_card(variant: Variant, deck: list[Card], first_seat: int, seed: int) -> HakemDraw:
    cards: list[Card] = []
    position, reshuffles = 0, 0
    while True:
        if position + 2 > len(deck):
            # 26 tied pairs in a row: a fresh shuffle of its own continues the draw.
            reshuffles += 1
            deck = shuffled(FULL_DECK, derive_seed(seed, "hakem-draw", reshuffles))
            position = 0
        a, b = deck[position], deck[position + 1]
        position += 2
        cards += [a, b]
        if a.rank != b.rank:
            break
    hakem = first_seat if cards[-2].rank > cards[-1].rank else (first_seat + 1) % variant.players
    return HakemDraw(HakemDrawMethod.HIGH_CARD, first_seat, tuple(cards), hakem)


def _draw_partner(
    variant: Variant, deck: list[Card], first_seat: int, cards: tuple[Card, ...], hakem: int
) -> HakemDraw:
    """R2.3: flip on, skipping the Hakem, until a second ace; its receiver becomes the partner."""
    players = variant.players
    seat = hakem
    partner_cards: list[Card] = []
    partner_seats: list[int] = []
    for card in deck[len(cards) :]:
        seat = (seat + 1) % players
        if seat == hakem:
            seat = (seat + 1) % players
        partner_cards.append(card)
        partner_seats.append(seat)
        if card.rank == ACE:
            break
    partner = partner_seats[-1]
    opposite = (hakem + 2) % players
    seating = list(range(players))
    seating[opposite], seating[partner] = partner, opposite
    return HakemDraw(
        HakemDrawMethod.FIRST_ACE,
        first_seat,
        cards,
        hakem,
        partner_cards=tuple(partner_cards),
        partner_seats=tuple(partner_seats),
        seating=tuple(seating),
    )
