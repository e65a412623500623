"""The search bots of issue 7 (docs/bots.md): the fast simulator against the engine, sampled deals
against the view, the endgame solver against brute force, the time limit, legal play at every
level in every variant, and no peeking (R8.3)."""

import os
import random
import time
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import LEVELS, TIME_LIMITS, bot_action, greedy_action
from games.bots import levels as bot_levels
from games.bots.sampling import Knowledge, sample_deals
from games.bots.search import search_action
from games.bots.sim import SUIT_INDEX, SUIT_MASKS, Batch, Rules, mask_of, playout
from games.bots.solver import Solver, SolverTimeout
from games.engine import (
    HOKM2_DRAW,
    HOKM4,
    VARIANTS,
    HandState,
    Phase,
    PlayCard,
    Variant,
    apply,
    deal_deck,
    legal_actions,
    new_hand,
    to_json,
    view,
)
from tests.engine.helpers import seeded_hand

#: Hands per variant for the legality run of the search levels (more in CI).
SEARCH_HANDS = int(os.environ.get("HOKM_SEARCH_HANDS") or (120 if os.environ.get("CI") else 60))
ALL_VARIANTS = pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))


def greedy_to(variant: Variant, seed: int, stop) -> HandState:
    """A hand of ``variant`` played by greedy from ``seed`` until ``stop(state)`` holds."""
    state = seeded_hand(variant, seed)
    while not state.is_over and not stop(state):
        state = apply(state, greedy_action(view(state, state.to_act)))
    return state


def in_play(state: HandState) -> bool:
    return state.phase is Phase.PLAY


# -- the simulator -----------------------------------------------------------------------------


@ALL_VARIANTS
def test_simulator_plays_the_greedy_baseline_card_for_card_R4_R5(variant):
    """A playout of the simulator ends every hand exactly as the engine does with greedy in every
    seat: the same winner and the same points (R5, Kots included)."""
    rules = Rules.of(variant)
    results = set()
    for seed in range(150):
        state = greedy_to(variant, seed, in_play)
        hands = np.array([[mask_of(h) for h in state.holdings]], dtype=np.uint64)
        batch = Batch.start(
            rules,
            hands,
            trump=SUIT_INDEX[state.trump],
            leader=state.leader,
            hakem_side=rules.side_of(state.hakem),
        )
        outcome = playout(batch)
        final = greedy_to(variant, seed, lambda s: False)
        assert (int(outcome.winner[0]), int(outcome.points[0])) == (
            final.result.winner,
            final.result.points,
        )
        results.add((final.result.winner, final.result.points))
    assert {winner for winner, _ in results} == set(range(variant.sides))  # every side won
    if variant is HOKM4:  # Kots were among the hands compared (rarer in the others)
        assert any(points > 1 for _, points in results)


def _start_of_play(variant: Variant, seeds: range, *, smart_side: int) -> Batch:
    rules = Rules.of(variant)
    states = [greedy_to(variant, seed, in_play) for seed in seeds]
    return Batch.start(
        rules,
        np.array([[mask_of(h) for h in s.holdings] for s in states], dtype=np.uint64),
        trump=np.array([SUIT_INDEX[s.trump] for s in states]),
        leader=0,
        hakem_side=0,
        smart_side=smart_side,
    )


@ALL_VARIANTS
def test_exploring_playouts_play_legal_cards_of_the_own_side_only_R4_2(variant):
    """An exploring playout (the expert's own side trying other cards) plays only legal cards
    (R4.2: checked against the legal mask at every step), only the own side wanders, and rows
    that explore with chance 0 play exactly the policy."""
    rules = Rules.of(variant)
    n = 120
    explore = np.where(np.arange(n) % 2 == 0, 0.0, 1.0)
    batch = _start_of_play(variant, range(n), smart_side=0)
    batch.explore, batch.explore_rng = explore, np.random.default_rng(5)
    plain = _start_of_play(variant, range(n), smart_side=0)
    wandered = 0
    while batch.played < rules.tricks_per_hand:
        legal = batch.legal()
        chosen = batch.greedy_choice()
        policy = plain.greedy_choice()
        assert np.all(legal >> chosen.astype(np.uint64) & np.uint64(1))
        seat = batch.seat_to_play
        own_side = (seat % 2 if rules.partnerships else seat) == 0
        same = chosen == policy
        assert np.all(same[explore == 0])
        assert np.all(same[~own_side])  # the opponents always play the model
        wandered += int((~same).sum())
        # Both batches play the same cards so that their positions stay alike.
        batch.play(chosen)
        plain.play(chosen)
    assert wandered > n  # exploring rows did try other cards


# -- sampled deals -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(list(VARIANTS.values())),
    seed=st.integers(0, 10_000),
    plays=st.integers(0, 60),
    evidence=st.booleans(),
)
def test_sampled_deals_respect_voids_hand_sizes_and_seen_cards(variant, seed, plays, evidence):
    state = greedy_to(variant, seed, lambda s: in_play(s) and len(s.played) >= plays)
    if state.is_over:
        return
    seat = state.to_act
    seen = view(state, seat)
    knowledge = Knowledge.from_view(seen)
    history = [
        ((t.leader + i) % variant.players, mask_of([c]).bit_length() - 1)
        for t in [*state.tricks]
        for i, c in enumerate(t.cards)
    ]
    deals = sample_deals(
        knowledge,
        40,
        random.Random(seed),
        evidence=evidence,
        history=history if not state.current else (),
        rules=Rules.of(variant),
    )
    played = mask_of(state.played)
    assert deals.shape == (40, variant.players)
    for row in deals:
        masks = [int(m) for m in row]
        assert masks[seat] == mask_of(state.holdings[seat])
        together = 0
        for other, mask in enumerate(masks):
            assert not together & mask  # no card twice
            together |= mask
            if other == seat:
                continue
            assert mask.bit_count() == len(state.holdings[other])  # hand sizes
            assert not mask & knowledge.voids[other]  # R4.2: no card of a suit he lacks
            assert not mask & played
            assert not mask & ~knowledge.unknown  # only cards this seat has not seen
    # The truth itself is a possible deal: every void recorded is real.
    for other in range(variant.players):
        assert not mask_of(state.holdings[other]) & knowledge.voids[other]


def test_sampled_deals_read_voids_from_the_tricks_R4_2():
    """Seat 1 did not follow a spade lead: no deal gives him a spade."""
    for seed in range(400):
        state = greedy_to(HOKM4, seed, lambda s: in_play(s) and len(s.tricks) >= 3)
        voids = [
            (t.leader + i) % 4
            for t in state.tricks
            for i, c in enumerate(t.cards)
            if c.suit != t.cards[0].suit
        ]
        seat = state.to_act
        if state.is_over or not [v for v in voids if v != seat]:
            continue
        knowledge = Knowledge.from_view(view(state, seat))
        void_seat = next(v for v in voids if v != seat)
        assert knowledge.voids[void_seat]
        for row in sample_deals(knowledge, 100, random.Random(seed)):
            assert not int(row[void_seat]) & knowledge.voids[void_seat]
        return
    pytest.fail("no position with a void shown")


def test_evidence_makes_deals_fit_the_opponents_plays():
    """With evidence, the deals drawn explain greedy opponents' plays far better than without."""
    rules = Rules.of(HOKM4)
    fits = {False: 0, True: 0}
    for seed in range(12):
        state = greedy_to(HOKM4, 500 + seed, lambda s: in_play(s) and len(s.tricks) >= 4)
        if state.is_over or state.current:
            continue
        seat = state.to_act
        knowledge = Knowledge.from_view(view(state, seat))
        history = [
            ((t.leader + i) % 4, mask_of([c]).bit_length() - 1)
            for t in state.tricks
            for i, c in enumerate(t.cards)
        ]
        from games.bots.sampling import _model_misses

        for evidence in (False, True):
            deals = sample_deals(
                knowledge, 200, random.Random(seed), evidence=evidence, history=history, rules=rules
            )
            misses = _model_misses(knowledge, deals, history, rules)
            fits[evidence] += int((misses == 0).sum())
    assert fits[True] > 2 * fits[False]


# -- the endgame solver ------------------------------------------------------------------------


def brute_force(state: HandState, side: int, worth) -> float:
    """Plain minimax over the engine itself: no pruning, no table, every legal card."""
    if state.is_over:
        return worth(state.result.winner, state.result.points)
    values = [brute_force(apply(state, a), side, worth) for a in legal_actions(state)]
    mine = state.variant.side_of(state.to_act) == side
    return max(values) if mine else min(values)


def worth_of(side: int):
    def worth(winner: int, points: int) -> float:
        value = 1.0 + 0.25 * (points - 1)
        return value if winner == side else -value

    return worth


@pytest.mark.parametrize(
    "variant,cards_left",
    [(VARIANTS["hokm4"], 12), (VARIANTS["hokm3"], 9), (VARIANTS["hokm2"], 8)],
    ids=["hokm4", "hokm3", "hokm2"],
)
def test_solver_agrees_with_brute_force_on_small_endgames(variant, cards_left):
    rules = Rules.of(variant)
    checked = 0
    for seed in range(200):
        state = greedy_to(
            variant, seed, lambda s: in_play(s) and sum(map(len, s.holdings)) <= cards_left
        )
        if state.is_over:
            continue
        seat = state.to_act
        side = rules.side_of(seat)
        worth = worth_of(side)
        legal = legal_actions(state)
        expected = [brute_force(apply(state, a), side, worth) for a in legal]
        solver = Solver(
            rules,
            trump=SUIT_INDEX[state.trump],
            hakem_side=rules.side_of(state.hakem),
            side=side,
            worth=worth,
            deadline=time.perf_counter() + 60,
        )
        got = solver.values(
            [mask_of(h) for h in state.holdings],
            leader=state.leader,
            current=[mask_of([c]).bit_length() - 1 for c in state.current],
            won=list(state.tricks_won),
            played=len(state.tricks),
            candidates=[mask_of([a.card]).bit_length() - 1 for a in legal],
        )
        assert got == pytest.approx(expected), f"seed {seed}"
        checked += 1
        if checked == 25:
            break
    assert checked == 25


def test_solver_gives_up_at_its_deadline():
    state = greedy_to(HOKM4, 3, in_play)
    rules = Rules.of(HOKM4)
    solver = Solver(
        rules,
        trump=SUIT_INDEX[state.trump],
        hakem_side=0,
        side=0,
        worth=worth_of(0),
        deadline=time.perf_counter() + 0.05,
    )
    started = time.perf_counter()
    with pytest.raises(SolverTimeout):
        solver.values(
            [mask_of(h) for h in state.holdings],
            leader=state.leader,
            current=[],
            won=[0, 0, 0, 0],
            played=0,
            candidates=[mask_of([c]).bit_length() - 1 for c in state.holdings[state.leader]],
        )
    assert time.perf_counter() - started < 1.0  # a whole hand would take minutes


# -- the time limit ----------------------------------------------------------------------------


@pytest.mark.parametrize("phase", ["call", "early", "endgame"])
def test_the_time_limit_holds_inside_the_search(phase):
    """A search asked for far more deals than fit in its time stops at the deadline, after at
    most one round (64 deals) more: the expert's own settings (evidence, reading, exploring
    playouts), with a million deals and the solver from the first trick."""
    huge = replace(bot_levels.SEARCH_SETTINGS["expert"], samples=1_000_000, solve_tricks=13)
    stops = {
        "call": lambda s: True,
        "early": lambda s: in_play(s) and len(s.tricks) >= 1,
        "endgame": lambda s: in_play(s) and sum(map(len, s.holdings)) <= 20,
    }
    state = next(
        s for seed in range(100) if not (s := greedy_to(HOKM4, seed, stops[phase])).is_over
    )
    seen = view(state, state.to_act)
    limit = 0.15
    started = time.perf_counter()
    action = search_action(
        seen,
        settings=huge,
        match=None,
        deadline=started + limit,
        rng=random.Random(1),
    )
    elapsed = time.perf_counter() - started
    assert to_json(action) in seen["legal"]
    assert limit <= elapsed < limit + 0.5


def test_expert_time_limit_is_the_issue_budget():
    assert TIME_LIMITS["expert"] < 0.3 and TIME_LIMITS["hard"] < TIME_LIMITS["expert"]


# -- every level, every variant, only legal actions ---------------------------------------------


@pytest.fixture
def quick_search(monkeypatch):
    """The search levels with few deals, so that many hands fit in a test run: the same code
    paths (evidence, solver, bidding) on fewer samples."""
    for level, found in list(bot_levels.SEARCH_SETTINGS.items()):
        monkeypatch.setitem(
            bot_levels.SEARCH_SETTINGS, level, replace(found, samples=8, round_size=8)
        )


@ALL_VARIANTS
def test_every_level_plays_only_legal_actions_R4_4(variant, quick_search):
    """Hands with a different level in each seat (every level meets every other)."""
    levels = [*LEVELS, "random"]
    decisions = {level: 0 for level in levels}
    for seed in range(SEARCH_HANDS):
        state = seeded_hand(variant, seed)
        seating = [levels[(seed + s) % len(levels)] for s in range(variant.players)]
        while not state.is_over:
            seat = state.to_act
            seen = view(state, seat)
            match = {"scores": [seed % 5] * variant.sides, "target": 7}
            action = bot_action(seen, level=seating[seat], match=match)
            assert to_json(action) in seen["legal"]
            state = apply(state, action)  # the engine refuses anything illegal (R4.4)
            decisions[seating[seat]] += 1
        assert state.result is not None
    assert all(count > SEARCH_HANDS for count in decisions.values()), decisions


# -- no peeking (R8.3) -------------------------------------------------------------------------


def consistent_reshuffle(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same hand as ``seat`` sees it, the other seats' hidden cards dealt anew consistently
    with what it has seen: the same counts, and no card of a suit a seat has shown it lacks."""
    others = [s for s in range(state.players) if s != seat]
    seen = view(state, seat)
    voids = Knowledge.from_view(seen).voids
    holdings = [list(h) for h in state.holdings]
    discards = [list(d) for d in state.discards]
    for _ in range(200):  # random swaps between two hidden places that keep every void
        a, b = rng.sample(others, 2) if len(others) > 1 else (others[0], others[0])
        place_a = holdings[a] + discards[a]
        place_b = holdings[b] + discards[b]
        if not place_a or not place_b:
            continue
        i, j = rng.randrange(len(holdings[a]) or 1), rng.randrange(len(holdings[b]) or 1)
        if not holdings[a] or not holdings[b]:
            continue
        ca, cb = holdings[a][i], holdings[b][j]
        bit_a, bit_b = SUIT_MASKS[SUIT_INDEX[ca.suit]], SUIT_MASKS[SUIT_INDEX[cb.suit]]
        if voids[a] & bit_b or voids[b] & bit_a:
            continue
        holdings[a][i], holdings[b][j] = cb, ca
    if state.variant.unseen_count:  # classic hokm2: swap with the undealt cards too
        undealt = [c for c in state.deck[state.dealt :]]
        other = others[0]
        for _ in range(50):
            i, j = rng.randrange(len(holdings[other]) or 1), rng.randrange(len(undealt))
            if not holdings[other]:
                break
            card = undealt[j]
            if voids[other] & SUIT_MASKS[SUIT_INDEX[card.suit]]:
                continue
            holdings[other][i], undealt[j] = card, holdings[other][i]
        deck = state.deck[: state.dealt] + tuple(undealt)
    else:
        deck = state.deck
    return replace(
        state,
        holdings=tuple(tuple(h) for h in holdings),
        discards=tuple(tuple(d) for d in discards),
        deck=deck,
    )


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize(
    "variant", [HOKM4, VARIANTS["hokm3"], VARIANTS["hokm2"]], ids=lambda v: v.name
)
def test_no_peeking_reshuffled_hidden_hands_do_not_change_the_decision_R8_3(level, variant):
    """The decision depends on the seat's view alone: with the hidden hands dealt anew
    (consistently with that view) the view is the same and so is the decision."""
    rng = random.Random(level)
    changed = compared = 0
    for seed in range(60):
        depth = (seed % 9) * 3
        state = greedy_to(variant, 700 + seed, lambda s, d=depth: in_play(s) and len(s.played) >= d)
        if state.is_over or len(legal_actions(state)) < 2:
            continue
        seat = state.to_act
        other = consistent_reshuffle(state, seat, rng)
        assert view(other, seat) == view(state, seat)
        changed += other.holdings != state.holdings
        # A generous limit: the decision must not depend on how far a deadline let it go.
        first = bot_action(view(state, seat), level=level, time_limit=30)
        second = bot_action(view(other, seat), level=level, time_limit=30)
        assert first == second
        assert isinstance(first, PlayCard) and first in legal_actions(other)
        compared += 1
        if compared == 12:
            break
    assert compared == 12 and changed >= 10


def test_hokm2_draw_decisions_are_searched_by_the_expert():
    """The trump call, the discards and each keep-or-throw go through the search (R3.5)."""
    state = new_hand(HOKM2_DRAW, hakem=0, deck=deal_deck(HOKM2_DRAW, 5))
    kinds = set()
    while state.phase is not Phase.PLAY:
        seen = view(state, state.to_act)
        action = bot_action(seen, level="expert")
        assert to_json(action) in seen["legal"]
        kinds.add(type(action).__name__)
        state = apply(state, action)
    assert kinds == {"CallTrump", "Discard", "KeepOrThrow"}


def test_same_view_same_action():
    state = greedy_to(HOKM4, 21, lambda s: in_play(s) and len(s.tricks) >= 2)
    seen = view(state, state.to_act)
    actions = {bot_action(seen, level="expert", time_limit=30) for _ in range(3)}
    assert len(actions) == 1
