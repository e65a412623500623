"""The production layout in miniature, for the scale-out test: two daphne processes that share one
Redis channel layer and the test database, and one ``manage.py hokm_worker`` process for the
computer players, the next deals and the turn clocks (docs/operations.md).

Every process is spawned, not forked, and reads the test database by name (tests/live_server.py
says why). The daphnes run with ``HOKM_AUTOPLAY=worker``, as docs/operations.md recommends, so
every automatic step is taken in the worker process and reaches the players' sockets only through
Redis: exactly what has to work when a site runs on several processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.live_server import ROOT, free_port, process_stop

#: The local Redis a developer's ``make test`` uses when REDIS_URL is not set (DB 11 keeps the
#: test's keys away from anything else on that server).
LOCAL_REDIS_URL = "redis://127.0.0.1:6379/11"
#: What ``manage.py hokm_worker`` prints once it runs.
WORKER_READY = "hokm worker running"
START_TIMEOUT = 60.0


def redis_url_for_scale_out() -> tuple[str | None, str]:
    """The Redis the servers share: REDIS_URL when set (CI), else DB 11 of a Redis answering on
    127.0.0.1:6379; with the reason when there is none."""
    configured = os.environ.get("REDIS_URL")
    if configured:
        return configured, "REDIS_URL"
    import redis

    client = redis.Redis.from_url(LOCAL_REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        return None, f"REDIS_URL is not set and no Redis answers on 127.0.0.1:6379 ({error})"
    finally:
        client.close()
    return LOCAL_REDIS_URL, "a local Redis"


@dataclass(frozen=True)
class Layout:
    """The running processes: the daphnes' base URLs (one per process) and where each logs."""

    urls: list[str]
    logs: list[Path]
    worker_log: Path

    def output(self) -> str:
        """Every process's log, for a failure message."""
        parts = []
        for path in [*self.logs, self.worker_log]:
            text = path.read_text() if path.exists() else "(no log)"
            parts.append(f"--- {path.name} ---\n{text[-6000:]}")
        return "\n".join(parts)


@contextmanager
def production_layout(
    *,
    database_url: str,
    redis_url: str,
    log_dir: Path,
    servers: int = 2,
    env: dict[str, str] | None = None,
) -> Iterator[Layout]:
    """Start ``servers`` daphne processes and one worker, all at once, and yield when every one
    is ready; stop them all when the block ends. ``env`` adds to every process's environment."""
    common = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "HOKM_AUTOPLAY": "worker",
        # The production layout minus TLS: with DEBUG off every plain-HTTP request would be
        # redirected to HTTPS and pages would need collectstatic first. Neither is what this
        # layout tests; tests/test_deploy_check.py checks the production settings themselves.
        "DEBUG": "1",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        **(env or {}),
    }
    common.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # never in a server
    ports = [free_port() for _ in range(servers)]
    layout = Layout(
        urls=[f"http://127.0.0.1:{port}" for port in ports],
        logs=[log_dir / f"daphne-{n}.log" for n in range(1, servers + 1)],
        worker_log=log_dir / "worker.log",
    )
    with ExitStack() as stack:
        daphnes = [
            stack.enter_context(
                _process(
                    [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
                    + ["hokm_site.asgi:application"],
                    env=common,
                    log_path=log,
                )
            )
            for port, log in zip(ports, layout.logs, strict=True)
        ]
        worker = stack.enter_context(
            _process(
                [sys.executable, "manage.py", "hokm_worker"], env=common, log_path=layout.worker_log
            )
        )
        deadline = time.monotonic() + START_TIMEOUT
        for process, url in zip(daphnes, layout.urls, strict=True):
            _wait(lambda url=url: _answers(url), process, deadline, layout)
        _wait(lambda: WORKER_READY in layout.worker_log.read_text(), worker, deadline, layout)
        yield layout


@contextmanager
def layout_on_test_database(
    django_db_blocker: Any, *, log_dir: Path, env: dict[str, str]
) -> Iterator[Layout]:
    """:func:`production_layout` on pytest's test database and the Redis of
    :func:`redis_url_for_scale_out`; skips the test when there is no such Redis (the module
    fixtures of tests/e2e start theirs with it)."""
    import pytest

    from tests.live_server import run_database_url

    redis_url, why = redis_url_for_scale_out()
    if redis_url is None:
        pytest.skip(f"several server processes need a Redis channel layer: {why}")
    with django_db_blocker.unblock():
        database_url = run_database_url()
    with production_layout(
        database_url=database_url, redis_url=redis_url, log_dir=log_dir, env=env
    ) as running:
        yield running


@contextmanager
def _process(args: list[str], *, env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen]:
    with open(log_path, "w") as log:
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process_stop(process)


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "/", timeout=2).close()
    except OSError:
        return False
    return True


def _wait(
    ready: Callable[[], bool], process: subprocess.Popen, deadline: float, layout: Layout
) -> None:
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the scale-out layout did not start:\n" + layout.output())
        time.sleep(0.1)
