"""The worker: computer players move, the next hand is dealt and turn clocks run out, on time;
now and then it also ends the matches nobody has played for a week (R8.2).

Every match being played stores when its next automatic step is due (``Match.step_at``, set by
``games.play.services``): a computer player's move after a short natural delay, the next deal after
a pause to read the result, or the end of a person's turn clock (R8.1). The worker takes the steps
whose time has come with ``games.play.services.match_step``, which locks the match row and checks
the time again, so any number of workers (one per server process, or separate processes) take each
step once, and a worker that restarts finds every deadline in the database where it left it.

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
from datetime import datetime, timedelta

from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Min
from django.utils import timezone

from games.models import Match

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


def due_steps_run(*, now: datetime | None = None, limit: int = BATCH) -> int:
    """Take every step due by ``now`` (oldest first, at most ``limit``); returns how many were
    taken. A step that fails is logged and the others go on."""
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
            logger.exception("automatic step of match %s failed", match_id)
            # Try it again later, so that matches that keep failing do not stay first in line.
            Match.objects.filter(pk=match_id, step_at__lte=now).update(
                step_at=now + timedelta(seconds=FAILED_STEP_RETRY_SECONDS)
            )
    return taken


def next_step_in() -> float | None:
    """Seconds until the earliest step stored (0 when overdue), None when none is."""

    earliest = Match.objects.filter(status=Match.Status.PLAYING, step_at__isnull=False).aggregate(
        at=Min("step_at")
    )["at"]
    if earliest is None:
        return None
    return max(0.0, (earliest - timezone.now()).total_seconds())


class Worker:
    """The loop of one worker: take due steps, sleep until the next one (at most a poll); pair
    the seek pool every ``games.lobby.seeks.PAIR_EVERY_SECONDS`` on the way."""

    def __init__(self, *, poll: float = POLL_SECONDS) -> None:
        self.poll = poll
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._swept = 0.0
        self._paired = 0.0

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
        while not self._stop.is_set():
            self._wake.clear()
            wait = self.poll
            try:
                close_old_connections()
                taken = due_steps_run()
                if taken >= BATCH:
                    continue  # more are due: no sleep
                self._sweep()
                self._seeks_pair()
                until_next = next_step_in()
                # An overdue step this pass could not take (it failed) waits for the next poll:
                # retrying it at once would spin and flood the log.
                if until_next is not None and (taken or until_next > 0):
                    wait = min(wait, until_next)
            except Exception:  # the database is away: try again shortly, never die
                logger.exception("worker pass failed")
                wait = 1.0
            self._wake.wait(wait)
        close_old_connections()
        logger.info("worker stopped")

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
