"""``POST /api/matches/`` chooses the computer players' level (issue 7, docs/protocol.md)."""

from __future__ import annotations

import pytest

from accounts.tokens import token_create
from games.models import Match, MatchSeat
from tests.accounts.players import make_player
from tests.games.factories import api_match_start

pytestmark = pytest.mark.django_db


def start(raw: str, body: dict) -> tuple[int, dict]:
    response = api_match_start(raw, body)
    return response.status_code, response.json()


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_the_level_asked_for_plays_every_computer_seat(level):
    _, raw = token_create(user=make_player("lale"), name="bot")
    status, data = start(raw, {"variant": "hokm3", "level": level})
    assert status == 201
    seats = MatchSeat.objects.filter(match_id=data["match"]).exclude(index=0)
    assert [seat.computer_level for seat in seats] == [level, level]


def test_without_a_level_the_computers_are_medium():
    _, raw = token_create(user=make_player("lale"), name="bot")
    status, data = start(raw, {})
    assert status == 201
    levels = set(MatchSeat.objects.filter(match_id=data["match"]).values_list("computer_level"))
    assert levels == {(None,), ("medium",)}


@pytest.mark.parametrize("level", ["grandmaster", "random", "greedy", "", None, 3, ["hard"]])
def test_an_unknown_level_is_refused_and_starts_nothing(level):
    _, raw = token_create(user=make_player("lale"), name="bot")
    status, data = start(raw, {"level": level})
    assert status == 400
    assert data["error"]["code"] == "bad_level"
    assert "easy, medium, hard, expert" in data["error"]["message"]
    assert not Match.objects.exists()
