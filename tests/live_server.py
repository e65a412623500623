"""A real server for end-to-end and browser tests: daphne in its own process, on the test database.

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
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def process_stop(process: subprocess.Popen, *, timeout: float = 10) -> None:
    """Stop a server process the way a service manager does: SIGTERM, then SIGKILL if it has not
    exited within ``timeout`` seconds; it is reaped either way."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


def run_database_url() -> str:
    """The URL of the database the test run set up (call with database access unblocked)."""
    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@contextmanager
def live_server(*, database_url: str, log_path: Path, env: dict[str, str]) -> Iterator[str]:
    """Serve the whole site with daphne until the block ends; yields its base URL.

    Computer players move by themselves in the server (``HOKM_AUTOPLAY=thread``); ``env`` adds
    to or overrides the server's environment (delays, an email folder).
    """
    port = free_port()
    server_env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "1",
        "HOKM_AUTOPLAY": "thread",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        **env,
    }
    server_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # never in the server
    url = f"http://127.0.0.1:{port}"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
            + ["hokm_site.asgi:application"],
            cwd=ROOT,
            env=server_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(url + "/", timeout=2).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        log.flush()
                        raise RuntimeError(
                            "the test server did not start:\n" + log_path.read_text()
                        ) from None
                    time.sleep(0.2)
            yield url
        finally:
            process_stop(server)
