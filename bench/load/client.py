"""The load generator: asyncio WebSocket clients, four per table, playing at a fixed pace.

Two kinds of seats share one pattern, so that the application and the bare relay are driven
alike:

- :class:`AppSeat` signs in with a personal API token (``Authorization: Bearer``) on the match's
  JSON socket (docs/protocol.md) and plays the real match: when its own view says it is on turn
  (``view.hand.to_act`` is its seat and ``legal`` is not empty) it waits for its table's next
  slot, then sends one of its legal actions, chosen at random (trump calls count as moves).
- :class:`RelaySeat` speaks to :mod:`bench.load.relay_app`: a move is a small JSON frame with the
  version it makes, and the seats take turns by version, as the four seats of a match do.

The pace is per table: one move in each slot of ``period`` seconds (:meth:`Table.slot`). A
table whose last move has not reached its four seats yet cannot move again (the next seat does not
know it is on turn) and misses its slot, so a slow server slows its tables down: the achieved rate
is measured, not assumed.

The latency of a move is from the moment its mover sends it to the moment the last of the four
seats receives a frame with the version it made (or a later one), on this process's monotonic
clock. The four seats of a table live in the same event loop; whatever delays that loop delays
both kinds of server alike, and :class:`LoopLag` measures it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

#: A move not seen by all four seats this long after its window closed counts as lost.
GRACE_SECONDS = 3.0
#: Connection attempts per socket; many sockets opening at once may get a 500 and retry.
CONNECT_ATTEMPTS = 10


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` 0.95 for p95) of ``values``; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Window:
    """The moves sent between :meth:`Recorder.open` and :meth:`Recorder.close`."""

    label: str
    opened: float
    closed: float | None = None
    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    refused: int = 0

    @property
    def seconds(self) -> float:
        return (self.closed or time.monotonic()) - self.opened

    @property
    def lost(self) -> int:
        return self.sent - self.refused - len(self.latencies)

    def summary(self) -> dict[str, Any]:
        """Moves per second and the latency percentiles, in milliseconds; a lost move counts as
        slower than any measured one."""
        done = [latency * 1000 for latency in self.latencies] + [math.inf] * max(0, self.lost)
        return {
            "label": self.label,
            "seconds": round(self.seconds, 2),
            "moves": self.sent,
            "moves_per_second": round(self.sent / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(percentile(done, 0.50), 1),
            "p95_ms": round(percentile(done, 0.95), 1),
            "p99_ms": round(percentile(done, 0.99), 1),
            "max_ms": round(max(done), 1) if done else math.nan,
            "lost": max(0, self.lost),
            "refused": self.refused,
        }


class Recorder:
    """Where the tables report their moves; one window is open at a time, or none."""

    def __init__(self) -> None:
        self.window: Window | None = None
        self.errors: Counter[str] = Counter()

    def open(self, label: str) -> Window:
        self.window = Window(label=label, opened=time.monotonic())
        return self.window

    def close(self) -> Window:
        window = self.window
        assert window is not None
        window.closed = time.monotonic()
        self.window = None
        return window


@dataclass
class _Pending:
    sent: float
    window: Window | None
    client_seq: int | None
    seen_by: set[int] = field(default_factory=set)


class Table:
    """Four seats of one match: their pace, and the moves on their way to all four."""

    def __init__(self, index: int, recorder: Recorder, *, seats: int = 4) -> None:
        self.index = index
        self.recorder = recorder
        self.seats = seats
        self.period = 1.0
        self.running = False
        self.next_slot = 0.0
        self.paced = asyncio.Event()
        self.pending: dict[int, _Pending] = {}
        self.members: list[Any] = []

    def start(self, period: float, *, spread: float = 0.0) -> None:
        """Begin to play, the first move at a random moment within one period (or ``spread``
        seconds, if longer), so that the tables do not all move in the same instant."""
        self.period = period
        self.next_slot = time.monotonic() + random.uniform(0, max(period, spread))
        self.running = True
        for member in self.members:
            member.turn_check()

    async def slot(self) -> None:
        """Wait for this table's next move slot. Slots are on a grid of one per period from the
        table's own random start; a move that could not be made in its slot (the server had not
        yet told the next seat it was on turn) waits for the next one. So a table never moves
        faster than its pace, and tables held up together do not all move at once afterwards.
        A seat waiting when the pace changes waits for a slot of the new pace instead."""
        while True:
            paced = self.paced
            now = time.monotonic()
            at = self.next_slot
            if at < now:
                at += math.ceil((now - at) / self.period) * self.period
            self.next_slot = at + self.period
            try:
                await asyncio.wait_for(paced.wait(), at - now)
            except TimeoutError:
                return

    def pace(self, period: float) -> None:
        """Change the period; the next slot is anywhere within one new period, so that the
        tables keep moving at different moments."""
        self.period = period
        self.next_slot = time.monotonic() + random.uniform(0, period)
        self.paced.set()  # wakes the seat waiting for a slot of the old pace
        self.paced = asyncio.Event()

    def sent(self, *, version: int, client_seq: int | None = None) -> None:
        """A seat sent the move that makes ``version``."""
        window = self.recorder.window
        if window is not None:
            window.sent += 1
        self.pending[version] = _Pending(time.monotonic(), window, client_seq)

    def seen(self, seat: int, version: int, at: float) -> None:
        """A seat received a frame of ``version``: every move up to it reached that seat."""
        if not self.pending:
            return
        for target in [target for target in self.pending if target <= version]:
            pending = self.pending[target]
            pending.seen_by.add(seat)
            if len(pending.seen_by) == self.seats:
                del self.pending[target]
                if pending.window is not None:
                    pending.window.latencies.append(at - pending.sent)

    def refused(self, client_seq: int | None, code: str) -> None:
        """The server refused a move: it makes no version, and is not waited for."""
        self.recorder.errors[code] += 1
        for target, pending in list(self.pending.items()):
            if pending.client_seq is not None and pending.client_seq == client_seq:
                del self.pending[target]
                if pending.window is not None:
                    pending.window.refused += 1


#: Connection attempts that failed and were tried again, by cause, in this process.
connect_retries: Counter[str] = Counter()


async def _connect(url: str, headers: dict[str, str]) -> ClientConnection:
    """Open a socket, retrying with jittered backoff when the server refuses or fails."""
    for attempt in range(CONNECT_ATTEMPTS):
        try:
            return await connect(
                url,
                additional_headers=headers,
                compression=None,
                proxy=None,
                open_timeout=120,
                ping_interval=None,
                close_timeout=2,
            )
        except (OSError, TimeoutError, InvalidStatus) as error:
            if isinstance(error, InvalidStatus) and error.response.status_code < 500:
                raise
            if attempt == CONNECT_ATTEMPTS - 1:
                raise
            connect_retries[type(error).__name__] += 1
            await asyncio.sleep(random.uniform(0, min(5.0, 0.2 * 2**attempt)))
    raise AssertionError("unreachable")


class _Seat:
    """What both kinds of seats share: the socket, the reading loop, the acting task."""

    def __init__(self, table: Table, index: int, url: str) -> None:
        self.table = table
        self.index = index
        self.url = url
        self.socket: ClientConnection | None = None
        self.ready = asyncio.Event()
        self.frames = 0
        self._acting: asyncio.Task[None] | None = None
        table.members.append(self)

    async def open(self) -> None:
        self.socket = await _connect(self.url, self.headers())

    def headers(self) -> dict[str, str]:
        return {}

    async def read(self) -> None:
        assert self.socket is not None
        try:
            async for raw in self.socket:
                self.frames += 1
                self.take(json.loads(raw), time.monotonic())
        except ConnectionClosed:
            pass
        if self.table.running:
            self.table.recorder.errors["closed_by_server"] += 1

    async def close(self) -> None:
        if self._acting is not None:
            self._acting.cancel()
        if self.socket is not None:
            await self.socket.close()

    def act_soon(self, version: int, action: Any) -> None:
        self._acting = asyncio.ensure_future(self._act(version, action))

    async def _act(self, version: int, action: Any) -> None:
        await self.table.slot()
        if self.socket is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await self.send_move(version, action)

    def take(self, message: Any, at: float) -> None:
        raise NotImplementedError

    def turn_check(self) -> None:
        raise NotImplementedError

    async def send_move(self, version: int, action: Any) -> None:
        raise NotImplementedError


class AppSeat(_Seat):
    """A player of a real match over the JSON protocol, signed in with his API token."""

    def __init__(self, table: Table, index: int, base_url: str, match_id: int, token: str) -> None:
        super().__init__(table, index, f"{base_url}/ws/api/match/{match_id}/")
        self.token = token
        self.turn: tuple[int, list[dict[str, Any]]] | None = None
        self.acted_version: int | None = None
        self.client_seq = 0
        self.over = False

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def take(self, message: dict[str, Any], at: float) -> None:
        kind = message["type"]
        if kind in ("state", "event"):
            version = message["version"]
            self.table.seen(self.index, version, at)
            self.ready.set()
            data = message["data"]
            view = data["view"]
            hand = view["hand"]
            if view["over"]:
                self.over = True
                self.turn = None
            elif hand["to_act"] == data["seat"] and hand["legal"]:
                self.turn = (version, hand["legal"])
                self.turn_check()
            else:
                self.turn = None
        elif kind == "error":
            data = message["data"]
            self.table.refused(data.get("client_seq"), data["code"])
            self.acted_version = None  # decide again on the state that follows

    def turn_check(self) -> None:
        if not self.table.running or self.turn is None:
            return
        version, legal = self.turn
        if version == self.acted_version:
            return
        self.acted_version = version
        self.act_soon(version, random.choice(legal))

    async def send_move(self, version: int, action: dict[str, Any]) -> None:
        assert self.socket is not None
        if self.turn is None or self.turn[0] != version:
            return  # the match moved on while this seat waited for its slot
        self.client_seq += 1
        self.table.sent(version=version + 1, client_seq=self.client_seq)
        message = {
            "type": "action",
            "client_seq": self.client_seq,
            "version": version,
            "action": action,
        }
        await self.socket.send(json.dumps(message))


#: Cards the relay's moves carry, so that a frame looks like a move.
_CARDS = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]


class RelaySeat(_Seat):
    """A seat at the bare relay: moves are frames with the version they make; the seat whose
    number is the version modulo four moves next, as seats take turns at a match."""

    def __init__(self, table: Table, index: int, base_url: str) -> None:
        super().__init__(table, index, f"{base_url}/relay/{table.index}/")
        self.version = 0
        self.acted_version: int | None = None
        self.ready.set()

    def take(self, message: dict[str, Any], at: float) -> None:
        self.version = message["version"]
        self.table.seen(self.index, self.version, at)
        self.turn_check()

    def turn_check(self) -> None:
        if not self.table.running or self.version % self.table.seats != self.index:
            return
        if self.acted_version == self.version:
            return
        self.acted_version = self.version
        self.act_soon(self.version, random.choice(_CARDS))

    async def send_move(self, version: int, card: str) -> None:
        assert self.socket is not None
        self.table.sent(version=version + 1)
        message = {
            "type": "action",
            "version": version + 1,
            "action": {"type": "play_card", "seat": self.index, "card": card},
        }
        await self.socket.send(json.dumps(message))


class LoopLag:
    """How late this process's event loop wakes up: a timer every 50 ms, its lateness kept."""

    INTERVAL = 0.05

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.INTERVAL)
            self.samples.append(time.monotonic() - before - self.INTERVAL)

    def take(self) -> dict[str, float]:
        """The lateness since the last call, in milliseconds (p50, p99, max)."""
        samples, self.samples = self.samples, []
        ms = [sample * 1000 for sample in samples]
        return {
            "lag_p50_ms": round(percentile(ms, 0.5), 1),
            "lag_p99_ms": round(percentile(ms, 0.99), 1),
            "lag_max_ms": round(max(ms), 1) if ms else math.nan,
        }

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


class Fleet:
    """Every seat of a run: opened a few at a time, read until closed."""

    def __init__(self, seats: list[_Seat], tables: list[Table]) -> None:
        self.seats = seats
        self.tables = tables
        self._readers: list[asyncio.Task[None]] = []

    async def open(self, *, concurrency: int, first_frame: bool) -> float:
        """Open every socket, ``concurrency`` at a time; with ``first_frame`` a socket counts as
        open once its first frame (the app's state) came. Returns the seconds it took."""
        began = time.monotonic()
        gate = asyncio.Semaphore(concurrency)

        async def one(seat: _Seat) -> None:
            async with gate:
                await seat.open()
                self._readers.append(asyncio.ensure_future(seat.read()))
                if first_frame:
                    await asyncio.wait_for(seat.ready.wait(), timeout=120)

        await asyncio.gather(*(one(seat) for seat in self.seats))
        return time.monotonic() - began

    @classmethod
    def merge(cls, fleets: list[Fleet]) -> Fleet:
        """One fleet of the seats of several (one per server process)."""
        return cls(
            [seat for fleet in fleets for seat in fleet.seats],
            [table for fleet in fleets for table in fleet.tables],
        )

    def start(self, period: float, *, spread: float = 0.0) -> None:
        for table in self.tables:
            table.start(period, spread=spread)

    def pace(self, period: float) -> None:
        """Change every table's period."""
        for table in self.tables:
            table.pace(period)

    def stop(self) -> None:
        for table in self.tables:
            table.running = False

    async def close(self) -> None:
        self.stop()
        await asyncio.gather(*(seat.close() for seat in self.seats), return_exceptions=True)
        for reader in self._readers:
            reader.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)

    def frames(self) -> int:
        return sum(seat.frames for seat in self.seats)


def app_fleet(base_url: str, tables: list[Any], recorder: Recorder) -> Fleet:
    """Four token-signed players per match of ``tables`` (``bench.load.players.BenchTable``)."""
    rows, seats = [], []
    for index, bench_table in enumerate(tables):
        table = Table(index, recorder)
        rows.append(table)
        seats += [
            AppSeat(table, seat, base_url, bench_table.match_id, token)
            for seat, token in enumerate(bench_table.tokens)
        ]
    return Fleet(seats, rows)


def relay_fleet(base_url: str, count: int, recorder: Recorder, *, first: int = 0) -> Fleet:
    """Four seats per table at the bare relay, tables numbered from ``first``."""
    rows, seats = [], []
    for index in range(first, first + count):
        table = Table(index, recorder)
        rows.append(table)
        seats += [RelaySeat(table, seat, base_url) for seat in range(4)]
    return Fleet(seats, rows)


async def window_wait(window: Window, tables: list[Table]) -> None:
    """After a window closed: wait until its moves reached their seats, at most the grace."""
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline:
        if not any(p.window is window for table in tables for p in table.pending.values()):
            return
        await asyncio.sleep(0.05)
