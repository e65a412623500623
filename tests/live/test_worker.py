"""The worker process, ``python manage.py hokm_worker``, run for real against the test database:
a worker killed in the middle of a countdown and started again fires the timeout once and on
time (R8.1), SIGTERM stops it cleanly, and two workers at once take every step once.

Every test commits its rows (``transaction=True``) so the worker processes see them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from games.bots import greedy_action
from games.engine import CallTrump, get_variant, new_match, view
from games.models import CardPlay, Hand, Match, MatchEvent, MatchSeat
from games.play.presence import connection_open, connection_seen
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create
from tests.live_server import ROOT, run_database_url

pytestmark = pytest.mark.django_db(transaction=True)

READY = "hokm worker running"
POLL = 0.1
CLOCK = 4  # seconds: the first worker dies after one, well before the deadline


def wait_for(condition: Callable[[], object], *, timeout: float, what: str) -> object:
    """Poll ``condition`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@contextmanager
def worker_process(log_path: Path, **env: str) -> Iterator[subprocess.Popen]:
    """``manage.py hokm_worker --poll 0.1`` on the test database, ready when the block starts;
    killed at the end if the test did not stop it."""
    worker_env = {
        **os.environ,
        "DATABASE_URL": run_database_url(),
        "DEBUG": "1",
        "HOKM_AUTOPLAY": "worker",
        "HOKM_BOT_DELAY_SECONDS": "0",
        "HOKM_NEXT_HAND_DELAY_SECONDS": "0",
        **env,
    }
    worker_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "hokm_worker", "--poll", str(POLL)],
            cwd=ROOT,
            env=worker_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:

            def ready() -> bool:
                if process.poll() is not None:
                    raise AssertionError(f"the worker exited:\n{log_path.read_text()}")
                return READY in log_path.read_text()

            wait_for(ready, timeout=30, what="the worker to start")
            yield process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=10)


def hakem_of(seed: int) -> int:
    return new_match(get_variant("hokm4"), seed=seed).hand.hakem


def test_a_worker_restart_mid_countdown_still_fires_the_timeout_once_R8_1(tmp_path):
    seed = 5
    hakem = hakem_of(seed)
    # The seat on turn is a person with a short clock; once he is away the computer plays for him
    # after a minute (the workers' delay), long after this test: his one decision is the timeout.
    slow = {"HOKM_BOT_DELAY_SECONDS": "60"}
    with worker_process(tmp_path / "worker1.log", **slow) as first:
        match = match_create(
            variant="hokm4",
            target=7,
            seed=seed,
            clock_seconds=CLOCK,
            seats=[
                SeatSpec(name="person")
                if seat == hakem
                else SeatSpec(name=f"computer{seat}", computer_level="medium")
                for seat in range(4)
            ],
        )
        channel = f"test.{match.pk}.{hakem}"
        connection_open(match_id=match.pk, seat=hakem, user=None, channel_name=channel)
        deadline = Match.objects.get(pk=match.pk).step_at
        assert deadline == match.created_at + timedelta(seconds=CLOCK)
        state = match_state_build(match=match)
        expected = greedy_action(view(state.hand, hakem))
        assert isinstance(expected, CallTrump)

        time.sleep(1)  # the first worker looks at the match a few times, then dies
        assert first.poll() is None
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        assert timezone.now() < deadline, "the worker was killed after the deadline: too slow"
        assert not MatchEvent.objects.filter(match=match, version__gt=0).exists()
        assert Match.objects.get(pk=match.pk).step_at == deadline  # nothing lost or reset

    with worker_process(tmp_path / "worker2.log", **slow) as second:

        def fired() -> bool:
            connection_seen(channel_name=channel)  # his socket's heartbeat
            return MatchEvent.objects.filter(match=match, version__gt=0).exists()

        wait_for(fired, timeout=20, what="the timeout")
        assert stop(second) == 0

    events = list(MatchEvent.objects.filter(match=match).order_by("version"))
    assert [(e.version, e.kind) for e in events] == [(0, "match_created"), (1, "call_trump")]
    timeout = events[1]
    assert timeout.data == {
        "hand": 0,
        "seat": hakem,
        "trump": expected.suit.value,
        "timeout": True,
    }
    assert timeout.created_at >= deadline  # not a moment early
    assert Hand.objects.get(match=match).trump == expected.suit.value
    assert not CardPlay.objects.filter(hand__match=match).exists()
    row = MatchSeat.objects.get(match=match, index=hakem)
    assert (row.status, row.timeouts) == (MatchSeat.Status.AWAY, 1)
    stored = Match.objects.get(pk=match.pk)
    assert stored.version == 1
    # He leads next, away: the computer plays for him after the worker's delay, not a clock.
    assert stored.step_at >= timeout.created_at + timedelta(seconds=59)
    for name in ("worker1.log", "worker2.log"):
        assert "Traceback" not in (tmp_path / name).read_text()


def test_sigterm_stops_the_worker_cleanly(tmp_path):
    with worker_process(tmp_path / "worker.log") as worker:
        assert stop(worker) == 0
    log = (tmp_path / "worker.log").read_text()
    assert "worker stopped" in log
    assert "Traceback" not in log


def test_two_workers_at_once_take_every_step_once_R8_1(tmp_path, settings):
    """Computer-only matches played to the end by two workers side by side: one event per
    version, one stored play per card played, and neither worker ever failed a step (a step
    taken twice would break the match's unique versions or cards and be logged)."""
    settings.HOKM_BOT_DELAY_SECONDS = 0
    computers = [SeatSpec(name=f"computer{seat}", computer_level="medium") for seat in range(4)]
    with (
        worker_process(tmp_path / "worker1.log") as first,
        worker_process(tmp_path / "worker2.log") as second,
    ):
        matches = [
            match_create(variant="hokm4", target=1, seed=seed, seats=computers)
            for seed in range(20, 23)
        ]
        ids = [match.pk for match in matches]

        def finished() -> bool:
            return not Match.objects.filter(pk__in=ids, status=Match.Status.PLAYING).exists()

        wait_for(finished, timeout=60, what="the matches to be played to the end")
        assert stop(first) == 0
        assert stop(second) == 0

    for match_id in ids:
        match = Match.objects.get(pk=match_id)
        events = list(MatchEvent.objects.filter(match=match).order_by("version"))
        assert [e.version for e in events] == list(range(match.version + 1))
        plays = list(
            CardPlay.objects.filter(hand__match=match).values_list("hand__number", "seat", "card")
        )
        played = [
            (e.data["hand"], e.data["seat"], e.data["card"])
            for e in events
            if e.kind == "play_card"
        ]
        assert sorted(plays) == sorted(played)
        assert len(set(played)) == len(played)
        state = match_state_build(match=match)
        assert state.is_over and match.winner_side == state.winner
    for name in ("worker1.log", "worker2.log"):
        log = (tmp_path / name).read_text()
        assert "Traceback" not in log and "failed" not in log


def test_a_step_that_fails_is_retried_each_poll_not_in_a_busy_loop(monkeypatch, settings):
    """A match whose step raises (here a corrupt computer level) is logged and retried at the
    next poll; the worker neither dies nor spins on it."""
    from games.play import autoplay

    settings.HOKM_BOT_DELAY_SECONDS = 0
    match = match_create(
        variant="hokm4",
        target=1,
        seed=5,
        seats=[SeatSpec(name=f"computer{seat}", computer_level="medium") for seat in range(4)],
    )
    MatchSeat.objects.filter(match=match).update(computer_level="bogus")
    passes: list[int] = []
    due_steps_run = autoplay.due_steps_run

    def counted(**kwargs: object) -> int:
        taken = due_steps_run(**kwargs)
        passes.append(taken)
        return taken

    monkeypatch.setattr(autoplay, "due_steps_run", counted)
    worker = autoplay.Worker(poll=0.05)
    thread = threading.Thread(target=worker.run)
    thread.start()
    try:
        time.sleep(0.5)
    finally:
        worker.stop()
        thread.join(timeout=10)
    assert not thread.is_alive()
    # About one pass per poll (10 in 0.5 s), not hundreds.
    assert 3 <= len(passes) <= 20, len(passes)
    assert set(passes) == {0}
    assert Match.objects.get(pk=match.pk).version == 0
