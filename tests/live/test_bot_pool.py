"""Computer players decide in a pool of processes, outside the server's event loop, and never while
the match row is locked (games/play/bot_pool.py, ``games.play.services.match_step``).

The pool's process decides as ``bot_action`` would in this one; a broken pool or a decision that
is not back in time lets the greedy baseline play instead, so the match goes on (R8.1: a table
never waits on a computer player); a decision taken on a match that moved on meanwhile is thrown
away and taken again; and while a computer thinks, another transaction can lock the match row.

Tests of the pool itself run it with one process (``HOKM_BOT_PROCESSES=1``); the step tests
decide in this process (the default of every test) with a decision function wrapped around the
real one.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from games.bots import UnknownLevelError, bot_action, greedy_action
from games.engine import apply, get_variant, new_match, view
from games.models import Match, MatchEvent, MatchSeat
from games.play import bot_pool
from games.play.bot_pool import Decision, bot_decision, bot_pool_shutdown
from games.play.selectors import match_state_build
from games.play.services import (
    SeatSpec,
    match_create,
    match_seat_back,
    match_seat_leave,
    match_step,
)

pytestmark = pytest.mark.django_db

#: A time limit no search reaches here, so the sample budget decides and the result is the same
#: in every process, however busy the machine is.
NO_DEADLINE = 60.0
SEED = 5


@pytest.fixture
def pool(settings) -> Iterator[None]:
    """A bot pool of one process, stopped after the test."""
    settings.HOKM_BOT_PROCESSES = 1
    bot_pool_shutdown()
    yield
    bot_pool_shutdown()


@pytest.fixture(autouse=True)
def _no_delays(settings) -> None:
    settings.HOKM_BOT_DELAY_SECONDS = 0
    settings.HOKM_NEXT_HAND_DELAY_SECONDS = 0


def positions(variant: str, seed: int, *, count: int, every: int = 5) -> list[dict[str, Any]]:
    """Views of the seat on turn along one hand played greedily, from its first decision on."""
    state = new_match(get_variant(variant), seed=seed).hand
    views: list[dict[str, Any]] = []
    step = 0
    while not state.is_over and len(views) < count:
        seen = view(state, state.to_act)
        if step % every == 0:
            views.append(seen)
        state = apply(state, greedy_action(seen))
        step += 1
    return views


def computer_match(*, level: str = "medium", person: int | None = None, clock: int | None = None):
    """A hokm4 match of computer players of ``level``, but a person at seat ``person``."""
    seats = [
        SeatSpec(name=f"person{seat}")
        if seat == person
        else SeatSpec(name=f"computer{seat}", computer_level=level)
        for seat in range(4)
    ]
    return match_create(variant="hokm4", target=7, seed=SEED, seats=seats, clock_seconds=clock)


def on_turn_view(match: Match) -> dict[str, Any]:
    state = match_state_build(match=Match.objects.get(pk=match.pk))
    return view(state.hand, state.hand.to_act)


def events_of(match: Match) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match=match).order_by("version"))


def decisions_recorded(monkeypatch: pytest.MonkeyPatch) -> list[Decision]:
    """Every decision ``match_step`` asks the pool for, as the pool answered it."""
    decisions: list[Decision] = []
    real = bot_pool.bot_decision

    def recorded(seen: dict[str, Any], **kwargs: Any) -> Decision:
        decision = real(seen, **kwargs)
        decisions.append(decision)
        return decision

    monkeypatch.setattr(bot_pool, "bot_decision", recorded)
    return decisions


def wait_for(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def process_gone(pid: int) -> bool:
    """Whether the process has ended (a zombie not yet reaped by its parent counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        # Reaped between the two looks: reading /proc/<pid>/stat of a process that has just
        # gone raises ESRCH (ProcessLookupError), not only ENOENT.
        return True


# -- the pool ------------------------------------------------------------------------------------


def test_the_pool_decides_in_another_process_as_bot_action_would_here(pool):
    processes = set()
    for variant, seed in (("hokm4", 5), ("hokm3", 6), ("hokm2-draw", 7)):
        facts = {"scores": [1] * get_variant(variant).sides, "target": 7}
        for seen in positions(variant, seed, count=3):
            for level in ("hard", "expert"):
                decision = bot_decision(seen, level=level, match=facts, time_limit=NO_DEADLINE)
                expected = bot_action(seen, level=level, match=facts, time_limit=NO_DEADLINE)
                assert (decision.action, decision.fallback) == (expected, False)
                processes.add(decision.process_id)
    assert os.getpid() not in processes
    assert len(processes) == 1  # one process, started once and kept


def test_without_a_pool_the_decision_is_taken_in_this_process(settings):
    settings.HOKM_BOT_PROCESSES = 0
    seen = positions("hokm4", 5, count=1)[0]
    decision = bot_decision(seen, level="expert")
    assert decision.process_id == os.getpid()
    assert (decision.action, decision.fallback) == (bot_action(seen, level="expert"), False)


@pytest.mark.parametrize("processes", [0, 1])
def test_an_unknown_level_is_an_error_not_a_greedy_move(settings, processes):
    """A corrupt level is a fault of the stored match: the worker logs it and retries later."""
    settings.HOKM_BOT_PROCESSES = processes
    try:
        with pytest.raises(UnknownLevelError):
            bot_decision(positions("hokm4", 5, count=1)[0], level="bogus")
    finally:
        bot_pool_shutdown()


def test_computer_moves_of_a_match_are_decided_in_the_pool(pool, monkeypatch):
    match = computer_match(level="expert")
    decisions = decisions_recorded(monkeypatch)
    for _ in range(6):  # the trump call and the first cards
        assert match_step(match=match.pk, rush=True)
    assert len(decisions) == 6
    assert all(not d.fallback and d.process_id != os.getpid() for d in decisions)
    applied = [e for e in events_of(match) if e.kind in ("call_trump", "play_card")]
    assert [e.data["seat"] for e in applied] == [d.action.seat for d in decisions]


def test_a_broken_pool_lets_greedy_play_and_the_match_goes_on(pool, monkeypatch, caplog):
    match = computer_match(level="expert")
    seen = on_turn_view(match)
    first = bot_decision(seen, level="medium")
    assert not first.fallback
    os.kill(first.process_id, signal.SIGKILL)  # the pool's only process dies
    decisions = decisions_recorded(monkeypatch)

    assert match_step(match=match.pk, rush=True)

    [decision] = decisions
    assert decision.fallback and decision.process_id == os.getpid()
    assert decision.action == greedy_action(seen)
    assert [e.kind for e in events_of(match)][-1] == "call_trump"
    assert "the pool is replaced" in caplog.text
    # The next decision gets a new pool.
    assert match_step(match=match.pk, rush=True)
    assert not decisions[1].fallback
    assert decisions[1].process_id not in (os.getpid(), first.process_id)


def test_a_decision_not_back_in_time_lets_greedy_play_and_ends_the_late_process(
    pool, monkeypatch, caplog
):
    monkeypatch.setattr(bot_pool, "DECISION_SLACK_SECONDS", 0.5)
    seen = positions("hokm4", 5, count=1)[0]
    warm = bot_decision(seen, level="medium")  # the pool's process is up
    assert not warm.fallback
    executor, _ = bot_pool._pool._executor_get(1)
    executor.submit(time.sleep, 120)  # and busy for two minutes: no decision comes back

    decision = bot_decision(seen, level="expert")

    assert decision.fallback and decision.action == greedy_action(seen)
    assert "no decision of the expert computer player within" in caplog.text
    wait_for(lambda: process_gone(warm.process_id), timeout=20, what="the late process to end")
    after = bot_decision(seen, level="medium")
    assert not after.fallback and after.process_id != warm.process_id


# -- match_step: decide first, then lock, and apply only what was decided on this version --------


def test_a_decision_taken_while_he_took_his_seat_back_is_not_applied_R8_1(monkeypatch):
    """He left, and the computer is deciding for him when he takes his seat back: the computer's
    decision is for a match that moved on, and his turn is his own again."""
    hakem = new_match(get_variant("hokm4"), seed=SEED).hand.hakem  # the first decision is his
    match = computer_match(person=hakem, clock=30)
    match_seat_leave(match=match, seat=hakem)
    left_at = Match.objects.get(pk=match.pk).version
    decided: list[int] = []
    real = bot_pool.bot_decide

    def deciding_while_he_comes_back(seen: dict[str, Any], **kwargs: Any):
        decided.append(seen["seat"])
        action = real(seen, **kwargs)
        match_seat_back(match=match.pk, seat=hakem)
        return action

    monkeypatch.setattr(bot_pool, "bot_decide", deciding_while_he_comes_back)

    assert match_step(match=match.pk, rush=True) is False  # his clock runs: nothing to do

    assert decided == [hakem]
    assert [e.kind for e in events_of(match) if e.version > left_at] == ["seat_back"]
    assert MatchSeat.objects.get(match=match, index=hakem).status == MatchSeat.Status.PLAYING
    state = match_state_build(match=Match.objects.get(pk=match.pk))
    assert state.hand.trump is None and state.hand.to_act == hakem


def test_a_decision_taken_while_another_worker_took_the_step_is_taken_again(monkeypatch):
    """Two workers decide for the same computer player; the second one's decision lands first.
    The first one's decision, for the position before it, is thrown away: each step is taken
    once, and the first worker decides again on the position as it is now."""
    match = computer_match()
    real = bot_pool.bot_decide
    seen_by_first: list[dict[str, Any]] = []

    def racing(seen: dict[str, Any], **kwargs: Any):
        seen_by_first.append(seen)
        action = real(seen, **kwargs)
        if len(seen_by_first) == 1:
            with monkeypatch.context() as other_worker:
                other_worker.setattr(bot_pool, "bot_decide", real)
                assert match_step(match=match.pk, rush=True)
        return action

    monkeypatch.setattr(bot_pool, "bot_decide", racing)

    assert match_step(match=match.pk, rush=True)

    events = events_of(match)
    assert [e.version for e in events] == list(range(Match.objects.get(pk=match.pk).version + 1))
    assert [e.kind for e in events[1:]] == ["call_trump", "play_card"]
    first, again = seen_by_first
    assert first["phase"] != again["phase"] and again["trump"] == events[1].data["trump"]


@pytest.mark.django_db(transaction=True)
def test_the_match_row_is_not_locked_while_a_computer_decides(monkeypatch):
    """While the computer thinks, another transaction locks the match row at once (PostgreSQL:
    ``NOWAIT`` fails if the row is locked; SQLite: a write transaction would wait for the
    database lock), so a person's move is never held up by a computer's search."""
    match = computer_match()
    real = bot_pool.bot_decide
    outcome: list[object] = []

    def lock_the_row() -> None:
        try:
            with transaction.atomic():
                locked = Match.objects.select_for_update(nowait=True).get(pk=match.pk)
                outcome.append(locked.version)
        except DatabaseError as error:
            outcome.append(error)
        finally:
            connection.close()

    def slow(seen: dict[str, Any], **kwargs: Any):
        other = threading.Thread(target=lock_the_row)
        other.start()
        other.join(timeout=60)  # on SQLite a held lock makes it wait 20 s, then fail
        return real(seen, **kwargs)

    monkeypatch.setattr(bot_pool, "bot_decide", slow)

    assert match_step(match=match.pk, rush=True)

    assert outcome == [0]  # locked at once, at the version the computer decided on
    assert [e.kind for e in events_of(match)] == ["match_created", "call_trump"]
