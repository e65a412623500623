"""The computer players of Court Piece (R9; docs/bots.md, "Court Piece"): every level on every
table setting (R9.11), the greedy baseline's additions (R9.4.3, R9.14.1, R9.14.2), the simulator
and the endgame solver against the engine (R9.6, R9.12 to R9.14), the time limit, determinism and
no peeking (R8.3, R9.15.1), the indicator included."""

from __future__ import annotations

import doctest
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import product
from typing import Any

import numpy as np
import pytest

import games.bots.court_piece.greedy as cp_greedy
import games.bots.court_piece.levels as cp_levels
from games.bots import LEVELS, NoDecisionError, UnknownLevelError, bot_action, greedy_action
from games.bots.court_piece.greedy import court_piece_greedy_action
from games.bots.court_piece.position import Position
from games.bots.court_piece.sampling import INDICATOR, PLAYED, Knowledge, sample_deals
from games.bots.court_piece.search import _solver_start, _Start, court_piece_search_action
from games.bots.court_piece.sim import COURT, FIFTY_TWO, WON, Deals, Rules, playout
from games.bots.court_piece.solver import REVEAL, Solver
from games.bots.greedy import _play as hokm_greedy_card
from games.bots.sim import SUIT_INDEX, bit_of, mask_of
from games.engine import (
    FULL_DECK,
    Action,
    CallTrump,
    Card,
    ChooseIndicator,
    CourtPieceDeal,
    CourtPieceOptions,
    HiddenTrump,
    PlayCard,
    RevealTrump,
    Suit,
    court_piece_apply,
    court_piece_view,
    deal_apply,
    default_trump,
    new_court_piece_match,
    new_deal,
    next_deal,
    to_json,
)
from games.engine.court_piece import deal_legal_actions, deck_from_court_deal, default_call
from games.engine.seeding import shuffled

OFF = CourtPieceOptions()
DOUBLE_SIR = CourtPieceOptions(double_sir=True)
ACE_RULE = CourtPieceOptions(double_sir=True, ace_rule=True)
CHOSEN = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
BLIND = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
#: R9.11: any mix is allowed except ace_rule without double_sir.
EVERY_MIX = [
    CourtPieceOptions(double_sir=ds, ace_rule=ace, hidden_trump=hidden, goon_court=goon)
    for ds, ace, hidden, goon in product((False, True), (False, True), HiddenTrump, (True, False))
    if ds or not ace
]
MIXES = [
    OFF,
    DOUBLE_SIR,
    ACE_RULE,
    CHOSEN,
    BLIND,
    CourtPieceOptions(double_sir=True, ace_rule=True, hidden_trump=HiddenTrump.CHOSEN),
    CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.BLIND, goon_court=False),
    CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, ace_caller=Suit.HEARTS),
]
HOW = {"won": WON, "court": COURT, "52-court": FIFTY_TWO}


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def mix_id(options: CourtPieceOptions) -> str:
    return "-".join(f"{k}={v}" for k, v in options.to_json().items() if v != getattr(OFF, k))


@pytest.fixture
def quick_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search levels with few deals: the same code paths (evidence, reading, solver, the
    call) on fewer samples, so that many decisions fit in a test run."""
    for level, found in list(cp_levels.COURT_PIECE_SEARCH_SETTINGS.items()):
        monkeypatch.setitem(
            cp_levels.COURT_PIECE_SEARCH_SETTINGS, level, replace(found, samples=16, round_size=8)
        )


def seeded_deal(options: CourtPieceOptions, seed: int) -> CourtPieceDeal:
    return new_deal(options, dealer=seed % 4, deck=shuffled(FULL_DECK, seed), blind_pick=seed % 5)


def engine_action(action: Action) -> Any:
    assert isinstance(action, CallTrump | ChooseIndicator | RevealTrump | PlayCard)
    return action


def greedy_step(deal: CourtPieceDeal) -> CourtPieceDeal:
    assert deal.to_act is not None
    return deal_apply(deal, engine_action(greedy_action(court_piece_view(deal, deal.to_act))))


def positions(
    options: CourtPieceOptions, seeds: range, *, chance: float = 0.2
) -> Iterator[CourtPieceDeal]:
    """Every position of deals played by greedy, now and then a random legal action instead."""
    rng = random.Random(f"{mix_id(options)}:{seeds.start}")
    for seed in seeds:
        deal = seeded_deal(options, seed)
        while not deal.is_over:
            yield deal
            if rng.random() < chance:
                deal = deal_apply(deal, rng.choice(deal_legal_actions(deal)))
            else:
                deal = greedy_step(deal)


# -- every level, every table setting -----------------------------------------------------------


@pytest.mark.parametrize("options", MIXES, ids=mix_id)
def test_every_level_plays_whole_matches_with_legal_actions_R9_11(
    options: CourtPieceOptions, quick_search: None
) -> None:
    """Matches with a different level in each seat (every level meets the others), the view
    after a JSON round trip, the match facts as the site passes them."""
    players = [*LEVELS, "random", "greedy"]
    decided: dict[str, int] = dict.fromkeys(players, 0)
    kinds: set[str] = set()
    for number in range(2):
        match = new_court_piece_match(options, seed=number, target=2, max_deals=2)
        seating = [players[(number * 3 + s) % len(players)] for s in range(4)]
        while not match.is_over:
            if match.deal.is_over:
                match = next_deal(match)
                continue
            seat = match.deal.to_act
            assert seat is not None
            seen = court_piece_view(match.deal, seat)
            facts = {
                "scores": list(match.scores),
                "target": match.target,
                "streak": {"side": match.streak.side, "count": match.streak.count},
                "max_deals": match.max_deals,
            }
            level = seating[seat]
            action = bot_action(json.loads(json.dumps(seen)), level=level, match=facts)
            assert to_json(action) in seen["legal"]
            match = court_piece_apply(match, engine_action(action))
            decided[level] += 1
            kinds.add(type(action).__name__)
    assert all(decided[level] for level in seating)
    if options.hidden_trump is HiddenTrump.CHOSEN:
        assert {"ChooseIndicator", "RevealTrump"} <= kinds
    elif options.hidden:
        assert "RevealTrump" in kinds and "CallTrump" not in kinds
    else:
        assert "CallTrump" in kinds


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("options", [OFF, ACE_RULE, CHOSEN, BLIND], ids=mix_id)
def test_search_levels_play_every_position_legally_R9_14_R9_12(
    level: str, options: CourtPieceOptions, quick_search: None
) -> None:
    """Positions of every kind (before and after the reveal, piles of every size, the endgame
    solver's last tricks), each decided from the view alone."""
    for count, deal in enumerate(positions(options, range(3))):
        if count % 3:
            continue
        assert deal.to_act is not None
        seen = court_piece_view(deal, deal.to_act)
        action = bot_action(seen, level=level, time_limit=0.05)
        assert action in deal_legal_actions(deal)


def test_levels_decide_in_the_court_chase_and_beside_a_pile_R9_6_1_R9_12(
    quick_search: None,
) -> None:
    """Positions of the chase (a side has won the first 7 tricks and plays on, R9.6.1) and of
    Double Sir with tricks lying in the pile (R9.12): every level answers legally."""
    chases = piles = 0
    for options, make in ((OFF, chase_deal), (ACE_RULE, seeded_deal)):
        for seed in range(12):
            deal = make(options, seed)
            while not deal.is_over:
                assert deal.to_act is not None
                seen = court_piece_view(deal, deal.to_act)
                position = Position.from_view(seen)
                if position.chase_side is not None or position.pile >= 2:
                    chases += position.chase_side is not None
                    piles += position.pile >= 2
                    for level in ("easy", "medium", "hard", "expert"):
                        action = bot_action(seen, level=level, time_limit=0.05)
                        assert action in deal_legal_actions(deal)
                deal = greedy_step(deal)
    assert chases > 10 and piles > 10


# -- the greedy baseline's additions -------------------------------------------------------------


def test_greedy_calls_R3_6_suit_of_the_first_5_R9_4_3() -> None:
    for seed in range(200):
        deal = seeded_deal(OFF, seed)
        action = greedy_action(court_piece_view(deal, deal.caller))
        assert action == CallTrump(deal.caller, default_trump(deal.first5))
        assert action == default_call(deal)


def test_greedy_lays_the_lowest_card_of_R3_6_suit_as_indicator_R9_14_1() -> None:
    for seed in range(200):
        deal = seeded_deal(CHOSEN, seed)
        action = greedy_action(court_piece_view(deal, deal.caller))
        suit = default_trump(deal.first5)
        lowest = min((c for c in deal.first5 if c.suit == suit), key=lambda c: c.rank)
        assert action == ChooseIndicator(deal.caller, lowest) == default_call(deal)


@pytest.mark.parametrize("options", [CHOSEN, BLIND, ACE_RULE], ids=mix_id)
def test_greedy_asks_for_trump_whenever_it_may_and_cannot_follow_R9_14_2(
    options: CourtPieceOptions,
) -> None:
    hidden = options.hidden
    asked = played_on = 0
    for deal in positions(options, range(40, 70)):
        if deal.phase.value != "play":
            continue
        seat = deal.to_act
        legal = deal_legal_actions(deal)
        action = court_piece_greedy_action(court_piece_view(deal, seat))
        led = deal.led_suit
        void = led is not None and not any(c.suit == led for c in deal.holdings[seat])
        if RevealTrump(seat) in legal and void:
            assert action == RevealTrump(seat)
            asked += 1
        else:
            assert isinstance(action, PlayCard)
            played_on += RevealTrump(seat) in legal  # the caller, who may but can follow
    assert played_on > 0 if hidden else asked == 0
    assert asked >= 10 if hidden else True


def test_greedy_plays_hokm_greedy_cards_when_trump_is_announced_R9_1_2() -> None:
    """Without hidden trump the card play is Hokm's (R9.1.2) and so is greedy's."""
    compared = 0
    for deal in positions(OFF, range(100, 115), chance=0.0):
        if deal.phase.value != "play":
            continue
        seen = court_piece_view(deal, deal.to_act)
        legal = [a for a in deal_legal_actions(deal) if isinstance(a, PlayCard)]
        assert court_piece_greedy_action(seen) == hokm_greedy_card(seen, legal)
        compared += 1
    assert compared > 100


def test_a_trump_discarded_before_the_reveal_does_not_win_R9_14_5() -> None:
    """The caller under ``chosen`` knows trump is spades. His partner, void in hearts, threw
    the 9 of spades on the heart led without asking: an ordinary discard (R9.14.5), so the
    opponent's 9 of hearts is winning, and greedy takes the trick with the king rather than
    playing low as if its partner were winning."""
    holdings = [
        cards("JC QC 9H TH JH QH AH 3H 4H 5S 6S 7S 8S"),
        cards("2S 3S 4S 2C 3C KH 2H 2D 3D 4D 5D 6D 7D"),
        cards("AC KC 5H 6H 7H 8H 8D 9D TD JD QD KD AD"),
        cards("4C 5C 6C 7C 8C 9C TC 9S TS JS QS KS AS"),
    ]
    deck = deck_from_court_deal(caller=1, first5=holdings[1][:5], holdings=holdings)
    deal = new_deal(CHOSEN, dealer=0, deck=deck)
    deal = deal_apply(deal, ChooseIndicator(1, Card.parse("2S")))
    for seat, text in ((1, "2C"), (2, "AC"), (3, "4C"), (0, "JC"), (2, "5H"), (3, "9S"), (0, "9H")):
        deal = deal_apply(deal, PlayCard(seat, Card.parse(text)))
    seen = court_piece_view(deal, 1)
    assert seen["trump"] == "S" and RevealTrump(1) in deal_legal_actions(deal)
    assert Position.from_view(seen).current_counted() == [False, False, False]
    action = greedy_action(seen)
    assert action == PlayCard(1, Card.parse("KH"))
    after = deal_apply(deal, engine_action(action))
    assert after.tricks[-1].winner == 1  # the engine agrees: the spade did not win


# -- the simulator and the solver against the engine -----------------------------------------


@pytest.mark.parametrize("options", EVERY_MIX, ids=mix_id)
def test_simulator_ends_every_deal_as_the_engine_does_with_greedy_R9_6_R9_12(
    options: CourtPieceOptions,
) -> None:
    """A playout from the deal's first lead, with greedy's model in every seat, reaches the
    engine's result: the winner, court or 52-court, the courts and the tricks (or collections)."""
    for seed in range(25):
        deal = seeded_deal(options, seed)
        if deal.phase.value == "call":
            deal = greedy_step(deal)
        first = deal
        while not deal.is_over:
            deal = greedy_step(deal)
        result = deal.result
        assert result is not None
        hidden_indicator = first.indicator if options.hidden and not first.revealed else None
        deals = Deals.start(
            Rules.of(options, first.caller),
            np.array([[mask_of(h) for h in first.holdings]], dtype=np.uint64),
            trump=SUIT_INDEX[first.trump],
            indicator=mask_of([hidden_indicator]) if hidden_indicator else 0,
            reveal_trick=None,
            leader=first.leader,
        )
        out = playout(deals)
        assert out.winner[0] == result.winner
        assert out.how[0] == HOW[result.outcome.value]
        assert out.courts[0] == result.courts
        assert tuple(out.sides[0]) == result.side_tricks


def minimax(deal: CourtPieceDeal, side: int, worth: Callable[[int, int], float]) -> float:
    if deal.is_over:
        assert deal.result is not None
        return worth(deal.result.winner, deal.result.courts)
    assert deal.to_act is not None
    values = [minimax(deal_apply(deal, a), side, worth) for a in deal_legal_actions(deal)]
    return max(values) if deal.to_act % 2 == side else min(values)


def solver_values(deal: CourtPieceDeal, worth: Callable[[int, int], float]) -> list[float]:
    """The solver's values of the legal actions, with every card known (the true deal)."""
    seat = deal.to_act
    assert seat is not None
    position = Position.from_view(court_piece_view(deal, seat))
    start = _Start.of(position)
    assert deal.trump is not None
    lying = deal.indicator if deal.options.hidden and not deal.revealed else None
    sample = replace(
        sample_deals(Knowledge.from_position(position), 1, random.Random(0)),
        hands=np.array([[mask_of(h) for h in deal.holdings]], dtype=np.uint64),
        indicator=np.array([bit_of(lying) if lying else -1]),
        trump=np.array([SUIT_INDEX[deal.trump]]),
    )
    prev_ace = deal.tricks[-1].won_by_ace if deal.tricks else False
    table, trick = _solver_start(position, start, sample, 0, prev_ace)
    trick = trick._replace(must_trump=-1 if deal.must_trump is None else deal.must_trump)
    solver = Solver(
        Rules.of(deal.options, deal.caller),
        side=seat % 2,
        worth=worth,
        deadline=time.perf_counter() + 60,
    )
    moves = [
        bit_of(a.card) if isinstance(a, PlayCard) else REVEAL for a in deal_legal_actions(deal)
    ]
    return solver.values(table, trick, moves)


def chase_deal(options: CourtPieceOptions, seed: int) -> CourtPieceDeal:
    """A deal where seats 0 and 2 hold most high cards, so that they often win the first 7
    tricks and the court chase (R9.6.1) goes on."""
    rng = random.Random(seed)
    ordered = sorted(FULL_DECK, key=lambda c: -c.rank)
    strong, weak = ordered[:24], ordered[24:]
    rng.shuffle(strong)
    rng.shuffle(weak)
    side0, side1 = strong[:22] + weak[:4], strong[22:] + weak[4:]
    holdings = [side0[:13], side1[:13], side0[13:], side1[13:]]
    caller = seed % 2 * 2  # seat 0 or 2
    deck = deck_from_court_deal(caller=caller, first5=holdings[caller][:5], holdings=holdings)
    return new_deal(options, dealer=(caller - 1) % 4, deck=deck, blind_pick=seed % 5)


def endgames(options: CourtPieceOptions, count: int) -> Iterator[CourtPieceDeal]:
    """Positions with 2 or 3 tricks left, in chases as well (every other one where possible)."""
    rng = random.Random(mix_id(options))
    found = 0
    for seed in range(400):
        chasing = seed % 2 == 0 and not options.double_sir
        deal = chase_deal(options, seed) if chasing else seeded_deal(options, seed)
        stop = rng.choice([40, 41, 42, 43, 44, 45, 46, 47])
        while not deal.is_over and len(deal.played) < stop:
            legal = deal_legal_actions(deal)
            deal = deal_apply(deal, rng.choice(legal)) if rng.random() < 0.25 else greedy_step(deal)
        if deal.is_over or len(deal_legal_actions(deal)) < 2:
            continue
        yield deal
        found += 1
        if found == count:
            return


@pytest.mark.parametrize("options", [OFF, DOUBLE_SIR, ACE_RULE, CHOSEN, BLIND], ids=mix_id)
def test_solver_agrees_with_minimax_over_the_engine_R9_6_1_R9_12_R9_14(
    options: CourtPieceOptions,
) -> None:
    """With every card known, the solver's value of each legal action (asking for trump
    included) is the engine's own minimax value: courts, 52-courts (R9.6.1), collections of the
    pile (R9.12, R9.13) and reveals (R9.14.2, R9.14.4) alike."""
    chases = 0
    for deal in endgames(options, 10):
        side = deal.to_act % 2 if deal.to_act is not None else 0

        def worth(winner: int, courts: int, side: int = side) -> float:
            value = 1.0 + 0.5 * courts
            return value if winner == side else -value

        exact = [minimax(deal_apply(deal, a), side, worth) for a in deal_legal_actions(deal)]
        assert solver_values(deal, worth) == pytest.approx(exact)
        chases += Position.from_view(court_piece_view(deal, 0)).chase_side is not None
    assert options.double_sir or chases > 0


# -- sampling what is not seen -----------------------------------------------------------------


@pytest.mark.parametrize("options", [OFF, ACE_RULE, CHOSEN, BLIND], ids=mix_id)
def test_sampled_deals_fit_the_view_and_sample_the_unknown_trump_R9_14_R9_15_1(
    options: CourtPieceOptions,
) -> None:
    rng = random.Random(3)
    checked = unknown_trump = 0
    for number, deal in enumerate(positions(options, range(300, 306))):
        if deal.phase.value != "play" or number % 4:
            continue
        seat = deal.to_act
        assert seat is not None
        position = Position.from_view(court_piece_view(deal, seat))
        knowledge = Knowledge.from_position(position)
        sample = sample_deals(knowledge, 64, rng)
        own = mask_of(deal.holdings[seat])
        for row in range(len(sample)):
            hands = [int(h) for h in sample.hands[row]]
            assert hands[seat] == own
            assert [h.bit_count() for h in hands] == list(position.hand_counts)
            for holder, barred in zip(knowledge.holders, knowledge.barred, strict=True):
                if holder >= 0:
                    assert not hands[holder] & barred
            taken = hands + (
                [1 << int(sample.indicator[row])] if sample.indicator[row] >= 0 else []
            )
            union = 0
            for mask in taken:
                assert not union & mask  # nobody holds a card twice
                union |= mask
            assert not union & mask_of(deal.current)
        lying_apart = options.hidden and not deal.revealed
        sees = position.trump is not None
        if lying_apart and not sees:
            assert INDICATOR in knowledge.holders
            assert list(sample.trump) == [int(b) & 3 for b in sample.indicator]
            unknown_trump += len(set(sample.trump.tolist())) > 1
        else:
            assert set(sample.trump.tolist()) == {SUIT_INDEX[deal.trump]}
        face_down = any(trick.cards is None for trick in position.tricks)
        assert (PLAYED in knowledge.holders) == face_down
        checked += 1
    assert checked > 5
    assert unknown_trump > 0 if options.hidden else unknown_trump == 0


# -- time, determinism, no peeking -------------------------------------------------------------


@pytest.mark.parametrize("phase", ["call", "early", "endgame"])
def test_the_time_limit_holds_inside_the_search(phase: str) -> None:
    """Far more deals than fit in the time: the search stops at the deadline, a round later at
    most, with the expert's own settings and the solver from the first trick."""
    huge = replace(
        cp_levels.COURT_PIECE_SEARCH_SETTINGS["expert"], samples=1_000_000, solve_tricks=13
    )
    options = CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN)
    deal = seeded_deal(options, 7)
    if phase != "call":
        deal = greedy_step(deal)
        played = 5 if phase == "early" else 36
        while len(deal.played) < played or len(deal_legal_actions(deal)) < 2:
            deal = greedy_step(deal)
    seen = court_piece_view(deal, deal.to_act)
    limit = 0.15
    started = time.perf_counter()
    action = court_piece_search_action(
        seen, settings=huge, match=None, deadline=started + limit, rng=random.Random(1)
    )
    elapsed = time.perf_counter() - started
    assert to_json(action) in seen["legal"]
    assert limit <= elapsed < limit + 0.5


def test_same_view_same_action() -> None:
    for options in (OFF, CHOSEN):
        deal = seeded_deal(options, 21)
        while len(deal.played) < 9:
            deal = greedy_step(deal)
        seen = court_piece_view(deal, deal.to_act)
        wire = json.loads(json.dumps(seen))
        for level in ("easy", "hard", "expert"):
            actions = {bot_action(view, level=level, time_limit=30) for view in (seen, wire)}
            assert len(actions) == 1


def redealt(deal: CourtPieceDeal, seat: int, rng: random.Random) -> CourtPieceDeal:
    """The same deal as ``seat`` sees it, with what it does not see dealt anew: the other
    seats' cards and, while it lies face down unseen, the indicator (and so the trump) swapped
    at random between them, keeping every card where the view says it may be (voids, R4.2,
    R9.14.4); and a fresh deck order (never shown)."""
    knowledge = Knowledge.from_position(Position.from_view(court_piece_view(deal, seat)))
    places: dict[int, list[Card]] = {s: list(deal.holdings[s]) for s in range(4) if s != seat}
    if INDICATOR in knowledge.holders:
        assert deal.indicator is not None
        places[INDICATOR] = [deal.indicator]
    barred = dict(zip(knowledge.holders, knowledge.barred, strict=True))
    names = list(places)
    for _ in range(300):
        a, b = rng.sample(names, 2)
        i, j = rng.randrange(len(places[a])), rng.randrange(len(places[b]))
        ca, cb = places[a][i], places[b][j]
        if barred[a] >> bit_of(cb) & 1 or barred[b] >> bit_of(ca) & 1:
            continue
        places[a][i], places[b][j] = cb, ca
    holdings = [places.get(s, list(deal.holdings[s])) for s in range(4)]
    indicator = places[INDICATOR][0] if INDICATOR in places else deal.indicator
    trump = indicator.suit if indicator is not None and deal.options.hidden else deal.trump
    led = deal.led_suit
    first5 = tuple(indicator if c == deal.indicator else c for c in deal.first5)
    return replace(
        deal,
        holdings=tuple(tuple(h) for h in holdings),
        indicator=indicator,
        trump=trump,
        first5=first5,
        current_trumps=tuple(
            c.suit == trump and (deal.trump_known or led == trump) for c in deal.current
        ),
        deck=tuple(shuffled(FULL_DECK, rng.randrange(1 << 30))),
    )


@pytest.mark.parametrize(
    "options",
    [
        OFF,
        BLIND,
        CourtPieceOptions(double_sir=True, ace_rule=True, hidden_trump=HiddenTrump.CHOSEN),
    ],
    ids=mix_id,
)
def test_no_peeking_redealt_hidden_cards_and_indicator_change_no_decision_R8_3_R9_15_1(
    options: CourtPieceOptions, quick_search: None
) -> None:
    """The decision depends on the seat's view alone: with the others' cards, the face-down
    indicator (so the trump) and the deck dealt anew, the view is the same and so is every
    level's decision."""
    rng = random.Random(mix_id(options))
    compared = changed = trump_changed = 0
    for number, deal in enumerate(positions(options, range(500, 520))):
        if number % 7 or deal.phase.value != "play" or len(deal_legal_actions(deal)) < 2:
            continue
        seat = deal.to_act
        assert seat is not None
        other = redealt(deal, seat, rng)
        assert court_piece_view(other, seat) == court_piece_view(deal, seat)
        changed += other.holdings != deal.holdings
        trump_changed += other.trump != deal.trump
        for level in ("greedy", "easy", "hard", "expert"):
            first = bot_action(court_piece_view(deal, seat), level=level, time_limit=30)
            second = bot_action(court_piece_view(other, seat), level=level, time_limit=30)
            assert first == second
            assert first in deal_legal_actions(other)
        compared += 1
        if compared == 10:
            break
    assert compared == 10 and changed >= 8
    if options.hidden:
        assert trump_changed > 0


def test_caller_under_blind_does_not_know_his_indicator_R9_14_1(quick_search: None) -> None:
    """Under ``blind`` even the caller samples the indicator: his view shows no trump."""
    deal = seeded_deal(BLIND, 11)
    assert deal.to_act == deal.caller
    position = Position.from_view(court_piece_view(deal, deal.caller))
    assert position.trump is None and position.indicator is None
    knowledge = Knowledge.from_position(position)
    assert INDICATOR in knowledge.holders
    sample = sample_deals(knowledge, 200, random.Random(1))
    assert len(set(sample.trump.tolist())) == 4


def test_a_seat_not_on_turn_has_nothing_to_decide_and_levels_are_checked() -> None:
    deal = seeded_deal(OFF, 1)
    other = (deal.caller + 1) % 4
    for level in ("greedy", "easy", "hard", "expert"):
        with pytest.raises(NoDecisionError):
            bot_action(court_piece_view(deal, other), level=level)
    with pytest.raises(UnknownLevelError):
        bot_action(court_piece_view(deal, deal.caller), level="grandmaster")


def test_docstring_examples() -> None:
    result = doctest.testmod(cp_greedy)
    assert result.attempted > 0 and result.failed == 0
