"""Fair deals (R8.4): every shuffle comes from a committed server seed and the players' seeds.

shared/RECORD.md, "Fair deals", fixes the algorithm to the byte so that anyone can recompute a
deal once its server seed is revealed; this module is that algorithm, for the live site (which
deals with it) and for the record checker (which recomputes it). In short:

    >>> from games.engine import HOKM4
    >>> seed = new_server_seed()
    >>> commit = commit_of(seed)  # published before the players send their seeds
    >>> deal = deal_hand(HOKM4, seed, ["ab", "", "", "x y"], hand_index=0, lead=3)
    >>> len(deal.first5), len(deal.seats[3])
    (5, 13)

The deck is in the canonical order of RECORD.md (suits S, H, D, C), which is not the engine's
``FULL_DECK`` (S, H, C, D): only the sets of cards meet, never the two orders.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from .cards import ACE, RANKS, Card, Suit
from .draw import HakemDraw, _draw_partner, first_ace_hakem
from .hand import HandState, new_hand
from .variants import COURT_PIECE, HakemDrawMethod, Variant

if TYPE_CHECKING:
    # Only for the types: court_piece imports the record module, which imports this one.
    from .court_piece.deal import CourtPieceDeal
    from .court_piece.match import DealerDraw
    from .court_piece.options import CourtPieceOptions

T = TypeVar("T")

#: The first part of every HMAC message: the algorithm's name and version.
DOMAIN = "hokm-deal/1"
DEAL = "deal"  # PURPOSE of a hand's shuffle, INDEX its position in ``hands``
DRAW = "draw"  # PURPOSE of the flips' shuffle (R2.2, R2.4, R9.2.1), INDEX 0
SEED_BYTES = 32
CLIENT_SEED_MAX = 64
_HEX = frozenset("0123456789abcdef")

#: RECORD.md's canonical order: suits S, H, D, C, ranks 2 to A within a suit.
CANONICAL_SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
CANONICAL_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in CANONICAL_SUITS for r in RANKS)


class FairError(ValueError):
    """A seed, a commitment or a ``fair`` block that is malformed or does not verify."""


# -- seeds and commitments -----------------------------------------------------------------------


def new_server_seed() -> bytes:
    """A fresh secret server seed: 32 bytes from the operating system's generator."""
    return secrets.token_bytes(SEED_BYTES)


def check_server_seed(seed: object) -> bytes:
    """The seed itself when it is 32 bytes; raises :class:`FairError` otherwise."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise FairError(f"a server seed is {SEED_BYTES} bytes")
    return seed


def commit_of(seed: bytes) -> str:
    """The commitment published before the deal: SHA-256 of the 32 seed bytes, 64 lowercase hex."""
    return hashlib.sha256(check_server_seed(seed)).hexdigest()


def seed_hex(seed: bytes) -> str:
    """The seed as a record writes it: 64 lowercase hex characters."""
    return check_server_seed(seed).hex()


def check_hex64(text: object, what: str = "the value") -> str:
    """``text`` when it is exactly 64 lowercase hex characters; raises :class:`FairError`."""
    if not isinstance(text, str) or len(text) != 64 or not set(text) <= _HEX:
        raise FairError(f"{what} must be 64 lowercase hex characters (0-9, a-f)")
    return text


def seed_from_hex(text: object) -> bytes:
    """The 32 bytes of a seed written as 64 lowercase hex; raises :class:`FairError`."""
    return bytes.fromhex(check_hex64(text, "server_seed"))


def check_client_seed(seed: object) -> str:
    """A client seed as RECORD.md allows it: 0 to 64 characters, each from space (0x20) to ``~``
    (0x7E) except ``|``. Returns it; raises :class:`FairError` with a message a player reads."""
    if not isinstance(seed, str):
        raise FairError("a client seed must be text")
    if len(seed) > CLIENT_SEED_MAX:
        raise FairError(
            f"a client seed holds at most {CLIENT_SEED_MAX} characters, not {len(seed)}"
        )
    for char in seed:
        if not " " <= char <= "~" or char == "|":
            shown = repr(char) if " " <= char <= "~" else f"U+{ord(char):04X}"
            raise FairError(
                "a client seed holds only the characters from space to ~ (ASCII 0x20 to 0x7E) "
                f"other than |, and {shown} is not one"
            )
    return seed


def _check_client_seeds(client_seeds: Sequence[str], players: int) -> tuple[str, ...]:
    if isinstance(client_seeds, str) or len(client_seeds) != players:
        raise FairError(f"a shuffle takes {players} client seeds, one per seat")
    return tuple(check_client_seed(seed) for seed in client_seeds)


# -- the random stream ---------------------------------------------------------------------------


def draw_below(m: int, next_u32: Callable[[], int]) -> int:
    """*Draw below m*: take the next uint32 ``u`` until ``u < 2**32 - (2**32 mod m)``, then
    ``u mod m``. The rejection keeps every result equally likely."""
    if m < 1:
        raise FairError("draw below a positive number")
    limit = 2**32 - 2**32 % m
    while True:
        u = next_u32()
        if u < limit:
            return u % m


class FairStream:
    """The random stream of one shuffle: HMAC-SHA256 blocks (key: the 32 seed bytes; message:
    ``hokm-deal/1|PURPOSE|INDEX|SEED0|...|SEEDn-1|COUNTER``) for COUNTER = 0, 1, ..., read as
    unsigned 32-bit big-endian integers."""

    def __init__(
        self, server_seed: bytes, *, purpose: str, index: int, client_seeds: Sequence[str]
    ) -> None:
        if purpose not in (DEAL, DRAW):
            raise FairError(f"the purpose of a shuffle is {DEAL!r} or {DRAW!r}")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise FairError("a shuffle's index is a whole number from 0")
        seeds = _check_client_seeds(client_seeds, len(client_seeds))
        self._key = check_server_seed(server_seed)
        self._head = "|".join([DOMAIN, purpose, str(index), *seeds])
        self._counter = 0
        self._block = b""
        self._position = 0

    def message(self, counter: int) -> bytes:
        """The HMAC message of block ``counter``."""
        return f"{self._head}|{counter}".encode("ascii")

    def next_u32(self) -> int:
        if self._position == len(self._block):
            message = self.message(self._counter)
            self._block = hmac.new(self._key, message, hashlib.sha256).digest()
            self._counter += 1
            self._position = 0
        value = int.from_bytes(self._block[self._position : self._position + 4], "big")
        self._position += 4
        return value

    def draw_below(self, m: int) -> int:
        return draw_below(m, self.next_u32)


def fisher_yates(items: Sequence[T], stream: FairStream) -> list[T]:
    """Fisher-Yates: for i from d-1 down to 1, draw j below i+1 and swap positions i and j."""
    deck = list(items)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.draw_below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def canonical_deck(variant: Variant) -> tuple[Card, ...]:
    """The variant's cards in RECORD.md's order (without 2C in hokm3, R3.3)."""
    return tuple(card for card in CANONICAL_DECK if card not in variant.removed)


def deal_stream(server_seed: bytes, client_seeds: Sequence[str], *, hand_index: int) -> FairStream:
    """The stream of hand ``hand_index``'s shuffle (PURPOSE ``deal``)."""
    return FairStream(server_seed, purpose=DEAL, index=hand_index, client_seeds=client_seeds)


def draw_stream(server_seed: bytes, client_seeds: Sequence[str]) -> FairStream:
    """The stream of the flips' shuffle (PURPOSE ``draw``, INDEX 0)."""
    return FairStream(server_seed, purpose=DRAW, index=0, client_seeds=client_seeds)


# -- the deal ------------------------------------------------------------------------------------


def _rounds(players: int, rounds: int) -> tuple[tuple[int, int], ...]:
    return tuple((offset, 4) for _ in range(rounds) for offset in range(players))


#: RECORD.md's deal order: (seat offset from the Hakem, or the caller in court-piece, cards), in
#: the order the batches leave the deck. Cards left after the last batch are hokm2's ``unseen``
#: or hokm2-draw's ``stock``. (The dealer of the two-player variants is the Hakem + 1.)
DEAL_ORDER: dict[str, tuple[tuple[int, int], ...]] = {
    "hokm4": ((0, 5), (1, 5), (2, 5), (3, 5)) + _rounds(4, 2),
    "hokm3": ((0, 5), (1, 5), (2, 5)) + _rounds(3, 3),
    "hokm2": ((0, 5), (1, 5), (0, 4), (1, 4), (0, 4), (1, 4)),
    "hokm2-draw": ((0, 5), (1, 5)),
    "court-piece": ((0, 5), (1, 5), (2, 5), (3, 5)) + _rounds(4, 2),
}


@dataclass(frozen=True, slots=True)
class FairDeal:
    """A hand dealt from its fair shuffle.

    ``deck`` is the shuffled deck, position 0 first: the deck order that ``new_hand`` and
    ``new_deal`` take, which deal from it exactly as RECORD.md does. ``seats[s]`` holds seat s's
    cards in the order dealt (in hokm2-draw only the first 5 of the Hakem and the dealer); ``rest``
    the cards no batch takes (hokm2's ``unseen``, hokm2-draw's ``stock``, top first).
    ``blind_pick`` (court-piece only) is the position k of the blind indicator among the caller's
    first 5 (R9.14.1), drawn right after the shuffle; it is used only under ``blind``.
    """

    variant: str
    lead: int  # the Hakem, or the caller in court-piece
    deck: tuple[Card, ...]
    seats: tuple[tuple[Card, ...], ...]
    rest: tuple[Card, ...]
    blind_pick: int | None = None

    @property
    def first5(self) -> tuple[Card, ...]:
        """The Hakem's (the caller's) first five, as dealt."""
        return self.seats[self.lead][:5]

    @property
    def dealer5(self) -> tuple[Card, ...]:
        """hokm2-draw: the dealer's first five (R3.5)."""
        return self.seats[(self.lead + 1) % len(self.seats)][:5]

    @property
    def blind_indicator(self) -> Card | None:
        """R9.14.1 ``blind``: the card at position ``blind_pick`` of the caller's first five."""
        return None if self.blind_pick is None else self.first5[self.blind_pick]


def deal_hand(
    variant: Variant,
    server_seed: bytes,
    client_seeds: Sequence[str],
    *,
    hand_index: int,
    lead: int,
) -> FairDeal:
    """Shuffle hand ``hand_index`` (its position in the match, from 0) and deal it from ``lead``,
    the Hakem's seat, or the caller's in court-piece (dealer + 1, R9.3.1)."""
    players = variant.players
    seeds = _check_client_seeds(client_seeds, players)
    if isinstance(lead, bool) or not 0 <= lead < players:
        raise FairError(f"the Hakem or caller is a seat from 0 to {players - 1}")
    stream = deal_stream(server_seed, seeds, hand_index=hand_index)
    deck = tuple(fisher_yates(canonical_deck(variant), stream))
    blind_pick = stream.draw_below(5) if variant.family == COURT_PIECE.family else None
    seats: list[list[Card]] = [[] for _ in range(players)]
    position = 0
    for offset, count in DEAL_ORDER[variant.name]:
        seats[(lead + offset) % players] += deck[position : position + count]
        position += count
    return FairDeal(
        variant=variant.name,
        lead=lead,
        deck=deck,
        seats=tuple(tuple(cards) for cards in seats),
        rest=deck[position:],
        blind_pick=blind_pick,
    )


def fair_new_hand(
    variant: Variant,
    server_seed: bytes,
    client_seeds: Sequence[str],
    *,
    hand_index: int,
    hakem: int,
) -> HandState:
    """A Hokm hand dealt from its fair shuffle: ``new_hand`` with the shuffled deck."""
    deal = deal_hand(variant, server_seed, client_seeds, hand_index=hand_index, lead=hakem)
    return new_hand(variant, hakem=hakem, deck=deal.deck)


def fair_new_deal(
    options: CourtPieceOptions,
    server_seed: bytes,
    client_seeds: Sequence[str],
    *,
    hand_index: int,
    dealer: int,
) -> CourtPieceDeal:
    """A Court Piece deal from its fair shuffle, dealt from the caller (dealer + 1), with the
    blind indicator of R9.14.1 when the table plays ``blind``."""
    from .court_piece.deal import new_deal

    caller = (dealer + 1) % COURT_PIECE.players
    deal = deal_hand(COURT_PIECE, server_seed, client_seeds, hand_index=hand_index, lead=caller)
    assert deal.blind_pick is not None
    return new_deal(options, dealer=dealer, deck=deal.deck, blind_pick=deal.blind_pick)


# -- the flips -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FairFlips:
    """The public flips from their own shuffle (R2.6): ``cards[k]`` is turned to seat
    ``first_seat + k`` (R2.4: in pairs, flips 2i and 2i+1). ``deck`` is the whole shuffled deck,
    from which R2.3's partner draw goes on."""

    first_seat: int
    cards: tuple[Card, ...]
    deck: tuple[Card, ...]


def fair_flips(
    variant: Variant,
    server_seed: bytes,
    client_seeds: Sequence[str],
    *,
    ace_caller: Suit | None = None,
) -> FairFlips:
    """The flips of R2.2 (to the first ace), R2.4 (pairs until one is not a tie) or R9.2.1 (to
    the first ace, or with R9.16 to the ace of ``ace_caller``), from the ``draw`` shuffle of all
    52 cards; ``first_seat`` is drawn below the number of players right after the shuffle."""
    if ace_caller is not None and variant.family != COURT_PIECE.family:
        raise FairError("an ace caller (R9.16) belongs to court-piece")
    seeds = _check_client_seeds(client_seeds, variant.players)
    stream = draw_stream(server_seed, seeds)
    deck = tuple(fisher_yates(CANONICAL_DECK, stream))
    first_seat = stream.draw_below(variant.players)
    if variant.hakem_draw is HakemDrawMethod.HIGH_CARD:
        tie = next((i for i in range(0, len(deck), 2) if deck[i].rank != deck[i + 1].rank), None)
        # R2.4: should all 26 pairs tie, every card is turned and the first player is Hakem.
        end = len(deck) if tie is None else tie + 2
    else:
        end = 1 + next(
            i
            for i, card in enumerate(deck)
            if card.rank == ACE and (ace_caller is None or card.suit == ace_caller)
        )
    return FairFlips(first_seat, deck[:end], deck)


def fair_hakem_draw(
    variant: Variant,
    server_seed: bytes,
    client_seeds: Sequence[str],
    *,
    partner_draw: bool = False,
) -> HakemDraw:
    """The first-Hakem draw of a Hokm match (R2.2 to R2.4) from its fair shuffle; with
    ``partner_draw`` (R2.3) the flips go on from the same shuffle to the second ace."""
    if variant.family != "hokm":
        raise FairError(f"{variant.name} finds its first dealer with fair_dealer_draw")
    flips = fair_flips(variant, server_seed, client_seeds)
    first_seat, cards = flips.first_seat, flips.cards
    if variant.hakem_draw is HakemDrawMethod.HIGH_CARD:
        first_wins = cards[-2].rank >= cards[-1].rank  # a tie only after 26 tied pairs (R2.4)
        hakem = first_seat if first_wins else (first_seat + 1) % variant.players
        return HakemDraw(HakemDrawMethod.HIGH_CARD, first_seat, cards, hakem)
    hakem = first_ace_hakem(cards, first_seat, variant.players)
    if partner_draw and variant.partner_draw_allowed:
        return _draw_partner(variant, list(flips.deck), first_seat, cards, hakem)
    return HakemDraw(HakemDrawMethod.FIRST_ACE, first_seat, cards, hakem)


def fair_dealer_draw(
    server_seed: bytes, client_seeds: Sequence[str], *, ace_caller: Suit | None = None
) -> DealerDraw:
    """The first-dealer draw of a Court Piece match (R9.2.1, R9.16.1) from its fair shuffle."""
    from .court_piece.match import DealerDraw

    flips = fair_flips(COURT_PIECE, server_seed, client_seeds, ace_caller=ace_caller)
    return DealerDraw(flips.first_seat, flips.cards, ace_caller)


# -- the record's "fair" block -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FairBlock:
    """A record's ``fair`` object: the commitment, the client seeds by seat and, once revealed
    (the hand over, or for the flips the first hand started), the server seed."""

    commit: str
    client_seeds: tuple[str, ...]
    server_seed: bytes | None = None

    @classmethod
    def sealed(cls, server_seed: bytes, client_seeds: Sequence[str]) -> FairBlock:
        """The block of a shuffle, its seed still kept (``to_json`` leaves it out)."""
        seeds = tuple(check_client_seed(seed) for seed in client_seeds)
        return cls(commit_of(server_seed), seeds)

    @classmethod
    def revealed_from(cls, server_seed: bytes, client_seeds: Sequence[str]) -> FairBlock:
        """The block of a shuffle whose seed is revealed."""
        seeds = tuple(check_client_seed(seed) for seed in client_seeds)
        return cls(commit_of(server_seed), seeds, check_server_seed(server_seed))

    @property
    def revealed(self) -> bool:
        return self.server_seed is not None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"commit": self.commit}
        if self.server_seed is not None:
            data["server_seed"] = self.server_seed.hex()
        data["client_seeds"] = list(self.client_seeds)
        return data

    def check_commit(self) -> bytes:
        """The revealed seed, once its SHA-256 is the commitment; raises :class:`FairError`."""
        if self.server_seed is None:
            raise FairError("server_seed is not revealed")
        if commit_of(self.server_seed) != self.commit:
            raise FairError("commit is not the SHA-256 of server_seed")
        return self.server_seed


def read_fair_block(value: object, players: int) -> FairBlock:
    """A ``fair`` object of a record, its shapes checked (``server_seed`` absent or null while
    it is not revealed); raises :class:`FairError`. Other keys are ignored, as in RECORD.md."""
    if not isinstance(value, dict):
        raise FairError("must be an object with commit, server_seed and client_seeds")
    commit = check_hex64(value.get("commit"), "commit")
    raw_seed = value.get("server_seed")
    server_seed = None if raw_seed is None else seed_from_hex(raw_seed)
    seeds = value.get("client_seeds")
    if not isinstance(seeds, list) or len(seeds) != players:
        raise FairError(f"client_seeds must list {players} client seeds, one per seat")
    for seat, seed in enumerate(seeds):
        try:
            check_client_seed(seed)
        except FairError as error:
            raise FairError(f"client_seeds[{seat}]: {error}") from None
    return FairBlock(commit, tuple(seeds), server_seed)


def _cards_text(cards: Sequence[Card]) -> str:
    return " ".join(card.text for card in cards)


def _same_set(what: str, recorded: Sequence[Card], dealt: Sequence[Card], whom: str) -> None:
    if sorted(recorded) == sorted(dealt):
        return
    extra = [card for card in recorded if card not in dealt]
    detail = f"{extra[0]} is not among them" if extra else f"they are {_cards_text(dealt)}"
    raise FairError(f"{what} is not the set of cards the fair shuffle deals {whom}: {detail}")


def _same_order(what: str, recorded: Sequence[Card], dealt: Sequence[Card]) -> None:
    if list(recorded) == list(dealt):
        return
    if len(recorded) != len(dealt):
        raise FairError(f"{what} holds {len(recorded)} cards, the fair shuffle {len(dealt)}")
    at = next(i for i, (a, b) in enumerate(zip(recorded, dealt, strict=True)) if a != b)
    raise FairError(
        f"{what} is not in the fair shuffle's order: card {at} is {recorded[at]}, the shuffle "
        f"gives {dealt[at]}"
    )


def verify_deal(
    block: FairBlock,
    variant: Variant,
    *,
    hand_index: int,
    lead: int,
    first5: Sequence[Card],
    cards: Sequence[Sequence[Card]],
    dealer5: Sequence[Card] | None = None,
    stock: Sequence[Card] | None = None,
    unseen: Sequence[Card] | None = None,
    indicator: Card | None = None,
) -> None:
    """Check a revealed hand block against what the record holds (RECORD.md, "In the record"):
    the commitment, ``first5`` as the set of the first five of ``lead`` (the Hakem or the
    caller), every seat's ``cards`` as a set (in hokm2-draw instead ``dealer5`` as a set and the
    ``stock`` in order), ``unseen`` in order when given, and under ``blind`` the ``indicator``
    (R9.14.1). Raises :class:`FairError` naming the first difference."""
    seed = block.check_commit()
    deal = deal_hand(variant, seed, block.client_seeds, hand_index=hand_index, lead=lead)
    _same_set("first5", first5, deal.first5, f"seat {lead} first")
    if variant.has_draw:
        dealer = (lead + 1) % variant.players
        _same_set("draw.dealer5", dealer5 or (), deal.dealer5, f"the dealer, seat {dealer}, first")
        _same_order("draw.stock", stock or (), deal.rest)
    else:
        for seat, dealt in enumerate(deal.seats):
            _same_set(f"cards[{seat}]", cards[seat], dealt, f"seat {seat}")
        if unseen is not None:
            _same_order("unseen", unseen, deal.rest)
    if indicator is not None and indicator != deal.blind_indicator:
        raise FairError(
            f"the blind indicator is {indicator}, but the fair shuffle picks "
            f"{deal.blind_indicator}, card {deal.blind_pick} of the caller's first five as dealt "
            "by R9.14.1"
        )


def verify_flips(
    block: FairBlock,
    variant: Variant,
    *,
    first_seat: int,
    cards: Sequence[Card],
    ace_caller: Suit | None = None,
) -> None:
    """Check a revealed flips block: the commitment, ``first_seat`` and the flips in order.
    Raises :class:`FairError` naming the first difference."""
    seed = block.check_commit()
    flips = fair_flips(variant, seed, block.client_seeds, ace_caller=ace_caller)
    if first_seat != flips.first_seat:
        raise FairError(
            f"first_seat is {first_seat}, but the fair shuffle draws seat {flips.first_seat}"
        )
    _same_order("cards", cards, flips.cards)
