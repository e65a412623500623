"""A real server for end-to-end tests: daphne in its own process, on the test database.

The server is spawned (a fresh interpreter, not a fork of this one) because a forked daphne child
deadlocks on WebSocket connects once async tests have run in the parent (STACK-NOTES.md). It reads
the test database by name, so rows a test commits (``transaction=True``) are what it serves.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _test_database_url() -> str:
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The base URL of a daphne process serving the whole site on the test database."""
    port = _free_port()
    with django_db_blocker.unblock():
        database_url = _test_database_url()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "1",
        "HOKM_AUTOPLAY": "thread",
        "HOKM_BOT_DELAY_SECONDS": "0.05",
        "HOKM_NEXT_HAND_DELAY_SECONDS": "0.5",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # never in the server
    log = open(ROOT / "tests" / "e2e" / f"server-{port}.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "hokm_site.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.close()
                    raise RuntimeError(
                        "the test server did not start:\n" + Path(log.name).read_text()
                    ) from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        Path(log.name).unlink(missing_ok=True)
