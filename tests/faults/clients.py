"""Programs that play their seat over the JSON protocol through faults, and log what they were told.

A :class:`SeatClient` plays like the reference client (``scripts/hokm_client.py``): it signs in
with a token, decides with the greedy computer player, and when its connection drops reconnects
with the same exponential backoff and full jitter, naming the last version it saw (R8.2). It is
stricter about its own actions, as a client that must not lose a move is:

- an action keeps its ``client_seq`` until it is answered: after a dropped connection, or an
  ``error`` that says the server failed (``server_error``), it is sent again with the same id, so
  the server applies it at most once and acknowledges the re-send with ``applied: false``;
- an action the rules refuse (``stale_version`` and the like) is dropped, and the client decides
  again on the state that follows.

Everything the server answered is kept in a :class:`SeatLog` for the tests to hold against the
database: every action sent, every ``ack``, every ``error``, every (re)connection.

A :class:`Gate` lets a test hold the clients back when their turn comes, so that a fault strikes
while moves are waiting to be sent; and with ``duplicates`` a client sends each action one to
five times at once over two sockets (on two servers), and after some actions drops its
connection before the answer and sends the action again once reconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.exceptions import InvalidStatus, WebSocketException

from games.bots.greedy import greedy_action
from games.engine import to_json
from tests.live_server import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
try:
    import hokm_client  # the reference client: its backoff is the one under test
finally:
    sys.path.pop(0)

#: Error codes that say the server failed, not that the action was wrong: send it again.
RETRY_CODES = {"server_error", "rate_limited"}
#: A failing server is asked again after the reference client's backoff, for this attempt at
#: most (up to 2 s): the socket is open, the server answers, only its database is away.
RETRY_MAX = 2
#: Close codes that mean "do not come back" (docs/protocol.md).
FINAL_CLOSE_CODES = {4401, 4403, 4404}
#: How long a handshake may take before the attempt counts as failed.
OPEN_TIMEOUT = 5.0


@dataclass
class Sent:
    """One action the client chose, under one ``client_seq``."""

    client_seq: int
    action: dict[str, Any]
    version: int
    first_sent_at: float
    sends: int = 0
    #: Copies sent and not answered yet, per socket (``main``, ``twin``).
    unanswered: dict[str, int] = field(default_factory=lambda: {"main": 0, "twin": 0})


@dataclass
class SeatLog:
    """What one seat's client sent and what the server answered, in the order it came."""

    sent: dict[int, Sent] = field(default_factory=dict)
    #: (client_seq, applied, monotonic time received)
    acks: list[tuple[int, bool, float]] = field(default_factory=list)
    #: (code, client_seq or None, monotonic time received)
    errors: list[tuple[str, int | None, float]] = field(default_factory=list)
    connects: int = 0
    failed_connects: int = 0
    #: Why each failed connection attempt failed (the exception's type and text).
    connect_failures: list[str] = field(default_factory=list)
    #: The ``since`` of every reconnection, and how many missed events its first state carried
    #: (None: the state alone, too far back).
    resyncs: list[tuple[int, int | None]] = field(default_factory=list)
    closes: list[int | None] = field(default_factory=list)
    #: The ids of actions sent again on a new connection, unanswered on the one before.
    resent: list[int] = field(default_factory=list)
    #: Errors taken as the answer to an unanswered action: (code, its client_seq, time).
    refusals: list[tuple[str, int, float]] = field(default_factory=list)
    #: The ids of actions after whose sending the client dropped its connection on purpose.
    dropped: list[int] = field(default_factory=list)
    final_view: dict[str, Any] | None = None

    def applied(self, client_seq: int) -> list[bool]:
        return [applied for seq, applied, _ in self.acks if seq == client_seq]


class Gate:
    """Holds clients back at their turn while ``held`` (or, after :meth:`hold_from`, those that
    have seen a given version); a test waits for enough of them."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.waiting = 0
        self._changed = asyncio.Condition()
        self._from: int | None = None
        self._released = asyncio.Event()

    def hold(self) -> None:
        self.open.clear()

    def hold_from(self, version: int) -> None:
        """Hold each client at its turn once it has seen ``version``, the others not yet: a
        match that got there first waits for the slower ones instead of playing on to its end."""
        self._from = version
        self._released.clear()

    def release(self) -> None:
        self._from = None
        self._released.set()
        self.open.set()

    def _held(self, version: int | None) -> bool:
        past = self._from is not None and version is not None and version >= self._from
        return not self.open.is_set() or past

    async def wait_here(self, version: int | None = None) -> None:
        if not self._held(version):
            return
        async with self._changed:
            self.waiting += 1
            self._changed.notify_all()
        try:
            while self._held(version):
                if not self.open.is_set():
                    await self.open.wait()
                else:
                    await self._released.wait()
        finally:
            async with self._changed:
                self.waiting -= 1

    async def until_waiting(self, count: int, *, timeout: float) -> int:
        """Wait until ``count`` clients are held (or ``timeout``); returns how many are."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                async with self._changed:
                    await self._changed.wait_for(lambda: self.waiting >= count)
        return self.waiting


@dataclass
class Duplicates:
    """Re-sending: each action goes out 1 to 5 times at once (over the main socket and a twin
    socket on another server), and every ``drop_every``-th action the main connection is closed
    before its answer and the action sent 1 to 5 times more once reconnected."""

    rng: random.Random
    twin_server: str
    drop_every: int = 3

    def copies(self) -> int:
        return self.rng.randint(1, 5)


class SeatClient:
    """Plays one seat of one match to the end; see the module's docstring."""

    def __init__(
        self,
        *,
        server: str,
        token: str,
        match_id: int,
        gate: Gate | None = None,
        duplicates: Duplicates | None = None,
    ) -> None:
        self.server = server
        self.token = token
        self.match_id = match_id
        self.gate = gate
        self.duplicates = duplicates
        self.log = SeatLog()
        self.version: int | None = None
        self.latest: dict[str, Any] | None = None  # the data of the newest state or event
        self.pending: Sent | None = None
        self.next_seq = 1
        self.actions_chosen = 0
        self.connected = False
        self._socket: Any = None
        self._twin: Any = None
        self._twin_reader: asyncio.Task | None = None
        self._drop_now = False

    # -- connections ---------------------------------------------------------------------------

    def _address(self, server: str) -> str:
        url = server.replace("http://", "ws://").rstrip("/") + f"/ws/api/match/{self.match_id}/"
        return url if self.version is None else f"{url}?since={self.version}"

    def _connect(self, server: str):
        return websockets.connect(
            self._address(server),
            additional_headers={"Authorization": f"Bearer {self.token}"},
            open_timeout=OPEN_TIMEOUT,
            max_size=2**22,
        )

    async def play(self) -> dict[str, Any]:
        """Play until the match is over; returns the final view."""
        attempt = 0
        try:
            while self.log.final_view is None:
                try:
                    async with self._connect(self.server) as socket:
                        self._socket, self.connected = socket, True
                        self.log.connects += 1
                        attempt = 0
                        # A lost connection ends the reading; its close code tells how, if any.
                        with contextlib.suppress(OSError, WebSocketException):
                            await self._read(socket)
                        self.log.closes.append(socket.close_code)
                except InvalidStatus as error:
                    if error.response.status_code < 500:
                        raise AssertionError(f"match {self.match_id}: refused: {error}") from None
                    self._failed(error)
                except (OSError, TimeoutError, WebSocketException) as error:
                    self._failed(error)
                finally:
                    self._socket, self.connected = None, False
                if self.log.final_view is not None:
                    break
                if self.log.closes and self.log.closes[-1] in FINAL_CLOSE_CODES:
                    raise AssertionError(
                        f"match {self.match_id}: closed with {self.log.closes[-1]}"
                    )
                if self._drop_now:  # a drop of our own: back at once, the action unanswered
                    self._drop_now = False
                    continue
                await asyncio.sleep(hokm_client.backoff_delay(attempt))
                attempt += 1
        finally:
            await self._twin_close()
        return self.log.final_view

    def _failed(self, error: Exception) -> None:
        self.log.failed_connects += 1
        self.log.connect_failures.append(f"{type(error).__name__}: {error}")

    async def _read(self, socket: Any) -> None:
        first = True
        async for raw in socket:
            message = json.loads(raw)
            if first and message["type"] == "state":
                first = False
                await self._reconnected(socket, message)
            await self._take(socket, message)
            if self._drop_now or (self.log.final_view is not None and not self._unanswered("main")):
                return  # (at the end, once the last copies sent are answered)

    async def _reconnected(self, socket: Any, message: dict[str, Any]) -> None:
        """The first state of a connection: log the resync, and send again the action that
        was not answered (its ``client_seq`` makes that safe)."""
        if self.log.connects > 1:
            events = message["data"]["events"]
            self.log.resyncs.append((self.version, None if events is None else len(events)))
        for sent in self.log.sent.values():
            sent.unanswered["main"] = 0  # what the old connection carried went with it
        if self.pending is not None:
            copies = self.duplicates.copies() if self.duplicates is not None else 1
            self.latest = message["data"]  # the retry's answer may come before the next state
            self.log.resent.append(self.pending.client_seq)
            await self._send_copies([socket] * copies, self.pending)

    # -- frames --------------------------------------------------------------------------------

    async def _take(self, socket: Any, message: dict[str, Any]) -> None:
        kind, data = message["type"], message["data"]
        now = time.monotonic()
        if kind == "ack":
            self._answered(data, "main", now)
        elif kind == "error":
            await self._error(socket, data, now)
            return
        elif kind in ("state", "event"):
            if self.version is None or message["version"] >= self.version:
                self.version = message["version"]
                self.latest = data
            if data["view"]["over"]:
                self.log.final_view = data["view"]
                return
        else:
            return
        await self._act(socket)

    def _answered(self, data: dict[str, Any], via: str, now: float) -> None:
        """An ``ack``: the action is done with once every copy sent is answered."""
        self.log.acks.append((data["client_seq"], data["applied"], now))
        sent = self.log.sent.get(data["client_seq"])
        if sent is None:
            return
        sent.unanswered[via] = max(0, sent.unanswered[via] - 1)
        if sent is self.pending and not sum(sent.unanswered.values()):
            self.pending = None

    async def _error(self, socket: Any, data: dict[str, Any], now: float) -> None:
        code, client_seq = data["code"], data.get("client_seq")
        self.log.errors.append((code, client_seq, now))
        pending = self.pending
        if client_seq in self.log.sent and self.log.sent[client_seq] is not pending:
            sent = self.log.sent[client_seq]  # a late answer to an action given up
            sent.unanswered["main"] = max(0, sent.unanswered["main"] - 1)
        # A ``server_error`` names no ``client_seq`` (games.play.consumers answers every failure the
        # same way): while an action is unanswered, take it as that action's.
        if pending is not None and (
            client_seq == pending.client_seq or (client_seq is None and code in RETRY_CODES)
        ):
            self.log.refusals.append((code, pending.client_seq, now))
            pending.unanswered["main"] = max(0, pending.unanswered["main"] - 1)
            if code in RETRY_CODES:
                # The server failed: the same action, the same id, after a pause.
                await asyncio.sleep(hokm_client.backoff_delay(min(pending.sends - 1, RETRY_MAX)))
                await self._send_copies([socket], pending)
                return
            self.pending = None  # refused by the rules: decide again on the state that follows
        # Ask for the state again, after a pause if the server is failing.
        failing = sum(1 for c, _, t in self.log.errors[-5:] if c in RETRY_CODES and now - t < 5)
        if failing:
            await asyncio.sleep(hokm_client.backoff_delay(min(failing - 1, RETRY_MAX)))
        await socket.send(json.dumps({"type": "resync", "since": self.version}))

    async def _act(self, socket: Any) -> None:
        """Choose and send an action when it is this seat's turn and none is unanswered."""
        data = self.latest
        if data is None or self.pending is not None or data["view"]["over"]:
            return
        hand = data["view"]["hand"]
        if hand["to_act"] != data["seat"] or not hand["legal"]:
            return
        if self.version is None or any(s.version == self.version for s in self._recent()):
            return  # answered this version already; its ack or the next state will come
        # Decided now (the match waits for this seat), pending at once so that nothing else
        # decides meanwhile, sent when the gate lets it go.
        sent = Sent(self.next_seq, to_json(greedy_action(hand)), self.version, time.monotonic())
        self.next_seq += 1
        self.actions_chosen += 1
        self.log.sent[sent.client_seq] = sent
        self.pending = sent
        if self.gate is not None:
            await self.gate.wait_here(self.version)
            sent.first_sent_at = time.monotonic()
        if self.duplicates is None:
            await self._send_copies([socket], sent)
            return
        copies = self.duplicates.copies()
        twin = await self._twin_socket()
        targets = [socket] + [
            self.duplicates.rng.choice([socket, twin]) if twin is not None else socket
            for _ in range(copies - 1)
        ]
        await self._send_copies(targets, sent)
        if self.actions_chosen % self.duplicates.drop_every == 0:
            # Gone before the answer: the next connection sends it again.
            self.log.dropped.append(sent.client_seq)
            self._drop_now = True
            await socket.close()

    def _unanswered(self, via: str) -> bool:
        return any(sent.unanswered[via] for sent in self.log.sent.values())

    def _recent(self) -> list[Sent]:
        return list(self.log.sent.values())[-1:]

    async def _send_copies(self, sockets: list[Any], sent: Sent) -> None:
        frame = json.dumps(
            {
                "type": "action",
                "client_seq": sent.client_seq,
                "version": sent.version,
                "action": sent.action,
            }
        )
        sent.sends += len(sockets)
        for target in sockets:
            sent.unanswered["twin" if target is self._twin else "main"] += 1
        await asyncio.gather(*(target.send(frame) for target in sockets))

    # -- the twin socket (re-sends from another server) ----------------------------------------

    async def _twin_socket(self) -> Any:
        if self._twin is not None and self._twin.close_code is None:
            return self._twin
        assert self.duplicates is not None
        try:
            self._twin = await self._connect(self.duplicates.twin_server)
        except (OSError, TimeoutError, WebSocketException):
            self._twin = None
            return None
        self._twin_reader = asyncio.create_task(self._twin_read(self._twin))
        return self._twin

    async def _twin_read(self, socket: Any) -> None:
        """The twin only sends re-sends; it logs their answers and ignores the states."""
        with contextlib.suppress(WebSocketException, OSError):
            async for raw in socket:
                message = json.loads(raw)
                if message["type"] == "ack":
                    self._answered(message["data"], "twin", time.monotonic())
                    if self.pending is None and self._socket is not None:
                        # This was the last answer awaited: act on the main socket, whose own
                        # reader sees to it if it is gone meanwhile.
                        with contextlib.suppress(WebSocketException, OSError):
                            await self._act(self._socket)
                elif message["type"] == "error":
                    data = message["data"]
                    self.log.errors.append((data["code"], data.get("client_seq"), time.monotonic()))

    async def _twin_close(self) -> None:
        """Close the twin once the last re-sends it carried are answered (a few seconds at most:
        the match may be over before they are)."""
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and self._unanswered("twin"):
            await asyncio.sleep(0.02)
        if self._twin is not None:
            with contextlib.suppress(WebSocketException, OSError):
                await self._twin.close()
        if self._twin_reader is not None:
            with contextlib.suppress(asyncio.CancelledError, WebSocketException, OSError):
                await asyncio.wait_for(self._twin_reader, 5)

    def describe(self) -> str:
        """One line for a failure message: where this client stands."""
        return (
            f"match {self.match_id}: version {self.version}, connected {self.connected}, "
            f"pending {self.pending and self.pending.client_seq}, connects {self.log.connects}, "
            f"failed {self.log.failed_connects}, acks {len(self.log.acks)}, "
            f"errors {[c for c, _, _ in self.log.errors][-6:]}"
        )


async def play_all(clients: list[SeatClient], *, timeout: float) -> None:
    """Run every client to the end of its match, failing with where each stands on a timeout."""
    tasks = [asyncio.create_task(client.play()) for client in clients]
    try:
        done, pending = await asyncio.wait(
            tasks, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION
        )
        for task in done:
            task.result()  # a client's own failure, as it was raised
        if pending:
            stuck = zip(clients, tasks, strict=True)
            where = [f"{client.describe()}\n  at {_where(task)}" for client, task in stuck]
            raise AssertionError("matches did not finish:\n" + "\n".join(where))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _where(task: asyncio.Task) -> str:
    """Where a client's task waits: the innermost frame of this module or the library."""
    if task.done():
        return "done"
    frames = task.get_stack(limit=None)
    return " <- ".join(f"{f.f_code.co_name}:{f.f_lineno}" for f in reversed(frames[-5:]))
