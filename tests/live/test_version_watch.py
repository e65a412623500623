"""A socket that missed an event catches up by itself (games/play/consumers.py, ``_VersionWatch``).

Events are sent after the commit, robustly: when the channel layer is down at that moment the
move is stored and its event lost. The server's version watch finds the sockets behind the
stored match and sends them the state with the events they missed (R8.2), so a quiet table does
not wait for the next move to show the last one.
"""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from games.engine import CallTrump, Suit
from games.models import Match
from games.play import consumers
from games.play.selectors import match_state_build
from games.play.services import match_client_action
from lib import realtime
from tests.games.factories import UserFactory
from tests.live.match_sockets import check_frames, connect, make_match, receive

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
def quick_watch(monkeypatch) -> None:
    monkeypatch.setattr(consumers, "VERSION_WATCH_SECONDS", 0.1)


class _NoLayer:
    """What ``games.play.events`` finds while the channel layer is down: nothing to send to."""

    def __call__(self) -> None:
        return None


def call_trump_unheard(match_id: int) -> int:
    """The Hakem calls hearts while the channel layer is down: stored, its event lost."""
    match = Match.objects.get(pk=match_id)
    hakem = match_state_build(match=match).hand.to_act
    result = match_client_action(
        match=match, seat=hakem, action=CallTrump(seat=hakem, suit=Suit.HEARTS), client_seq=1
    )
    return result.version


async def drain(socket) -> None:
    while not await socket.receive_nothing(timeout=0.3):
        await socket.receive_output()


async def test_sockets_that_missed_an_event_get_the_state_and_the_events_R8_2(
    quick_watch, monkeypatch
):
    match, users = await db(make_match)("hokm4")
    watcher = await db(UserFactory)()
    sockets = [await connect(user, match.pk) for user in users]
    sockets.append(await connect(watcher, match.pk))
    page = await connect(users[1], match.pk, api=False)
    for socket in sockets:
        assert (await receive(socket))["type"] == "state"
    for socket in [*sockets, page]:
        await drain(socket)

    monkeypatch.setattr(realtime, "get_channel_layer", _NoLayer())
    version = await db(call_trump_unheard)(match.pk)
    monkeypatch.undo()
    monkeypatch.setattr(consumers, "VERSION_WATCH_SECONDS", 0.1)

    for seat, socket in enumerate(sockets):
        frame = await receive(socket)
        assert frame["type"] == "state"
        assert frame["version"] == version
        listed = frame["data"]["events"]
        assert [event["version"] for event in listed] == list(range(1, version + 1))
        assert listed[0]["kind"] == "call_trump"
        await check_frames([frame], match.pk, seat if seat < 4 else None)
    html = await page.receive_from(timeout=5)
    assert re.search(rf'<div id="table"[^>]*? data-version="{version}"', html)
    # Caught up once: no more frames while nothing changes.
    for socket in [*sockets, page]:
        assert await socket.receive_nothing(timeout=0.5)
    for socket in [*sockets, page]:
        await socket.disconnect()


async def test_a_socket_that_is_up_to_date_gets_nothing_from_the_watch(quick_watch):
    match, users = await db(make_match)("hokm2")
    socket = await connect(users[0], match.pk)
    assert (await receive(socket))["type"] == "state"
    await drain(socket)
    assert await socket.receive_nothing(timeout=0.6)
    await socket.disconnect()


def test_a_socket_is_behind_only_at_two_looks_in_a_row_with_nothing_moving():
    socket = consumers.MatchJsonConsumer()
    socket.last_version = 4
    assert not socket.behind(4)
    assert not socket.behind(5)  # the event may be on its way
    socket.last_version = 5  # it came
    assert not socket.behind(5)
    assert not socket.behind(6)
    assert not socket.behind(7)  # a busy table: events still coming, the socket is slow
    socket.last_version = 6
    assert not socket.behind(7)
    assert socket.behind(7)  # a look later nothing moved: its event was lost
    assert not socket.behind(7)  # asked once; the next looks start again
    assert socket.behind(7)
