"""Hypothesis property tests over many random matches of every variant.

Each example plays a whole match with random legal actions and checks, after every action, the
invariants the rules promise. The scoring and trick rules are re-derived here from RULES.md in a
few independent lines, as an oracle for the engine.
"""

import json
import os
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    VARIANTS,
    HandState,
    Phase,
    match_apply,
    match_legal_actions,
    new_match,
    next_hand,
    view,
)
from tests.engine.helpers import seat_may_see

# Thousands of whole matches of each variant in CI; fewer for a quick local run.
MATCHES = int(os.environ.get("HOKM_PROPERTY_MATCHES") or (1000 if os.environ.get("CI") else 100))

CARD_IN_JSON = re.compile(r'"([2-9TJQKA][SHDC])"')


def oracle_trick_winner(cards, trump):
    """R4.3 restated: trumps beat everything, then the suit led; other suits never win."""

    def strength(card):
        if card.suit == trump:
            return 200 + card.rank
        if card.suit == cards[0].suit:
            return 100 + card.rank
        return 0

    return max(range(len(cards)), key=lambda i: strength(cards[i]))


def oracle_result(state: HandState):
    """(winner side, points, next hakem) from the tricks, per R5 and R6, or None if undecided."""
    variant, won, hakem = state.variant, state.tricks_won, state.hakem
    played = len(state.tricks)
    if variant.name == "hokm3":
        left = 17 - played
        if played == 7 and 7 in won:
            winner, points = won.index(7), (2 if won.index(7) == hakem else 3)
        else:
            leaders = [
                s for s in range(3) if all(won[s] > won[o] + left for o in range(3) if o != s)
            ]
            if leaders:
                winner, points = leaders[0], 1
            elif left == 0:
                winner, points = min(range(3), key=lambda s: won[s]), 1
            else:
                return None
        return winner, points, hakem if winner == hakem else (hakem + 1) % 3
    sides = [0, 0]
    for seat, count in enumerate(won):
        sides[variant.side_of(seat)] += count
    if max(sides) < 7:
        return None
    winner = sides.index(max(sides))
    hakem_side = variant.side_of(hakem)
    points = (2 if winner == hakem_side else 3) if sides[1 - winner] == 0 else 1
    return winner, points, hakem if winner == hakem_side else (hakem + 1) % variant.players


def check_invariants(match, previous):
    state = match.hand
    variant = state.variant
    n = variant.players
    # Cards are conserved: every card of the deck is in exactly one place.
    places = [c for h in state.holdings for c in h] + list(state.played)
    places += [c for d in state.discards for c in d] + list(state.deck[state.dealt :])
    assert Counter(places) == Counter(variant.deck)
    # Each trick: one card from each seat, the winner as R4.3 says, winner leads next.
    for index, trick in enumerate(state.tricks):
        assert len(trick.cards) == n
        assert trick.winner == (trick.leader + oracle_trick_winner(trick.cards, state.trump)) % n
        expected_leader = state.hakem if index == 0 else state.tricks[index - 1].winner
        assert trick.leader == expected_leader
    assert sum(state.tricks_won) == len(state.tricks)
    # Legal actions are never empty while someone is on turn, and only the one on turn acts.
    actions = match_legal_actions(match)
    if not match.is_over and state.to_act is not None:
        assert actions and all(a.seat == state.to_act for a in actions)
    # The hand ends exactly when the rules decide it, with the points they give.
    expected = oracle_result(state)
    if state.phase is Phase.PLAY or state.phase is Phase.DONE:
        if expected is None:
            assert state.result is None
        else:
            result = state.result
            assert (result.winner, result.points, result.next_hakem) == expected
    # Scores: the sum of the hands' points; the match ends exactly at its target (R7.1).
    totals = [0] * variant.sides
    for result in match.results:
        totals[result.winner] += result.points
    assert list(match.scores) == totals
    assert match.is_over == (max(match.scores) >= match.target)
    if previous is not None:
        assert max(previous.scores) < match.target  # no play after the match was decided
    # No view shows a card it must not (R8.3): a spectator sees played cards only.
    for seat in [None, *range(n)]:
        seen = view(state, seat)
        shown = set(CARD_IN_JSON.findall(json.dumps(seen)))
        assert shown <= seat_may_see(state, seat), (seat, shown - seat_may_see(state, seat))
        if seat is None:
            assert "hand" not in seen


def play_and_check(variant_name, seed, target, partner_draw):
    variant = VARIANTS[variant_name]
    rng = random.Random(seed)
    match = new_match(variant, seed=seed, target=target, partner_draw=partner_draw)
    previous = None
    check_invariants(match, previous)
    while not match.is_over:
        if match.hand.is_over:
            match = next_hand(match)
        previous, match = match, match_apply(match, rng.choice(match_legal_actions(match)))
        check_invariants(match, previous)
    assert match_legal_actions(match) == []
    return match


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
@settings(max_examples=MATCHES)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    target=st.sampled_from([1, 1, 1, 1, 2, 3, 7]),
    partner_draw=st.booleans(),
)
def test_random_matches_keep_every_invariant(variant_name, seed, target, partner_draw):
    play_and_check(variant_name, seed, target, partner_draw)


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_seed_and_actions_reproduce_a_match_exactly(variant_name, seed):
    """A stored seed and the action list reproduce every hand (R2.6, R6.4)."""
    variant = VARIANTS[variant_name]
    rng = random.Random(seed)
    match = new_match(variant, seed=seed, target=3)
    actions = []
    while not match.is_over:
        if match.hand.is_over:
            match = next_hand(match)
            actions.append(None)
        action = rng.choice(match_legal_actions(match))
        actions.append(action)
        match = match_apply(match, action)
    again = new_match(variant, seed=seed, target=3)
    for action in actions:
        again = next_hand(again) if action is None else match_apply(again, action)
    assert again == match
