"""Scale out: one match played across two server processes that share Redis and the database.

The layout is production's in miniature (docs/operations.md; tests/e2e/two_servers.py): two
daphne processes with ``HOKM_AUTOPLAY=worker`` and one ``manage.py hokm_worker`` process, on one
Redis channel layer and the test database. Three people sit at a four-seat table with a computer
player: seats 0 and 2 play over the JSON protocol on process A, seat 1 on process B, and seat 1's
browser page (the htmx socket) is open on B too. Every move made on one process, and every move of
the computer player and every deal made in the worker, reaches the sockets of the other process
only through Redis.

Checked: each seat receives every event, versions 1 to the last, without a gap and identical on
both processes (R8.2: the versions and the event log are what a client relies on to resync);
each action is acknowledged once; the final state is the same through either process and in the
database; and the page on B shows the card played on A.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets
from django.core.serializers.json import DjangoJSONEncoder
from django.test import Client

from accounts.tokens import token_create
from games.bots.greedy import greedy_action
from games.engine import get_variant, match_view, new_match, to_json
from games.models import CardPlay, ClientAction, ComputerLevel, Match, MatchEvent
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create
from tests.e2e.two_servers import Layout, layout_on_test_database
from tests.games.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

VARIANT = "hokm4"
#: Two points: one hand when it ends in a Kot, else at least two, so the worker deals a hand too.
TARGET = 2
#: Seat -> the server process (0 = A, 1 = B) its player's program connects to; seat 3 is the
#: computer player, moved by the worker process.
PLAYERS = {0: 0, 1: 1, 2: 0}
COMPUTER_SEAT = 3
#: Generous for a match of a few hands with 0.05 s computer pauses; a lost event stalls a table
#: for good, so the wait ends in a failure rather than a slow pass.
MATCH_TIMEOUT = 60.0
STEP_TIMEOUT = 10.0
VERSION_IN_FRAGMENT = re.compile(r'<div id="table"[^>]*\bdata-version="(\d+)"')
#: A card on the table's current trick (templates/games/_match_center.html).
TRICK_CARD = re.compile(
    r'<div class="trick__card[^"]*"[^>]*>\s*<span class="card[^"]*" data-card="(\w+)"'
)


@pytest.fixture(scope="module")
def layout(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Layout]:
    """Two daphne processes and a worker on the test database and one Redis; their logs stay in
    pytest's temporary directory (``scale-out*/``)."""
    env = {
        "HOKM_BOT_DELAY_SECONDS": "0.05",
        "HOKM_NEXT_HAND_DELAY_SECONDS": "0.3",
        "HOKM_BOT_PROCESSES": "1",  # as in production: computer players think in a pool
    }
    with layout_on_test_database(
        django_db_blocker, log_dir=tmp_path_factory.mktemp("scale-out"), env=env
    ) as running:
        yield running


def seed_with_hakem(seat: int) -> int:
    """A seed whose first Hakem is ``seat``, so that the match waits for that person first."""
    rules = get_variant(VARIANT)
    return next(s for s in range(10_000) if new_match(rules, seed=s).hand.hakem == seat)


def websocket_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


# -- the clients -----------------------------------------------------------------------------------


@dataclass
class Player:
    """A program playing one seat over the JSON protocol, keeping the log of events it was sent.

    It acts only while ``allowance`` is above zero (None: always), so that the test can hold the
    table still for a moment; it decides with the greedy computer player, as the reference client
    does (scripts/hokm_client.py).
    """

    seat: int
    server: int
    token: str
    allowance: int | None = 0
    version: int = -1
    log: dict[int, dict[str, Any]] = field(default_factory=dict)
    frames: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    acks: list[dict[str, Any]] = field(default_factory=list)
    sent: dict[int, dict[str, Any]] = field(default_factory=dict)  # client_seq -> action
    last_state: dict[str, Any] | None = None
    decided_at: int | None = None
    socket: Any = None

    @property
    def over(self) -> bool:
        return self.last_state is not None and self.last_state["data"]["view"]["over"]

    async def run(self, url: str) -> None:
        """Read frames until the match is over (the caller cancels or closes on failure)."""
        headers = {"Authorization": f"Bearer {self.token}"}
        async with websockets.connect(url, additional_headers=headers) as socket:
            self.socket = socket
            async for raw in socket:
                await self.take(json.loads(raw))
                if self.over:
                    return

    async def take(self, message: dict[str, Any]) -> None:
        self.frames.append(message)
        kind = message["type"]
        if kind == "error":
            self.errors.append(message["data"])
        elif kind == "ack":
            self.acks.append(message["data"])
        elif kind in ("state", "event"):
            self.record(message)
            self.last_state = message
            await self.act()

    def record(self, message: dict[str, Any]) -> None:
        """Add the frame's events to the log; they must continue it exactly (no gap, no repeat,
        never an older state after a newer one)."""
        version, events = message["version"], message["data"]["events"]
        assert version > self.version, (self.seat, "went back", self.version, version)
        assert events is not None, (self.seat, "events not given", self.version, version)
        got = [event["version"] for event in events]
        expected = list(range(max(self.version, 0) + 1, version + 1))
        assert got == expected, (self.seat, "a gap", self.version, got)
        for event in events:
            self.log[event["version"]] = event
        self.version = version

    async def act(self) -> None:
        """Send the greedy action when it is this seat's turn and the test allows it."""
        message = self.last_state
        if message is None or self.allowance == 0:
            return
        data = message["data"]
        hand = data["view"]["hand"]
        if data["view"]["over"] or hand["to_act"] != data["seat"] or not hand["legal"]:
            return
        if self.decided_at == message["version"]:
            return
        self.decided_at = message["version"]
        if self.allowance is not None:
            self.allowance -= 1
        client_seq = len(self.sent) + 1
        action = to_json(greedy_action(hand))
        self.sent[client_seq] = action
        await self.socket.send(
            json.dumps(
                {
                    "type": "action",
                    "client_seq": client_seq,
                    "version": message["version"],
                    "action": action,
                }
            )
        )

    async def allow(self, actions: int | None) -> None:
        self.allowance = actions
        await self.act()


@dataclass
class Page:
    """The htmx table page's socket: whole-table fragments, each with its version."""

    cookie: str
    origin: str
    fragments: dict[int, str] = field(default_factory=dict)
    versions: list[int] = field(default_factory=list)

    async def run(self, url: str) -> None:
        headers = {"Cookie": f"sessionid={self.cookie}"}
        async with websockets.connect(url, additional_headers=headers, origin=self.origin) as ws:
            async for raw in ws:
                found = VERSION_IN_FRAGMENT.search(raw)
                if found:
                    version = int(found.group(1))
                    self.versions.append(version)
                    self.fragments[version] = raw


async def until(
    condition: Callable[[], bool], *, timeout: float, what: str, tasks: list[asyncio.Task]
) -> None:
    """Wait for ``condition``; a client task that failed fails the wait with its own error."""
    deadline = time.monotonic() + timeout
    while not condition():
        for task in tasks:
            if task.done():
                task.result()  # raises what went wrong in the client
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


@dataclass
class Played:
    first_card: dict[str, Any]
    finals: list[dict[str, Any]]


async def play_across(
    layout: Layout, match_id: int, players: dict[int, Player], page: Page
) -> Played:
    """Connect every client, hold the table for two checked steps, then play to the end; then
    look at the finished match afresh through each process."""
    path = f"/ws/api/match/{match_id}/?since=0"
    tasks = [
        asyncio.create_task(p.run(websocket_url(layout.urls[p.server], path)))
        for p in players.values()
    ]
    tasks.append(
        asyncio.create_task(page.run(websocket_url(layout.urls[1], f"/ws/match/{match_id}/")))
    )
    everyone = list(players.values())
    try:

        def all_at(version: int) -> Callable[[], bool]:
            return lambda: (
                all(p.version == version for p in everyone) and (version in page.versions)
            )

        await until(all_at(0), timeout=STEP_TIMEOUT, what="every socket's first state", tasks=tasks)
        # Seat 0 (process A) calls trump, then leads; the table then waits for seat 1, a person.
        hakem = players[0]
        await hakem.allow(1)
        await until(all_at(1), timeout=STEP_TIMEOUT, what="the trump call everywhere", tasks=tasks)
        await hakem.allow(1)
        await until(all_at(2), timeout=STEP_TIMEOUT, what="the first card everywhere", tasks=tasks)
        first_card = hakem.sent[2]
        # Everyone plays from here on, the computer player through the worker.
        for player in everyone:
            await player.allow(None)
        await until(
            lambda: all(p.over for p in everyone) and max(page.versions) == hakem.version,
            timeout=MATCH_TIMEOUT,
            # A lost event stalls a table for good. Besides a real loss between processes, the
            # cause can be another server on this test database whose worker thread takes steps
            # and sends their events over its in-memory layer, where these sockets never hear.
            what="the end of the match on every socket (an event lost between processes?)",
            tasks=tasks,
        )
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    # A fresh look at the finished match through each process, as seat 0.
    finals = []
    for base in layout.urls:
        headers = {"Authorization": f"Bearer {players[0].token}"}
        async with websockets.connect(
            websocket_url(base, f"/ws/api/match/{match_id}/"), additional_headers=headers
        ) as socket:
            finals.append(json.loads(await asyncio.wait_for(socket.recv(), STEP_TIMEOUT)))
    return Played(first_card=first_card, finals=finals)


# -- the test ------------------------------------------------------------------------------------


def test_a_match_played_across_two_server_processes_R8_2(layout: Layout) -> None:
    users = {seat: UserFactory() for seat in PLAYERS}
    tokens = {seat: token_create(user=user, name="scale out")[1] for seat, user in users.items()}
    seats = [
        SeatSpec(name=users[s].username, user=users[s])
        if s in users
        else SeatSpec(name="Computer", computer_level=ComputerLevel.EASY)
        for s in range(4)
    ]
    match = match_create(
        variant=VARIANT,
        target=TARGET,
        seats=seats,
        seed=seed_with_hakem(0),
        table=TableFactory(variant=VARIANT),
    )
    browser = Client()
    browser.force_login(users[1])
    players = {
        seat: Player(seat=seat, server=server, token=tokens[seat])
        for seat, server in PLAYERS.items()
    }
    page = Page(cookie=browser.cookies["sessionid"].value, origin=layout.urls[1])

    try:
        played = asyncio.run(play_across(layout, match.pk, players, page))
    except AssertionError as failure:
        # Where each socket stopped, against the database: a version stored but never seen is
        # an event that did not reach that process.
        seen = {seat: p.version for seat, p in players.items()} | {
            "page": max(page.versions, default=None)
        }
        stored = Match.objects.get(pk=match.pk).version
        raise AssertionError(
            f"{failure}\nversions seen {seen}, stored {stored}\n{layout.output()}"
        ) from failure

    match.refresh_from_db()
    final = match.version
    assert match.status == Match.Status.FINISHED
    assert max(match.scores) >= TARGET
    # Every seat, on either process, saw every event of the match, in order and alike.
    stored = {
        version: {"version": version, "kind": kind, **data}
        for version, kind, data in MatchEvent.objects.filter(match=match).values_list(
            "version", "kind", "data"
        )
    }
    assert sorted(stored) == list(range(final + 1))
    expected_log = {v: event for v, event in stored.items() if v > 0}
    for player in players.values():
        assert player.version == final, player.seat
        assert player.log == expected_log, player.seat
        assert player.errors == [], (player.seat, player.errors)
        # Each action acknowledged once, as applied, and stored once (at most once, R8.2).
        assert sorted(a["client_seq"] for a in player.acks) == sorted(player.sent)
        assert all(a["applied"] for a in player.acks)
        assert ClientAction.objects.filter(match=match, seat=player.seat).count() == len(
            player.sent
        )
    kinds = [event["kind"] for event in expected_log.values()]
    assert kinds.count("play_card") == CardPlay.objects.filter(hand__match=match).count()
    computer_cards = [e for e in expected_log.values() if e.get("seat") == COMPUTER_SEAT]
    assert computer_cards, "the worker's computer player never moved"
    # The same final state through either process, and as the database has it.
    from_a, from_b = played.finals
    assert from_a["version"] == from_b["version"] == final
    assert from_a["data"]["view"] == from_b["data"]["view"]
    in_database = json.loads(
        json.dumps(match_view(match_state_build(match=match), 0), cls=DjangoJSONEncoder)
    )
    assert from_a["data"]["view"] == in_database
    assert from_a["data"]["view"]["scores"] == list(match.scores)
    for player in players.values():
        assert player.last_state["data"]["view"]["scores"] == list(match.scores)
    # The page on B: the card seat 0 played on A, at the version it made, and the end.
    versions = page.versions
    assert versions == sorted(versions), "the page got an older table after a newer one"
    assert versions[-1] == final
    assert TRICK_CARD.findall(page.fragments[1]) == []
    assert TRICK_CARD.findall(page.fragments[2]) == [played.first_card["card"]]
