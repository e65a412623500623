"""The processes the fault tests start, kill and start again: daphne servers, a private Redis and a
private PostgreSQL cluster.

Each runs as a child of the test process, spawned (never forked: STACK-NOTES.md), with its output
in a log file that stays in pytest's temporary directory to read after a failure. A server that
is killed is started again on the same port, as a supervisor would, so clients find it where it
was. The Redis and PostgreSQL servers are the tests' own, on free ports: stopping them leaves
the machine's shared servers (6379, 5432) alone.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.live_server import ROOT, free_port, process_stop

#: How long a process may take to start on a slow, shared machine.
START_SECONDS = 60


def _wait_until(ready, *, process: subprocess.Popen | None, what: str, log: Path | None) -> None:
    """Poll ``ready()`` until it is true; fail with the log if the process died or time ran out."""
    deadline = time.monotonic() + START_SECONDS
    while not ready():
        if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
            text = log.read_text(errors="replace") if log is not None and log.exists() else ""
            raise RuntimeError(f"{what} did not start:\n{text[-4000:]}")
        time.sleep(0.1)


class Daphne:
    """A daphne process serving the whole site on a fixed port, killable and restartable there.

    ``env`` is added to the test process's environment (``DJANGO_ALLOW_ASYNC_UNSAFE`` is never
    passed on). Computer players decide in the worker's own thread (``HOKM_BOT_PROCESSES=0``): a
    pool's processes would outlive a daphne killed with SIGKILL.
    """

    def __init__(self, *, env: dict[str, str], log_path: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.env = {
            **os.environ,
            "DEBUG": "1",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "HOKM_AUTOPLAY": "thread",
            "HOKM_BOT_PROCESSES": "0",
            "HOKM_BOT_DELAY_SECONDS": "0",
            "HOKM_NEXT_HAND_DELAY_SECONDS": "0.3",
            **env,
        }
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        """Start daphne and wait until it answers HTTP."""
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start daphne without waiting for it (several start side by side)."""
        self.starts += 1
        with open(self.log_path, "a") as log:
            log.write(f"\n---- start {self.starts} ----\n")
            log.flush()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
                + ["hokm_site.asgi:application"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self) -> None:
        """Wait until daphne answers HTTP."""

        def answers() -> bool:
            try:
                urllib.request.urlopen(self.url + "/", timeout=2).close()
                return True
            except OSError:
                return False

        _wait_until(answers, process=self.process, what="daphne", log=self.log_path)

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind, as when the machine or the OOM killer takes it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        process_stop(self.process)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A private redis-server on a free port that keeps nothing on disk."""

    def __init__(self, *, log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
                + ["--appendonly", "no", "--daemonize", "no", "--dir", tempfile.gettempdir()],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        _wait_until(
            lambda: _redis_answers(self.port),
            process=self.process,
            what="redis-server",
            log=self.log_path,
        )

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop it with ``sig`` (SIGKILL: at once, every connection cut) and wait until it has
        gone."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        self.process.wait(timeout=10)


def postgres_tools() -> tuple[Path, list[str]] | None:
    """The newest PostgreSQL server binaries here and the prefix that runs them as ``postgres``
    (PostgreSQL refuses to run as root); None when they are not installed."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda path: [int(part) for part in re.findall(r"\d+", path)],
    )
    if not found:
        on_path = shutil.which("pg_ctl")
        if on_path is None or shutil.which("initdb") is None:
            return None
        found = [on_path]
    bin_dir = Path(found[-1]).parent
    if os.geteuid() != 0:
        return bin_dir, []
    runuser = shutil.which("runuser")
    if runuser is None:
        return None
    return bin_dir, [runuser, "-u", "postgres", "--"]


class PostgresCluster:
    """A private PostgreSQL cluster in a temporary directory, on a free port, trust auth, no fsync.

    Its directory is owned by ``postgres`` when the tests run as root, in ``/tmp`` rather than
    pytest's temporary directory (which only root may enter); its log is copied to ``log_path``.
    """

    def __init__(self, *, bin_dir: Path, as_postgres: list[str], log_path: Path) -> None:
        self.bin_dir = bin_dir
        self.as_postgres = as_postgres
        self.port = free_port()
        self.log_path = log_path
        self.root = Path(tempfile.mkdtemp(prefix="hokm-pg-"))
        self.data = self.root / "data"
        self.server_log = self.root / "server.log"
        if as_postgres:
            shutil.chown(self.root, user="postgres", group="postgres")

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self.as_postgres, *args], capture_output=True, text=True, timeout=START_SECONDS
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{done.stdout}{done.stderr}")

    def init(self) -> None:
        self._run(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        )

    def start(self) -> None:
        # fsync only matters when the machine loses power: a stop, even ``immediate``, loses no
        # committed transaction without it: what was written sits in the kernel's page cache.
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bin_dir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.server_log),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """``fast``: roll back open transactions and cut every connection, as a restart does."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str, *, template: str | None = None) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            clause = f" TEMPLATE {template}" if template else ""
            connection.execute(f'CREATE DATABASE "{name}"{clause}')

    def destroy(self) -> None:
        """Stop the cluster at once and delete it, keeping its log."""
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop("immediate")
        finally:
            if self.server_log.exists():
                shutil.copyfile(self.server_log, self.log_path)
            shutil.rmtree(self.root, ignore_errors=True)
