"""The variants of Hokm, described as data so that new ones (Court Piece, R9) plug in.

Each variant says how many play, which cards are used, how the Hakem is first found (R2), how the
cards are dealt around the trump call (R3), and which scoring rule ends a hand (R5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .cards import FULL_DECK, Card, Suit


class HakemDrawMethod(StrEnum):
    FIRST_ACE = "first_ace"  # R2.2
    HIGH_CARD = "high_card"  # R2.4


class Scoring(StrEnum):
    SIDE_REACHES_SEVEN = "side_reaches_seven"  # R5.1, R5.2
    THREE_PLAYERS = "three_players"  # R5.3


#: A step of a deal: (seat offset from the Hakem in play order, number of cards).
DealStep = tuple[int, int]


@dataclass(frozen=True)
class Variant:
    """The fixed rules of one variant. Instances are registered in :data:`VARIANTS`."""

    name: str
    players: int
    hand_size: int
    removed: frozenset[Card]
    partnerships: bool
    hakem_draw: HakemDrawMethod
    #: Cards dealt before the call, starting with the Hakem's 5 (R3.1).
    before_call: tuple[DealStep, ...]
    #: Cards dealt after the call (R3.2 to R3.4); empty when a draw from the stock follows (R3.5).
    after_call: tuple[DealStep, ...]
    scoring: Scoring
    #: R3.5: discards after the call (per offset from the Hakem) and a keep-or-throw draw.
    draw_discards: tuple[int, ...] = ()
    tricks_to_win: int = 7
    partner_draw_allowed: bool = False
    title: str = ""
    #: The game family: "hokm" (R1 to R8), or "court-piece" (R9), whose state machine is
    #: ``games.engine.court_piece`` and whose deals these fields describe only for the site.
    family: str = "hokm"
    deck: tuple[Card, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck", tuple(c for c in FULL_DECK if c not in self.removed))

    @property
    def has_draw(self) -> bool:
        """True for ``hokm2-draw``: discards and the keep-or-throw draw of R3.5."""
        return bool(self.draw_discards)

    @property
    def sides(self) -> int:
        """Number of scoring sides: two teams with partnerships (R1.4), else one per seat."""
        return 2 if self.partnerships else self.players

    @property
    def tricks_per_hand(self) -> int:
        return self.hand_size

    @property
    def stock_size(self) -> int:
        """Cards left after the pre-call deal that the R3.5 draw goes through (42 in hokm2-draw)."""
        if not self.has_draw:
            return 0
        return len(self.deck) - sum(count for _, count in self.before_call)

    @property
    def unseen_count(self) -> int:
        """Cards never dealt in a hand (26 in classic hokm2, R3.4)."""
        if self.has_draw:
            return 0
        return len(self.deck) - self.players * self.hand_size

    def side_of(self, seat: int) -> int:
        """The scoring side of a seat: team A (0) = seats 0 and 2, team B (1) = 1 and 3 (R1.4)."""
        return seat % 2 if self.partnerships else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if self.side_of(s) == side)

    def dealer_for(self, hakem: int) -> int:
        """R2.5: the seat to the Hakem's left (Hakem - 1); with two players, the other player."""
        return (hakem - 1) % self.players


def _rounds(offsets: range, count: int, rounds: int) -> tuple[DealStep, ...]:
    return tuple((offset, count) for _ in range(rounds) for offset in offsets)


HOKM4 = Variant(
    name="hokm4",
    title="Hokm, four players",
    players=4,
    hand_size=13,
    removed=frozenset(),
    partnerships=True,
    hakem_draw=HakemDrawMethod.FIRST_ACE,
    before_call=((0, 5),),
    # R3.2: the other seats 5 each, then two rounds of 4 from the Hakem to the dealer.
    after_call=((1, 5), (2, 5), (3, 5)) + _rounds(range(4), 4, 2),
    scoring=Scoring.SIDE_REACHES_SEVEN,
    partner_draw_allowed=True,
)

HOKM3 = Variant(
    name="hokm3",
    title="Hokm, three players",
    players=3,
    hand_size=17,
    removed=frozenset({Card(2, Suit.CLUBS)}),  # R3.3
    partnerships=False,
    hakem_draw=HakemDrawMethod.FIRST_ACE,
    before_call=((0, 5),),
    after_call=((1, 5), (2, 5)) + _rounds(range(3), 4, 3),
    scoring=Scoring.THREE_PLAYERS,
)

HOKM2 = Variant(
    name="hokm2",
    title="Hokm, two players",
    players=2,
    hand_size=13,
    removed=frozenset(),
    partnerships=False,
    hakem_draw=HakemDrawMethod.HIGH_CARD,  # R2.4
    before_call=((0, 5),),
    # R3.4: the dealer 5, then rounds of 4 alternately, the Hakem first, until each holds 13.
    after_call=((1, 5),) + _rounds(range(2), 4, 2),
    scoring=Scoring.SIDE_REACHES_SEVEN,
)

HOKM2_DRAW = Variant(
    name="hokm2-draw",
    title="Hokm, two players with the draw",
    players=2,
    hand_size=13,
    removed=frozenset(),
    partnerships=False,
    hakem_draw=HakemDrawMethod.FIRST_ACE,  # R2.2 names the 2-player draw variant
    before_call=((0, 5), (1, 5)),  # R3.1's exception: the dealer's own 5
    after_call=(),
    draw_discards=(3, 2),  # R3.5: the Hakem discards 3, the dealer 2
    scoring=Scoring.SIDE_REACHES_SEVEN,
)

#: Court Piece / Rang (R9): four players in partnerships, the caller's 5 cards before the call
#: and 5-4-4 after it (R9.4.1), as in hokm4; its own state machine plays it (``family``).
COURT_PIECE = Variant(
    name="court-piece",
    title="Court Piece",
    players=4,
    hand_size=13,
    removed=frozenset(),
    partnerships=True,
    hakem_draw=HakemDrawMethod.FIRST_ACE,  # R9.2.1
    before_call=((0, 5),),
    after_call=((1, 5), (2, 5), (3, 5)) + _rounds(range(4), 4, 2),
    scoring=Scoring.SIDE_REACHES_SEVEN,
    family="court-piece",
)

#: The Hokm variants (R1 to R8), which ``games.engine.hand`` and ``games.engine.match`` play.
VARIANTS: dict[str, Variant] = {}
#: Every variant the site plays, Hokm's and Court Piece (R9): tables, matches and records name
#: one of these; ``games.engine.game`` plays either family.
GAME_VARIANTS: dict[str, Variant] = {}


def register_variant(variant: Variant) -> Variant:
    """Make a variant available by name."""
    dealt = sum(c for _, c in variant.before_call + variant.after_call)
    if not variant.has_draw and dealt != variant.players * variant.hand_size:
        raise ValueError(f"{variant.name}: the deal gives {dealt} cards")
    if variant.family == "hokm":
        VARIANTS[variant.name] = variant
    GAME_VARIANTS[variant.name] = variant
    return variant


for _variant in (HOKM4, HOKM3, HOKM2, HOKM2_DRAW, COURT_PIECE):
    register_variant(_variant)


class UnknownVariantError(ValueError):
    def __init__(self, name: object) -> None:
        self.name = name
        known = ", ".join(GAME_VARIANTS)
        super().__init__(f"unknown variant {name!r} (known: {known})")


def get_variant(name: object) -> Variant:
    """The registered variant of that name, of either family; raises
    :class:`UnknownVariantError`."""
    variant = GAME_VARIANTS.get(name) if isinstance(name, str) else None
    if variant is None:
        raise UnknownVariantError(name)
    return variant
