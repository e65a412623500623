"""The worker takes the due steps of different matches side by side, one thread per bot pool
process, never two steps of one match at once; and it decides a computer player's move during his
pause, applying it once the pause is over only if the match is still at the version decided on
(games/play/autoplay.py, issue 25).

Every test commits its rows (``transaction=True``): the worker's threads have connections of
their own. Decisions are taken in this process (the tests' default) by the real search, wrapped
to be slow where a test measures overlap.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import CardPlay, Match, MatchEvent, MatchSeat
from games.play import autoplay, bot_pool, services
from games.play.bot_pool import bot_pool_shutdown
from games.play.services import SeatSpec, match_create, match_step

pytestmark = pytest.mark.django_db(transaction=True)

_current = threading.local()


def computer_match(seed: int, *, level: str = "medium", target: int = 7) -> Match:
    seats = [SeatSpec(name=f"computer{seat}", computer_level=level) for seat in range(4)]
    return match_create(variant="hokm4", target=target, seed=seed, seats=seats)


def events_of(match_id: int) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match_id=match_id).order_by("version"))


class Recorder:
    """Wraps ``match_step``'s decision, the worker's step and its deciding ahead: when each
    decision ran (and for which match), and whether two threads ever worked on one match."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, think: float = 0.0) -> None:
        self.lock = threading.Lock()
        self.decisions: list[tuple[int, float, float]] = []  # (match, start, end)
        self.active: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.overlaps: list[int] = []
        self.tasks: dict[str, int] = defaultdict(int)
        real_decide = services.computer_decide
        real_bot_decide = bot_pool.bot_decide
        real_take = autoplay._step_take

        def computer_decide(*, match_id: int, **kwargs: Any):
            with self.working(match_id, "decide"):
                _current.match_id = match_id
                return real_decide(match_id=match_id, **kwargs)

        def bot_decide(seen: dict[str, Any], **kwargs: Any):
            start = time.monotonic()
            time.sleep(think)  # sleeps without the GIL, as a wait on a pool process does
            action = real_bot_decide(seen, **kwargs)
            with self.lock:
                self.decisions.append((_current.match_id, start, time.monotonic()))
            return action

        def step_take(match_id: int, decision: Any) -> bool:
            with self.working(match_id, "step"):
                return real_take(match_id, decision)

        monkeypatch.setattr(services, "computer_decide", computer_decide)
        monkeypatch.setattr(bot_pool, "bot_decide", bot_decide)
        monkeypatch.setattr(autoplay, "_step_take", step_take)

    @contextmanager
    def working(self, match_id: int, kind: str) -> Iterator[None]:
        me = threading.get_ident()
        with self.lock:
            self.tasks[kind] += 1
            others = [t for t, n in self.active[match_id].items() if n and t != me]
            if others:
                self.overlaps.append(match_id)
            self.active[match_id][me] += 1
        try:
            yield
        finally:
            with self.lock:
                self.active[match_id][me] -= 1

    def overlapping_decisions(self, first: int, second: int) -> int:
        """Pairs of decisions of the two matches that ran at the same time."""
        a = [(s, e) for m, s, e in self.decisions if m == first]
        b = [(s, e) for m, s, e in self.decisions if m == second]
        return sum(1 for s1, e1 in a for s2, e2 in b if s1 < e2 and s2 < e1)


@contextmanager
def worker_running(**kwargs: Any) -> Iterator[autoplay.Worker]:
    worker = autoplay.Worker(**kwargs)
    thread = threading.Thread(target=worker.run, name="test-worker")
    thread.start()
    try:
        yield worker
    finally:
        worker.stop()
        thread.join(timeout=30)
        assert not thread.is_alive()


def assert_each_version_once(match_id: int) -> None:
    match = Match.objects.get(pk=match_id)
    events = events_of(match_id)
    assert [e.version for e in events] == list(range(match.version + 1))
    played = [
        (e.data["hand"], e.data["seat"], e.data["card"]) for e in events if e.kind == "play_card"
    ]
    stored = CardPlay.objects.filter(hand__match_id=match_id)
    assert sorted(stored.values_list("hand__number", "seat", "card")) == sorted(played)
    assert len(set(played)) == len(played)


@pytest.mark.parametrize("threads", [2, 1])
def test_two_due_matches_are_decided_at_the_same_time(monkeypatch, settings, threads):
    """Two threads: the decisions of two matches overlap (each waits on its own pool process);
    one thread, the old way: one after the other."""
    settings.HOKM_BOT_DELAY_SECONDS = 0
    recorder = Recorder(monkeypatch, think=0.3)
    first, second = computer_match(31).pk, computer_match(32).pk

    with worker_running(poll=0.05, threads=threads):
        time.sleep(1.6)

    overlaps = recorder.overlapping_decisions(first, second)
    taken = len(recorder.decisions)
    if threads == 2:
        assert overlaps >= 2, recorder.decisions
        assert taken >= 7, taken  # one at a time would be 5 at most in 1.6 s
    else:
        assert overlaps == 0, recorder.decisions
        assert taken <= 6, taken
    assert not recorder.overlaps
    for match_id in (first, second):
        assert_each_version_once(match_id)
        assert Match.objects.get(pk=match_id).version >= 2


def test_the_steps_of_one_match_never_overlap(monkeypatch, settings):
    """More threads than matches, steps and decisions ahead with a short pause: a match is in
    one thread at a time, and every version is made once."""
    settings.HOKM_BOT_DELAY_SECONDS = 0.05
    recorder = Recorder(monkeypatch, think=0.01)
    ids = [computer_match(seed).pk for seed in (41, 42)]

    with worker_running(poll=0.02, threads=4):
        time.sleep(2.0)

    assert not recorder.overlaps
    assert recorder.tasks["step"] >= 10 and recorder.tasks["decide"] >= 10, recorder.tasks
    for match_id in ids:
        assert_each_version_once(match_id)
        assert Match.objects.get(pk=match_id).version >= 5


def test_a_computer_decides_during_his_pause_and_plays_when_it_is_over(monkeypatch, settings):
    """With a pause of 0.6 s and 0.4 s of thinking, a move comes about 0.6 s after the one
    before it, not 1.0 s: the search ran during the pause. Never before the pause is over."""
    pause, think = 0.6, 0.4
    settings.HOKM_BOT_DELAY_SECONDS = pause
    recorder = Recorder(monkeypatch, think=think)
    match_id = computer_match(51).pk

    with worker_running(poll=0.05, threads=1):
        time.sleep(4.5)

    events = events_of(match_id)
    moves = [e for e in events if e.kind in ("call_trump", "play_card")]
    assert len(moves) >= 4, [e.kind for e in events]
    gaps = [
        (later.created_at - earlier.created_at).total_seconds()
        for earlier, later in zip(events, events[1:], strict=False)
        if later.kind in ("call_trump", "play_card") and earlier.kind != "match_created"
    ]
    assert min(gaps) >= pause - 0.02, gaps  # the pause is kept
    assert statistics.median(gaps) < pause + think / 2, gaps  # the thinking is inside it
    assert len(recorder.decisions) <= len(moves) + 1  # each decided once (one ahead, unused)
    assert_each_version_once(match_id)


def test_a_decision_taken_ahead_is_played_only_once_its_pause_is_over(monkeypatch, settings):
    settings.HOKM_BOT_DELAY_SECONDS = 60
    recorder = Recorder(monkeypatch)
    match_id = computer_match(61).pk
    worker = autoplay.Worker(threads=1)

    worker._decide_ahead(match_id, 0)
    ahead = worker._ahead[match_id]
    assert ahead.version == 0 and ahead.decision is not None
    worker._step(match_id, ahead.decision)  # too early: nothing happens
    assert Match.objects.get(pk=match_id).version == 0
    assert match_id in worker._resting  # not tried again before a poll

    Match.objects.filter(pk=match_id).update(step_at=timezone.now() - timedelta(seconds=1))
    worker._step(match_id, ahead.decision)

    events = events_of(match_id)
    assert [e.kind for e in events] == ["match_created", "call_trump"]
    assert events[1].data["trump"] == ahead.decision.action.suit.value
    assert len(recorder.decisions) == 1  # the decision ahead, not another


def test_a_decision_taken_ahead_on_a_match_that_moved_on_is_taken_again(monkeypatch, settings):
    """Another worker took the step while this one held its decision: that decision, for the
    version before, is thrown away and the computer on turn now decides."""
    settings.HOKM_BOT_DELAY_SECONDS = 60
    recorder = Recorder(monkeypatch)
    match_id = computer_match(71).pk
    worker = autoplay.Worker(threads=1)

    worker._decide_ahead(match_id, 0)
    stale = worker._ahead[match_id].decision
    assert stale is not None and stale.version == 0
    assert match_step(match=match_id, rush=True)  # the other worker: version 1
    Match.objects.filter(pk=match_id).update(step_at=timezone.now() - timedelta(seconds=1))
    worker._step(match_id, stale)

    events = events_of(match_id)
    assert [e.kind for e in events] == ["match_created", "call_trump", "play_card"]
    assert len(recorder.decisions) == 3  # ahead, the other worker's, and again
    assert_each_version_once(match_id)


def test_a_failing_step_does_not_stop_the_other_threads(monkeypatch, settings, caplog):
    settings.HOKM_BOT_DELAY_SECONDS = 0
    broken, healthy = computer_match(81).pk, computer_match(82).pk
    MatchSeat.objects.filter(match_id=broken).update(computer_level="bogus")

    with worker_running(poll=0.05, threads=2):
        time.sleep(1.0)

    assert Match.objects.get(pk=broken).version == 0
    step_at = Match.objects.get(pk=broken).step_at
    assert step_at is not None and step_at > timezone.now()  # put back, retried later
    assert Match.objects.get(pk=healthy).version >= 3
    assert f"automatic step of match {broken} failed" in caplog.text
    assert_each_version_once(healthy)


@pytest.fixture
def two_processes(settings) -> Iterator[None]:
    settings.HOKM_BOT_PROCESSES = 2
    bot_pool_shutdown()
    yield
    bot_pool_shutdown()


def test_every_process_of_the_bot_pool_decides(monkeypatch, settings, two_processes):
    """With two pool processes the worker has two threads, and expert decisions of two matches
    go to both processes (one thread would only ever start one)."""
    settings.HOKM_BOT_DELAY_SECONDS = 0
    seen: set[int] = set()
    real = bot_pool.bot_decision

    def recorded(view: dict[str, Any], **kwargs: Any):
        decision = real(view, **kwargs)
        assert not decision.fallback
        # A decision already late is greedy at once, in the worker's own process (never late,
        # games.play.bot_pool.decision_budget): not one of the pool's.
        if not decision.hurried:
            seen.add(decision.process_id)
        return decision

    monkeypatch.setattr(bot_pool, "bot_decision", recorded)
    ids = [computer_match(seed, level="expert").pk for seed in (91, 92)]

    with worker_running(poll=0.05) as worker:
        deadline = time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker._size == 2

    assert len(seen) == 2, seen
    for match_id in ids:
        assert_each_version_once(match_id)


def test_two_worker_processes_with_two_threads_each_take_every_step_once(tmp_path, settings):
    """``manage.py hokm_worker`` twice, each with a pool of two processes and so two threads:
    computer-only matches played to the end, one event per version, one stored play per card,
    and no step failed (a step taken twice would break the match's unique versions or cards)."""
    from tests.live.test_worker import stop, wait_for, worker_process

    settings.HOKM_BOT_DELAY_SECONDS = 0
    env = {"HOKM_BOT_PROCESSES": "2", "HOKM_BOT_DELAY_SECONDS": "0.05"}
    with (
        worker_process(tmp_path / "worker1.log", **env) as first,
        worker_process(tmp_path / "worker2.log", **env) as second,
    ):
        ids = [computer_match(seed, target=1).pk for seed in range(120, 124)]

        def finished() -> bool:
            return not Match.objects.filter(pk__in=ids, status=Match.Status.PLAYING).exists()

        wait_for(finished, timeout=120, what="the matches to be played to the end")
        assert stop(first) == 0
        assert stop(second) == 0

    for match_id in ids:
        assert_each_version_once(match_id)
        assert Match.objects.get(pk=match_id).winner_side is not None
    for name in ("worker1.log", "worker2.log"):
        log = (tmp_path / name).read_text()
        assert "Traceback" not in log and "failed" not in log
