"""Selectors rebuild engine states from the rows in a fixed number of queries."""

import pytest

from games.engine import HOKM4, deal_deck, hand_seed, new_hand, view
from games.models import Hand, Match
from games.play.selectors import (
    hakem_draw_from_json,
    hand_state_build,
    match_hand_states,
    match_state_build,
)
from tests.games.factories import MatchFactory, engine_hand_search, match_play, shadow_of

pytestmark = pytest.mark.django_db


def test_new_hand_rebuilds_before_the_call_R3_1():
    match = MatchFactory(seed=31)
    hand = Hand.objects.select_related("match").get(match=match)
    state = hand_state_build(hand=hand)
    assert state == new_hand(HOKM4, hakem=hand.hakem, deck=deal_deck(HOKM4, hand_seed(31, 0)))
    assert state == shadow_of(match).hand
    assert all(len(h) == 0 for s, h in enumerate(state.holdings) if s != hand.hakem)


@pytest.mark.parametrize("tricks", [1, 13])
def test_hand_state_build_takes_one_query_whatever_the_tricks(tricks, django_assert_num_queries):
    seed = engine_hand_search("hokm4", lambda hand: len(hand.tricks) == 13)
    match = MatchFactory(seed=seed)
    played = match_play(match, rng_seed=seed, until=lambda s: len(s.hand.tricks) == tricks)
    hand = Hand.objects.select_related("match").get(match=match, number=0)

    with django_assert_num_queries(1):
        state = hand_state_build(hand=hand)

    assert len(state.tricks) == tricks
    assert state == played.shadow.hand


def test_match_state_build_takes_two_queries(django_assert_num_queries):
    match = MatchFactory(seed=40)
    played = match_play(match, rng_seed=40, until=lambda s: s.hand_number == 2)
    match = Match.objects.get(pk=match.pk)

    with django_assert_num_queries(2):
        state = match_state_build(match=match)

    assert state == played.shadow
    assert len(state.results) == 2


def test_match_hand_states_takes_two_queries(django_assert_num_queries):
    match = MatchFactory(variant="hokm3", seed=41)
    played = match_play(match, rng_seed=41, until=lambda s: s.hand_number == 2)
    match = Match.objects.get(pk=match.pk)

    with django_assert_num_queries(2):
        states = match_hand_states(match=match)

    assert states == played.hands


def test_stored_hakem_draw_round_trips_R2_2_R2_3():
    for partner_draw in (False, True):
        match = MatchFactory(seed=50, partner_draw=partner_draw)
        draw = hakem_draw_from_json(match.hakem_draw)
        assert draw == shadow_of(match).draw
        assert draw.partner_drawn is partner_draw
    assert hakem_draw_from_json(None) is None


def test_views_of_a_rebuilt_hand_hide_other_seats_R8_3():
    match = MatchFactory(seed=60)
    played = match_play(match, rng_seed=60, until=lambda s: len(s.hand.tricks) == 3)
    hand = Hand.objects.select_related("match").get(match=match)
    state = hand_state_build(hand=hand)
    for seat in range(4):
        seen = view(state, seat)
        assert seen == view(played.shadow.hand, seat)
        others = {c.text for s, h in enumerate(state.holdings) if s != seat for c in h}
        assert not others & set(seen["hand"])
    assert "hand" not in view(state, None)
