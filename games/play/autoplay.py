"""The worker: computer players move, the next hand is dealt and turn clocks run out, on time;
now and then it also ends the matches nobody has played for a week (R8.2).

Every match being played stores when its next automatic step is due (``Match.step_at``, set by
``games.play.services``): a computer player's move after a short natural delay, the next deal after
a pause to read the result, or the end of a person's turn clock (R8.1). The worker takes the steps
whose time has come with ``games.play.services.match_step``, which locks the match row and checks
the time again, so any number of workers (one per server process, or separate processes) take each
step once, and a worker that restarts finds every deadline in the database where it left it.

A worker takes the steps of different matches side by side, in as many threads as the bot pool
has processes (``HOKM_BOT_PROCESSES``, at least one), so every process of the pool can think at
once; a match is in one thread at a time, so its steps never overlap. A computer player's move
is decided as soon as the worker sees it scheduled, during its pause (``decide ahead``), and
applied once the pause is over, under the row lock, only if the match is still at the version it
was decided on; a match that moved on meanwhile is decided again, as ``match_step`` always does.

``settings.HOKM_AUTOPLAY`` picks where the worker runs:

- ``"thread"`` (the default, and ``make run``'s): a thread in each server process
  (``hokm_site.asgi`` starts it);
- ``"worker"``: in ``python manage.py hokm_worker`` processes only (production,
  docs/operations.md);
- ``"inline"`` (tests): computer steps are taken at once in the committing thread, while a
  person's clock runs only when a test calls :func:`due_steps_run`;
- ``"off"``: nothing moves by itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Min
from django.utils import timezone

from games.models import Match

if TYPE_CHECKING:
    from games.play.services import ComputerDecision

logger = logging.getLogger(__name__)

DEFAULT_BOT_DELAY = 0.7  # seconds: a human-looking pause before a computer plays
DEFAULT_NEXT_HAND_DELAY = 4.0  # seconds to read the hand's result before the next deal
#: The longest a worker sleeps before looking at the database again: how late a step can be when
#: another process scheduled it (a step this process scheduled wakes it at once).
POLL_SECONDS = 0.2
#: Matches taken per look; the rest wait for the next one, a moment later.
BATCH = 50
#: A step that failed is tried again this much later.
FAILED_STEP_RETRY_SECONDS = 5.0
#: How often dead sockets' presence rows are swept, idle open tables closed and matches nobody
#: has played for long ended as abandoned (``games.play.services.matches_idle_abandon``).
SWEEP_EVERY_SECONDS = 60.0
#: A computer player's move due within this long is decided ahead, during his pause.
DECIDE_AHEAD_SECONDS = 2.0
#: A decision taken ahead and never used (the match moved on, or ended) is forgotten this late.
AHEAD_KEPT_SECONDS = 60.0


def bot_delay() -> float:
    return float(getattr(settings, "HOKM_BOT_DELAY_SECONDS", DEFAULT_BOT_DELAY))


def next_hand_delay() -> float:
    return float(getattr(settings, "HOKM_NEXT_HAND_DELAY_SECONDS", DEFAULT_NEXT_HAND_DELAY))


def _mode() -> str:
    return getattr(settings, "HOKM_AUTOPLAY", "thread")


def autoplay_on_commit(match_id: int) -> None:
    """A match changed: once the transaction commits, let the worker look at it."""
    if _mode() == "off":
        return
    transaction.on_commit(lambda: autoplay_kick(match_id))


def autoplay_kick(match_id: int) -> None:
    """Take due computer steps now (inline), or wake this process's worker thread so it sleeps
    until the match's new step rather than a whole poll."""
    mode = _mode()
    if mode == "inline":
        _run_inline(match_id)
    elif mode == "thread":
        worker_thread_start().wake()


_inline = threading.local()


def _run_inline(match_id: int) -> None:
    # Imported here: games.play.services imports this module to schedule each step it stores.
    from games.play.services import match_step

    # A step commits and calls back here; run the steps in one loop instead of recursing.
    pending: set[int] | None = getattr(_inline, "pending", None)
    if pending is not None:
        pending.add(match_id)
        return
    _inline.pending = pending = {match_id}
    try:
        while pending:
            current = pending.pop()
            while match_step(match=current, rush=True):
                pass
    finally:
        _inline.pending = None


def due_steps_run(
    *, now: datetime | None = None, limit: int = BATCH, worker: Worker | None = None
) -> int:
    """Take every step due by ``now`` (oldest first, at most ``limit``); returns how many were
    taken. A step that fails is logged and the others go on.

    With a ``worker``, hand the due steps to its threads instead (as many as are free, one per
    match), and decide ahead the computer moves due soon; returns how many steps its threads
    took since its previous pass."""
    if worker is not None:
        return worker._steps_hand_out(now=now, limit=limit)
    # Imported here: games.play.services imports this module to schedule each step it stores.
    from games.play.services import match_step

    now = now or timezone.now()
    due = list(
        Match.objects.filter(status=Match.Status.PLAYING, step_at__lte=now)
        .order_by("step_at")
        .values_list("pk", flat=True)[:limit]
    )
    taken = 0
    for match_id in due:
        try:
            if match_step(match=match_id, now=now):
                taken += 1
        except Exception:  # one broken match must not stop the others
            _step_failed(match_id, now=now)
    return taken


def _step_failed(match_id: int, *, now: datetime) -> None:
    logger.exception("automatic step of match %s failed", match_id)
    # Try it again later, so that matches that keep failing do not stay first in line.
    Match.objects.filter(pk=match_id, step_at__lte=now).update(
        step_at=now + timedelta(seconds=FAILED_STEP_RETRY_SECONDS)
    )


def _step_take(match_id: int, decision: ComputerDecision | None) -> bool:
    """``match_step``, first with a decision taken ahead: it is applied, under the row lock, only
    if the match is still at the version, the seat and the level it was taken on; otherwise (or
    without one) ``match_step`` decides again."""
    # Imported here: games.play.services imports this module to schedule each step it stores.
    from games.play.services import match_step, step_decided_apply

    if decision is not None:
        now = timezone.now()
        taken = step_decided_apply(match_id=match_id, now=now, rush=False, decision=decision)
        if taken is not None:
            return taken
    return match_step(match=match_id)


@dataclass(frozen=True, slots=True)
class _Ahead:
    """What deciding ahead found for a match at ``version``: the computer's decision, or None
    when the step due is not a computer's move (a deal, a person's clock)."""

    version: int
    decision: ComputerDecision | None
    at: float  # time.monotonic()


def next_step_in() -> float | None:
    """Seconds until the earliest step stored (0 when overdue), None when none is."""

    earliest = Match.objects.filter(status=Match.Status.PLAYING, step_at__isnull=False).aggregate(
        at=Min("step_at")
    )["at"]
    if earliest is None:
        return None
    return max(0.0, (earliest - timezone.now()).total_seconds())


class Worker:
    """The loop of one worker: hand the due steps to its threads, sleep until the next one (at
    most a poll); pair the seek pool every ``games.lobby.seeks.PAIR_EVERY_SECONDS`` on the way.

    ``threads`` steps run at once (by default as many as the bot pool has processes, at least
    one), never two of one match; each step is ``match_step``'s transaction as before. A step
    that changed nothing (it failed, or it was not due after all) is not tried again before a
    poll has passed."""

    def __init__(self, *, poll: float = POLL_SECONDS, threads: int | None = None) -> None:
        self.poll = poll
        self._threads = threads
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._swept = 0.0
        self._paired = 0.0
        self._lock = threading.Lock()  # guards what the threads share with the loop below
        self._executor: ThreadPoolExecutor | None = None
        self._size = 0
        self._busy: set[int] = set()  # matches in a thread now
        self._resting: dict[int, float] = {}  # match -> not tried again before (monotonic)
        self._ahead: dict[int, _Ahead] = {}
        self._taken = 0  # steps taken by the threads since the last pass
        self._backlog = False  # the last pass left due steps for want of a free thread

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        logger.info("worker started")
        try:
            while not self._stop.is_set():
                self._wake.clear()
                wait = self.poll
                try:
                    close_old_connections()
                    due_steps_run(worker=self)
                    self._sweep()
                    self._seeks_pair()
                    with self._lock:
                        backlog = self._backlog
                    # With every thread busy, the first to finish wakes the loop.
                    until_next = None if backlog else self._next_in()
                    if until_next is not None:
                        wait = min(wait, until_next)
                except Exception:  # the database is away: try again shortly, never die
                    logger.exception("worker pass failed")
                    wait = 1.0
                self._wake.wait(wait)
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=True)  # the steps under way end as they would
            close_old_connections()
            logger.info("worker stopped")

    # -- the loop's side ------------------------------------------------------------------------

    def _steps_hand_out(self, *, now: datetime | None, limit: int) -> int:
        """One pass: the due steps to the free threads, oldest first, then the computer moves
        due soon to be decided ahead, with the threads still free. Returns the steps taken by
        the threads since the last pass."""
        executor = self._executor_get()
        now = now or timezone.now()
        clock = time.monotonic()
        with self._lock:
            taken, self._taken = self._taken, 0
            self._resting = {pk: until for pk, until in self._resting.items() if until > clock}
            self._ahead = {
                pk: ahead
                for pk, ahead in self._ahead.items()
                if clock - ahead.at < AHEAD_KEPT_SECONDS
            }
            skip = self._busy | set(self._resting)
            free = self._size - len(self._busy)
        # Up to a batch more than the free threads: those left wait, and the computers deciding
        # meanwhile think less for them (bot_pool.decision_budget, issue 25).
        due = list(
            Match.objects.filter(status=Match.Status.PLAYING, step_at__lte=now)
            .exclude(pk__in=skip)
            .order_by("step_at")
            .values_list("pk", flat=True)[: max(0, min(free, limit)) + BATCH]
        )
        backlog = free <= 0 or len(due) > free
        handed = due[: max(0, min(free, limit))]
        from games.play.bot_pool import steps_waiting_set

        steps_waiting_set(len(due) - len(handed))
        with self._lock:
            self._backlog = backlog
            self._busy.update(handed)
            ahead = {pk: self._ahead.pop(pk, None) for pk in handed}
        for match_id in handed:
            found = ahead[match_id]
            if not self._submit(executor, self._step, match_id, found.decision if found else None):
                return taken
        free -= len(handed)
        if free > 0 and not backlog:
            self._ahead_hand_out(executor, now=now, free=free, skip=skip | set(handed))
        return taken

    def _ahead_hand_out(
        self, executor: ThreadPoolExecutor, *, now: datetime, free: int, skip: set[int]
    ) -> None:
        soon = (
            Match.objects.filter(
                status=Match.Status.PLAYING,
                step_at__gt=now,
                step_at__lte=now + timedelta(seconds=DECIDE_AHEAD_SECONDS),
            )
            .exclude(pk__in=skip)
            .order_by("step_at")
            .values_list("pk", "version")[:BATCH]
        )
        for match_id, version in soon:
            if free <= 0:
                break
            with self._lock:
                known = self._ahead.get(match_id)
                if (known is not None and known.version == version) or match_id in self._busy:
                    continue
                self._busy.add(match_id)
            if not self._submit(executor, self._decide_ahead, match_id, version):
                return
            free -= 1

    def _submit(
        self, executor: ThreadPoolExecutor, task: Callable[..., None], match_id: int, *args: Any
    ) -> bool:
        """Give a thread the match's task; False when the process is exiting (a worker thread in
        a server process whose interpreter shuts down): the loop then stops."""
        try:
            executor.submit(task, match_id, *args)
        except RuntimeError:  # "cannot schedule new futures after (interpreter) shutdown"
            with self._lock:
                self._busy.discard(match_id)
            self.stop()
            return False
        return True

    def _next_in(self) -> float | None:
        """Seconds until the loop should look again for a step to hand out: the earliest step
        stored of a match in no thread, or the end of a match's rest; None when there is none."""
        with self._lock:
            skip = self._busy | set(self._resting)
            rests = list(self._resting.values())
        earliest = (
            Match.objects.filter(status=Match.Status.PLAYING, step_at__isnull=False)
            .exclude(pk__in=skip)
            .aggregate(at=Min("step_at"))["at"]
        )
        times = [max(0.0, until - time.monotonic()) for until in rests]
        if earliest is not None:
            times.append(max(0.0, (earliest - timezone.now()).total_seconds()))
        return min(times, default=None)

    def _executor_get(self) -> ThreadPoolExecutor:
        if self._executor is None:
            from games.play.bot_pool import pool_size

            self._size = self._threads if self._threads is not None else max(1, pool_size())
            self._executor = ThreadPoolExecutor(
                max_workers=self._size, thread_name_prefix="hokm-step"
            )
        return self._executor

    # -- the threads' side ----------------------------------------------------------------------

    def _step(self, match_id: int, decision: ComputerDecision | None) -> None:
        """In a thread: the match's due step, with the decision taken ahead if there is one."""
        taken = False
        try:
            close_old_connections()
            now = timezone.now()
            try:
                taken = _step_take(match_id, decision)
            except Exception:  # one broken match must not stop the others
                _step_failed(match_id, now=now)
        except Exception:  # the database is away: the match rests, then is tried again
            logger.exception("automatic step of match %s failed", match_id)
        finally:
            close_old_connections()
            with self._lock:
                self._busy.discard(match_id)
                if taken:
                    self._taken += 1
                else:
                    self._resting[match_id] = time.monotonic() + self.poll
                wake = taken or self._backlog
            if wake:  # its next step may be due at once, or a step waits for a thread
                self._wake.set()

    def _decide_ahead(self, match_id: int, version: int) -> None:
        """In a thread: the decision of the computer player whose move is due soon, taken on
        the match as stored now (``match_step``'s own decision, without waiting for the time)."""
        # Imported here: games.play.services imports this module to schedule each step it stores.
        from games.play.services import computer_decide

        decision = None
        try:
            close_old_connections()
            decision = computer_decide(
                match_id=match_id, now=timezone.now(), rush=True, on_time=True
            )
        except Exception:  # the step decides for itself when it is due, and logs its failure
            logger.warning("deciding ahead for match %s failed", match_id, exc_info=True)
        finally:
            close_old_connections()
            with self._lock:
                seen = decision.version if decision is not None else version
                self._ahead[match_id] = _Ahead(seen, decision, time.monotonic())
                self._busy.discard(match_id)
            self._wake.set()  # its step may have come due meanwhile

    def _sweep(self) -> None:
        # Imported here: the lobby's services import match services, which import this module.
        from games.lobby.services import tables_idle_close
        from games.play.presence import connections_sweep
        from games.play.services import matches_idle_abandon

        if time.monotonic() - self._swept >= SWEEP_EVERY_SECONDS:
            self._swept = time.monotonic()
            connections_sweep()
            tables_idle_close()
            matches_idle_abandon()

    def _seeks_pair(self) -> None:
        # The seek pool's windows widen with time: a waiting seek is tried again every second.
        from games.lobby.seeks import PAIR_EVERY_SECONDS, seeks_pair

        if time.monotonic() - self._paired >= PAIR_EVERY_SECONDS:
            self._paired = time.monotonic()
            seeks_pair()


_thread_worker: Worker | None = None
_thread_lock = threading.Lock()


def worker_thread_start() -> Worker:
    """The worker thread of this process, started on first use (``"thread"`` mode)."""
    global _thread_worker
    with _thread_lock:
        if _thread_worker is None:
            _thread_worker = Worker()
            threading.Thread(target=_thread_worker.run, name="hokm-worker", daemon=True).start()
        return _thread_worker
