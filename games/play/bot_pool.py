"""Computer players think in processes of their own, never in the web server's.

A decision of the search takes up to a few tenths of a second of CPU. Taken in a server process
it would hold the GIL, and the event loop serving every socket of that process would wait for it.
So the worker (``games.play.autoplay``) hands each decision to a small pool of processes and waits
for the answer without the GIL, and without any lock of the database: ``games.play.services.
match_step`` decides before it locks the match.

The pool's processes come from a fork server that has imported this module, ``games.bots`` and
the engine (pure Python and numpy, no Django) and nothing else: a process of its own from the
start, never a fork of the threaded server, and quick to fork again when a pool is replaced.
(Like any process multiprocessing starts, each also runs the top of the server's main script,
under its ``__main__`` guard: imports only, for ``manage.py`` and the ``daphne`` script.)
``settings.HOKM_BOT_PROCESSES`` sizes the pool; 0 decides in the calling thread (tests).

A decision that fails, that is not back within its level's time limit and some slack, or that
meets a broken pool is logged, the pool is replaced, and the greedy baseline decides instead, at
once: a match never stalls on its computer player.

The worker asks for as many decisions at once as the pool has processes (one per thread,
``games.play.autoplay.Worker``), so a decision never waits in the pool's queue and its time
limit is its own thinking time. A pool replaced after one decision failed ends its processes, so
a decision another thread had under way there fails too and greedy plays for it as well.

Never late (issue 25): a decision asked with ``due`` (when its move is due, after the pause)
thinks only as long as leaves the move within :data:`LATE_LIMIT_SECONDS` of it
(:func:`decision_budget`): the time left, less what applying it takes and the queueing (the
steps and decisions that wait meanwhile, each worth a full search spread over the processes),
at most the level's own limit. With less than a useful search's time, the greedy baseline decides
at once in the calling thread, without the pool. The pool's hard limit (the level's limit and
the slack) stays what it was, however short the budget.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from games.bots import TIME_LIMITS, UnknownLevelError, bot_action, greedy_action
from games.engine import Action

logger = logging.getLogger(__name__)

DEFAULT_PROCESSES = 1
#: How long past its level's time limit a decision is waited for: pickling, the pipe, a machine
#: busy with other work.
DECISION_SLACK_SECONDS = 2.0
#: Added for the first decision of a new pool, whose process starts first (the fork server
#: imports numpy and the bots once per server process).
START_SLACK_SECONDS = 20.0
#: How often a pool process checks that the server that started it is still running.
SERVER_CHECK_SECONDS = 1.0
#: How long after its due time (the end of the pause) a computer's move may come at most.
LATE_LIMIT_SECONDS = 0.3
#: What a decision needs once it is back, before its move reaches the sockets: the step's
#: transaction, the event's publishing.
APPLY_SECONDS = 0.1
#: The least thinking worth a search: it stops at its deadline only after a round of sampled
#: deals (the expert's: about 0.02 s, 0.05 at the 95th percentile on a busy machine). With less,
#: the greedy baseline decides at once.
MIN_SEARCH_SECONDS = 0.06


@dataclass(frozen=True, slots=True)
class Decision:
    """A computer player's action, the process that decided it, and whether the greedy baseline
    stood in after the decision failed."""

    action: Action
    process_id: int
    fallback: bool = False
    hurried: bool = False  # no time to think: greedy decided at once (never late)


def bot_decide(
    view: Mapping[str, Any],
    *,
    level: str,
    match: Mapping[str, Any] | None = None,
    time_limit: float | None = None,
    due: float | None = None,
) -> Action:
    """``games.bots.bot_action`` taken in the pool, with the same arguments: the same action, or
    the greedy baseline's if the pool fails or the decision is not back within its time limit
    and some slack. ``due`` (a ``time.time()``) bounds the thinking by when the move is due
    (:func:`decision_budget`)."""
    return bot_decision(view, level=level, match=match, time_limit=time_limit, due=due).action


def bot_decision(
    view: Mapping[str, Any],
    *,
    level: str,
    match: Mapping[str, Any] | None = None,
    time_limit: float | None = None,
    due: float | None = None,
) -> Decision:
    """:func:`bot_decide`, with the process that decided and whether greedy stood in.

    An unknown level raises :class:`~games.bots.UnknownLevelError` here, before any process is
    asked: it is an error of the stored match, not of the computer player.
    """
    global _in_flight
    if level not in TIME_LIMITS:
        raise UnknownLevelError(level)
    limit = TIME_LIMITS[level] if time_limit is None else time_limit
    processes = pool_size()
    if due is not None:
        budget = decision_budget(level, due=due, limit=limit, processes=processes)
        if budget is None:
            _hurried_count(greedy=True)
            return Decision(greedy_action(view), os.getpid(), hurried=True)
        if budget < limit:
            _hurried_count(greedy=False)
        limit = budget
    if processes == 0:
        try:
            return _decide(view, level, match, limit)
        except Exception:
            logger.exception("the %s computer player failed; greedy plays instead", level)
            return _greedy(view)
    with _waiting_lock:
        _in_flight += 1
    try:
        return _pool.decide(
            view,
            level=level,
            match=match,
            time_limit=limit,
            hard_limit=max(limit, TIME_LIMITS[level]),
            processes=processes,
        )
    finally:
        with _waiting_lock:
            _in_flight -= 1


_waiting_lock = threading.Lock()
_in_flight = 0  # decisions of this process in the pool now
_steps_waiting = 0  # due steps waiting for a worker thread, as the worker last counted


#: How often the decisions that thought less are counted in the log (when there were any).
HURRIED_LOG_SECONDS = 10.0
_hurried = [0, 0]  # since last logged: decisions that thought less, and greedy at once
_hurried_logged = time.monotonic()


def _hurried_count(*, greedy: bool) -> None:
    """Count a decision that thought less than its level's limit (or not at all: greedy), and
    now and then log the counts: under load, how the computers kept their moves on time."""
    global _hurried_logged
    with _waiting_lock:
        _hurried[1 if greedy else 0] += 1
        now = time.monotonic()
        if now - _hurried_logged < HURRIED_LOG_SECONDS:
            return
        shorter, greedy_count = _hurried
        _hurried[:] = [0, 0]
        seconds, _hurried_logged = now - _hurried_logged, now
    logger.warning(
        "computer players under load, in the last %.0f s: %d thought less than their level's "
        "limit and %d played greedy at once, so as not to be late",
        seconds,
        shorter,
        greedy_count,
    )


def steps_waiting_set(count: int) -> None:
    """The worker's count of due steps that wait for a thread (each will want a decision)."""
    global _steps_waiting
    with _waiting_lock:
        _steps_waiting = max(0, count)


def decisions_waiting(processes: int | None = None) -> int:
    """How many decisions wait for a pool process: the due steps waiting for a worker thread
    and the decisions of this process beyond the pool's processes."""
    processes = max(1, pool_size() if processes is None else processes)
    with _waiting_lock:
        return _steps_waiting + max(0, _in_flight - processes)


def decision_budget(
    level: str,
    *,
    due: float,
    limit: float | None = None,
    now: float | None = None,
    waiting: int | None = None,
    processes: int | None = None,
) -> float | None:
    """Seconds the ``level``'s search may think for a move due at ``due`` (``time.time()``), so
    that it comes at most :data:`LATE_LIMIT_SECONDS` after that: the time left, less
    :data:`APPLY_SECONDS` and the queueing (each decision ``waiting`` worth the level's full
    limit, spread over the pool's ``processes``), at most ``limit`` (the level's). None when that
    is less than :data:`MIN_SEARCH_SECONDS`: the greedy baseline decides, at once. A level that
    does not search (no time limit) keeps its own."""
    level_limit = TIME_LIMITS[level]
    limit = level_limit if limit is None else limit
    if limit <= 0:
        return limit
    now = time.time() if now is None else now
    processes = max(1, pool_size() if processes is None else processes)
    waiting = decisions_waiting(processes) if waiting is None else max(0, waiting)
    queueing = waiting * level_limit / processes
    budget = due + LATE_LIMIT_SECONDS - now - APPLY_SECONDS - queueing
    if budget < MIN_SEARCH_SECONDS:
        return None
    return min(limit, budget)


def pool_size() -> int:
    """How many processes decide for computer players (``settings.HOKM_BOT_PROCESSES``)."""
    from django.conf import settings

    return max(0, int(getattr(settings, "HOKM_BOT_PROCESSES", DEFAULT_PROCESSES)))


def bot_pool_shutdown() -> None:
    """Stop the pool's processes (the worker stops, the process exits); the next decision starts
    a new pool."""
    _pool.shutdown()


class _Pool:
    """The process pool, started on the first decision and replaced after a failure."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._processes = 0
        self._warm = False  # the current executor has answered once: its process is up

    def decide(
        self,
        view: Mapping[str, Any],
        *,
        level: str,
        match: Mapping[str, Any] | None,
        time_limit: float,
        processes: int,
        hard_limit: float | None = None,
    ) -> Decision:
        """The decision, thinking ``time_limit``; waited for ``hard_limit`` (the level's limit,
        however short the budget) and the slack, then greedy stands in."""
        executor, warm = self._executor_get(processes)
        timeout = (time_limit if hard_limit is None else hard_limit) + DECISION_SLACK_SECONDS
        try:
            started = _processes_started(executor)
            future = executor.submit(_decide, view, level, match, time_limit)
            # A pool starts its processes one by one, when every one it has is busy: a decision
            # that started one (several are asked at once) waits for it as for a new pool's.
            if not warm or _processes_started(executor) > started:
                timeout += START_SLACK_SECONDS
            decision = future.result(timeout=timeout)
        except TimeoutError:
            logger.warning(
                "no decision of the %s computer player within %.2f s; greedy plays instead and "
                "the bot pool is replaced",
                level,
                timeout,
            )
        except Exception:
            logger.warning(
                "the %s computer player failed in the bot pool; greedy plays instead and the "
                "pool is replaced",
                level,
                exc_info=True,
            )
        else:
            with self._lock:
                if self._executor is executor:
                    self._warm = True
            return decision
        self._replace(executor)
        return _greedy(view)

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _executor_get(self, processes: int) -> tuple[ProcessPoolExecutor, bool]:
        with self._lock:
            if self._executor is not None and self._processes == processes:
                return self._executor, self._warm
            old, self._executor = self._executor, _executor_new(processes)
            self._processes, self._warm = processes, False
            executor = self._executor
        if old is not None:  # the setting changed (tests): the old pool finishes its work
            old.shutdown(wait=False)
        return executor, False

    def _replace(self, failed: ProcessPoolExecutor) -> None:
        """Drop a pool that failed, ending its processes: one may still be thinking, and a
        decision queued behind it would wait as long."""
        with self._lock:
            if self._executor is failed:
                self._executor = None
        # ProcessPoolExecutor has no public way to end busy workers before Python 3.14
        # (terminate_workers); its process table is the one handle on them.
        processes = list((getattr(failed, "_processes", None) or {}).values())
        failed.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()


_pool = _Pool()
atexit.register(bot_pool_shutdown)


def _processes_started(executor: ProcessPoolExecutor) -> int:
    # Private, as in _Pool._replace: ProcessPoolExecutor tells nothing of its processes.
    return len(getattr(executor, "_processes", None) or {})


def _executor_new(processes: int) -> ProcessPoolExecutor:
    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Forked from a server that has imported these, each pool process starts at once.
        context.set_forkserver_preload([__name__])
    else:
        context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=context,
        initializer=_pool_process_start,
        initargs=(os.getpid(),),
    )


def _decide(
    view: Mapping[str, Any], level: str, match: Mapping[str, Any] | None, time_limit: float
) -> Decision:
    """One decision, in whichever process runs this."""
    action = bot_action(view, level=level, match=match, time_limit=time_limit)
    return Decision(action, os.getpid())


def _greedy(view: Mapping[str, Any]) -> Decision:
    return Decision(greedy_action(view), os.getpid(), fallback=True)


def _pool_process_start(server: int) -> None:
    """In each pool process: Ctrl-C is the server's to handle (it stops the pool), and the process
    ends by itself once the server is gone, even when it was killed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_end_with, args=(server,), name="hokm-bot-pool-server", daemon=True
    ).start()


def _end_with(server: int) -> None:
    # A killed server never stops its pool, and the fork server that started this process stays
    # up as long as this process does (it keeps the fork server's pipe open): watch the server.
    while True:
        time.sleep(SERVER_CHECK_SECONDS)
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            os._exit(0)
