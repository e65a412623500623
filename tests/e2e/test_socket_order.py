"""A socket's moves are applied in the order it sent them (issue 24, docs/protocol.md "Client to
server"), and one seat's moves from several sockets one at a time.

A client may send its next moves without waiting for the answers, and without ``version``: the
server then applies each to the match as it stands when it gets there. That is only safe if the
moves of one socket are taken one after the other, in the order sent: a keep-or-throw taken
before the move sent ahead of it would land on another draw turn, or be refused. The consumer
answers and applies the frames of one socket strictly one after another
(``games.play.consumers``); the match's row lock applies the moves of one match, from any
socket of any process, one at a time (``games.play.services``).

- In process: a seat sends two moves back to back while the first one's service is slow; the
  second is taken only after the first is applied.
- Two daphne processes and the worker on PostgreSQL and Redis (tests/e2e/two_servers.py): an
  all-human ``hokm2-draw`` match whose every move is planned from its seed. Whenever a seat is to
  move several times in a row (the trump call and the Hakem's discard, the last draw and the
  first lead, a trick won and the next lead) it sends the whole run at once, without
  ``version``; seat 0 sends every run over a second socket on the other process too, under the
  same ``client_seq``. Every move must be applied exactly once, on the turn it was meant for.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.db import connection

from accounts.tokens import token_create
from games.bots.greedy import greedy_action
from games.engine import game_apply, seat_view, to_act, to_json
from games.models import ClientAction, Match, MatchEvent
from games.play import consumers
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create
from tests.e2e.two_servers import Layout, layout_on_test_database
from tests.games.factories import TableFactory, UserFactory
from tests.live.match_sockets import connect, frame_of_type, make_match

pytestmark = pytest.mark.django_db(transaction=True)

VARIANT = "hokm2-draw"
#: A deal whose seat 0 is the first Hakem; the match is one hand (target 1).
SEED = 5
#: The whole match takes under two seconds here; a stalled one fails rather than hangs.
MATCH_TIMEOUT = 30.0
#: These clients send runs of moves at once, faster than people; not what is tested here.
NO_RATE_CAP = {"HOKM_SOCKET_RATE_BURST": "1000", "HOKM_SOCKET_RATE_PER_SECOND": "1000"}


def planned_moves(match: Match) -> list[tuple[int, dict[str, Any]]]:
    """Every move of the match from its stored state, as the greedy player would make them:
    (seat, action); the move at index ``i`` makes version ``i + 1``."""
    state = match_state_build(match=match)
    moves = []
    while (seat := to_act(state)) is not None:
        action = greedy_action(seat_view(state, seat))
        moves.append((seat, to_json(action)))
        state = game_apply(state, action)
    return moves


def run_of(moves: list[tuple[int, dict[str, Any]]], version: int) -> list[int]:
    """The indexes of the moves the seat on turn at ``version`` makes in a row from there."""
    seat = moves[version][0]
    end = version
    while end < len(moves) and moves[end][0] == seat:
        end += 1
    return list(range(version, end))


def action_frame(client_seq: int, action: dict[str, Any]) -> str:
    """An action without ``version``: applied to the match as it is when it arrives."""
    return json.dumps({"type": "action", "client_seq": client_seq, "action": action})


# -- in process ------------------------------------------------------------------------------------


async def test_moves_sent_back_to_back_are_applied_in_the_order_sent(monkeypatch, settings):
    settings.HOKM_SOCKET_RATE_PER_SECOND = 1000
    match, users = await database_sync_to_async(make_match)(VARIANT, seed=SEED)
    moves = await database_sync_to_async(planned_moves)(match)
    first, second = run_of(moves, 0)[:2]  # the trump call and the Hakem's discard
    seat = moves[first][0]
    applied_at: list[tuple[int, float]] = []
    service = consumers.match_client_action

    def slow_first(**kwargs: Any) -> Any:
        # The trump call waits long enough for the discard to overtake it, were it let through.
        if kwargs["client_seq"] == 1:
            time.sleep(0.5)
        result = service(**kwargs)
        applied_at.append((kwargs["client_seq"], time.monotonic()))
        return result

    monkeypatch.setattr(consumers, "match_client_action", slow_first)
    client = await connect(users[seat], match.pk)
    await frame_of_type(client, "chat_history")
    await client.send_to(text_data=action_frame(1, moves[first][1]))
    await client.send_to(text_data=action_frame(2, moves[second][1]))
    answers = []
    while len(answers) < 2:
        frame = json.loads(await client.receive_from(timeout=5))
        if frame["type"] in ("ack", "error"):
            answers.append(frame["data"])
    await client.disconnect()

    assert answers == [
        {"client_seq": 1, "applied": True},
        {"client_seq": 2, "applied": True},
    ], answers
    assert [seq for seq, _ in applied_at] == [1, 2]
    stored = await database_sync_to_async(
        lambda: dict(
            ClientAction.objects.filter(match=match, seat=seat).values_list("client_seq", "version")
        )
    )()
    assert stored == {1: 1, 2: 2}


# -- two processes -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def layout(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Layout]:
    """Two daphne processes and the worker on the test database and one Redis (logs in pytest's
    temporary directory, ``socket-order*/``)."""
    if connection.vendor != "postgresql":
        pytest.skip("the row lock under test is PostgreSQL's: set DATABASE_URL to a PostgreSQL")
    with layout_on_test_database(
        django_db_blocker, log_dir=tmp_path_factory.mktemp("socket-order"), env=NO_RATE_CAP
    ) as running:
        yield running


@dataclass
class SocketLog:
    """One socket: the ``client_seq`` of each frame in the order sent, and its answers."""

    name: str
    sent: list[int] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Seat:
    """A seat's program: plays the planned moves, a run at a time, each run sent at once."""

    seat: int
    token: str
    moves: list[tuple[int, dict[str, Any]]]
    main: SocketLog
    twin: SocketLog | None = None
    version: int = -1
    over: bool = False
    started: set[int] = field(default_factory=set)
    twin_socket: Any = None

    async def play(self, url: str, twin_url: str | None) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with websockets.connect(url, additional_headers=headers) as socket:
            if twin_url is not None:
                async with websockets.connect(twin_url, additional_headers=headers) as twin:
                    self.twin_socket = twin
                    reader = asyncio.create_task(self.read_answers(twin, self.twin))
                    try:
                        await self.read(socket)
                    finally:
                        await self.last_answers()
                        reader.cancel()
                        await asyncio.gather(reader, return_exceptions=True)
            else:
                await self.read(socket)

    async def read(self, socket: Any) -> None:
        async for raw in socket:
            message = json.loads(raw)
            if message["type"] in ("ack", "error"):
                self.main.answers.append(message["data"])
            elif message["type"] in ("state", "event"):
                self.version = max(self.version, message["version"])
                if message["data"]["view"]["over"]:
                    self.over = True
                    if len(self.main.answers) == len(self.main.sent):
                        return
                else:
                    await self.act(socket, message["version"])
            if self.over and len(self.main.answers) == len(self.main.sent):
                return

    async def act(self, socket: Any, version: int) -> None:
        """At the first version of a run of this seat's moves, send the whole run at once."""
        if version >= len(self.moves) or self.moves[version][0] != self.seat:
            return
        if version in self.started or (version > 0 and self.moves[version - 1][0] == self.seat):
            return  # sent with the run it belongs to
        self.started.add(version)
        run = run_of(self.moves, version)
        frames = [action_frame(index + 1, self.moves[index][1]) for index in run]
        sends = [self.send(socket, self.main, run, frames)]
        if self.twin is not None:
            sends.append(self.send(self.twin_socket, self.twin, run, frames))
        await asyncio.gather(*sends)

    @staticmethod
    async def send(socket: Any, log: SocketLog, run: list[int], frames: list[str]) -> None:
        for index, frame in zip(run, frames, strict=True):
            log.sent.append(index + 1)
            await socket.send(frame)

    async def read_answers(self, socket: Any, log: SocketLog) -> None:
        async for raw in socket:
            message = json.loads(raw)
            if message["type"] in ("ack", "error"):
                log.answers.append(message["data"])

    async def last_answers(self) -> None:
        """Wait a moment for the twin's answers to its last frames."""
        deadline = time.monotonic() + 5
        while self.twin is not None and len(self.twin.answers) < len(self.twin.sent):
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(0.02)


def ws_url(base: str, match_id: int) -> str:
    return base.replace("http://", "ws://") + f"/ws/api/match/{match_id}/"


def test_each_socket_s_moves_are_applied_in_the_order_sent_across_two_processes(layout: Layout):
    users = [UserFactory(), UserFactory()]
    tokens = [token_create(user=user, name="order")[1] for user in users]
    match = match_create(
        variant=VARIANT,
        target=1,
        seed=SEED,
        seats=[SeatSpec(name=user.username, user=user) for user in users],
        table=TableFactory(variant=VARIANT),
    )
    moves = planned_moves(match)
    runs = [run_of(moves, v) for v in range(len(moves)) if v == 0 or moves[v - 1][0] != moves[v][0]]
    assert max(len(run) for run in runs) >= 2, "no seat has two moves in a row: nothing to race"
    seats = [
        Seat(
            seat=0, token=tokens[0], moves=moves, main=SocketLog("0 on A"), twin=SocketLog("0 on B")
        ),
        Seat(seat=1, token=tokens[1], moves=moves, main=SocketLog("1 on B")),
    ]

    async def play() -> None:
        tasks = [
            asyncio.create_task(
                seats[0].play(ws_url(layout.urls[0], match.pk), ws_url(layout.urls[1], match.pk))
            ),
            asyncio.create_task(seats[1].play(ws_url(layout.urls[1], match.pk), None)),
        ]
        try:
            done, pending = await asyncio.wait(
                tasks, timeout=MATCH_TIMEOUT, return_when=asyncio.FIRST_EXCEPTION
            )
            for task in done:
                task.result()
            if pending:
                raise AssertionError(
                    f"the match stalled: versions seen {[s.version for s in seats]}, planned "
                    f"{len(moves)}\n{[(s.main, s.twin) for s in seats]}"
                )
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    try:
        asyncio.run(play())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{layout.output()}") from failure

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.version == len(moves)
    assert sorted(MatchEvent.objects.filter(match=match).values_list("version", flat=True)) == list(
        range(len(moves) + 1)
    )
    stored = {
        (seat, seq): version
        for seat, seq, version in ClientAction.objects.filter(match=match).values_list(
            "seat", "client_seq", "version"
        )
    }
    # Every move applied once, on the turn it was planned for: client_seq i made version i.
    assert stored == {(seat, index + 1): index + 1 for index, (seat, _) in enumerate(moves)}
    for seat in seats:
        for log in filter(None, [seat.main, seat.twin]):
            # Each frame answered, in the order sent, and never refused: a move overtaken by the
            # one sent after it would be refused (not your turn) or applied on another turn.
            assert [answer["client_seq"] for answer in log.answers] == log.sent, log
            assert all("code" not in answer for answer in log.answers), log
    # The twin's copies raced the main socket's across processes: each applied exactly once.
    twin = seats[0].twin
    assert twin is not None
    copies = [seats[0].main.answers, twin.answers]
    for seq in seats[0].main.sent:
        applied = [a["applied"] for answers in copies for a in answers if a["client_seq"] == seq]
        assert applied.count(True) == 1, (seq, applied)
