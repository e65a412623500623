"""Computer players take their turns, and the next hand is dealt, on their own.

After every committed change of a match the services call :func:`autoplay_on_commit`. If the
seat on turn is a computer player, it plays after a short natural delay; once a hand is decided and
the match is not, the next hand is dealt after a pause that lets everyone read the result.

Moves are made by a scheduler thread, never on the server's event loop, and go through the same
services as a person's (one transaction, a row lock, the engine's validation). Each move names the
version it was computed from, so when two processes race for the same turn only one applies.

``settings.HOKM_AUTOPLAY`` picks the mode: ``"thread"`` (the default), ``"inline"`` (tests: moves
are made at once in the committing thread), or ``"off"``.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import close_old_connections, transaction

logger = logging.getLogger(__name__)

DEFAULT_BOT_DELAY = 0.7  # seconds: a human-looking pause before a computer plays
DEFAULT_NEXT_HAND_DELAY = 4.0  # seconds to read the hand's result before the next deal


def _mode() -> str:
    return getattr(settings, "HOKM_AUTOPLAY", "thread")


def autoplay_on_commit(match_id: int) -> None:
    """Schedule the computer's next step for this match once the current transaction commits."""
    if _mode() == "off":
        return
    transaction.on_commit(lambda: autoplay_kick(match_id))


def autoplay_kick(match_id: int) -> None:
    """Look at the match now (inline) or after the natural delay (thread) and act if it is due."""
    mode = _mode()
    if mode == "off":
        return
    if mode == "inline":
        _run_inline(match_id)
        return
    delay = _delay_for(match_id)
    if delay is not None:
        _scheduler().schedule(delay, lambda: _step_in_thread(match_id))


_inline = threading.local()


def _run_inline(match_id: int) -> None:
    # A move commits and calls back here; run the moves in one loop instead of recursing.
    pending: set[int] | None = getattr(_inline, "pending", None)
    if pending is not None:
        pending.add(match_id)
        return
    _inline.pending = pending = {match_id}
    try:
        while pending:
            current = pending.pop()
            while autoplay_step(current):
                pass
    finally:
        _inline.pending = None


def _delay_for(match_id: int) -> float | None:
    """How long to wait before the next automatic step, or None when none is due."""
    from games.selectors import autoplay_due

    due = autoplay_due(match_id=match_id)
    if due is None:
        return None
    if due == "deal":
        return float(getattr(settings, "HOKM_NEXT_HAND_DELAY_SECONDS", DEFAULT_NEXT_HAND_DELAY))
    return float(getattr(settings, "HOKM_BOT_DELAY_SECONDS", DEFAULT_BOT_DELAY))


def _step_in_thread(match_id: int) -> None:
    close_old_connections()
    try:
        autoplay_step(match_id)
    except Exception:  # a failed step must not kill the scheduler thread
        logger.exception("computer step of match %s failed", match_id)
    finally:
        close_old_connections()


def autoplay_step(match_id: int) -> bool:
    """Make one automatic step if one is due: a computer's decision or the next deal.

    Returns True when something was done. Safe to call from several processes at once.
    """
    from games.bots import bot_action
    from games.engine import view
    from games.models import Match, MatchSeat
    from games.selectors import match_state_build
    from games.services import (
        StaleVersionError,
        match_apply_action,
        match_deal_next_hand,
    )

    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.Status.PLAYING:
        return False
    state = match_state_build(match=match)
    try:
        if state.awaiting_next_hand:
            match_deal_next_hand(match=match_id, expected_version=match.version)
            return True
        seat = state.hand.to_act
        if seat is None:
            return False
        level = (
            MatchSeat.objects.filter(match_id=match_id, index=seat)
            .values_list("computer_level", flat=True)
            .first()
        )
        if level is None:
            return False
        # No peeking: the computer decides from its own seat's view, like any client.
        action = bot_action(view(state.hand, seat), level=level)
        match_apply_action(match=match_id, seat=seat, action=action, expected_version=match.version)
    except StaleVersionError:
        return True  # someone else moved first: look again
    return True


class _Scheduler:
    """One daemon thread running delayed jobs in time order."""

    def __init__(self) -> None:
        self._jobs: list[tuple[float, int, Callable[[], None]]] = []
        self._counter = itertools.count()
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="hokm-autoplay", daemon=True)
        self._thread.start()

    def schedule(self, delay: float, job: Callable[[], None]) -> None:
        with self._wake:
            heapq.heappush(self._jobs, (time.monotonic() + delay, next(self._counter), job))
            self._wake.notify()

    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._jobs or self._jobs[0][0] > time.monotonic():
                    timeout = self._jobs[0][0] - time.monotonic() if self._jobs else None
                    self._wake.wait(timeout)
                _, _, job = heapq.heappop(self._jobs)
            job()


_scheduler_instance: _Scheduler | None = None
_scheduler_lock = threading.Lock()


def _scheduler() -> _Scheduler:
    global _scheduler_instance
    with _scheduler_lock:
        if _scheduler_instance is None:
            _scheduler_instance = _Scheduler()
        return _scheduler_instance
