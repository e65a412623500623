"""Fair deals (R8.4, RECORD.md "Fair deals"): the stream, the shuffle, the deal order of every
variant, the flips, the blind indicator, and hokm_check's verification of the ``fair`` blocks.

The fixed vectors below were computed with ``hmac`` alone, outside the engine, and the 5-card
shuffle was traced by hand: an outside verifier must get exactly these numbers.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import random
from collections.abc import Callable

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    COURT_PIECE,
    HOKM2,
    HOKM2_DRAW,
    HOKM3,
    HOKM4,
    CallTrump,
    Card,
    FairBlock,
    FairError,
    Suit,
    Variant,
    apply,
    check_client_seed,
    commit_of,
    deal_hand,
    fair_dealer_draw,
    fair_flips,
    fair_hakem_draw,
    fair_new_deal,
    fair_new_hand,
    first_ace_hakem,
    high_card_hakem,
    legal_actions,
    new_hand,
    new_server_seed,
    read_fair_block,
    seed_from_hex,
    seed_hex,
)
from games.engine import fair as fair_module
from games.engine.court_piece import (
    CourtPieceOptions,
    HiddenTrump,
    Streak,
    build_court_piece_record,
    check_dealer_draw,
    deal_apply,
    deal_legal_actions,
    new_deal,
    summarise,
)
from games.engine.fair import (
    CANONICAL_DECK,
    FairStream,
    canonical_deck,
    deal_stream,
    draw_below,
    draw_stream,
    fisher_yates,
)
from games.engine.record import build_record, check_record

KEY = bytes(range(32))  # 00 01 02 ... 1f
KEY_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SEEDS = ["alice", "", "b c", "~"]


def words(text: str) -> list[str]:
    return text.split()


def hmac_u32s(message: str) -> list[int]:
    """The 8 uint32s of one block, computed here with hmac alone (not with the engine)."""
    block = hmac.new(KEY, message.encode("ascii"), hashlib.sha256).digest()
    return [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]


# -- seeds and commitments -----------------------------------------------------------------------


def test_server_seed_commit_and_hex_R8_4():
    seed = new_server_seed()
    assert isinstance(seed, bytes) and len(seed) == 32
    assert new_server_seed() != seed
    assert seed_hex(KEY) == KEY_HEX
    assert seed_from_hex(KEY_HEX) == KEY
    assert commit_of(KEY) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert commit_of(KEY) == hashlib.sha256(KEY).hexdigest()
    for bad in [KEY_HEX.upper(), KEY_HEX[:-1], KEY_HEX + "0", "g" * 64, 12, None, " " + KEY_HEX]:
        with pytest.raises(FairError, match="64 lowercase hex"):
            seed_from_hex(bad)
    with pytest.raises(FairError):
        commit_of(b"short")


@pytest.mark.parametrize("seed", ["", "a" * 64, " ", "~", "Hello, world! {}[]<>", "0x7E~"])
def test_client_seeds_allowed_R8_4(seed):
    assert check_client_seed(seed) == seed


@pytest.mark.parametrize(
    ("seed", "words"),
    [
        ("a" * 65, "at most 64"),
        ("a|b", "'|'"),
        ("tab\there", "U+0009"),
        ("é", "U+00E9"),
        ("\x7f", "U+007F"),
        (42, "text"),
        (None, "text"),
    ],
)
def test_client_seeds_refused_with_a_reason_R8_4(seed, words):
    with pytest.raises(FairError) as refused:
        check_client_seed(seed)
    assert words in str(refused.value)


# -- the stream ----------------------------------------------------------------------------------


def test_stream_messages_and_first_numbers_R8_4():
    """HMAC-SHA256(key = the 32 seed bytes, message = the parts joined by "|"), blocks for
    COUNTER 0, 1, ... read as big-endian uint32s one after the other."""
    stream = deal_stream(KEY, SEEDS, hand_index=0)
    assert stream.message(0) == b"hokm-deal/1|deal|0|alice||b c|~|0"
    assert stream.message(1) == b"hokm-deal/1|deal|0|alice||b c|~|1"
    assert (
        deal_stream(KEY, SEEDS, hand_index=12).message(3) == b"hokm-deal/1|deal|12|alice||b c|~|3"
    )
    assert draw_stream(KEY, SEEDS).message(0) == b"hokm-deal/1|draw|0|alice||b c|~|0"
    assert deal_stream(KEY, [""] * 4, hand_index=0).message(0) == b"hokm-deal/1|deal|0|||||0"

    block0 = hmac_u32s("hokm-deal/1|deal|0|alice||b c|~|0")
    block1 = hmac_u32s("hokm-deal/1|deal|0|alice||b c|~|1")
    # Written out, so that another implementation can compare without running this one:
    assert block0[:4] == [0x0F50A909, 0xF8109B57, 0x9C84779A, 0xC2851789]
    assert block1[0] == 0x54A9E908
    # The 9th number is the first of block 1: no number straddles two blocks.
    assert [stream.next_u32() for _ in range(9)] == block0 + block1[:1]

    draw = draw_stream(KEY, SEEDS)
    assert draw.next_u32() == 0xFD00FAD1 == hmac_u32s("hokm-deal/1|draw|0|alice||b c|~|0")[0]
    twelfth = deal_stream(KEY, SEEDS, hand_index=12)
    assert twelfth.next_u32() == 0xFCECF74A == hmac_u32s("hokm-deal/1|deal|12|alice||b c|~|0")[0]
    empty = deal_stream(KEY, [""] * 4, hand_index=0)
    assert empty.next_u32() == 0xE499DA7E == hmac_u32s("hokm-deal/1|deal|0|||||0")[0]


def test_draw_below_rejects_the_biased_top_R8_4():
    """Draw below m: take the next u until u < 2^32 - (2^32 mod m); then u mod m.
    2^32 mod 3 = 1, so 0xFFFFFFFF (the one number at or above 2^32 - 1) is skipped."""
    fake = iter([0xFFFFFFFF, 7])
    assert draw_below(3, fake.__next__) == 7 % 3 == 1
    assert next(fake, None) is None  # both numbers were used
    assert draw_below(3, iter([0xFFFFFFFE]).__next__) == 0xFFFFFFFE % 3 == 2
    # 2^32 mod 52 = 48: the 48 numbers from 2^32 - 48 up are skipped, the one below is kept.
    fake = iter([2**32 - 48, 2**32 - 1, 2**32 - 49])
    assert draw_below(52, fake.__next__) == (2**32 - 49) % 52 == 51
    # A power of two wastes nothing: 2^32 mod 4 = 0.
    assert draw_below(4, iter([0xFFFFFFFF]).__next__) == 3
    assert draw_below(1, iter([123]).__next__) == 0
    with pytest.raises(FairError):
        draw_below(0, iter([1]).__next__)


def test_fisher_yates_of_five_cards_traced_by_hand_R8_4():
    """The stream of hand 0 with SEEDS starts 256944393, 4161837911, 2625927066, 3263502217
    (0x0F50A909 ...); none is rejected (2^32 mod 5 = 1, mod 4 = 0, mod 3 = 1, mod 2 = 0).
        i=4: j = 256944393 mod 5 = 3   a b c d e -> swap 4,3 -> a b c e d
        i=3: j = 4161837911 mod 4 = 3  a b c e d -> swap 3,3 -> a b c e d
        i=2: j = 2625927066 mod 3 = 0  a b c e d -> swap 2,0 -> c b a e d
        i=1: j = 3263502217 mod 2 = 1  c b a e d -> swap 1,1 -> c b a e d
    """
    numbers = hmac_u32s("hokm-deal/1|deal|0|alice||b c|~|0")
    assert [numbers[0] % 5, numbers[1] % 4, numbers[2] % 3, numbers[3] % 2] == [3, 3, 0, 1]
    stream = deal_stream(KEY, SEEDS, hand_index=0)
    assert fisher_yates(list("abcde"), stream) == list("cbaed")
    assert stream.next_u32() == numbers[4]  # four numbers used, no more


def test_canonical_decks_R8_4():
    texts = [card.text for card in CANONICAL_DECK]
    assert texts[:14] == words("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H")
    assert texts[-1] == "AC" and texts[26] == "2D" and texts[39] == "2C"
    assert canonical_deck(HOKM4) == canonical_deck(COURT_PIECE) == CANONICAL_DECK
    assert canonical_deck(HOKM3) == tuple(c for c in CANONICAL_DECK if c.text != "2C")  # R3.3
    assert len(canonical_deck(HOKM3)) == 51


FULL_SHUFFLE = words(
    "9H JC KD 8D QD QS 5C 2C TD 3H KS 7D 2H AH 6S QC 9S 2D 7C 6C 9C 3C QH 9D AC 2S "
    "3S 3D AD TH 6D 4C 7H 7S JS 5D JH KC 4S 4H AS 4D 8S TS 8C 8H JD KH 5S 5H TC 6H"
)


def test_a_whole_shuffle_vector_R8_4():
    """Hand 0 of a hokm4 match with KEY and SEEDS (computed by an implementation of RECORD.md
    written apart from the engine); the blind pick drawn next is 1."""
    deal = deal_hand(COURT_PIECE, KEY, SEEDS, hand_index=0, lead=0)
    assert [card.text for card in deal.deck] == FULL_SHUFFLE
    assert deal_hand(HOKM4, KEY, SEEDS, hand_index=0, lead=2).deck == deal.deck
    assert deal.blind_pick == 1


def test_shuffles_differ_by_purpose_index_and_each_seed_R8_4():
    base = deal_hand(HOKM4, KEY, SEEDS, hand_index=0, lead=0).deck
    assert deal_hand(HOKM4, KEY, SEEDS, hand_index=1, lead=0).deck != base
    assert fair_flips(HOKM4, KEY, SEEDS).deck != base
    for seat in range(4):
        seeds = list(SEEDS)
        seeds[seat] += "x"
        assert deal_hand(HOKM4, KEY, seeds, hand_index=0, lead=0).deck != base
    with pytest.raises(FairError, match="4 client seeds"):
        deal_hand(HOKM4, KEY, SEEDS[:3], hand_index=0, lead=0)
    with pytest.raises(FairError):
        FairStream(KEY, purpose="deal", index=0, client_seeds=["a|b"])


# -- the deal order ------------------------------------------------------------------------------


def spans(*pairs: tuple[int, int]) -> list[int]:
    return [p for start, end in pairs for p in range(start, end)]


#: RECORD.md's batches written as deck positions, per seat offset from the Hakem (caller).
POSITIONS = {
    "hokm4": [
        spans((0, 5), (20, 24), (36, 40)),
        spans((5, 10), (24, 28), (40, 44)),
        spans((10, 15), (28, 32), (44, 48)),
        spans((15, 20), (32, 36), (48, 52)),
    ],
    "hokm3": [
        spans((0, 5), (15, 19), (27, 31), (39, 43)),
        spans((5, 10), (19, 23), (31, 35), (43, 47)),
        spans((10, 15), (23, 27), (35, 39), (47, 51)),
    ],
    "hokm2": [spans((0, 5), (10, 14), (18, 22)), spans((5, 10), (14, 18), (22, 26))],
    "hokm2-draw": [spans((0, 5)), spans((5, 10))],
}
POSITIONS["court-piece"] = POSITIONS["hokm4"]
REST = {"hokm2": spans((26, 52)), "hokm2-draw": spans((10, 52))}
ALL_VARIANTS = [HOKM4, HOKM3, HOKM2, HOKM2_DRAW, COURT_PIECE]


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=lambda v: v.name)
def test_deal_order_of_every_variant_R8_4(variant):
    seeds = SEEDS[: variant.players]
    for lead in range(variant.players):
        deal = deal_hand(variant, KEY, seeds, hand_index=3, lead=lead)
        for offset, positions in enumerate(POSITIONS[variant.name]):
            seat = (lead + offset) % variant.players
            assert deal.seats[seat] == tuple(deal.deck[p] for p in positions)
        assert deal.rest == tuple(deal.deck[p] for p in REST.get(variant.name, []))
        assert deal.first5 == deal.deck[:5]
        if variant is HOKM2_DRAW:
            assert deal.dealer5 == deal.deck[5:10]
        assert (deal.blind_pick is not None) == (variant is COURT_PIECE)


@pytest.mark.parametrize("variant", [HOKM4, HOKM3, HOKM2], ids=lambda v: v.name)
def test_the_engine_deals_the_fair_deck_as_record_md_R8_4(variant):
    """new_hand given the fair deck gives each seat exactly the fair deal's cards, in order."""
    seeds = SEEDS[: variant.players]
    for hakem in range(variant.players):
        deal = deal_hand(variant, KEY, seeds, hand_index=5, lead=hakem)
        state = fair_new_hand(variant, KEY, seeds, hand_index=5, hakem=hakem)
        assert state.first5 == deal.first5 and state.holdings[hakem] == deal.first5
        state = apply(state, CallTrump(hakem, Suit.SPADES))
        assert state.holdings == deal.seats
        assert state.deck[len(state.deck) - variant.unseen_count :] == deal.rest


def test_the_engine_deals_hokm2_draw_as_record_md_R8_4():
    deal = deal_hand(HOKM2_DRAW, KEY, SEEDS[:2], hand_index=0, lead=1)
    state = fair_new_hand(HOKM2_DRAW, KEY, SEEDS[:2], hand_index=0, hakem=1)
    assert state.first5 == deal.first5 and state.dealer5 == deal.dealer5
    assert state.deck[10:] == deal.rest and len(deal.rest) == 42


@pytest.mark.parametrize("dealer", range(4))
def test_the_engine_deals_court_piece_from_the_caller_R8_4_R9_4_1(dealer):
    caller = (dealer + 1) % 4
    deal = deal_hand(COURT_PIECE, KEY, SEEDS, hand_index=2, lead=caller)
    state = fair_new_deal(CourtPieceOptions(), KEY, SEEDS, hand_index=2, dealer=dealer)
    assert state.first5 == deal.first5
    state = deal_apply(state, CallTrump(caller, Suit.HEARTS))
    assert state.holdings == deal.seats


def test_blind_indicator_is_drawn_right_after_the_shuffle_R8_4_R9_14_1():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    for index in range(6):
        stream = deal_stream(KEY, SEEDS, hand_index=index)
        deck = fisher_yates(CANONICAL_DECK, stream)
        k = stream.draw_below(5)
        deal = deal_hand(COURT_PIECE, KEY, SEEDS, hand_index=index, lead=2)
        assert deal.blind_pick == k and deal.blind_indicator == deck[k]
        state = fair_new_deal(options, KEY, SEEDS, hand_index=index, dealer=1)
        assert state.indicator == deck[k] and state.trump == deck[k].suit
        assert state.indicator not in state.holdings[2]  # apart until revealed (R9.14.3)


# -- the flips -----------------------------------------------------------------------------------


def test_first_ace_flips_and_first_seat_R2_2_R8_4():
    """The flips are the draw shuffle from position 0 to the first ace; first_seat is drawn
    below n right after the shuffle."""
    for variant in (HOKM4, HOKM3, HOKM2_DRAW):
        seeds = SEEDS[: variant.players]
        stream = draw_stream(KEY, seeds)
        deck = fisher_yates(CANONICAL_DECK, stream)
        first_seat = stream.draw_below(variant.players)
        flips = fair_flips(variant, KEY, seeds)
        assert flips.first_seat == first_seat and list(flips.deck) == deck
        ace = next(i for i, card in enumerate(deck) if card.rank == 14)
        assert list(flips.cards) == deck[: ace + 1]
        draw = fair_hakem_draw(variant, KEY, seeds)
        assert draw.hakem == first_ace_hakem(flips.cards, first_seat, variant.players)
        assert (draw.first_seat, draw.cards) == (first_seat, flips.cards)


def test_flips_of_the_vector_R2_2_R8_4():
    # Written out from the independent implementation: the draw shuffle starts 3C AH.
    draw = fair_hakem_draw(HOKM4, KEY, SEEDS)
    assert [card.text for card in draw.cards] == ["3C", "AH"]
    assert draw.first_seat == 1 and draw.hakem == 2


def test_high_card_flips_in_pairs_R2_4_R8_4():
    for number in range(20):
        seeds = [f"a{number}", ""]
        flips = fair_flips(HOKM2, KEY, seeds)
        cards = flips.cards
        assert len(cards) % 2 == 0 and cards == flips.deck[: len(cards)]
        assert all(cards[i].rank == cards[i + 1].rank for i in range(0, len(cards) - 2, 2))
        draw = fair_hakem_draw(HOKM2, KEY, seeds)
        assert draw.hakem == high_card_hakem(cards, flips.first_seat, 2)


def test_all_26_pairs_tied_make_the_first_player_hakem_R2_4(monkeypatch):
    by_rank = sorted(CANONICAL_DECK, key=lambda card: card.rank)  # every pair ties
    monkeypatch.setattr(fair_module, "fisher_yates", lambda items, stream: list(by_rank))
    draw = fair_hakem_draw(HOKM2, KEY, SEEDS[:2])
    assert len(draw.cards) == 52 and draw.hakem == draw.first_seat


def test_partner_draw_goes_on_from_the_same_shuffle_R2_3():
    draw = fair_hakem_draw(HOKM4, KEY, SEEDS, partner_draw=True)
    flips = fair_flips(HOKM4, KEY, SEEDS)
    assert draw.cards == flips.cards
    after = flips.deck[len(flips.cards) : len(flips.cards) + len(draw.partner_cards)]
    assert draw.partner_cards == after and draw.partner_cards[-1].rank == 14
    assert draw.hakem not in draw.partner_seats


@pytest.mark.parametrize("ace_caller", [None, Suit.SPADES, Suit.CLUBS])
def test_dealer_draw_R9_2_1_R9_16_R8_4(ace_caller):
    draw = fair_dealer_draw(KEY, SEEDS, ace_caller=ace_caller)
    flips = fair_flips(COURT_PIECE, KEY, SEEDS, ace_caller=ace_caller)
    check_dealer_draw(draw.cards, draw.first_seat, ace_caller)  # raises if broken
    assert draw.cards == flips.cards and draw.first_seat == flips.first_seat
    if ace_caller is not None:
        assert draw.cards[-1] == Card(14, ace_caller)
    with pytest.raises(FairError):
        fair_flips(HOKM4, KEY, SEEDS, ace_caller=Suit.SPADES)


# -- the fair block ------------------------------------------------------------------------------


def test_fair_block_shapes_R8_4():
    block = FairBlock.revealed_from(KEY, SEEDS)
    assert block.to_json() == {
        "commit": commit_of(KEY),
        "server_seed": KEY_HEX,
        "client_seeds": SEEDS,
    }
    sealed = FairBlock.sealed(KEY, SEEDS)
    assert sealed.to_json() == {"commit": commit_of(KEY), "client_seeds": SEEDS}
    assert read_fair_block(sealed.to_json(), 4) == sealed and not sealed.revealed
    assert read_fair_block(block.to_json(), 4) == block and block.revealed
    assert read_fair_block({**sealed.to_json(), "server_seed": None}, 4) == sealed
    bad = [
        ([], "object"),
        ({"client_seeds": SEEDS}, "commit"),
        ({**block.to_json(), "server_seed": KEY_HEX.upper()}, "server_seed"),
        ({**block.to_json(), "client_seeds": SEEDS[:3]}, "4 client seeds"),
        ({**block.to_json(), "client_seeds": ["", "", "", "a|b"]}, "client_seeds[3]"),
    ]
    for value, words in bad:
        with pytest.raises(FairError) as refused:
            read_fair_block(value, 4)
        assert words in str(refused.value)


# -- records with fair blocks, and hokm_check ----------------------------------------------------


def client_seeds(rng: random.Random, players: int) -> list[str]:
    choices = ["", "", "x", "hello world", "~!@#$%^&*()", "Z" * 64]
    return [rng.choice(choices) for _ in range(players)]


def fair_hokm_record(variant: Variant, seed: int, hands: int = 2) -> dict:
    """A Hokm record dealt and drawn fairly: the flips, then ``hands`` hands played at random
    to their end, each with its revealed ``fair`` block."""
    rng = random.Random(seed)
    draw_seed, draw_seeds = rng.randbytes(32), client_seeds(rng, variant.players)
    draw = fair_hakem_draw(variant, draw_seed, draw_seeds)
    states, blocks, hakem = [], [], draw.hakem
    for index in range(hands):
        server, seeds = rng.randbytes(32), client_seeds(rng, variant.players)
        state = fair_new_hand(variant, server, seeds, hand_index=index, hakem=hakem)
        while not state.is_over:
            state = apply(state, rng.choice(legal_actions(state)))
        states.append(state)
        blocks.append(FairBlock.revealed_from(server, seeds).to_json())
        hakem = state.result.next_hakem
    players = [f"p{s}" for s in range(variant.players)]
    document = build_record(variant=variant, target=7, players=players, draw=draw, hands=states)
    document["hakem_draw"]["fair"] = FairBlock.revealed_from(draw_seed, draw_seeds).to_json()
    for hand, block in zip(document["hands"], blocks, strict=True):
        hand["fair"] = block
    return json.loads(json.dumps(document))


def fair_court_piece_record(options: CourtPieceOptions, seed: int, hands: int = 2) -> dict:
    """A Court Piece record dealt and drawn fairly, as :func:`fair_hokm_record`."""
    rng = random.Random(seed)
    draw_seed, draw_seeds = rng.randbytes(32), client_seeds(rng, 4)
    draw = fair_dealer_draw(draw_seed, draw_seeds, ace_caller=options.ace_caller)
    states, blocks, dealer = [], [], draw.dealer
    streak, scores = Streak(), (0, 0)
    for index in range(hands):
        server, seeds = rng.randbytes(32), client_seeds(rng, 4)
        state = fair_new_deal(options, server, seeds, hand_index=index, dealer=dealer)
        while not state.is_over:
            state = deal_apply(state, rng.choice(deal_legal_actions(state)))
        states.append(state)
        blocks.append(FairBlock.revealed_from(server, seeds).to_json())
        summary = summarise(state, streak, scores)
        streak, scores, dealer = summary.streak, summary.scores, summary.next_dealer
    document = build_court_piece_record(
        options=options, target=200, players=["a", "b", "c", "d"], draw=draw, deals=states
    )
    document["dealer_draw"]["fair"] = FairBlock.revealed_from(draw_seed, draw_seeds).to_json()
    for hand, block in zip(document["hands"], blocks, strict=True):
        hand["fair"] = block
    return json.loads(json.dumps(document))


BLIND = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
COURT_PIECE_OPTIONS = {
    "off": CourtPieceOptions(),
    "blind": BLIND,
    "chosen": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
    "ace-caller": CourtPieceOptions(ace_caller=Suit.HEARTS, double_sir=True),
}


def fair_record(name: str, seed: int = 1) -> dict:
    """A fair record of a variant (``court-piece`` with the options named after a colon)."""
    if name.startswith("court-piece"):
        return fair_court_piece_record(COURT_PIECE_OPTIONS[name.partition(":")[2] or "off"], seed)
    return fair_hokm_record(next(v for v in ALL_VARIANTS if v.name == name), seed)


RECORD_KINDS = [
    "hokm4",
    "hokm3",
    "hokm2",
    "hokm2-draw",
    "court-piece:off",
    "court-piece:blind",
    "court-piece:chosen",
    "court-piece:ace-caller",
]


def fault_of(document: dict) -> tuple:
    verdict = check_record(document)
    assert verdict["valid"] is False, verdict
    return verdict["hand"], verdict["trick"], verdict["seat"], verdict["error"]


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_hokm_check_accepts_fair_records_of_every_variant_R8_4(kind):
    for seed in (1, 2, 3):
        document = fair_record(kind, seed)
        verdict = check_record(document)
        assert verdict["valid"] is True, verdict
        assert len(verdict["hands"]) == 2
        # The same record without its fair blocks checks as before (an imported record).
        del (document.get("hakem_draw") or document["dealer_draw"])["fair"]
        for hand in document["hands"]:
            del hand["fair"]
        assert check_record(document) == verdict


def tamper_seed(block: dict) -> None:
    seed = block["server_seed"]
    block["server_seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]


def tamper_commit(block: dict) -> None:
    block["commit"] = commit_of(bytes(32))


def tamper_both(block: dict) -> None:
    """Another seed whose commitment matches: only the deal itself can tell."""
    other = hashlib.sha256(block["server_seed"].encode()).digest()
    block.update(server_seed=other.hex(), commit=commit_of(other))


def tamper_client_seed(block: dict) -> None:
    seeds = block["client_seeds"]
    seeds[1] = "tampered" if seeds[1] != "tampered" else "other"


TAMPERINGS: dict[str, tuple[Callable[[dict], None], str]] = {
    "server_seed": (tamper_seed, "commit is not the sha-256"),
    "commit": (tamper_commit, "commit is not the sha-256"),
    "seed_and_commit": (tamper_both, "fair shuffle"),
    "client_seed": (tamper_client_seed, "fair shuffle"),
}


@pytest.mark.parametrize("kind", RECORD_KINDS)
@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_hokm_check_refuses_a_tampered_hand_block_R8_4(kind, tampering):
    change, words = TAMPERINGS[tampering]
    document = fair_record(kind)
    change(document["hands"][1]["fair"])
    hand, trick, seat, error = fault_of(document)
    assert (hand, trick, seat) == (1, None, None)
    assert '"fair"' in error and "R8.4" in error and words in error.lower()


@pytest.mark.parametrize("kind", RECORD_KINDS)
@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_hokm_check_refuses_tampered_flips_as_a_document_fault_R8_4(kind, tampering):
    change, words = TAMPERINGS[tampering]
    document = fair_record(kind)
    change((document.get("hakem_draw") or document["dealer_draw"])["fair"])
    hand, trick, seat, error = fault_of(document)
    assert (hand, trick, seat) == (None, None, None)
    assert "_draw" in error and words in error.lower()


def swap_outside_first5(document: dict, number: int, a: int, b: int) -> None:
    """Swap a card between seats a and b of a hand, neither in the recorded first5."""
    hand = document["hands"][number]
    first5 = set(hand["first5"])
    one = next(c for c in hand["cards"][a] if c not in first5)
    two = next(c for c in hand["cards"][b] if c not in first5)
    hand["cards"][a] = [two if c == one else c for c in hand["cards"][a]]
    hand["cards"][b] = [one if c == two else c for c in hand["cards"][b]]


@pytest.mark.parametrize("kind", ["hokm4", "hokm3", "hokm2", "court-piece:off"])
def test_a_card_swapped_between_seats_is_a_fault_of_the_deal_R8_4(kind):
    document = fair_record(kind)
    swap_outside_first5(document, 0, 0, 1)
    hand, trick, seat, error = fault_of(document)
    assert (hand, trick, seat) == (0, None, None)
    assert "not the set of cards the fair shuffle deals" in error


def test_first5_that_is_not_the_first_five_dealt_R8_4():
    document = fair_record("hokm4")
    hand = document["hands"][0]
    hakem_cards = hand["cards"][hand["hakem"]]
    hand["first5"] = hand["first5"][:4] + [next(c for c in hakem_cards if c not in hand["first5"])]
    hand_number, trick, _, error = fault_of(document)
    assert (hand_number, trick) == (0, None) and "first5" in error


def test_unseen_out_of_order_R3_4_R8_4():
    document = fair_record("hokm2")
    unseen = document["hands"][1]["unseen"]
    unseen[0], unseen[1] = unseen[1], unseen[0]
    hand, _, _, error = fault_of(document)
    assert hand == 1 and "unseen is not in the fair shuffle's order: card 0" in error
    del document["hands"][1]["unseen"]  # optional: without it, the holdings alone are checked
    assert check_record(document)["valid"] is True


def test_hokm2_draw_stock_and_dealer5_R3_5_R8_4():
    document = fair_record("hokm2-draw")
    stock = document["hands"][0]["draw"]["stock"]
    stock[0], stock[1] = stock[1], stock[0]
    hand, trick, _, error = fault_of(document)
    assert (hand, trick) == (0, None) and "draw.stock" in error
    document = fair_record("hokm2-draw")
    draw = document["hands"][0]["draw"]
    # The dealer's 5 and the first 5 of the stock change places: still a deal the draw replays.
    draw["dealer5"], draw["stock"][:5] = draw["stock"][:5], draw["dealer5"]
    draw["discards"][1] = draw["dealer5"][:2]
    hand, trick, _, error = fault_of(document)
    assert (hand, trick) == (0, None) and "draw.dealer5" in error


def test_blind_indicator_that_is_not_the_drawn_one_R9_14_1_R8_4():
    document = fair_record("court-piece:blind")
    hand = document["hands"][0]
    others = [c for c in hand["first5"] if c != hand["hidden"]["card"]]
    # Another of the five, with the trump it names: the deal's set-up, before any trick, is
    # still a valid one, and only the fair block can tell.
    hand["hidden"]["card"] = others[0]
    hand["trump"] = others[0][1]
    number, trick, _, error = fault_of(document)
    assert (number, trick) == (0, None)
    assert "blind indicator" in error and "R9.14.1" in error


def test_unrevealed_block_of_an_unfinished_hand_is_accepted_R8_4():
    for kind in ("hokm4", "court-piece:blind"):
        document = fair_record(kind)
        last = document["hands"][1]
        last["tricks"] = last["tricks"][:3]
        if (last.get("hidden") or {}).get("reveal") and last["hidden"]["reveal"]["trick"] >= 3:
            last["hidden"]["reveal"] = None
        del last["fair"]["server_seed"]
        assert check_record(document)["valid"] is True
        # Its shapes are still checked.
        last["fair"]["commit"] = last["fair"]["commit"].upper()
        hand, trick, _, error = fault_of(document)
        assert (hand, trick) == (1, None) and "64 lowercase hex" in error
        # A finished hand reveals its seed (R8.4).
        document = fair_record(kind)
        del document["hands"][1]["fair"]["server_seed"]
        hand, trick, _, error = fault_of(document)
        assert (hand, trick) == (1, None) and "must reveal its server_seed" in error


def test_flips_seed_is_revealed_when_the_first_hand_starts_R8_4():
    document = fair_record("hokm3")
    del document["hakem_draw"]["fair"]["server_seed"]
    assert fault_of(document)[:3] == (None, None, None)
    document["hands"] = []
    assert check_record(document)["valid"] is True


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b.update(client_seeds=b["client_seeds"][:-1]),
        lambda b: b.update(client_seeds=["a|b"] + b["client_seeds"][1:]),
        lambda b: b.update(server_seed=12),
        lambda b: b.pop("commit"),
    ],
    ids=["seed_count", "pipe", "seed_not_text", "no_commit"],
)
def test_malformed_fair_blocks_are_faults_of_their_hand_R8_4(change):
    document = fair_record("hokm2")
    change(document["hands"][0]["fair"])
    hand, trick, seat, error = fault_of(document)
    assert (hand, trick, seat) == (0, None, None) and '"fair"' in error


def test_hokm_check_prints_the_fair_fault(tmp_path):
    """The command reports a bad block like any set-up fault (RECORD.md, checker output)."""
    document = fair_record("court-piece:off")
    tamper_client_seed(document["hands"][0]["fair"])
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document))
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit:
        call_command("hokm_check", str(path), stdout=out)
    verdict = json.loads(out.getvalue())
    assert exit.value.code == 1
    assert set(verdict) == {"valid", "error", "hand", "trick", "seat"}
    assert (verdict["valid"], verdict["hand"], verdict["trick"], verdict["seat"]) == (
        False,
        0,
        None,
        None,
    )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    seeds=st.lists(
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="|")),
        min_size=4,
        max_size=4,
    ),
    index=st.integers(0, 10_000),
    lead=st.integers(0, 3),
)
def test_any_fair_deal_is_a_deal_the_engine_makes_R8_4(seed, seeds, index, lead):
    deal = deal_hand(HOKM4, seed, seeds, hand_index=index, lead=lead)
    assert sorted(deal.deck) == sorted(CANONICAL_DECK)
    state = apply(new_hand(HOKM4, hakem=lead, deck=deal.deck), CallTrump(lead, Suit.CLUBS))
    assert state.holdings == deal.seats
    cp = new_deal(CourtPieceOptions(), dealer=(lead - 1) % 4, deck=deal.deck)
    assert cp.first5 == deal.first5
    block = FairBlock.revealed_from(seed, seeds)
    fair_module.verify_deal(
        block, HOKM4, hand_index=index, lead=lead, first5=deal.first5, cards=deal.seats
    )
