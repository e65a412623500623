"""A process keeps each live match's position by stored version (games/play/selectors.py,
``positions``): the next move starts from it instead of replaying the hand from its rows. It must
always be exactly what the rows give, and never hold what did not commit."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.engine import VARIANTS, CallTrump, Suit
from games.models import Hand, Match
from games.play.selectors import Position, match_position, match_state_build, positions
from games.play.services import match_apply_action, match_create
from tests.games.factories import match_play, seat_specs

pytestmark = pytest.mark.django_db(transaction=True)  # the positions are kept on commit


def new_match(variant: str, seed: int = 7) -> Match:
    return match_create(variant=variant, target=3, seats=seat_specs(variant), seed=seed)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_kept_position_is_the_rows_position_at_every_version_R3_to_R7(variant):
    match = new_match(variant)
    seen: list[int] = []

    def check(_state) -> None:
        stored = Match.objects.get(pk=match.pk)
        kept = positions.get(stored)
        assert kept is not None, f"version {stored.version} not kept"
        hands = list(Hand.objects.filter(match=stored).order_by("number"))
        assert kept.state == match_state_build(match=stored, hands=hands)
        assert kept.hands == len(hands)
        assert kept.hand.pk == hands[-1].pk
        assert kept.hand.tricks_won == hands[-1].tricks_won
        seen.append(stored.version)

    played = match_play(match, rng_seed=3, on_step=check)

    assert played.shadow.is_over
    assert seen == list(range(1, played.match.version + 1))


def test_a_move_starts_from_the_kept_position_without_replaying_the_hand(monkeypatch):
    match = new_match("hokm4")
    state = match_position(match=Match.objects.get(pk=match.pk)).state
    hakem = state.hand.to_act

    def no_rebuild(**kwargs):
        raise AssertionError("the hand was replayed from its rows")

    monkeypatch.setattr("games.play.selectors.match_state_build", no_rebuild)
    match_apply_action(match=match.pk, seat=hakem, action=CallTrump(hakem, Suit.HEARTS))

    assert Match.objects.get(pk=match.pk).version == 1


def test_a_change_rolled_back_leaves_no_position_behind():
    match = new_match("hokm2")
    hakem = match_position(match=Match.objects.get(pk=match.pk)).state.hand.to_act

    with pytest.raises(RuntimeError), transaction.atomic():
        match_apply_action(match=match.pk, seat=hakem, action=CallTrump(hakem, Suit.SPADES))
        raise RuntimeError("the request failed after the move")

    stored = Match.objects.get(pk=match.pk)
    assert stored.version == 0
    assert positions.get(Match(pk=match.pk, version=1, created_at=stored.created_at)) is None
    kept = match_position(match=stored).state
    assert kept.hand.trump is None
    assert kept == match_state_build(match=stored)


def test_positions_are_copied_in_and_out_and_keyed_by_the_match_itself():
    match = new_match("hokm2")
    stored = Match.objects.get(pk=match.pk)
    kept = positions.get(stored)
    assert kept is not None  # match_create keeps its first position

    kept.hand.tricks_won.append(99)  # a caller changing its row...
    assert positions.get(stored).hand.tricks_won == [0, 0]  # ...changes no one else's

    # Another match under the same id and version (SQLite gives ids again after a rollback).
    other = Match(pk=stored.pk, version=stored.version, created_at=None)
    assert positions.get(other) is None


def test_the_oldest_positions_make_room():
    from games.play.selectors import _Positions

    match = new_match("hokm2")
    stored = Match.objects.get(pk=match.pk)
    kept = positions.get(stored)
    small = _Positions(size=2)
    keys = [Match(pk=stored.pk, version=v, created_at=stored.created_at) for v in range(3)]
    for key in keys:
        small.put(key, Position(state=kept.state, hand=kept.hand, hands=1))
    assert small.get(keys[0]) is None
    assert small.get(keys[1]) is not None and small.get(keys[2]) is not None
