"""Computer players under load (issue 25): how many tables of one person and three expert
computers the site serves on this machine before the computers answer late.

    .venv/bin/python -m bench.load.computers                 # or: make bench-computers
    .venv/bin/python -m bench.load.computers --duration 60 --max-tables 16
    .venv/bin/python -m bench.load.computers --sizes 1,4,8          # these sizes only

It runs the site as docs/operations.md runs it on one machine, with
:func:`bench.load.run.servers_run`: ``--processes`` daphne processes (one per core, at least two),
one ``manage.py hokm_worker`` with ``HOKM_AUTOPLAY=worker`` and its pool of
``HOKM_BOT_PROCESSES`` (``--bot-processes``, one per core) bot processes, ``DEBUG=0``, PostgreSQL
(``BENCH_COMPUTERS_DATABASE_URL``, a database of its own) and Redis (``--redis``, flushed).

Each table is a private ``hokm4`` table opened as "Play against the computer" opens one
(``games.lobby.services.play_against_computer``, to 21 points, no turn clock): one person at
seat 0 and three computer players of ``--level`` (``expert``). The person is a scripted client of
the JSON protocol (docs/protocol.md), signed in with a personal API token: when his view says he
is on turn he answers ``--answer`` seconds (1.5) after that frame arrived, with one of the legal
actions of his view, chosen at random. A match that ends is followed by a new one.

What is measured, from the frames the person's socket receives (one monotonic clock): a
computer player comes on turn when the event before his move arrives (version ``v - 1``); the
**delay** of his move is the time from that arrival to the arrival of his move's event (``v``),
less the configured pause before a computer plays (``HOKM_BOT_DELAY_SECONDS``, 0.7 s). A move whose
previous version came in the same frame (events coalesced) cannot be timed and is counted apart.
The same delay is also taken from the stored events (``MatchEvent.created_at`` of ``v`` less that
of ``v - 1``, less the pause: the server's own part, without the sockets).

The number of tables ``N`` grows (``--sizes``, by default 1, 2, 4, 8, ... up to
``--max-tables``), each after ``--settle`` seconds of play at that size, with a window of
``--duration`` seconds: the 95th percentile of the delay decides whether ``N`` is within the
target (``--limit``, 0.3 s beyond the pause). The growth stops once a size is beyond the target by
far (``--stop-beyond``); then ``--bisect`` sizes between the largest within and the smallest
beyond. New tables start ``--spread`` seconds apart at most, so that they do not play in step; a
table taken away resigns its match. For each size it prints the delays (median, p95, max), the
computer moves per second, the CPU of each process (percent of one core: the daphne processes,
the worker, its fork server and bot pool processes, PostgreSQL and Redis, this client) and how
busy the machine was, then the capacity: the largest ``N`` whose p95 stayed within the limit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from bench.load.client import LoopLag, _connect, percentile
from bench.load.run import (
    Servers,
    cpu_seconds,
    load_average,
    machine_busy,
    servers_run,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/hokm_bench_computers"
#: A Redis database of its own (the live-play benchmark uses 12 and 13, the tests 11 and below).
DEFAULT_REDIS = "redis://127.0.0.1:6379/14"
USERNAME_PREFIX = "person"
VARIANT = "hokm4"
#: Points to win: the most a table allows, so that a match seldom ends within a run.
TARGET = 21
#: The events of a computer player's move.
MOVE_KINDS = ("play_card", "call_trump")
#: Processes reported as one figure: every process of the PostgreSQL and Redis servers (other
#: programs' work on them included).
SUMMED = ("postgres (all)", "redis")
#: After fewer tables, at most this long for the steps of the matches taken away to be done.
DRAIN_SECONDS = 30.0


# -- the players and their matches, in the bench database -----------------------------------------


def django_setup() -> str:
    """Point Django at this benchmark's own database (created and migrated when missing)."""
    os.environ["BENCH_LOAD_DATABASE_URL"] = (
        os.environ.get("BENCH_COMPUTERS_DATABASE_URL") or DEFAULT_DATABASE_URL
    )
    from bench.load.players import django_setup as setup

    return setup()


def people_create(count: int) -> list[tuple[Any, str]]:
    """Delete the tables and matches of earlier runs; make (or keep) ``count`` users with a
    fresh personal API token each. Returns (user, token) pairs."""
    from django.contrib.auth.hashers import make_password
    from django.db import connection

    from accounts.models import ApiToken, User
    from accounts.tokens import token_create
    from bench._django import database_settings
    from games.models import Match, Table

    assert "bench" in str(database_settings()["NAME"])  # never anybody else's matches
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {Match._meta.db_table}, {Table._meta.db_table} CASCADE")
    names = [f"{USERNAME_PREFIX}{index:04d}" for index in range(count)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    unusable = make_password(None)
    User.objects.bulk_create(
        User(username=name, password=unusable) for name in names if name not in existing
    )
    ApiToken.objects.filter(user__username__startswith=USERNAME_PREFIX).delete()
    users = User.objects.filter(username__in=names).order_by("username")
    return [(user, token_create(user=user, name="computers benchmark")[1]) for user in users]


def match_start(user: Any, level: str) -> int:
    """A private table against the computer, as the lobby's button opens it; its match id."""
    from django.db import close_old_connections

    from games.lobby.services import play_against_computer

    close_old_connections()
    match = play_against_computer(user=user, variant=VARIANT, target=TARGET, computer_level=level)
    return match.pk


def stored_delays(spans: list[tuple[int, int, int]], pause: float) -> list[float]:
    """The delays of the computer moves stored in the given (match, first version, last version)
    spans, from the events' own times: ``created_at`` of the move less that of the version
    before, less the pause."""
    from django.db import close_old_connections

    from games.models import MatchEvent, MatchSeat

    close_old_connections()
    delays: list[float] = []
    for match_id, first, last in spans:
        computers = set(
            MatchSeat.objects.filter(match_id=match_id, computer_level__isnull=False).values_list(
                "index", flat=True
            )
        )
        rows = list(
            MatchEvent.objects.filter(
                match_id=match_id, version__gte=first - 1, version__lte=last
            ).values_list("version", "kind", "data", "created_at")
        )
        at = {version: created for version, _kind, _data, created in rows}
        for version, kind, data, created in rows:
            if version < first or kind not in MOVE_KINDS or data.get("seat") not in computers:
                continue
            before = at.get(version - 1)
            if before is not None:
                delays.append((created - before).total_seconds() - pause)
    return delays


def steps_overdue(seconds: float = 1.0) -> int:
    """Matches whose automatic step is overdue by more than ``seconds``."""
    from datetime import timedelta

    from django.db import close_old_connections
    from django.utils import timezone

    from games.models import Match

    close_old_connections()
    late = timezone.now() - timedelta(seconds=seconds)
    return Match.objects.filter(status=Match.Status.PLAYING, step_at__lt=late).count()


# -- the person -----------------------------------------------------------------------------------


@dataclass
class Window:
    """The computer moves whose event arrived while it was open."""

    size: int
    opened: float
    opened_wall: float
    closed: float | None = None
    closed_wall: float | None = None
    delays: list[float] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    #: The delays by what came before the move: a person's move (applied by a daphne process),
    #: a computer's (applied by the worker) or a deal (the worker's).
    after: dict[str, list[float]] = field(default_factory=dict)
    untimed: int = 0
    person_moves: int = 0


class Recorder:
    def __init__(self) -> None:
        self.window: Window | None = None
        self.errors: Counter[str] = Counter()


class Person:
    """One table: a person at seat 0 of a match against three computers, over the JSON socket.

    ``stop`` resigns his match and closes the socket: the table is taken away."""

    def __init__(
        self,
        index: int,
        user: Any,
        token: str,
        url: str,
        recorder: Recorder,
        *,
        pause: float,
        answer: float,
        level: str,
    ) -> None:
        self.index = index
        self.user = user
        self.token = token
        self.url = url
        self.recorder = recorder
        self.pause = pause
        self.answer = answer
        self.level = level
        self.socket: ClientConnection | None = None
        self.stopping = False
        self.matches: list[int] = []
        #: (match, first version seen in a window, last) for the stored delays.
        self.spans: dict[int, list[int]] = {}
        self._reset()

    def _reset(self) -> None:
        self.match_id: int | None = None
        self.seat = 0
        self.computers: set[int] = set()
        self.last_version: int | None = None
        self.last_at: float | None = None  # None: that version's own arrival is not known
        self.last_by = "?"  # what made the last version: person, computer, deal or other
        self.turn: tuple[int, list[dict[str, Any]]] | None = None
        self.acted_version: int | None = None
        self.client_seq = 0
        self.over = False
        self._answering: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Play matches until stopped: start one, play it to its end, start the next."""
        while not self.stopping:
            try:
                match_id = await asyncio.to_thread(match_start, self.user, self.level)
                self._reset()
                self.match_id = match_id
                self.matches.append(match_id)
                await self._play(match_id)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # counted, and the table starts again
                self.recorder.errors[f"{type(error).__name__}: {error}"[:80]] += 1
                await asyncio.sleep(1.0)

    async def _play(self, match_id: int) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        self.socket = await _connect(f"{self.url}/ws/api/match/{match_id}/", headers)
        try:
            async for raw in self.socket:
                self.take(json.loads(raw), time.monotonic())
                if self.over or self.stopping:
                    break
        finally:
            if self._answering is not None:
                self._answering.cancel()
            with contextlib.suppress(Exception):
                await self.socket.close()

    async def stop(self) -> None:
        """Resign the match (no step of it is left for the worker) and close the socket."""
        self.stopping = True
        socket = self.socket
        if socket is not None and not self.over:
            with contextlib.suppress(Exception):
                await socket.send(json.dumps({"type": "resign"}))
                await asyncio.sleep(1.0)
            with contextlib.suppress(Exception):
                await socket.close()

    # what a frame says

    def take(self, message: dict[str, Any], at: float) -> None:
        kind = message["type"]
        if kind == "error":
            self.recorder.errors[message["data"]["code"]] += 1
            self.acted_version = None  # decide again on what the view says now
            self._turn_check(at)
            return
        if kind not in ("state", "event"):
            return
        version = message["version"]
        data = message["data"]
        self.seat = data["seat"]
        self.computers = {p["seat"] for p in data["players"] if p["computer"]}
        if self.last_version is not None and version <= self.last_version:
            return  # nothing new (a state sent again)
        if kind == "event":
            self._timed(version, data, at)
            self.last_at = at
            self.last_by = _made_by(data.get("event") or {}, self.computers)
        else:
            self.last_at = None  # a state on connect: when its version was made is not known
        self.last_version = version
        view = data["view"]
        hand = view.get("hand") or {}
        if view["over"] or data["status"] != "playing":
            self.over = True
            self.turn = None
        elif hand.get("to_act") == self.seat and hand.get("legal"):
            self.turn = (version, hand["legal"])
            self._turn_check(at)
        else:
            self.turn = None

    def _timed(self, version: int, data: dict[str, Any], at: float) -> None:
        """Record the delay of a computer's move that this event frame brings."""
        window = self.recorder.window
        if window is None:
            return
        span = self.spans.setdefault(self.match_id or 0, [version, version])
        span[1] = version
        # Events of a burst come in one frame: the earlier ones have no arrival time of their own.
        for event in data.get("events") or []:
            if (
                event["version"] < version
                and event["kind"] in MOVE_KINDS
                and event.get("seat") in self.computers
            ):
                window.untimed += 1
        event = data.get("event") or {}
        if event.get("kind") not in MOVE_KINDS:
            return
        if event.get("seat") not in self.computers:
            window.person_moves += 1
            return
        if self.last_version == version - 1 and self.last_at is not None:
            delay = at - self.last_at - self.pause
            window.delays.append(delay)
            window.kinds[event["kind"]] += 1
            window.after.setdefault(self.last_by, []).append(delay)
        else:
            window.untimed += 1

    def _turn_check(self, at: float) -> None:
        if self.turn is None or self.stopping:
            return
        version, legal = self.turn
        if version == self.acted_version:
            return
        self.acted_version = version
        if self._answering is not None:
            self._answering.cancel()
        self._answering = asyncio.ensure_future(self._answer(version, random.choice(legal), at))

    async def _answer(self, version: int, action: dict[str, Any], seen: float) -> None:
        await asyncio.sleep(max(0.0, seen + self.answer - time.monotonic()))
        if self.socket is None or self.turn is None or self.turn[0] != version:
            return  # the match moved on meanwhile
        self.client_seq += 1
        message = {
            "type": "action",
            "client_seq": self.client_seq,
            "version": version,
            "action": action,
        }
        with contextlib.suppress(ConnectionClosed):
            await self.socket.send(json.dumps(message))


AFTER = {"person": "the person", "computer": "a computer", "deal": "a deal", "other": "other"}


def _made_by(event: dict[str, Any], computers: set[int]) -> str:
    kind = event.get("kind")
    if kind in MOVE_KINDS:
        return "computer" if event.get("seat") in computers else "person"
    return "deal" if kind == "hand_dealt" else "other"


# -- what the machine does ------------------------------------------------------------------------


def _proc_table() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, command name)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw.rsplit(")", 1)[1].split()
        table[int(entry.name)] = (int(fields[1]), name)
    return table


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def processes_named(servers: Servers) -> dict[int, str]:
    """The processes to report, by pid: the daphne processes, the worker and what it started
    (its fork server, the bot pool's processes that the fork server forked, the resource
    tracker), every PostgreSQL and Redis server process, and this client."""
    named = {os.getpid(): "client"}
    for number, process in enumerate(servers.daphne, 1):
        named[process.pid] = f"daphne {number}"
    table = _proc_table()
    for worker in servers.others:
        named[worker.pid] = "worker"
        for pid, (parent, _name) in table.items():
            if parent != worker.pid:
                continue
            cmdline = _cmdline(pid)
            if "forkserver" in cmdline:
                named[pid] = "fork server"
                for child, (grandparent, _n) in table.items():
                    if grandparent == pid:
                        named[child] = "bot pool"
            elif "resource_tracker" in cmdline:
                named[pid] = "resource tracker"
            else:
                named[pid] = "bot pool"  # a pool started without the fork server (spawn)
    for pid, (_parent, name) in table.items():
        if name == "postgres":
            named[pid] = "postgres (all)"
        elif name.startswith("redis-server"):
            named[pid] = "redis"
    return named


class Usage:
    """CPU of each reported process between two moments, in percent of one core."""

    def __init__(self, servers: Servers) -> None:
        self.servers = servers
        self.began = time.monotonic()
        self.named = processes_named(servers)
        self.before = {pid: _cpu(pid) for pid in self.named}
        self.machine = machine_busy()

    def take(self) -> dict[str, Any]:
        wall = time.monotonic() - self.began
        named = {**self.named, **processes_named(self.servers)}
        per: dict[str, list[float]] = {}
        for pid, label in named.items():
            after = _cpu(pid)
            if after is None:
                continue  # ended meanwhile
            before = self.before.get(pid) or 0.0  # started meanwhile: all of it is new
            per.setdefault(label, []).append(100 * (after - before) / wall)
        busy, total = machine_busy()
        return {
            "cpu": {
                # The servers' many processes in one figure; the bot pool's one by one.
                label: [round(sum(values))]
                if label in SUMMED
                else sorted((round(v) for v in values), reverse=True)
                for label, values in per.items()
            },
            "machine_busy_pct": round(
                100 * (busy - self.machine[0]) / max(1, total - self.machine[1])
            ),
        }


def _cpu(pid: int) -> float | None:
    try:
        return cpu_seconds(pid)
    except (OSError, ValueError, IndexError):
        return None


# -- the run --------------------------------------------------------------------------------------


@dataclass
class Options:
    sizes: list[int] | None
    max_tables: int
    duration: float
    settle: float
    spread: float
    limit: float
    stop_beyond: float
    bisect: int
    pause: float
    answer: float
    level: str


class Tables:
    """The tables being played: added (each on the next daphne process in turn) or taken away."""

    def __init__(self, people: list[tuple[Any, str]], servers: Servers, options: Options) -> None:
        self.people = people
        self.servers = servers
        self.options = options
        self.recorder = Recorder()
        self.playing: list[tuple[Person, asyncio.Task[None]]] = []
        self.next_person = 0
        self.retired: list[Person] = []

    async def resize(self, size: int) -> None:
        while len(self.playing) > size:
            person, task = self.playing.pop()
            await person.stop()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self.retired.append(person)
        adding = size - len(self.playing)
        for number in range(adding):
            user, token = self.people[self.next_person]
            url = self.servers.urls[self.next_person % len(self.servers.urls)]
            person = Person(
                self.next_person,
                user,
                token,
                url,
                self.recorder,
                pause=self.options.pause,
                answer=self.options.answer,
                level=self.options.level,
            )
            self.next_person += 1
            self.playing.append((person, asyncio.ensure_future(person.run())))
            if number < adding - 1:
                # Spread the new tables' starts, so that they do not play in step.
                await asyncio.sleep(random.uniform(0, 2 * self.options.spread / adding))

    async def close(self) -> None:
        await self.resize(0)

    def spans(self) -> list[tuple[int, int, int]]:
        persons = [person for person, _task in self.playing] + self.retired
        return [(m, first, last) for p in persons for m, (first, last) in p.spans.items()]

    def spans_clear(self) -> None:
        for person in [person for person, _task in self.playing] + self.retired:
            person.spans.clear()


async def measure(tables: Tables, size: int, lag: LoopLag) -> dict[str, Any]:
    """One window at ``size`` tables, on the tables already playing."""
    options = tables.options
    lag.take()
    usage = Usage(tables.servers)
    tables.spans_clear()
    window = Window(size=size, opened=time.monotonic(), opened_wall=time.time())
    tables.recorder.window = window
    await asyncio.sleep(options.duration)
    tables.recorder.window = None
    window.closed, window.closed_wall = time.monotonic(), time.time()
    used = usage.take()
    lag_figures = lag.take()
    overdue = await asyncio.to_thread(steps_overdue)
    stored = await asyncio.to_thread(stored_delays, tables.spans(), options.pause)
    delays = window.delays
    seconds = window.closed - window.opened
    return {
        "tables": size,
        "seconds": round(seconds, 1),
        "computer_moves": len(delays) + window.untimed,
        "timed": len(delays),
        "untimed": window.untimed,
        "trump_calls": window.kinds["call_trump"],
        "after": {
            made_by: {
                "moves": len(values),
                "p50_s": _round(percentile(values, 0.50)),
                "p95_s": _round(percentile(values, 0.95)),
            }
            for made_by, values in sorted(window.after.items())
        },
        "computer_moves_per_second": round((len(delays) + window.untimed) / seconds, 2),
        "person_moves": window.person_moves,
        "p50_s": _round(percentile(delays, 0.50)),
        "p95_s": _round(percentile(delays, 0.95)),
        "max_s": _round(max(delays) if delays else math.nan),
        "min_s": _round(min(delays) if delays else math.nan),
        "stored_p50_s": _round(percentile(stored, 0.50)),
        "stored_p95_s": _round(percentile(stored, 0.95)),
        "stored_max_s": _round(max(stored) if stored else math.nan),
        "steps_overdue_at_end": overdue,
        **used,
        **lag_figures,
        "load": load_average(),
        "at": datetime.fromtimestamp(window.opened_wall, UTC).strftime("%H:%M:%S"),
    }


def _round(value: float) -> float:
    return round(value, 3)


def _line(point: dict[str, Any]) -> str:
    cpu = ", ".join(f"{label} {'+'.join(map(str, v))}%" for label, v in point["cpu"].items())
    after = ", ".join(
        f"after {AFTER[made_by]}: {f['moves']} p50 {f['p50_s']} p95 {f['p95_s']}"
        for made_by, f in point["after"].items()
    )
    return (
        f"{point['tables']} tables: {point['computer_moves']} computer moves "
        f"({point['computer_moves_per_second']}/s, {point['untimed']} untimed); delay beyond the "
        f"pause p50 {point['p50_s']} p95 {point['p95_s']} max {point['max_s']} s (stored "
        f"p50 {point['stored_p50_s']} p95 {point['stored_p95_s']}); overdue steps at the end "
        f"{point['steps_overdue_at_end']}; {after}; CPU {cpu}; "
        f"machine {point['machine_busy_pct']}%; "
        f"client loop lag p99 {point['lag_p99_ms']} ms; load {point['load']}"
    )


def _within(point: dict[str, Any], limit: float) -> bool:
    return point["timed"] > 0 and point["p95_s"] <= limit


async def drive(people: list[tuple[Any, str]], servers: Servers, options: Options) -> dict:
    tables = Tables(people, servers, options)
    lag = LoopLag()
    lag.start()
    points: list[dict[str, Any]] = []
    done: dict[int, dict[str, Any]] = {}
    previous = 0

    async def at_size(size: int) -> dict[str, Any]:
        nonlocal previous
        began = time.monotonic()
        await tables.resize(size)
        if size < previous:
            # The matches taken away resigned; whatever their worker had in hand drains first.
            deadline = time.monotonic() + DRAIN_SECONDS
            while time.monotonic() < deadline and await asyncio.to_thread(steps_overdue):
                await asyncio.sleep(1.0)
        previous = size
        await asyncio.sleep(max(0.0, options.settle - (time.monotonic() - began)))
        point = await measure(tables, size, lag)
        points.append(point)
        done[size] = point
        print("  " + _line(point), flush=True)
        return point

    try:
        if options.sizes:
            for size in options.sizes:
                await at_size(size)
        else:
            size = 1
            while size <= options.max_tables:
                point = await at_size(size)
                if not _within(point, options.limit) and point["p95_s"] > options.stop_beyond:
                    break
                size *= 2
            for _ in range(options.bisect):
                within = [s for s, p in done.items() if _within(p, options.limit)]
                beyond = [s for s, p in done.items() if not _within(p, options.limit)]
                if not within or not beyond:
                    break
                low = max(within)
                high = min([s for s in beyond if s > low], default=None)
                if high is None or high - low <= 1:
                    break
                await at_size((low + high) // 2)
    finally:
        await tables.close()
        await lag.stop()
    within = [p["tables"] for p in points if _within(p, options.limit)]
    beyond = [p["tables"] for p in points if not _within(p, options.limit)]
    capacity = max(within) if within else 0
    return {
        "points": points,
        "capacity": capacity,
        "beyond_from": min([s for s in beyond if s > capacity], default=None),
        "errors": dict(tables.recorder.errors),
        "matches": sum(len(p.matches) for p, _t in tables.playing)
        + sum(len(p.matches) for p in tables.retired),
    }


def report(result: dict[str, Any], options: Options) -> str:
    labels: list[str] = []
    for point in result["points"]:
        for label in point["cpu"]:
            if label not in labels:
                labels.append(label)
    lines = [
        "| tables | computer moves (per s) | p50 (s) | p95 (s) | max (s) | stored p50 / p95 (s) "
        "| within | " + " | ".join(f"CPU {label}" for label in labels) + " | machine busy | load |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- | "
        + " | ".join("---:" for _ in labels)
        + " | ---: | --- |",
    ]
    for point in result["points"]:
        cpu = [
            "+".join(f"{v}" for v in point["cpu"].get(label, [])) + "%"
            if label in point["cpu"]
            else "-"
            for label in labels
        ]
        lines.append(
            f"| {point['tables']} | {point['computer_moves']} "
            f"({point['computer_moves_per_second']}) | {point['p50_s']} | {point['p95_s']} "
            f"| {point['max_s']} "
            f"| {point['stored_p50_s']} / {point['stored_p95_s']} "
            f"| {'yes' if _within(point, options.limit) else 'no'} | " + " | ".join(cpu) + " "
            f"| {point['machine_busy_pct']}% | {point['load']} |"
        )
    lines += [
        "",
        f"Delays are beyond the pause of {options.pause:g} s. Capacity (the most tables whose "
        f"p95 stayed within {options.limit:g} s of the pause): {result['capacity']}"
        + (f"; beyond from {result['beyond_from']}" if result["beyond_from"] else "")
        + ".",
    ]
    return "\n".join(lines)


def _sizes(value: str) -> list[int]:
    sizes = [int(part) for part in value.split(",") if part.strip()]
    if not sizes or any(size < 1 for size in sizes):
        raise argparse.ArgumentTypeError(f"not a list of table counts: {value!r}")
    return sizes


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cores = os.cpu_count() or 1
    parser.add_argument(
        "--sizes", type=_sizes, help="these table counts, in order (no search): 1,2,4"
    )
    parser.add_argument(
        "--max-tables", type=int, default=64, help="the search doubles up to this many (64)"
    )
    parser.add_argument(
        "--duration", type=float, default=120, help="seconds measured per size (120)"
    )
    parser.add_argument(
        "--settle", type=float, default=20, help="seconds of play at a new size first (20)"
    )
    parser.add_argument(
        "--spread", type=float, default=5, help="new tables start over about this long (5 s)"
    )
    parser.add_argument(
        "--limit", type=float, default=0.3, help="p95 of the delay beyond the pause (0.3 s)"
    )
    parser.add_argument(
        "--stop-beyond",
        type=float,
        default=2.0,
        help="stop doubling once the p95 is beyond this (2 s): a queue that only grows",
    )
    parser.add_argument(
        "--bisect", type=int, default=2, help="sizes tried between within and beyond (2)"
    )
    parser.add_argument(
        "--answer", type=float, default=1.5, help="the person answers this long after (1.5 s)"
    )
    parser.add_argument("--level", default="expert", help="the computer players' level (expert)")
    parser.add_argument(
        "--processes",
        type=int,
        default=max(2, cores),
        help=f"daphne processes: one per core, at least two ({max(2, cores)})",
    )
    parser.add_argument(
        "--bot-processes",
        type=int,
        default=cores,
        help=f"HOKM_BOT_PROCESSES of the worker: one per core ({cores})",
    )
    parser.add_argument("--layer", default="pubsub", help="the channel layer (pubsub)")
    parser.add_argument(
        "--redis", default=DEFAULT_REDIS, help="the site's Redis database (flushed)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {load_average()}",
        flush=True,
    )
    print(f"database: {django_setup()}", flush=True)
    from django.conf import settings

    from games.models import ComputerLevel

    if args.level not in ComputerLevel.values:
        raise SystemExit(f"--level is one of {', '.join(ComputerLevel.values)}")
    pause = float(settings.HOKM_BOT_DELAY_SECONDS)
    options = Options(
        sizes=args.sizes,
        max_tables=args.max_tables,
        duration=args.duration,
        settle=args.settle,
        spread=args.spread,
        limit=args.limit,
        stop_beyond=args.stop_beyond,
        bisect=args.bisect,
        pause=pause,
        answer=args.answer,
        level=args.level,
    )
    most = max(args.sizes) if args.sizes else args.max_tables
    # Enough players for every table of the run, those taken away and put back included.
    people = people_create(2 * most + 8)
    logs = Path(tempfile.mkdtemp(prefix="hokm-bench-computers-"))
    print(
        f"site: {args.processes} daphne processes, a worker with {args.bot_processes} bot "
        f"processes; computers at level {args.level}, pause {pause:g} s; the person answers "
        f"after {args.answer:g} s; {args.duration:g} s per size after {args.settle:g} s; "
        f"server logs in {logs}",
        flush=True,
    )
    extra_env = {
        "HOKM_BOT_PROCESSES": str(args.bot_processes),
        "HOKM_BOT_DELAY_SECONDS": repr(pause),
    }
    with servers_run(
        "app",
        layer=args.layer,
        processes=args.processes,
        redis_url=args.redis,
        logs=logs,
        extra_env=extra_env,
    ) as servers:
        result = asyncio.run(drive(people, servers, options))
    worker_log = next(logs.glob("*-worker.log"), None)
    fallbacks = 0
    if worker_log is not None:
        fallbacks = len(re.findall(r"greedy plays instead", worker_log.read_text()))
    result["greedy_fallbacks"] = fallbacks
    result["load_after"] = load_average()
    print()
    print(report(result, options))
    print(
        f"\nmatches played: {result['matches']}; refused or failed: {result['errors'] or 'none'}; "
        f"the bot pool's decisions replaced by greedy (worker log): {fallbacks}; "
        f"load average {result['load_after']}"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
