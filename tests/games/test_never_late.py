"""Never late (issue 25): under load a computer player thinks less rather than answer late. Each
decision's budget comes from how late its move already is and how many decisions wait
(``games.play.bot_pool.decision_budget``), at most the level's own time limit; with less than a
useful search's time the greedy baseline decides at once, without the pool. The stand-in for a
person who is away or left follows the same rule; the pool's hard limit stays the level's.

Decisions are taken in this process (the tests' default), by the real search.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.bots import TIME_LIMITS, greedy_action
from games.engine import apply, get_variant, new_match, to_json, view
from games.models import Match
from games.play import bot_pool
from games.play.bot_pool import (
    APPLY_SECONDS,
    LATE_LIMIT_SECONDS,
    MIN_SEARCH_SECONDS,
    Decision,
    bot_decision,
    decision_budget,
)
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, computer_decide, match_create, match_seat_leave
from tests.games.factories import open_table
from tests.live.test_bot_pool import decisions_recorded

EXPERT = TIME_LIMITS["expert"]


def positions(count: int, seed: int = 3) -> list[dict[str, Any]]:
    """Views of the seat on turn along one hokm4 hand played greedily."""
    state = new_match(get_variant("hokm4"), seed=seed).hand
    views: list[dict[str, Any]] = []
    while not state.is_over and len(views) < count:
        seen = view(state, state.to_act)
        views.append(seen)
        state = apply(state, greedy_action(seen))
    return views


# -- the budget --------------------------------------------------------------------------------


def test_a_move_due_later_gets_the_levels_whole_limit_and_no_more():
    """A huge budget (the move is due in a minute) is still capped by the level's limit."""
    now = 1000.0
    assert decision_budget("expert", due=now + 60, now=now, waiting=0, processes=2) == EXPERT
    assert (
        decision_budget("hard", due=now + 60, now=now, waiting=0, processes=2)
        == (TIME_LIMITS["hard"])
    )
    assert decision_budget("expert", due=now + 60, limit=0.05, now=now, waiting=0) == 0.05


def test_a_move_due_now_thinks_within_the_slack():
    now = 1000.0
    budget = decision_budget("expert", due=now, now=now, waiting=0, processes=2)
    assert budget == pytest.approx(min(EXPERT, LATE_LIMIT_SECONDS - APPLY_SECONDS))


def test_a_decision_already_late_is_greedy():
    now = 1000.0
    assert decision_budget("expert", due=now - 0.25, now=now, waiting=0, processes=2) is None
    assert decision_budget("expert", due=now - 5, now=now, waiting=0, processes=2) is None
    # A budget just below a useful search is greedy too.
    due = now - LATE_LIMIT_SECONDS + APPLY_SECONDS + MIN_SEARCH_SECONDS * 0.9
    assert decision_budget("expert", due=due, now=now, waiting=0, processes=2) is None


def test_the_budget_shrinks_as_more_decisions_wait():
    now = 1000.0
    budgets = [
        decision_budget("expert", due=now + 0.5, now=now, waiting=waiting, processes=2)
        for waiting in range(12)
    ]
    thinking = [b for b in budgets if b is not None]
    assert budgets[0] == EXPERT
    assert thinking == sorted(thinking, reverse=True)
    assert any(MIN_SEARCH_SECONDS <= b < EXPERT for b in thinking)  # less, not yet greedy
    assert budgets[-1] is None  # past capacity: the greedy baseline
    assert budgets.index(None) == len(thinking)  # never back to thinking once greedy
    # More processes take the same queue sooner.
    assert decision_budget("expert", due=now, now=now, waiting=1, processes=4) > (
        decision_budget("expert", due=now, now=now, waiting=1, processes=2) or 0
    )


def test_the_steps_waiting_for_a_thread_count_as_waiting(settings):
    settings.HOKM_BOT_PROCESSES = 2
    now = time.time()
    try:
        bot_pool.steps_waiting_set(0)
        alone = decision_budget("expert", due=now, now=now)
        bot_pool.steps_waiting_set(3)
        assert bot_pool.decisions_waiting() == 3
        crowded = decision_budget("expert", due=now, now=now)
    finally:
        bot_pool.steps_waiting_set(0)
    assert alone is not None and alone >= MIN_SEARCH_SECONDS and crowded is None


def test_levels_that_do_not_search_keep_their_way():
    now = 1000.0
    for level in ("random", "easy", "medium", "greedy"):
        assert decision_budget(level, due=now - 10, now=now, waiting=50) == 0.0


# -- decisions ---------------------------------------------------------------------------------


def test_a_late_decision_is_the_greedy_baseline_legal_and_at_once():
    for seen in positions(12):
        started = time.perf_counter()
        decision = bot_decision(seen, level="expert", due=time.time() - 1.0)
        took = time.perf_counter() - started
        assert decision.hurried and not decision.fallback
        assert decision.action == greedy_action(seen)
        assert to_json(decision.action) in seen["legal"]
        assert took < 0.05


def test_a_tiny_budget_falls_back_to_greedy_quickly_and_legally():
    """Due so that fewer than a useful search's seconds are left: greedy, without the pool."""
    for seen in positions(8, seed=7):
        due = time.time() - LATE_LIMIT_SECONDS + APPLY_SECONDS + MIN_SEARCH_SECONDS / 2
        started = time.perf_counter()
        decision = bot_decision(seen, level="expert", due=due)
        assert time.perf_counter() - started < 0.05
        assert decision.hurried and to_json(decision.action) in seen["legal"]


def test_a_short_budget_searches_for_that_long_only(monkeypatch):
    """Some time left, less than the level's limit: the search gets what is left."""
    limits: list[float] = []
    real = bot_pool._decide

    def recorded(seen: Any, level: str, match: Any, time_limit: float) -> Decision:
        limits.append(time_limit)
        return real(seen, level, match, time_limit)

    monkeypatch.setattr(bot_pool, "_decide", recorded)
    seen = positions(1)[0]
    bot_pool.steps_waiting_set(0)
    due = time.time() - LATE_LIMIT_SECONDS + APPLY_SECONDS + 0.1  # about 0.1 s left
    decision = bot_decision(seen, level="expert", due=due)
    assert not decision.hurried and to_json(decision.action) in seen["legal"]
    (limit,) = limits
    assert MIN_SEARCH_SECONDS <= limit <= 0.1
    decision = bot_decision(seen, level="expert", due=time.time() + 600)  # a huge budget
    assert limits[-1] == EXPERT


def test_the_pools_hard_limit_stays_the_levels(monkeypatch, settings):
    """A short budget shortens the search, never the time the pool waits before greedy stands
    in; a huge one is capped by the level's limit."""
    settings.HOKM_BOT_PROCESSES = 2
    asked: list[dict[str, Any]] = []

    def decide(seen: Any, **kwargs: Any) -> Decision:
        asked.append(kwargs)
        return Decision(greedy_action(seen), 0)

    monkeypatch.setattr(bot_pool._pool, "decide", decide)
    bot_pool.steps_waiting_set(0)
    seen = positions(1)[0]
    bot_decision(seen, level="expert", due=time.time() - 0.05)
    bot_decision(seen, level="expert", due=time.time() + 3600)
    short, huge = asked
    assert short["time_limit"] < EXPERT and short["hard_limit"] == EXPERT
    assert huge["time_limit"] == EXPERT and huge["hard_limit"] == EXPERT


# -- the step: computers and the stand-in for an away person -----------------------------------


def _match(*, person: int | None = None) -> Match:
    seats = [
        SeatSpec(name=f"person{seat}")
        if seat == person
        else SeatSpec(name=f"computer{seat}", computer_level="expert")
        for seat in range(4)
    ]
    return match_create(variant="hokm4", target=7, seed=5, seats=seats, clock_seconds=30)


def _late(match: Match, seconds: float) -> None:
    Match.objects.filter(pk=match.pk).update(step_at=timezone.now() - timedelta(seconds=seconds))


def _on_turn_view(match: Match) -> dict[str, Any]:
    state = match_state_build(match=Match.objects.get(pk=match.pk))
    return view(state.hand, state.hand.to_act)


@pytest.mark.django_db
def test_a_computer_whose_move_is_late_plays_greedy(monkeypatch):
    match = _match()
    decisions = decisions_recorded(monkeypatch)
    _late(match, 1.0)
    seen = _on_turn_view(match)
    decision = computer_decide(match_id=match.pk, now=timezone.now(), rush=False)
    assert decision is not None and decision.level == "expert"
    assert decision.action == greedy_action(seen)
    assert [(d.hurried, d.action) for d in decisions] == [(True, decision.action)]


@pytest.mark.django_db
def test_deciding_ahead_has_the_whole_limit(monkeypatch):
    """The worker decides during the pause (``on_time``, with ``rush``): the whole limit."""
    match = _match()
    decisions = decisions_recorded(monkeypatch)
    Match.objects.filter(pk=match.pk).update(step_at=timezone.now() + timedelta(seconds=0.7))
    decision = computer_decide(match_id=match.pk, now=timezone.now(), rush=True, on_time=True)
    assert decision is not None and [d.hurried for d in decisions] == [False]


@pytest.mark.django_db
def test_rushed_steps_of_tests_are_not_budgeted(monkeypatch):
    match = _match()
    decisions = decisions_recorded(monkeypatch)
    _late(match, 10.0)
    computer_decide(match_id=match.pk, now=timezone.now(), rush=True)
    assert [d.hurried for d in decisions] == [False]


@pytest.mark.django_db
def test_the_stand_in_for_a_person_who_left_follows_the_same_rule(monkeypatch):
    hakem = new_match(get_variant("hokm4"), seed=5).hand.hakem  # the first decision is his
    match = _match(person=hakem)
    table = open_table(computer_level="expert")  # the stand-in plays at the table's level
    Match.objects.filter(pk=match.pk).update(table=table)
    match_seat_leave(match=match, seat=hakem)
    decisions = decisions_recorded(monkeypatch)
    _late(match, 1.0)
    seen = _on_turn_view(match)
    assert seen["seat"] == hakem
    decision = computer_decide(match_id=match.pk, now=timezone.now(), rush=False)
    assert decision is not None and decision.seat == hakem
    assert decision.action == greedy_action(seen) and to_json(decision.action) in seen["legal"]
    assert [(d.hurried, d.action) for d in decisions] == [(True, decision.action)]
