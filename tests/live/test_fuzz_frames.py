"""A fuzzer against the sockets: malformed, oversized, binary, deeply nested and wrongly typed
frames, unknown types, forged match, table and seat ids, sequence ids out of range.

In-process, with ``WebsocketCommunicator``, against the JSON match socket (a seated player who is
not on turn, and an anonymous spectator), the htmx match socket and the lobby and table sockets.
Frames go in batches, each followed by a ping: the consumer takes messages in order, so the
answers to a batch all come before the pong, and each frame of it must have had exactly one
answer. The checks:

- no exception escapes a consumer (the communicator would raise it here), none is logged, and no
  frame is answered ``server_error``;
- every frame of a match socket gets an error frame, or, over the size cap, an error frame and
  the close 4413; the listening sockets answer nothing and close only with their documented codes;
  a forged id closes with 4404 or 4403;
- no match changes: matches, seats, hands, tricks, cards played, actions, events, chat and tables
  are the same rows after the run as before;
- memory stays bounded: what a batch takes at most (tracemalloc's peak) is under a fixed bound,
  and the interpreter holds hardly more at the end of a run than after its first tenth (a few
  thousand blocks at most, for tens of thousands of frames: ``Memory``).

The generator never sends a message that is a legitimate change: the seated socket is the seat
that is *not* on turn (so no action is legal), and ``leave`` and ``back`` (real requests, R8.1)
and well-formed chat text from a seat are never sent.

``HOKM_FUZZ_FRAMES`` frames in all: 100,000 in CI (about 45 s of CPU), 12,000 for a quick local
run; each test sends its share. The rate cap is raised for the bulk of the frames (each batch
would trip it) and kept at its defaults in ``test_floods_at_the_default_caps``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import math
import os
import random
import string
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator as BaseApplicationCommunicator
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.models import (
    CardPlay,
    ChatMessage,
    ClientAction,
    Hand,
    Match,
    MatchEvent,
    MatchSeat,
    Seat,
    Table,
    Trick,
)
from games.play.consumers import CLOSE_FORBIDDEN, CLOSE_NOT_FOUND
from games.play.protocol import ProtocolError, parse_client_message
from games.play.selectors import match_state_build
from games.play.socket_limits import CLOSE_TOO_LARGE, CLOSE_TOO_MANY
from tests.games.factories import UserFactory, open_table
from tests.games.lobby_sockets import application as lobby_application
from tests.live.match_sockets import APP, make_match

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

FRAMES = int(os.environ.get("HOKM_FUZZ_FRAMES") or (100_000 if os.environ.get("CI") else 12_000))
#: Each test's share of FRAMES; they add up to all of it.
SHARES = {"json": 0.45, "spectator": 0.1, "html": 0.1, "listening": 0.3, "default_caps": 0.05}
BATCH = 40
CAP = 16 * 1024
#: One batch in this many runs under tracemalloc (see ``Memory``).
TRACE_EVERY = 10
#: The most memory one batch may take (its frames, their answers, the parsing of 1,300 levels of
#: nesting), and how many blocks the interpreter may gain from the first tenth of a run to its
#: end, over tens of thousands of frames; measured at most 0.7 MiB and 600 blocks.
PEAK_BOUND = 8 * 2**20
GROWTH_BOUND = 5_000


# -- the generator -------------------------------------------------------------------------------


WRONG_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    -(2**63),
    2**63,
    2**64 + 7,
    10**30,
    1.5,
    -0.0,
    1e308,
    math.nan,
    math.inf,
    -math.inf,
    "",
    " ",
    "x",
    "12",
    "-3",
    "1e3",
    "0x1f",
    "٣",  # an Arabic-Indic digit: a digit to str.isdigit, not to the protocol
    "9" * 40,
    "<script>alert(1)</script>",
    "\u202e\u0000",
    [],
    [1, 2],
    {},
    {"type": "play_card"},
    "AS",
    "S",
]
CARDS = [r + s for r in "23456789TJQKA" for s in "SHDC"]
ACTION_TYPES = ["call_trump", "discard", "keep_or_throw", "play_card"]
#: Message types the generator uses, and how often. Never "leave" or "back": they are real
#: requests.
MESSAGE_TYPES = {"action": 3, "resync": 1, "ping": 1, "chat": 1}
#: What of a well-formed action is spoilt, and how often.
SPOILT = {"client_seq": 1, "version": 1, "action": 1, "inner": 2, "flat": 2, "none": 1}
#: The share of the frames the parser takes that the generator keeps (``Fuzz.frame``).
REACHING = 0.3


class Fuzz(random.Random):
    """Seeded frames, each as ``(text, bytes)`` with one of them None."""

    def value(self) -> Any:
        return self.choice(WRONG_VALUES)

    def garbage(self, size: int) -> str:
        alphabet = string.printable + '{}[]":,\\حکم♠\u200c\ud7ff\U0001f0a1'
        return "".join(self.choice(alphabet) for _ in range(size))

    def action(self, seat: int) -> dict[str, Any]:
        """A plausible action of the engine's wire form: legal only for the seat on turn."""
        kind = self.choice(ACTION_TYPES)
        action: dict[str, Any] = {"type": kind}
        if kind == "call_trump":
            action["suit"] = self.choice("SHDC")
        elif kind == "discard":
            action["cards"] = self.sample(CARDS, self.choice([0, 2, 3, 5]))
        elif kind == "keep_or_throw":
            action["keep"] = self.random() < 0.5
        else:
            action["card"] = self.choice(CARDS)
        if self.random() < 0.3:
            action["seat"] = self.choice([seat, 1 - seat, 2, 3, -1, 99])  # forged seats among them
        return action

    def message(self, seat: int) -> dict[str, Any]:
        """A message of a known type with at least one field of the wrong type or out of range."""
        kind = self.choices(list(MESSAGE_TYPES), weights=list(MESSAGE_TYPES.values()))[0]
        if kind == "action":
            message: dict[str, Any] = {
                "type": "action",
                "client_seq": self.randint(1, 2**62),
                "version": self.choice([None, 0, 0, 0, 1, 99]),  # the match is at version 0
                "action": self.action(seat),
            }
            spoilt = self.choices(list(SPOILT), weights=list(SPOILT.values()))[0]
            if spoilt == "inner":
                inner = message["action"]
                inner[self.choice([*inner, "card", "suit", "cards", "keep", "seat"])] = self.value()
            elif spoilt == "flat":  # the htmx page's flat form
                flat = message.pop("action")
                message.update(
                    {k: str(v) for k, v in flat.items() if k != "type"}, kind=flat["type"]
                )
                message["HEADERS"] = self.value()
                message[self.choice(["client_seq", "version", "kind", "card"])] = self.value()
            elif spoilt != "none":  # "none": well formed, but the seat is not on turn
                message[spoilt] = self.value()
            if self.random() < 0.1:
                del message[self.choice(list(message))]
            return message
        if kind == "resync":
            return {"type": "resync", "since": self.choice([v for v in WRONG_VALUES if _bad(v)])}
        if kind == "ping":
            return {"type": self.choice(["Ping", "ping ", "PING", "pong", " ping"])}
        return self.chat()

    def chat(self) -> dict[str, Any]:
        """A chat message that cannot be stored: wrong types, both or neither field, nothing
        left once cleaned, too long, an unknown phrase."""
        text = self.choice(
            [
                self.value(),
                "   ",
                "\u0000\u202e\u0007",
                "x" * self.randint(201, 1000),
                None,
            ]
        )
        phrase = self.choice([None, self.value(), "x-" + self.garbage(8)])
        if isinstance(text, str) and text.strip() and phrase in (None, ""):
            phrase = 7  # a real text alone would be a real message
        message: dict[str, Any] = {"type": "chat"}
        if text is not None or self.random() < 0.5:
            message["text"] = text
        if phrase is not None or self.random() < 0.5:
            message["phrase"] = phrase
        return message

    def frame(self, seat: int) -> tuple[str | None, bytes | None]:
        """One frame within the size cap. Of those that pass the parser and reach the services
        (a transaction and the match's state each, a hundred times what a refusal by the parser
        costs), only ``REACHING`` are kept: enough of them, and the run stays quick."""
        while True:
            text, data = self._frame(seat)
            if self.random() < REACHING or not _parses(text, seat):
                return text, data

    def _frame(self, seat: int) -> tuple[str | None, bytes | None]:
        kind = self.choices(
            [
                "garbage",
                "truncated",
                "scalar",
                "nested",
                "big",
                "binary",
                "message",
                "unknown",
                "nan",
            ],
            weights=[8, 8, 5, 4, 2, 6, 55, 8, 4],
        )[0]
        if kind == "garbage":
            return self.garbage(self.randint(0, 300)), None
        if kind == "truncated":
            text = json.dumps(self.message(seat))
            return text[: self.randint(0, max(0, len(text) - 1))], None
        if kind == "scalar":
            return json.dumps(
                self.choice([v for v in WRONG_VALUES if not isinstance(v, dict)])
            ), None
        if kind == "nested":
            depth = self.randint(10, 1300)
            if self.random() < 0.5:
                return "[" * depth + "]" * depth, None
            return '{"type": ' * depth + '"ping"' + "}" * depth, None
        if kind == "big":  # over the protocol's 4096 bytes, within the socket's cap
            text = "ح" * self.randint(2100, 8000)
            return json.dumps({"type": "chat", "text": text}, ensure_ascii=False), None
        if kind == "binary":
            return None, self.randbytes(self.randint(0, 512))
        if kind == "unknown":
            message = self.message(seat)
            message["type"] = self.choice([self.value(), self.garbage(6), "leave!", "BACK"])
            return json.dumps(message), None
        if kind == "nan":
            return '{"type": "action", "client_seq": NaN, "version": Infinity, "action": {}}', None
        return json.dumps(self.message(seat)), None

    def oversized(self) -> tuple[str | None, bytes | None]:
        """A frame over the socket's cap: 10,000 levels of nesting, a huge string, or bytes."""
        choice = self.randint(0, 2)
        if choice == 0:
            return "[" * 10_000 + "]" * 10_000, None
        if choice == 1:
            return json.dumps({"type": "chat", "text": "x" * self.randint(CAP, 4 * CAP)}), None
        return None, self.randbytes(self.randint(CAP + 1, 2 * CAP))


def _parses(text: str | None, seat: int) -> bool:
    try:
        parse_client_message(text, seat=seat)
    except ProtocolError:
        return False
    except Exception:  # a fault of the parser: kept like a frame it takes, for a test to find
        return True
    return True


def _bad(value: Any) -> bool:
    """Not a version a resync takes (it takes whole numbers, and digits in a string)."""
    if isinstance(value, bool) or value is None:
        return value is not None
    if isinstance(value, int):
        return False
    return not (isinstance(value, str) and (value == "" or (value.isascii() and value.isdigit())))


# -- the run -------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What a run sent and got back."""

    frames: int = 0
    answers: dict[str, int] = field(default_factory=dict)
    closes: dict[int, int] = field(default_factory=dict)
    reconnects: int = 0

    def count(self, key: str) -> None:
        self.answers[key] = self.answers.get(key, 0) + 1


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row a frame could change, but the sockets' own presence rows."""
    models = [Match, MatchSeat, Hand, Trick, CardPlay, ClientAction, MatchEvent, ChatMessage]
    rows = {model.__name__: list(model.objects.order_by("pk").values()) for model in models}
    rows["Table"] = list(Table.objects.order_by("pk").values())
    rows["Seat"] = list(Seat.objects.order_by("pk").values())
    return rows


@pytest.fixture(autouse=True)
def _cached_templates(cached_templates) -> None:
    """Templates compiled once, as in production (DEBUG off): the htmx socket answers each bad
    frame with a rendered fragment, and with DEBUG on Django would read and compile its template
    again for every one of them. The fragments are the same either way."""


@pytest.fixture(autouse=True)
def _no_connection_recycling(monkeypatch) -> None:
    """channels closes stale database connections before every message, in a hop to a worker
    thread that costs more than what the consumers do with a bad frame; a test run has no stale
    connection, and the consumers' own work is unchanged."""

    async def nothing() -> None:
        return None

    monkeypatch.setattr("channels.consumer.aclose_old_connections", nothing)


@pytest.fixture
def no_caps_on_rate(settings) -> None:
    """Batches go faster than any person: the rate cap has its own tests."""
    settings.HOKM_SOCKET_RATE_BURST = 10**9
    settings.HOKM_SOCKET_RATE_PER_SECOND = 10**9


@pytest.fixture
def errors_logged(caplog) -> Iterator[Callable[[], list[str]]]:
    caplog.set_level(logging.WARNING)
    yield lambda: [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


class Memory:
    """Python memory over a run.

    tracemalloc traces one batch in ``TRACE_EVERY`` (tracing every allocation makes the consumers
    four times slower): the highest peak of those is the most a batch needs. The blocks the
    interpreter has allocated (``sys.getallocatedblocks``, which costs nothing), counted after a
    collection once the first tenth of the batches have warmed the caches and again at the end,
    give the growth: anything kept per frame would show in it.
    """

    def __init__(self, frames: int) -> None:
        self.settle_after = max(5, frames // BATCH // 10)
        self.batches = self.peak = 0
        self.baseline: int | None = None

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        traced = self.batches % TRACE_EVERY == 0
        if traced:
            tracemalloc.start()
        try:
            yield
        finally:
            if traced:
                self.peak = max(self.peak, tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
        self.batches += 1
        if self.batches == self.settle_after:
            self.baseline = _blocks()

    def result(self) -> tuple[int, int]:
        """Blocks gained since the first tenth, and the highest peak of a traced batch."""
        assert self.baseline is not None
        return _blocks() - self.baseline, self.peak


def _blocks() -> int:
    gc.collect()
    return sys.getallocatedblocks()


class Communicator(WebsocketCommunicator):
    """channels' communicator without its ``mock.patch`` of ``close_old_connections`` around
    every frame, which costs more than a consumer's answer; ``_no_connection_recycling`` makes it
    unneeded."""

    send_input = BaseApplicationCommunicator.send_input
    receive_output = BaseApplicationCommunicator.receive_output


async def open_socket(path: str, user: Any, *, refused: bool = False) -> WebsocketCommunicator:
    """A match socket, past the state and chat history it gets first (unless it is refused)."""
    communicator = Communicator(APP, path)
    communicator.scope["user"] = user
    assert (await communicator.connect())[0]
    while not refused:
        frame = await communicator.receive_from(timeout=5)
        if '"chat_history"' in frame or 'id="chat-log"' in frame:
            break
    return communicator


async def send(socket: WebsocketCommunicator, text: str | None, data: bytes | None) -> None:
    """One frame as daphne passes it on; empty ones too (``send_to`` refuses those)."""
    if text is not None:
        await socket.send_input({"type": "websocket.receive", "text": text})
    else:
        await socket.send_input({"type": "websocket.receive", "bytes": data})


async def until_pong(socket: WebsocketCommunicator) -> tuple[list[str], int | None]:
    """The frames up to the batch's closing pong; or up to a close, with its code."""
    frames = []
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return frames, output["code"]
        text = output.get("text") or ""
        if text.startswith('{"type": "pong"'):
            return frames, None
        frames.append(text)


def json_answers(frames: list[str], tally: Tally) -> int:
    """How many frames a batch answered: each error frame; a ``stale_version`` error comes with
    the fresh state, which is part of the same answer. Presence frames answer nothing."""
    answered, after_stale = 0, False
    for text in frames:
        frame = json.loads(text)
        kind = frame["type"]
        if kind == "error":
            code = frame["data"]["code"]
            assert code != "server_error", frame
            tally.count(code)
            answered += 1
            after_stale = code == "stale_version"
        elif kind == "state" and after_stale:
            after_stale = False
        else:
            assert kind in ("presence", "chat_history"), frame
    return answered


def html_answers(frames: list[str], tally: Tally) -> int:
    answered, after_stale = 0, False
    for text in frames:
        text = text.lstrip()
        if text.startswith('<div id="flash"'):
            assert "The server could not take that" not in text, text
            tally.count("flash")
            answered += 1
            after_stale = "The table changed before your move arrived" in text
        elif text.startswith('<p id="chat-error"'):
            tally.count("chat-error")
            answered += 1
        elif text.startswith('<div id="table"') and after_stale:
            after_stale = False
        else:
            assert 'id="chat-log"' in text or 'id="table"' in text, text[:200]
    return answered


async def fuzz_match_socket(
    *, path: str, user: Any, seat: int, frames: int, seed: int, answers: Callable
) -> tuple[Tally, tuple[int, int]]:
    """Send ``frames`` frames in batches to a match socket, reconnecting after each close."""
    fuzz, tally = Fuzz(seed), Tally()
    socket = await open_socket(path, user)
    memory = Memory(frames)
    while tally.frames < frames:
        batch = [fuzz.frame(seat) for _ in range(BATCH)]
        oversized = fuzz.random() < 0.02
        if oversized:  # last in its batch: frames after it are dropped unread (documented)
            batch.append(fuzz.oversized())
        with memory.batch():
            for text, data in batch:
                await send(socket, text, data)
            await socket.send_to(text_data='{"type": "ping"}')
            got, code = await until_pong(socket)
        tally.frames += len(batch)
        if oversized:
            assert code == CLOSE_TOO_LARGE, code
            tally.closes[code] = tally.closes.get(code, 0) + 1
            assert answers(got, tally) == len(batch), got[-3:]
            await socket.disconnect()
            socket = await open_socket(path, user)
            tally.reconnects += 1
        else:
            assert code is None, code
            assert answers(got, tally) == len(batch)
    await socket.disconnect()
    return tally, memory.result()


async def seated_socket_match() -> tuple[Match, Any, int]:
    """A running hokm2 match (spectators allowed), and the player of the seat not on turn."""
    match, users = await db(make_match)("hokm2")
    state = await db(match_state_build)(match=match)
    seat = 1 - state.hand.to_act
    return match, users[seat], seat


def report(name: str, tally: Tally, memory: tuple[int, int], seconds: float) -> None:
    growth, peak = memory
    print(
        f"\nfuzz {name}: {tally.frames} frames in {seconds:.1f} s, "
        f"{tally.reconnects} reconnects, closes {tally.closes}, "
        f"memory: a batch's peak {peak / 2**20:.1f} MiB, growth {growth} blocks, "
        f"answers {dict(sorted(tally.answers.items()))}"
    )
    assert peak < PEAK_BOUND and growth < GROWTH_BOUND, (peak, growth)


@pytest.mark.usefixtures("no_caps_on_rate")
@pytest.mark.parametrize(
    ("name", "api", "spectator"),
    [("json", True, False), ("spectator", True, True), ("html", False, False)],
)
async def test_match_sockets_answer_every_bad_frame_and_nothing_changes(
    name, api, spectator, errors_logged
):
    match, user, seat = await seated_socket_match()
    before = await db(snapshot)()
    started = time.perf_counter()

    tally, memory = await fuzz_match_socket(
        path=f"/ws/{'api/' if api else ''}match/{match.pk}/",
        user=AnonymousUser() if spectator else user,
        seat=seat,
        frames=int(FRAMES * SHARES[name]),
        seed=len(name),
        answers=json_answers if api else html_answers,
    )

    report(name, tally, memory, time.perf_counter() - started)
    assert tally.frames >= FRAMES * SHARES[name]
    assert await db(snapshot)() == before
    assert errors_logged() == []
    if spectator:
        assert tally.answers.get("not_seated", 0) > 0
    elif api:
        assert tally.answers.get("not_your_turn", 0) + tally.answers.get("stale_version", 0) > 0
        assert tally.answers.get("wrong_seat", 0) > 0


@pytest.mark.usefixtures("no_caps_on_rate")
async def test_listening_sockets_ignore_bad_frames_and_close_only_as_documented(errors_logged):
    user = await db(UserFactory)()
    table = await db(open_table)(user)
    private = await db(open_table)(user, is_private=True)
    before = await db(snapshot)()
    fuzz, tally = Fuzz(7), Tally()
    paths = ["/ws/lobby/", f"/ws/table/{table.pk}/"]
    started = time.perf_counter()
    share = int(FRAMES * SHARES["listening"])
    memory = Memory(share)
    while tally.frames < share:
        path = paths[tally.reconnects % 2]
        page = Communicator(lobby_application(user=user), path)
        assert (await page.connect())[0]
        await page.receive_from(timeout=5)
        for _ in range(10):  # ten batches on one socket, then an oversized frame closes it
            batch = [fuzz.frame(0) for _ in range(BATCH)]
            with memory.batch():
                for text, data in batch:
                    await send(page, text, data)
                # Nothing to wait for but the frames to be taken: they are not answered.
                while not page.input_queue.empty():
                    await asyncio.sleep(0)
            tally.frames += BATCH
        assert await page.receive_nothing(timeout=0.01)
        text, data = fuzz.oversized()
        await send(page, text, data)
        tally.frames += 1
        output = await page.receive_output(timeout=5)
        assert output == {"type": "websocket.close", "code": CLOSE_TOO_LARGE}
        tally.closes[CLOSE_TOO_LARGE] = tally.closes.get(CLOSE_TOO_LARGE, 0) + 1
        tally.reconnects += 1
        await page.disconnect()
    # Forged table ids, and a private table without its invite.
    for table_id in [0, 999_999, 2**63, 10**30, private.pk]:
        page = WebsocketCommunicator(lobby_application(), f"/ws/table/{table_id}/")
        assert (await page.connect())[0]
        assert await page.receive_output(timeout=5) == {
            "type": "websocket.close",
            "code": CLOSE_NOT_FOUND,
        }
        tally.closes[CLOSE_NOT_FOUND] = tally.closes.get(CLOSE_NOT_FOUND, 0) + 1

    report("listening", tally, memory.result(), time.perf_counter() - started)
    assert await db(snapshot)() == before
    assert errors_logged() == []


async def test_forged_match_ids_are_refused_and_versions_out_of_range_answered(errors_logged):
    match, user, _ = await seated_socket_match()
    hidden, _ = await db(make_match)("hokm2", spectators=False)
    before = await db(snapshot)()
    forged = [(0, CLOSE_NOT_FOUND), (999_999, CLOSE_NOT_FOUND), (2**63, CLOSE_NOT_FOUND)]
    forged += [(10**30, CLOSE_NOT_FOUND), (hidden.pk, CLOSE_FORBIDDEN)]
    for match_id, expected in forged:
        for api in (True, False):
            for who in (user, AnonymousUser()):
                path = f"/ws/{'api/' if api else ''}match/{match_id}/"
                socket = await open_socket(path, who, refused=True)
                await socket.send_to(text_data='{"type": "ping"}')  # dropped: the socket closed
                frames, code = await until_pong(socket)
                assert code == expected and len(frames) == 1, (match_id, api, frames)
                assert await socket.receive_nothing(timeout=0.01)
    # Versions out of range where a whole number is taken: answered with the state.
    socket = await open_socket(f"/ws/api/match/{match.pk}/", user)
    for since in (-1, -(2**63), 2**63, 10**30, -(10**30)):
        await socket.send_to(text_data=json.dumps({"type": "resync", "since": since}))
        await socket.send_to(text_data='{"type": "ping"}')
        frames, code = await until_pong(socket)
        kinds = [json.loads(f)["type"] for f in frames]
        assert code is None and kinds.count("state") == 1, (since, kinds)
    await socket.disconnect()
    assert await db(snapshot)() == before
    assert errors_logged() == []


async def test_floods_at_the_default_caps(settings, errors_logged):
    """Frames as fast as the event loop goes, with the default rate cap: the burst is answered,
    then ``rate_limited`` until 4429; reconnecting starts a new bucket."""
    match, user, seat = await seated_socket_match()
    before = await db(snapshot)()
    fuzz, tally = Fuzz(11), Tally()
    share = int(FRAMES * SHARES["default_caps"])
    path = f"/ws/api/match/{match.pk}/"
    while tally.frames < share:
        socket = await open_socket(path, user)
        for _ in range(200):
            text, data = fuzz.frame(seat)
            await send(socket, text, data)
        tally.frames += 200
        errors = []
        while True:
            output = await socket.receive_output(timeout=10)
            if output["type"] == "websocket.close":
                assert output["code"] == CLOSE_TOO_MANY
                tally.closes[CLOSE_TOO_MANY] = tally.closes.get(CLOSE_TOO_MANY, 0) + 1
                break
            frame = json.loads(output["text"])
            if frame["type"] == "error":
                errors.append(frame["data"]["code"])
        assert "server_error" not in errors
        assert errors.count("rate_limited") == settings.HOKM_SOCKET_RATE_CLOSE_AFTER - 1
        assert len(errors) - errors.count("rate_limited") >= settings.HOKM_SOCKET_RATE_BURST
        for code in errors:
            tally.count(code)
        await socket.disconnect()
        tally.reconnects += 1
    print(f"\nfuzz default caps: {tally.frames} frames, closes {tally.closes}, {tally.answers}")
    assert await db(snapshot)() == before
    assert errors_logged() == []
