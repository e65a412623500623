"""Fixtures of the fault tests: daphne servers to kill, a private Redis and a private PostgreSQL.

These tests run after the others (but before the browser tests, which ``tests/conftest.py`` puts
last): they start and kill server processes and run their clients in an event loop of their own
(``asyncio.run``), and nothing of that should be around when the async tests run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.faults.processes import Daphne, PostgresCluster, RedisServer, postgres_tools
from tests.live_server import run_database_url

_FAULTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Fault tests after every other test; ``tests/conftest.py`` then moves the browser tests
    behind them (its hook is ``trylast``, and its sort is stable)."""
    items.sort(key=lambda item: _FAULTS in Path(item.path).parents)


@pytest.fixture
def run_database(django_db_blocker) -> str:
    """The URL of the run's test database, for servers that should use it."""
    with django_db_blocker.unblock():
        return run_database_url()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, on a free port: it may be stopped at will."""
    server = RedisServer(log_path=tmp_path / "redis.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def private_postgres(tmp_path: Path) -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster of this test's own, started (its log ends in ``tmp_path``)."""
    tools = postgres_tools()
    if tools is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) or no runuser to run them")
    bin_dir, as_postgres = tools
    cluster = PostgresCluster(
        bin_dir=bin_dir, as_postgres=as_postgres, log_path=tmp_path / "postgres.log"
    )
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture
def daphnes(tmp_path: Path) -> Iterator[Callable[..., list[Daphne]]]:
    """Start daphne servers (``daphnes(env_a, env_b, ...)``, side by side, ready to serve unless
    ``wait=False``); every one is stopped when the test ends, their logs stay in ``tmp_path``."""
    started: list[Daphne] = []

    def start(*envs: dict[str, str], wait: bool = True) -> list[Daphne]:
        servers = [
            Daphne(env=env, log_path=tmp_path / f"daphne-{len(started) + i}.log")
            for i, env in enumerate(envs)
        ]
        started.extend(servers)
        for server in servers:
            server.launch()
        for server in servers:
            if wait:
                server.wait_ready()
        return servers

    try:
        yield start
    finally:
        for server in started:
            server.stop()
