"""Who is at the table (R8.2), over the real consumers: sockets stored while open, presence
frames when a seat comes or goes, away and left seats (R8.1), "I'm back" and "leave" over the
socket, and what the HTML table shows of it all."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.engine import legal_actions
from games.models import Match, MatchConnection, MatchSeat, Table
from games.play.presence import (
    ALIVE_SECONDS,
    SWEEP_SECONDS,
    connection_open,
    connections_sweep,
    humans_connected,
    presence_of,
)
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create, match_seat_leave, match_step
from tests.games.factories import UserFactory
from tests.live.match_sockets import CLOSE_WAIT, connect, frame_of_type, make_match, table_html
from tests.live.match_steps import steps

pytestmark = pytest.mark.django_db(transaction=True)

CLOCK = 30
#: Seconds a test waits for a frame it expects.
FRAME_WAIT = 15


def presences(frame: dict) -> list[str]:
    """The presence of each seat in a state, event or presence frame."""
    data = frame["data"]
    return [seat["presence"] for seat in data.get("players") or data["seats"]]


def connection_rows(match_id: int) -> list[tuple[int | None, int | None]]:
    rows = MatchConnection.objects.filter(match_id=match_id).values_list("seat", "user_id")
    return sorted(rows, key=lambda row: (row[0] is None, row))


async def settled(client) -> None:
    """Wait until the socket's consumer has done everything its connect does (it takes
    messages one at a time: the pong comes after connect has finished)."""
    await client.send_to(text_data='{"type": "ping"}')
    while True:
        frame = await client.receive_from(timeout=5)
        if frame.startswith("{") and json.loads(frame)["type"] == "pong":
            return


# -- sockets, rows and presence frames -----------------------------------------------------------


async def test_each_socket_is_stored_and_others_see_a_seat_come_and_go_R8_2():
    match, users = await database_sync_to_async(make_match)("hokm4")
    rows = database_sync_to_async(connection_rows)
    observer = await connect(users[0], match.pk)
    state = await frame_of_type(observer, "state")
    assert presences(state) == ["connected", "gone", "gone", "gone"]
    assert presences(await frame_of_type(observer, "presence")) == [
        "connected",
        "gone",
        "gone",
        "gone",
    ]
    assert await rows(match.pk) == [(0, users[0].pk)]

    first = await connect(users[1], match.pk)
    state = await frame_of_type(first, "state")
    assert presences(state) == ["connected", "connected", "gone", "gone"]
    frame = await frame_of_type(observer, "presence")
    assert frame["data"] == {
        "seats": [
            {"seat": 0, "presence": "connected"},
            {"seat": 1, "presence": "connected"},
            {"seat": 2, "presence": "gone"},
            {"seat": 3, "presence": "gone"},
        ],
        "spectators": 0,
    }
    assert (await database_sync_to_async(presence_of)(match_id=match.pk)).seats == {0, 1}

    # A second socket of seat 1 (the page in another tab), then the first one closes: the seat
    # stays connected and nobody is told anything.
    second = await connect(users[1], match.pk, api=False)
    await settled(second)
    assert await rows(match.pk) == [(0, users[0].pk), (1, users[1].pk), (1, users[1].pk)]
    await first.disconnect(timeout=CLOSE_WAIT)
    assert await rows(match.pk) == [(0, users[0].pk), (1, users[1].pk)]
    assert (await database_sync_to_async(presence_of)(match_id=match.pk)).seats == {0, 1}
    # The next presence frame the observer gets is seat 2's arrival: none came in between.
    third = await connect(users[2], match.pk)
    for client in (observer, third):
        assert presences(await frame_of_type(client, "presence")) == [
            "connected",
            "connected",
            "connected",
            "gone",
        ]

    # Seat 1's last socket closes: everyone is told.
    await second.disconnect(timeout=CLOSE_WAIT)
    assert presences(await frame_of_type(observer, "presence")) == [
        "connected",
        "gone",
        "connected",
        "gone",
    ]
    assert presences(await frame_of_type(third, "presence")) == [
        "connected",
        "gone",
        "connected",
        "gone",
    ]
    assert (await database_sync_to_async(presence_of)(match_id=match.pk)).seats == {0, 2}
    assert await rows(match.pk) == [(0, users[0].pk), (2, users[2].pk)]

    # The state of an event frame shows presence too.
    await database_sync_to_async(steps)(match.pk, 1)
    event = await frame_of_type(observer, "event")
    assert presences(event) == ["connected", "gone", "connected", "gone"]

    for client in (observer, third):
        await client.disconnect(timeout=CLOSE_WAIT)
    assert await rows(match.pk) == []
    assert (await database_sync_to_async(presence_of)(match_id=match.pk)).seats == set()


async def test_spectators_are_counted_once_per_person_and_never_as_a_seat_R8_2():
    match, users = await database_sync_to_async(make_match)("hokm4")
    observer = await connect(users[0], match.pk)
    await frame_of_type(observer, "presence")
    watcher = await database_sync_to_async(UserFactory)()
    tabs = [await connect(watcher, match.pk), await connect(watcher, match.pk, api=False)]
    for tab in tabs:
        await settled(tab)
    assert await database_sync_to_async(connection_rows)(match.pk) == [
        (0, users[0].pk),
        (None, watcher.pk),
        (None, watcher.pk),
    ]
    presence = await database_sync_to_async(presence_of)(match_id=match.pk)
    assert presence.seats == {0} and presence.spectators == 1
    other = await database_sync_to_async(UserFactory)()
    third_tab = await connect(other, match.pk)
    state = await frame_of_type(third_tab, "state")
    assert state["data"]["spectators"] == 2
    assert presences(state) == ["connected", "gone", "gone", "gone"]
    # Players hear of each change in the count: one spectator (his two tabs are one person),
    # then two; then of the next seat to arrive.
    counts = [(await frame_of_type(observer, "presence"))["data"]["spectators"] for _ in range(2)]
    assert counts == [1, 2]
    player = await connect(users[1], match.pk)
    frame = await frame_of_type(observer, "presence")
    assert frame["data"]["spectators"] == 2
    assert presences(frame) == ["connected", "connected", "gone", "gone"]
    for tab in [*tabs, third_tab]:
        await tab.disconnect(timeout=CLOSE_WAIT)
    presence = await database_sync_to_async(presence_of)(match_id=match.pk)
    assert presence.seats == {0, 1} and presence.spectators == 0
    await player.disconnect(timeout=CLOSE_WAIT)
    await observer.disconnect(timeout=CLOSE_WAIT)


def test_a_row_not_refreshed_is_not_connected_and_is_swept_R8_2():
    match, users = make_match("hokm4")
    now = timezone.now()
    connection_open(match_id=match.pk, seat=0, user=users[0], channel_name="live.0")
    old = MatchConnection.objects.create(
        match=match,
        seat=1,
        user=users[1],
        channel_name="dead.1",
        seen_at=now - timedelta(seconds=ALIVE_SECONDS + 1),
    )
    swept = MatchConnection.objects.create(
        match=match,
        seat=2,
        user=users[2],
        channel_name="dead.2",
        seen_at=now - timedelta(seconds=SWEEP_SECONDS + 1),
    )
    MatchConnection.objects.create(
        match=match,
        seat=None,
        user=None,
        channel_name="dead.spectator",
        seen_at=now - timedelta(seconds=ALIVE_SECONDS + 1),
    )
    presence = presence_of(match_id=match.pk)
    assert presence.seats == {0} and presence.spectators == 0
    seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    assert [presence.of(s) for s in seats] == ["connected", "gone", "gone", "gone"]
    assert humans_connected(match_id=match.pk)
    # Once the live row is as old, nobody is there.
    later = now + timedelta(seconds=ALIVE_SECONDS + 1)
    assert presence_of(match_id=match.pk, now=later).seats == set()
    assert not humans_connected(match_id=match.pk, now=later)

    assert connections_sweep() == 1
    remaining = set(MatchConnection.objects.values_list("channel_name", flat=True))
    assert remaining == {"live.0", "dead.1", "dead.spectator"}
    assert not MatchConnection.objects.filter(pk=swept.pk).exists()
    assert connections_sweep(now=now + timedelta(seconds=SWEEP_SECONDS + 2)) == 3
    assert not MatchConnection.objects.filter(pk=old.pk).exists()


async def test_the_heartbeat_keeps_an_open_sockets_row_alive_R8_2(monkeypatch):
    monkeypatch.setattr("games.play.consumers.HEARTBEAT_SECONDS", 0.05)
    match, users = await database_sync_to_async(make_match)("hokm2")
    client = await connect(users[0], match.pk)
    await settled(client)
    stale = timezone.now() - timedelta(seconds=ALIVE_SECONDS + 5)
    await database_sync_to_async(
        lambda: MatchConnection.objects.filter(match=match).update(seen_at=stale)
    )()
    for _ in range(100):  # wait for the next beat
        presence = await database_sync_to_async(presence_of)(match_id=match.pk)
        if presence.seats == {0}:
            break
        await asyncio.sleep(0.05)
    assert presence.seats == {0}
    await client.disconnect(timeout=CLOSE_WAIT)


# -- away, left, computer (R8.1) -----------------------------------------------------------------


def clock_match(users, *, computer_seat: int = 3) -> Match:
    """Three people and a computer player at a public table with a turn clock, moved on until a
    person is on turn."""
    table = Table.objects.create(name="t", variant="hokm4", target=7, allow_spectators=True)
    specs = [SeatSpec(name=u.username, user=u) for u in users]
    specs.insert(computer_seat, SeatSpec(name="Computer", computer_level="medium"))
    match = match_create(
        variant="hokm4", target=7, seed=4, table=table, seats=specs, clock_seconds=CLOCK
    )
    computers_play(match.pk)
    return match


def computers_play(match_id: int) -> int:
    """Let the worker take every step that is not a playing person's clock; the seat on turn."""
    while True:
        state = match_state_build(match=Match.objects.get(pk=match_id))
        seat = MatchSeat.objects.get(match_id=match_id, index=state.hand.to_act)
        if seat.computer_level is None and seat.status == MatchSeat.Status.PLAYING:
            return seat.index
        assert match_step(match=match_id, rush=True)


def clock_runs_out(match_id: int) -> int:
    """The seat on turn lets its clock run out (R8.1); returns that seat."""
    match = Match.objects.get(pk=match_id)
    seat = match_state_build(match=match).hand.to_act
    assert match_step(match=match_id, now=match.step_at + timedelta(seconds=1))
    return seat


async def test_away_left_and_computer_seats_show_in_every_players_presence_R8_1_R8_2():
    users = [await database_sync_to_async(UserFactory)() for _ in range(3)]
    match = await database_sync_to_async(clock_match)(users)
    by_seat = await database_sync_to_async(
        lambda: {s.index: s.user for s in MatchSeat.objects.filter(match=match, user__isnull=False)}
    )()
    clients = {seat: await connect(user, match.pk) for seat, user in by_seat.items()}
    for client in clients.values():
        state = await frame_of_type(client, "state")
        assert state["data"]["players"][3]["presence"] == "computer"
        assert state["data"]["clock"]["seconds"] == CLOCK
    for client in clients.values():
        await settled(client)

    away = await database_sync_to_async(clock_runs_out)(match.pk)
    version = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
    for client in clients.values():
        frame = await frame_of_type(client, "event")
        while frame["version"] < version:
            frame = await frame_of_type(client, "event")
        assert frame["data"]["event"]["timeout"] is True and frame["data"]["event"]["seat"] == away
        player = frame["data"]["players"][away]
        assert (player["status"], player["presence"]) == ("away", "away")
        assert frame["data"]["players"][3]["presence"] == "computer"

    left = next(seat for seat in clients if seat != away)
    await database_sync_to_async(match_seat_leave)(match=match.pk, seat=left)
    for client in clients.values():
        frame = await frame_of_type(client, "event")
        while frame["data"]["event"]["kind"] != "seat_left":
            frame = await frame_of_type(client, "event")
        players = frame["data"]["players"]
        assert (players[left]["status"], players[left]["presence"]) == ("left", "gone")
        assert (players[away]["status"], players[away]["presence"]) == ("away", "away")
        assert players[3]["presence"] == "computer"
        staying = next(s for s in clients if s not in (away, left))
        assert players[staying]["presence"] == "connected"
    for client in clients.values():
        await client.disconnect(timeout=CLOSE_WAIT)


# -- "I'm back" and "leave" over the socket ------------------------------------------------------


async def seat_event(client, kind: str) -> dict:
    while True:
        # Generous: on a busy CI machine a frame once took more than 5 s to come.
        frame = json.loads(await client.receive_from(timeout=FRAME_WAIT))
        assert frame["type"] != "error", frame
        if frame["type"] == "event" and frame["data"]["event"]["kind"] == kind:
            return frame


async def error_frame(client) -> dict:
    while True:
        frame = json.loads(await client.receive_from(timeout=FRAME_WAIT))
        if frame["type"] == "error":
            return frame


def seat_status(match_id: int, seat: int) -> str:
    return MatchSeat.objects.get(match_id=match_id, index=seat).status


async def test_leave_and_back_messages_change_the_seat_and_everyone_sees_it_R8_1():
    match, users = await database_sync_to_async(make_match)("hokm4")
    watcher = await database_sync_to_async(UserFactory)()
    leaver = await connect(users[1], match.pk)
    other = await connect(users[0], match.pk)
    spectator = await connect(watcher, match.pk)
    everyone = (leaver, other, spectator)
    # The socket is accepted before its consumer joins the match's group: a leave sent before
    # all three have joined would not reach the late ones.
    for client in everyone:
        await settled(client)

    await leaver.send_to(text_data='{"type": "leave"}')
    for client in everyone:
        frame = await seat_event(client, "seat_left")
        assert frame["data"]["event"] == {"kind": "seat_left", "seat": 1}
        assert frame["data"]["events"][-1] == {
            "version": frame["version"],
            "kind": "seat_left",
            "seat": 1,
        }
        assert frame["data"]["players"][1]["status"] == "left"
        assert frame["data"]["players"][1]["presence"] == "gone"
    assert await database_sync_to_async(seat_status)(match.pk, 1) == "left"
    version = frame["version"]

    # Leaving again changes nothing.
    await leaver.send_to(text_data='{"type": "leave"}')
    await settled(leaver)
    assert await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)() == version

    await leaver.send_to(text_data='{"type": "back"}')
    for client in everyone:
        frame = await seat_event(client, "seat_back")
        assert frame["data"]["event"] == {"kind": "seat_back", "seat": 1}
        assert frame["version"] == version + 1
        assert frame["data"]["players"][1]["status"] == "playing"
        assert frame["data"]["players"][1]["presence"] == "connected"
    assert await database_sync_to_async(seat_status)(match.pk, 1) == "playing"

    # A spectator has no seat to leave or take back.
    for kind in ("leave", "back"):
        await spectator.send_to(text_data=json.dumps({"type": kind}))
        frame = await error_frame(spectator)
        assert frame["data"]["code"] == "not_seated"
    assert (
        await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
        == version + 1
    )
    for client in everyone:
        await client.disconnect(timeout=CLOSE_WAIT)


def play_to_the_end(match_id: int) -> None:
    while Match.objects.get(pk=match_id).status == Match.Status.PLAYING:
        state = match_state_build(match=Match.objects.get(pk=match_id))
        action = legal_actions(state.hand)[0]
        from games.play.services import match_apply_action

        match_apply_action(match=match_id, seat=action.seat, action=action)


async def test_after_the_match_is_over_leave_and_back_are_refused_R8_1():
    match, users = await database_sync_to_async(make_match)("hokm2", target=1)
    await database_sync_to_async(play_to_the_end)(match.pk)
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    client = await connect(users[0], match.pk)
    await frame_of_type(client, "state")
    for kind in ("leave", "back"):
        await client.send_to(text_data=json.dumps({"type": kind}))
        frame = await error_frame(client)
        assert frame["data"]["code"] == "match_over"
    after = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert (after.version, after.status) == (stored.version, Match.Status.FINISHED)
    assert await database_sync_to_async(seat_status)(match.pk, 0) == "playing"
    await client.disconnect(timeout=CLOSE_WAIT)


# -- what the HTML table shows -------------------------------------------------------------------


SEAT = re.compile(
    r'<section class="seat [^"]*" data-seat="(\d+)" data-presence="(\w+)".*?</section>', re.S
)
CLOCK_TAG = re.compile(
    r'<span class="turn-clock( is-yours)?" data-clock'
    r' data-remaining-ms="(\d+)" data-seconds="(\d+)"'
)


STAND_IN = re.compile(r'<div class="stand-in".*?</div>', re.S)


def seat_sections(html: str) -> dict[int, tuple[str, str]]:
    """Each seat's presence and markup in a table."""
    return {int(m.group(1)): (m.group(2), m.group(0)) for m in SEAT.finditer(html)}


async def test_the_page_shows_who_is_there_and_updates_it_R8_2():
    match, users = await database_sync_to_async(make_match)("hokm4")
    page = await connect(users[0], match.pk, api=False)
    html = await table_html(page)
    assert {s: p for s, (p, _) in seat_sections(html).items()} == {
        0: "connected",
        1: "gone",
        2: "gone",
        3: "gone",
    }
    assert "data-clock" not in html  # no clock at this table
    player = await connect(users[2], match.pk)
    while True:
        sections = seat_sections(await table_html(page))
        if sections[2][0] == "connected":
            break
    await player.disconnect(timeout=CLOSE_WAIT)
    while True:
        sections = seat_sections(await table_html(page))
        if sections[2][0] == "gone":
            break
    await page.disconnect(timeout=CLOSE_WAIT)


async def test_the_table_shows_away_and_left_seats_the_stand_in_panel_and_the_clock_R8_1():
    users = [await database_sync_to_async(UserFactory)() for _ in range(3)]
    match = await database_sync_to_async(clock_match)(users)
    seat_of = await database_sync_to_async(
        lambda: {s.user_id: s.index for s in MatchSeat.objects.filter(match=match)}
    )()
    seats = [seat_of[u.pk] for u in users]
    # A player is connected while the clock runs out, or it would stop instead (R8.2).
    sockets = [await connect(u, match.pk) for u in users]
    for socket in sockets:
        await settled(socket)
    away = await database_sync_to_async(clock_runs_out)(match.pk)
    left = next(s for s in seats if s != away)
    on_turn = next(s for s in seats if s not in (away, left))
    await database_sync_to_async(match_seat_leave)(match=match.pk, seat=left)
    assert await database_sync_to_async(computers_play)(match.pk) == on_turn

    user_at = {seat_of[u.pk]: u for u in users}
    watcher = await database_sync_to_async(UserFactory)()
    pages = {seat: await connect(user_at[seat], match.pk, api=False) for seat in seats}
    pages[None] = await connect(watcher, match.pk, api=False)
    html = {seat: await table_html(page) for seat, page in pages.items()}

    for viewer, table in html.items():
        sections = seat_sections(table)
        assert {s: p for s, (p, _) in sections.items()} == {
            away: "away",
            left: "gone",
            on_turn: "connected",
            3: "computer",
        }, viewer
        assert "Away · computer plays" in sections[away][1]
        assert "Left · computer plays" in sections[left][1]
        for seat in (on_turn, 3):
            assert "seat-badge--away" not in sections[seat][1]
        # The clock of the person on turn, and only his.
        clocks = CLOCK_TAG.findall(table)
        assert len(clocks) == 1 and clocks[0][0] == (" is-yours" if viewer == on_turn else "")
        assert CLOCK_TAG.search(sections[on_turn][1])
        remaining, seconds = int(clocks[0][1]), int(clocks[0][2])
        assert 0 < remaining <= CLOCK * 1000 and seconds == CLOCK

    # The stand-in panel is the away (or left) player's own, with the button to come back.
    panel = STAND_IN.search(html[away]).group(0)
    assert 'data-seat-form="back"' in panel and "I'm back" in panel
    panel = STAND_IN.search(html[left]).group(0)
    assert 'data-seat-form="back"' in panel and "Take my seat back" in panel
    for viewer in (on_turn, None):
        assert 'class="stand-in"' not in html[viewer]
        assert 'data-seat-form="back"' not in html[viewer]
    assert 'data-seat-form="leave"' in html[on_turn]
    assert 'data-seat-form="leave"' not in html[None]
    assert 'data-seat-form="leave"' not in html[away]  # he takes it back instead
    for page in pages.values():
        await page.disconnect(timeout=CLOSE_WAIT)
    for socket in sockets:
        await socket.disconnect(timeout=CLOSE_WAIT)
