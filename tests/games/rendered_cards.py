"""Which cards a rendered live table names, and which cards a seat may see (R8.3): what the tests
of the table's HTML, on the page and over the sockets, compare."""

from __future__ import annotations

import re

from games.engine import FULL_DECK, MatchState, view
from games.play.rendering import card_face

CARD_TEXT = re.compile(r"\b[2-9TJQKA][SHDC]\b")
CORNER = re.compile(
    r'<span class="card__rank">([^<]*)</span><span class="card__suit">([^<]*)</span>'
)
LABEL = re.compile(r'aria-label="([^"]*)"')
RANK_PRINTED = {"10": "T"}
SUIT_OF_SYMBOL = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}
LABELS = {str(card_face(card).label): card.text for card in FULL_DECK}

PUBLIC_DRAW = re.compile(r'<details class="tool-details hakem-draw".*?</details>', re.DOTALL)


def without_public_draw(html: str) -> str:
    """The HTML less the first-Hakem flips: public (R2.2) and from their own shuffle (R2.6), so
    they may name a card that some hand also holds without telling anything about it."""
    return PUBLIC_DRAW.sub("", html)


def cards_named(html: str) -> set[str]:
    """Every card the HTML names outside the public Hakem draw: texts anywhere, spoken labels,
    printed corner indices."""
    html = without_public_draw(html)
    named = set(CARD_TEXT.findall(html))
    named |= {LABELS[label] for label in LABEL.findall(html) if label in LABELS}
    for rank, symbol in CORNER.findall(html):
        named.add(RANK_PRINTED.get(rank, rank) + SUIT_OF_SYMBOL[symbol])
    return named


def cards_allowed(state: MatchState, seat: int | None) -> set[str]:
    """What ``view`` gives that seat (R8.3): never a card of another seat's hand."""
    data = view(state.hand, seat)
    allowed = {card for trick in data["tricks"] for card in trick["cards"]}
    allowed |= set(data["trick"]["cards"])
    allowed |= set(data.get("hand", []))
    draw = data.get("draw")
    if draw:
        allowed |= set(draw["own_discards"])
        if draw["top"]:
            allowed.add(draw["top"])
    return allowed
