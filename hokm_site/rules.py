"""The rules pages: Hokm (RULES.md R1 to R8) and Court Piece / Rang (R9), in plain words.

The example cards are drawn by the table's own card template (``templates/games/_card.html``)
from faces made here, per request: a face's spoken name is in the language of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.play.rendering import CardFace, card_face
from hokm_site.views import COURT_PIECE_GLOSSARY, HOKM_GLOSSARY, VARIANTS, Variant


@dataclass(frozen=True)
class TrickCard:
    """One card of an example trick: who played it, and whether it was led or took the trick."""

    card: CardFace
    player: Promise
    led: bool
    winner: bool


@dataclass(frozen=True)
class ChaseTrick:
    """One of the 13 tricks of the court chase example: its winning card and side, if played."""

    number: int
    card: CardFace | None
    calling_side: bool


@dataclass(frozen=True)
class VariantRules:
    """A variant of Hokm as the rules page explains it: the home page's summary, then the rest."""

    variant: Variant
    details: Promise
    rules: str


@dataclass(frozen=True)
class PileTrick:
    """A trick of the Double Sir example: its number, its winning card and what happened."""

    number: int
    card: CardFace
    note: Promise


_VARIANT_DETAILS: dict[str, tuple[Promise, str]] = {
    "hokm4": (
        _(
            "The Hakem is found by turning cards face up to an ace. The dealer sits on the "
            "Hakem's left; after the call everyone else gets 5 cards, then two rounds of 4."
        ),
        "R2.2 R3.2 R5.1",
    ),
    "hokm3": (
        _(
            "Taking each of the first 7 tricks scores 2 points for the Hakem and 3 for another "
            "player; any other win scores 1 point. If the Hakem loses, the player on his right "
            "becomes Hakem, even if that player did not win the hand."
        ),
        "R3.3 R5.3 R6.2",
    ),
    "hokm2": (
        _(
            "For the first Hakem, each player is shown a card and the higher one decides. "
            "Kot and Hakem Kot score as with four players. When the Hakem loses a hand, the other "
            "player becomes Hakem."
        ),
        "R2.4 R3.4 R6.3",
    ),
    "hokm2-draw": (
        _(
            "Cards you throw away are never shown to your opponent during the hand, so you "
            "never know exactly what the other player holds. Scoring is as with two players."
        ),
        "R3.5 R5.1 R6.3",
    ),
}


def _faces(texts: str) -> list[CardFace]:
    """Faces of the cards in R1.2 notation, separated by spaces: ``_faces("AS TD")``."""
    return [card_face(text) for text in texts.split()]


def _trick(cards: str, players: Sequence[Promise], *, winner: int) -> list[TrickCard]:
    """An example trick in play order: the first card is led, ``winner`` its index."""
    return [
        TrickCard(card=face, player=player, led=index == 0, winner=index == winner)
        for index, (face, player) in enumerate(zip(_faces(cards), players, strict=True))
    ]


def rules_hokm(request: HttpRequest) -> HttpResponse:
    """How to play Hokm, all four variants (R1 to R8)."""
    variants = [VariantRules(variant, *_VARIANT_DETAILS[variant.code]) for variant in VARIANTS]
    context = {
        # Hearts are a natural call from these five: three of them, the ace and king among them.
        "call_hand": _faces("AH KH 9H 4C JD"),
        # Trump is hearts: the partner, out of spades, trumps the led king with the lowest heart.
        "trick": _trick(
            "KS AS 2H 7S",
            [_("Hakem"), _("Opponent"), _("Hakem's partner"), _("Opponent")],
            winner=2,
        ),
        "variants": variants,
        "glossary": HOKM_GLOSSARY,
    }
    return render(request, "rules/hokm.html", context)


def _court_chase() -> list[ChaseTrick]:
    """The calling side takes tricks 1 to 9 and loses trick 10: a court, and play stops there
    (R9.6.1); tricks 11 to 13 are never played."""
    winning_cards = _faces("AS KS AH KH AC QS KC QH JS AD")
    lost = len(winning_cards)  # the last winning card is the dealing side's
    return [
        ChaseTrick(
            number=number,
            card=winning_cards[number - 1] if number <= lost else None,
            calling_side=number < lost,
        )
        for number in range(1, 14)
    ]


def rules_court_piece(request: HttpRequest) -> HttpResponse:
    """How to play Court Piece / Rang, with every table setting (R9)."""
    context = {
        # Spades from these five: three of them, the ace among them.
        "call_hand": _faces("AS QS 8S KD 3C"),
        # Trump is diamonds: the dealer's ace of hearts is neither clubs nor trump, so it loses.
        "trick": _trick(
            "QC KC 5C AH",
            [_("Caller"), _("Opponent"), _("Caller's partner"), _("Dealer")],
            winner=1,
        ),
        "chase": _court_chase(),
        # The caller's hand under hidden trump: four cards, the indicator apart and face down.
        "indicator_hand": _faces("KH 9H 6C 2D"),
        "ace_rule": [
            PileTrick(number=4, card=card_face("AS"), note=_("won with an ace: into the pile")),
            PileTrick(
                number=5,
                card=card_face("AH"),
                note=_("two aces in a row: no collection, into the pile"),
            ),
            PileTrick(number=6, card=card_face("KD"), note=_("collects the whole pile")),
        ],
        "glossary": COURT_PIECE_GLOSSARY,
    }
    return render(request, "rules/court_piece.html", context)
