"""The sockets of one process share what they load for an event (games/play/loads.py,
``RecentLoads``): one read of the match per event, whatever the number of seats and spectators,
none when the service that made the event ran in the same process (``event_prime``), and still
each seat sees only its own view (R8.3)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from games.play import loads as loads_module
from games.play.selectors import match_state_build
from tests.games.factories import UserFactory
from tests.live.match_sockets import (
    check_frames,
    connect,
    make_match,
    receive,
    until_version,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def loads(monkeypatch) -> list[tuple[int, int | None]]:
    """Every read of a match by a socket, as ``(match id, since)``."""
    calls: list[tuple[int, int | None]] = []
    real = loads_module.load

    def counted(match_id: int, since: int | None) -> loads_module.Loaded:
        calls.append((match_id, since))
        return real(match_id, since)

    monkeypatch.setattr(loads_module, "load", counted)
    return calls


async def four_seats_and_a_spectator(loads: list) -> tuple[list, int, int]:
    """The sockets of a new hokm4 match's four seats and a spectator, settled; the match's id
    and the seat of its Hakem."""
    match, users = await database_sync_to_async(make_match)("hokm4")
    watcher = await database_sync_to_async(UserFactory)()
    sockets = [await connect(user, match.pk) for user in users]
    sockets.append(await connect(watcher, match.pk))
    for socket in sockets:
        assert (await receive(socket))["type"] == "state"
    # Presence frames follow each connect: let them all arrive first.
    for socket in sockets:
        while not await socket.receive_nothing(timeout=0.3):
            await socket.receive_output()
    state = await database_sync_to_async(match_state_build)(match=match)
    loads.clear()
    return sockets, match.pk, state.hand.to_act


async def call_trump_and_check(sockets: list, match_id: int, hakem: int) -> None:
    """The Hakem calls hearts; every socket gets the event with its own seat's view only."""
    await sockets[hakem].send_to(
        text_data=json.dumps(
            {"type": "action", "client_seq": 1, "action": {"type": "call_trump", "suit": "H"}}
        )
    )
    frames = {seat: await until_version(socket, 1) for seat, socket in enumerate(sockets)}
    # Shared rows, but each socket still gets its own seat's view and nothing more.
    for seat, seen in frames.items():
        viewer = seat if seat < 4 else None
        assert seen[-1]["type"] == "event"
        assert seen[-1]["data"]["seat"] == viewer
        assert [event["kind"] for event in seen[-1]["data"]["events"]] == ["call_trump"]
        await check_frames(seen, match_id, viewer)
    hands = [frames[seat][-1]["data"]["view"]["hand"]["hand"] for seat in range(4)]
    assert len({tuple(hand) for hand in hands}) == 4
    for socket in sockets:
        await socket.disconnect()


async def test_the_movers_process_sends_the_event_without_reading_the_match_R8_3(loads):
    sockets, match_id, hakem = await four_seats_and_a_spectator(loads)

    await call_trump_and_check(sockets, match_id, hakem)

    assert loads == []  # the service handed its rows over on commit


async def test_four_seats_and_a_spectator_read_the_match_once_per_event_R8_3(loads, monkeypatch):
    # As in a process that did not make the change: nothing handed over.
    monkeypatch.setattr(loads_module, "local_matches", set())
    sockets, match_id, hakem = await four_seats_and_a_spectator(loads)

    await call_trump_and_check(sockets, match_id, hakem)

    assert loads == [(match_id, 0)]


def test_recent_loads_forget_old_entries_and_keep_a_bounded_number(monkeypatch):
    recent = loads_module.RecentLoads(size=2, seconds=5)
    clock = [100.0]
    monkeypatch.setattr(loads_module.time, "monotonic", lambda: clock[0])
    a, b, c = object(), object(), object()
    recent.put((1, 1, 0), a)
    recent.put((1, 2, 1), b)
    assert recent.get((1, 1, 0)) is a
    recent.put((2, 1, 0), c)  # the oldest entry makes room
    assert recent.get((1, 1, 0)) is None
    assert recent.get((1, 2, 1)) is b
    clock[0] += 5.1
    assert recent.get((1, 2, 1)) is None
    assert recent.get((2, 1, 0)) is None
