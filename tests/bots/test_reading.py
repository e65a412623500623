"""Reading the opponents' cards from their plays (``games.bots.reading``, docs/bots.md): what a
greedy player's play rules out is never a card he holds, sampled deals respect it, a player who
does not play as the model is not read, and readings that leave no deal are dropped."""

import random
from dataclasses import replace

import numpy as np
import pytest

from games.bots import greedy_action
from games.bots.reading import deal_possible, greedy_exclusions, higher_than, lower_than
from games.bots.sampling import Knowledge, _model_misses, read_plays, sample_deals
from games.bots.search import _history
from games.bots.sim import SUIT_INDEX, SUIT_MASKS, Rules, bit_of, mask_of
from games.engine import HOKM4, VARIANTS, Card, apply, deal_deck, new_hand, view
from tests.engine.helpers import seeded_hand

ALL_VARIANTS = pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))


def bits(*texts: str) -> int:
    return mask_of(Card.parse(text) for text in texts)


def b(text: str) -> int:
    return bit_of(Card.parse(text))


HOKM4_RULES = Rules.of(HOKM4)
SPADES, HEARTS, DIAMONDS, CLUBS = (SUIT_INDEX[Card.parse(f"2{s}").suit] for s in "SHDC")


def greedy_decisions(variant, hands: int):
    """Every decision of ``hands`` whole hands with greedy in every seat, seeded 0 on: yield
    ``(seed, state, seen)``, ``seen`` the view of the seat to act, before it acts."""
    for seed in range(hands):
        state = seeded_hand(variant, seed)
        while not state.is_over:
            seen = view(state, state.to_act)
            yield seed, state, seen
            state = apply(state, greedy_action(seen))


def test_the_orders_are_the_greedy_baselines():
    """The greedy baseline's orders (docs/bots.md). Lowest: a non-trump before a trump, then
    rank, then spades, hearts, diamonds, clubs. Highest: rank, then that suit order."""
    below_3h = lower_than(b("3H"), DIAMONDS)
    assert below_3h & bits("2S", "2H", "2C", "3S")
    assert not below_3h & bits("3C", "4S", "2D", "AD")  # 3C comes after 3H; 2D is a trump
    below_2d = lower_than(b("2D"), DIAMONDS)  # the lowest trump: after every non-trump
    assert below_2d == (1 << 52) - 1 - SUIT_MASKS[DIAMONDS]
    above_kh = higher_than(b("KH"))
    assert above_kh & bits("KS", "AS", "AH", "AD", "AC")
    assert not above_kh & bits("KH", "KD", "KC", "QS")


def test_a_lead_rules_out_every_higher_non_trump():
    # Seat 1 (an opponent of seat 0) leads the king of hearts, trump diamonds: greedy leads his
    # highest non-trump, so he has no non-trump ace and not the king of spades.
    excluded = greedy_exclusions([(1, b("KH"))], rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[1] & bits("AS", "AH", "AC", "KS") == bits("AS", "AH", "AC", "KS")
    assert not excluded[1] & bits("AD", "KD", "QS", "KC")
    assert excluded[0] == excluded[2] == 0  # the reader's side is not read
    # Leading a trump says he held only trumps, none higher.
    excluded = greedy_exclusions([(3, b("9D"))], rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[3] == (((1 << 52) - 1) & ~SUIT_MASKS[DIAMONDS]) | bits(
        "TD", "JD", "QD", "KD", "AD"
    )


def test_following_rules_out_lower_winners_and_when_losing_every_winner_R4_3():
    trick = [(0, b("9S")), (1, b("QS"))]  # seat 1 wins with the queen: no ten or jack
    excluded = greedy_exclusions(trick, rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[1] & bits("TS", "JS") == bits("TS", "JS")
    assert not excluded[1] & bits("KS", "AS", "2S", "8S")
    # Seat 3 plays the 4 of spades under seat 2's lead of the 9 (seat 1, his partner, is not
    # winning): he had no spade above the 9 and none below the 4.
    trick = [(2, b("9S")), (3, b("4S"))]
    excluded = greedy_exclusions(trick, rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[3] & SUIT_MASKS[SPADES] == bits("2S", "3S", "TS", "JS", "QS", "KS", "AS")
    # Partner winning: only the lowest card is read.
    trick = [(1, b("AS")), (2, b("3S")), (3, b("7S"))]
    excluded = greedy_exclusions(trick, rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[3] & SUIT_MASKS[SPADES] == bits("2S", "3S", "4S", "5S", "6S")
    # A discard (void in spades, nothing to win with): no trump at all, no lower non-trump.
    trick = [(0, b("AS")), (1, b("5H"))]
    excluded = greedy_exclusions(trick, rules=HOKM4_RULES, trump=DIAMONDS, reader=2)
    assert excluded[1] & SUIT_MASKS[DIAMONDS] == SUIT_MASKS[DIAMONDS]
    assert excluded[1] & bits("2H", "4C", "5S") == bits("2H", "4C", "5S")


def test_a_seat_that_does_not_play_as_the_model_is_not_read():
    # Seat 1 follows with the king of spades over the 9 and later plays the queen of spades: the
    # greedy model would have won with the queen, so seat 1 is not the model.
    history = [(0, b("9S")), (1, b("KS")), (2, b("2S")), (3, b("3S")), (1, b("QS"))]
    excluded = greedy_exclusions(history, rules=HOKM4_RULES, trump=DIAMONDS, reader=0)
    assert excluded[1] == 0
    assert excluded[3]  # the others still are


@ALL_VARIANTS
def test_greedy_players_never_hold_what_their_plays_rule_out(variant):
    """Whole hands with greedy in every seat: at every decision, no seat holds a card its plays
    ruled out, the truth is a possible deal, and so the readings are kept and used."""
    rules = Rules.of(variant)
    decisions = ruled_out = 0
    for _, state, seen in greedy_decisions(variant, 40):
        seat = state.to_act
        if seen["trump"] and (seen["tricks"] or seen["trick"]["cards"]):
            history = _history(seen, rules.players)
            knowledge = Knowledge.from_view(seen)
            excluded = greedy_exclusions(
                history, rules=rules, trump=SUIT_INDEX[knowledge.trump], reader=seat
            )
            for other in range(rules.players):
                assert not mask_of(state.holdings[other]) & excluded[other]
            read = read_plays(knowledge, history, rules)
            assert read is not knowledge
            ruled_out += sum(mask.bit_count() for mask in read.excluded)
            decisions += 1
    assert decisions and ruled_out / decisions > 1  # the reading says something


@ALL_VARIANTS
def test_read_deals_never_give_a_seat_a_card_ruled_out(variant):
    rules = Rules.of(variant)
    checked = 0
    for seed, state, seen in greedy_decisions(variant, 12):
        seat = state.to_act
        if seen["trump"] and len(seen["tricks"]) in (2, 5):
            history = _history(seen, rules.players)
            knowledge = read_plays(Knowledge.from_view(seen), history, rules)
            deals = sample_deals(
                knowledge, 30, random.Random(seed), reading=True, history=history, rules=rules
            )
            for row in deals:
                for other in range(rules.players):
                    if other != seat:
                        assert not int(row[other]) & knowledge.barred(other)
                        assert int(row[other]).bit_count() == len(state.holdings[other])
            checked += 1
    assert checked


@ALL_VARIANTS
def test_read_deals_explain_every_play_of_greedy_opponents(variant):
    """The readings are the whole of the greedy model: in every read deal, each opponent's
    every play is the one the model makes with that deal's cards (R4.2, R4.3), so weighing the
    deals by the plays afterwards changes nothing and the sampled deals are the model's posterior
    (docs/bots.md, "Where the missing points are")."""
    rules = Rules.of(variant)
    checked = 0
    for seed, _, seen in greedy_decisions(variant, 16):
        if seen["trump"] and len(seen["tricks"]) in (3, 6, 9):
            history = _history(seen, rules.players)
            knowledge = read_plays(Knowledge.from_view(seen), history, rules)
            deals = sample_deals(
                knowledge, 64, random.Random(seed), reading=True, history=history, rules=rules
            )
            misses = _model_misses(knowledge, deals, history, rules)
            assert not misses.any(), f"seed {seed}: a read deal contradicts a greedy play"
            checked += len(deals)
    assert checked > 1000


def test_deal_possible_is_halls_condition():
    unknown = bits("AS", "KS", "QS", "AH")
    assert deal_possible([0, 0], [2, 2], unknown)
    assert not deal_possible([0, 0], [2, 1], unknown)  # room for 3 of 4 cards
    # Seat 0 may hold no spade, so the three spades must all go to seat 1, which has room for 2.
    assert not deal_possible([SUIT_MASKS[SPADES], 0], [2, 2], unknown)
    assert deal_possible([SUIT_MASKS[SPADES], 0], [1, 3], unknown)
    # A card nobody may hold.
    assert not deal_possible([bits("AH"), bits("AH")], [2, 2], unknown)


def test_readings_that_leave_no_deal_are_dropped():
    """A person is not the model: when the readings of the opponents rule out a card for every
    seat that could hold it, the plain knowledge (voids only) is used."""
    state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 3))
    while not state.tricks:
        state = apply(state, greedy_action(view(state, state.to_act)))
    seen = view(state, 0)
    knowledge = Knowledge.from_view(seen)
    rules = Rules.of(HOKM4)
    # Forge a history: each opponent led a trump, so each held only trumps, which cannot be.
    trump = SUIT_INDEX[knowledge.trump]
    low_trumps = [bit for bit in range(52) if bit % 4 == trump][:3]
    forged = [(1, low_trumps[0]), (3, low_trumps[1])]
    assert read_plays(knowledge, forged, rules) is knowledge
    deals = sample_deals(knowledge, 20, random.Random(1), reading=True, history=forged, rules=rules)
    non_trumps = np.uint64(((1 << 52) - 1) & ~SUIT_MASKS[trump])
    assert np.any(deals[:, 1] & non_trumps) and np.any(deals[:, 3] & non_trumps)


def test_tight_readings_are_dealt_without_backing_up():
    """Readings can bar most cards from most seats. Deals are then built card by card with
    Hall's condition checked at each step (``_checked_deal``), never by a search that backs up
    (one such search ran for minutes on a decision of a duel): every deal respects the rooms
    and the barred cards, and a deal with a single solution is found."""
    from games.bots.sampling import PILE, _checked_deal, _draw

    rng = random.Random(11)
    for trial in range(150):
        cards = list(range(52))
        rng.shuffle(cards)
        truth = [sum(1 << c for c in cards[13 * s : 13 * (s + 1)]) for s in range(4)]
        unknown = truth[1] | truth[2] | truth[3]
        # Each other seat is barred from most of the cards it does not hold.
        excluded = [0] + [
            sum(
                1 << c
                for c in range(52)
                if unknown >> c & 1 and not truth[s] >> c & 1 and rng.random() < 0.85
            )
            for s in (1, 2, 3)
        ]
        knowledge = Knowledge(
            seat=0,
            players=4,
            own=truth[0],
            unknown=unknown,
            counts=(13, 13, 13, 13),
            pile=0,
            voids=(0, 0, 0, 0),
            played_by=(0, 0, 0, 0),
            hakem=0,
            trump=None,
            hand_size=13,
            excluded=tuple(excluded),
        )
        options = {
            bit: [h for h in (1, 2, 3) if not knowledge.barred(h) >> bit & 1]
            for bit in range(52)
            if unknown >> bit & 1
        }
        dealt = _checked_deal(knowledge, options, [1, 2, 3], rng)
        assert PILE not in dealt
        assert sum(dealt.values()) == unknown
        for seat in (1, 2, 3):
            assert dealt[seat].bit_count() == 13
            assert not dealt[seat] & knowledge.barred(seat)
        if trial % 10 == 0:
            for row in _draw(knowledge, 8, rng):
                for seat in (1, 2, 3):
                    assert not int(row[seat]) & knowledge.barred(seat)
                    assert int(row[seat]).bit_count() == 13

    spades, hearts, diamonds, clubs = SUIT_MASKS
    everything = (1 << 52) - 1
    only = (
        0,
        everything & ~spades,
        everything & ~(spades | hearts),
        everything & ~(hearts | diamonds),
    )
    knowledge = replace(knowledge, own=clubs, unknown=everything & ~clubs, excluded=only)
    options = {
        bit: [h for h in (1, 2, 3) if not knowledge.barred(h) >> bit & 1]
        for bit in range(52)
        if knowledge.unknown >> bit & 1
    }
    assert _checked_deal(knowledge, options, [1, 2, 3], rng) == {1: spades, 2: hearts, 3: diamonds}


def test_rows_the_vector_deal_misses_are_few_one_by_one_and_the_rest_copied(monkeypatch):
    """Tight, partly wrong readings (an opponent who is not the model) can make the all-rows deal
    miss most rows. Dealing each of those one at a time took a decision 1.8 s in a duel against
    the hard level, so at most ``ONE_BY_ONE`` are; the others copy rows already dealt, and every
    row still fits the barred cards and the hand sizes."""
    from games.bots import sampling

    state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 21))
    while len(state.tricks) < 3:
        state = apply(state, greedy_action(view(state, state.to_act)))
    seen = view(state, state.to_act)
    rules = Rules.of(HOKM4)
    knowledge = read_plays(Knowledge.from_view(seen), _history(seen, 4), rules)
    assert any(knowledge.excluded)
    one_by_one = []
    real = sampling._one_constrained_deal
    monkeypatch.setattr(sampling, "VECTOR_ATTEMPTS", 0)  # every row misses the vector deal
    monkeypatch.setattr(
        sampling, "_one_constrained_deal", lambda *a: one_by_one.append(1) or real(*a)
    )
    deals = sampling._draw(knowledge, 500, random.Random(2))
    assert len(one_by_one) == sampling.ONE_BY_ONE
    assert len({tuple(int(m) for m in row) for row in deals}) <= sampling.ONE_BY_ONE
    for row in deals:
        for seat in range(4):
            if seat != knowledge.seat:
                assert not int(row[seat]) & knowledge.barred(seat)
                assert int(row[seat]).bit_count() == len(state.holdings[seat])
