"""Court Piece's turn clock (R8.1, R9.4.3, R9.14.1): a caller out of time gets R3.6's suit, or
under hidden trump "chosen" the lowest card of that suit laid face down; every other decision
times out to the greedy baseline's choice from the seat's own view, asking for trump included."""

from __future__ import annotations

import pytest

from games.bots import greedy_action
from games.engine import (
    ChooseIndicator,
    CourtPieceMatch,
    CourtPieceOptions,
    HiddenTrump,
    court_piece_apply,
    court_piece_view,
)
from games.engine.court_piece import default_call
from games.models import MatchSeat
from games.play.services import SeatSpec, match_create, match_seat_back
from tests.live.test_clock import connect, fresh, last_event, seat_row, state_of, times_out

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _delays(settings):
    settings.HOKM_BOT_DELAY_SECONDS = 0.5
    settings.HOKM_NEXT_HAND_DELAY_SECONDS = 2.0


def court_match(options: CourtPieceOptions, *, seed: int = 5):
    return match_create(
        variant="court-piece",
        target=1,
        seed=seed,
        clock_seconds=30,
        options=options.to_json(),
        seats=[SeatSpec(name=f"person{i}") for i in range(4)],
    )


@pytest.mark.parametrize("hidden", [HiddenTrump.OFF, HiddenTrump.CHOSEN])
def test_a_caller_out_of_time_gets_the_suit_of_r3_6_R9_4_3_R9_14_1(hidden):
    match = court_match(CourtPieceOptions(hidden_trump=hidden))
    state = state_of(match)
    assert isinstance(state, CourtPieceMatch)
    caller = state.deal.caller
    connect(match, caller)
    expected = default_call(state.deal)
    assert isinstance(expected, ChooseIndicator) == (hidden is HiddenTrump.CHOSEN)

    times_out(match)

    assert state_of(match) == court_piece_apply(state, expected)
    row = seat_row(match, caller)
    assert (row.status, row.timeouts) == (MatchSeat.Status.AWAY, 1)
    event = last_event(match)
    assert (event.kind, event.data["timeout"]) == (expected.kind, True)
    if hidden is HiddenTrump.CHOSEN:
        assert "indicator_laid" in event.data and "card" not in event.data  # R9.14.1


@pytest.mark.parametrize(
    "options",
    [
        CourtPieceOptions(double_sir=True),
        CourtPieceOptions(hidden_trump=HiddenTrump.BLIND),
    ],
    ids=["double-sir", "blind"],
)
def test_every_court_piece_decision_times_out_to_the_greedy_choice_R8_1(options):
    match = court_match(options, seed=12)
    connect(match, 0)
    kinds = set()
    for _ in range(30):
        state = state_of(match)
        if state.deal.is_over:
            break
        seat = state.deal.to_act
        expected = greedy_action(court_piece_view(state.deal, seat))
        times_out(match)
        assert state_of(match) == court_piece_apply(state, expected)
        event = last_event(match)
        assert (event.kind, event.data["seat"], event.data["timeout"]) == (
            expected.kind,
            seat,
            True,
        )
        kinds.add(expected.kind)
        match_seat_back(match=match, seat=seat)
    assert "play_card" in kinds
    assert fresh(match).version >= 30
