"""Reconnection and resync over the real consumers (R8.2), and the public event log (R8.3).

A client that dropped names the last version it saw (``?since=V`` in the socket's address, or a
``{"type": "resync", "since": V}`` message); it gets the state with the events it missed, and the
state is exactly what a brand-new connection of the same seat gets: the invariant of Zulip's
event system, "an old state plus the events equals a fresh fetch", checked per seat.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.engine import FULL_DECK, get_variant, legal_actions, match_view, to_json
from games.models import CardPlay, Hand, Match, MatchEvent
from games.play.presence import connection_open
from games.play.selectors import match_state_build
from games.play.services import (
    SeatSpec,
    match_create,
    match_deal_next_hand,
    match_seat_back,
    match_seat_leave,
    match_step,
)
from tests.games.factories import UserFactory
from tests.games.rendered_cards import cards_allowed, cards_named
from tests.live.match_sockets import (
    CARD,
    check_frames,
    connect,
    frame_of_type,
    make_match,
    receive,
    table_html,
    until_version,
)
from tests.live.match_steps import SEQ, step, steps

pytestmark = pytest.mark.django_db(transaction=True)

CARD_TEXTS = {card.text for card in FULL_DECK}


# -- reading the match the way a fresh load does -------------------------------------------------


def match_version(match_id: int) -> int:
    return Match.objects.get(pk=match_id).version


def fresh_view(match_id: int, seat: int | None) -> dict[str, Any]:
    """The engine's view of the stored match for ``seat``, as JSON carries it."""
    state = match_state_build(match=Match.objects.get(pk=match_id))
    return json.loads(json.dumps(match_view(state, seat)))


def logged_events(match_id: int, since: int) -> list[dict[str, Any]]:
    """The stored event log after ``since``, in the shape clients get it."""
    rows = MatchEvent.objects.filter(match_id=match_id, version__gt=since).order_by("version")
    return [{"version": row.version, "kind": row.kind, **row.data} for row in rows]


def without_events(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "events"}


def view_only(data: dict[str, Any]) -> dict[str, Any]:
    """A frame's data less the events it reports, which may be of the hand before."""
    return {key: value for key, value in data.items() if key not in ("events", "event")}


# -- moving the match on through the services ----------------------------------------------------


def play_past_a_trick(match_id: int) -> None:
    """Play on until at least one more trick is complete, and one card beyond it."""
    tricks = len(match_state_build(match=Match.objects.get(pk=match_id)).hand.tricks)
    while len(match_state_build(match=Match.objects.get(pk=match_id)).hand.tricks) == tricks:
        step(match_id)
    step(match_id)


def play_past_the_hand(match_id: int) -> None:
    """Play the current hand to its end, deal the next one and play its first two decisions."""
    while not match_state_build(match=Match.objects.get(pk=match_id)).hand.is_over:
        step(match_id)
    match_deal_next_hand(match=match_id)
    steps(match_id, 2)


MISSED = {"trick": play_past_a_trick, "hand": play_past_the_hand}


async def socket_steps(clients: list, match_id: int, count: int) -> None:
    """The players on turn act over their own sockets; every socket then has the new state."""
    for _ in range(count):
        version = await database_sync_to_async(match_version)(match_id)
        state = await database_sync_to_async(
            lambda: match_state_build(match=Match.objects.get(pk=match_id))
        )()
        action = legal_actions(state.hand)[0]
        seq = next(SEQ)
        await clients[action.seat].send_to(
            text_data=json.dumps(
                {
                    "type": "action",
                    "client_seq": seq,
                    "version": version,
                    "action": to_json(action),
                }
            )
        )
        for index, client in enumerate(clients):
            frames = await until_version(client, version + 1)
            if index == action.seat:
                acks = [f for f in frames if f["type"] == "ack"]
                assert acks == [
                    {
                        "type": "ack",
                        "version": version,
                        "data": {"client_seq": seq, "applied": True},
                    }
                ]


async def first_state(client) -> dict:
    frame = await receive(client)
    assert frame["type"] == "state", frame
    return frame


async def resync(client, since: int) -> dict:
    """Ask for a resync on an open socket; the ``state`` frame that answers it."""
    await client.send_to(text_data=json.dumps({"type": "resync", "since": since}))
    while True:
        frame = await receive(client)
        if frame["type"] == "state":
            return frame
        assert frame["type"] == "event", frame  # live frames that were on their way


async def fresh_load(user, match_id: int, seat: int | None) -> dict:
    """What a brand-new connection of the same person gets, checked against the engine."""
    client = await connect(user, match_id)
    frame = await first_state(client)
    await client.disconnect()
    assert frame["data"]["events"] is None  # it named no version
    assert frame["data"]["view"] == await database_sync_to_async(fresh_view)(match_id, seat)
    return frame


async def assert_caught_up(frame: dict, *, user, match_id: int, seat: int | None, since: int):
    """``frame`` brings a client that saw ``since`` exactly to a fresh load (R8.2)."""
    current = await database_sync_to_async(match_version)(match_id)
    assert frame["version"] == current
    events = frame["data"]["events"]
    assert [event["version"] for event in events] == list(range(since + 1, current + 1))
    assert events == await database_sync_to_async(logged_events)(match_id, since)
    fresh = await fresh_load(user, match_id, seat)
    assert frame["data"]["view"] == fresh["data"]["view"]
    assert without_events(frame["data"]) == without_events(fresh["data"])
    assert frame["version"] == fresh["version"]
    # The view shows what the seat may see now; the events only cards that were played then.
    await check_frames([{**frame, "data": without_events(frame["data"])}], match_id, seat)
    played = await database_sync_to_async(played_cards)(match_id)
    for event in events:
        shown = set(CARD.findall(json.dumps(event)))
        assert shown <= set(played.get(event.get("hand"), [])), event
    return events


# -- a client that drops mid-hand ----------------------------------------------------------------


@pytest.mark.parametrize("missed", ["trick", "hand"])
@pytest.mark.parametrize("how", ["since_in_address", "resync_message"])
async def test_a_client_that_misses_events_ends_identical_to_a_fresh_load_R8_2(missed, how):
    match, users = await database_sync_to_async(make_match)("hokm4", target=7, seed=21)
    clients = [await connect(user, match.pk) for user in users]
    for client in clients:
        await first_state(client)
    await socket_steps(clients, match.pk, 3)  # trump, then two cards of the first trick
    hakem = (await database_sync_to_async(match_state_build)(match=match)).hand.hakem
    seat = (hakem + 1) % 4
    since = await database_sync_to_async(match_version)(match.pk)
    if how == "since_in_address":
        await clients[seat].disconnect()
    await database_sync_to_async(MISSED[missed])(match.pk)

    if how == "since_in_address":
        clients[seat] = await connect(users[seat], match.pk, query=f"since={since}")
        frame = await first_state(clients[seat])
    else:
        # The socket stayed open but its client lost track: it names the last version it kept.
        frame = await resync(clients[seat], since)
    events = await assert_caught_up(
        frame, user=users[seat], match_id=match.pk, seat=seat, since=since
    )
    kinds = [event["kind"] for event in events]
    assert any("trick_winner" in event for event in events)
    if missed == "hand":
        assert "hand_dealt" in kinds
        assert any("result" in event for event in events)
        assert frame["data"]["view"]["hand_number"] == 1
    # The reconnected seat plays on from there.
    await socket_steps(clients, match.pk, 2)
    for client in clients:
        await client.disconnect()


async def test_a_resync_with_nothing_missed_lists_no_events_R8_2():
    match, users = await database_sync_to_async(make_match)("hokm2", target=3)
    await database_sync_to_async(steps)(match.pk, 3)
    client = await connect(users[0], match.pk, query="since=3")
    frame = await first_state(client)
    assert frame["version"] == 3 and frame["data"]["events"] == []
    frame = await resync(client, 3)
    assert frame["data"]["events"] == []
    assert frame["data"]["view"] == await database_sync_to_async(fresh_view)(match.pk, 0)
    await client.disconnect()


# -- too old: the state alone --------------------------------------------------------------------


@pytest.mark.parametrize("how", ["since_in_address", "resync_message"])
async def test_too_old_a_version_gets_the_whole_state_and_no_events_R8_2(how, monkeypatch):
    monkeypatch.setattr("games.play.events.EVENTS_REPLAY_MAX", 5)
    match, users = await database_sync_to_async(make_match)("hokm4", target=7)
    await database_sync_to_async(steps)(match.pk, 8)
    current = await database_sync_to_async(match_version)(match.pk)
    seat = 2
    if how == "since_in_address":
        client = await connect(users[seat], match.pk, query="since=1")
        frame = await first_state(client)
    else:
        client = await connect(users[seat], match.pk)
        await first_state(client)
        frame = await resync(client, 1)
    assert frame["version"] == current and frame["data"]["events"] is None
    fresh = await fresh_load(users[seat], match.pk, seat)
    assert without_events(frame["data"]) == without_events(fresh["data"])
    # Five versions back is still within reach.
    frame = await resync(client, current - 5)
    assert [e["version"] for e in frame["data"]["events"]] == list(range(current - 4, current + 1))
    await client.disconnect()


async def test_a_missing_event_row_gets_the_whole_state_and_no_events_R8_2():
    match, users = await database_sync_to_async(make_match)("hokm4", target=7)
    await database_sync_to_async(steps)(match.pk, 6)
    await database_sync_to_async(
        lambda: MatchEvent.objects.filter(match=match, version=3).delete()
    )()
    client = await connect(users[1], match.pk, query="since=1")
    frame = await first_state(client)
    assert frame["version"] == 6 and frame["data"]["events"] is None
    fresh = await fresh_load(users[1], match.pk, 1)
    assert without_events(frame["data"]) == without_events(fresh["data"])
    # After the hole the log is whole again.
    frame = await resync(client, 3)
    assert [e["version"] for e in frame["data"]["events"]] == [4, 5, 6]
    await client.disconnect()


@pytest.mark.parametrize("since", ["-1", "abc", "", "9" * 19])
async def test_a_malformed_since_is_a_plain_connect(since):
    match, users = await database_sync_to_async(make_match)("hokm2", target=3)
    client = await connect(users[0], match.pk, query=f"since={since}")
    frame = await first_state(client)
    assert frame["data"]["events"] is None
    assert frame["data"]["view"] == await database_sync_to_async(fresh_view)(match.pk, 0)
    await client.disconnect()


# -- live frames: no gap -------------------------------------------------------------------------


async def test_live_event_frames_list_every_version_with_no_gap_R8_2():
    """Bursts of changes coalesce into one frame, whose ``events`` lists every version skipped:
    the log a client keeps from its frames is exactly the server's."""
    match, users = await database_sync_to_async(make_match)("hokm4", target=7, seed=8)
    client = await connect(users[0], match.pk)
    start = await first_state(client)
    rng = random.Random(3)

    def burst(count: int) -> int:
        for _ in range(count):
            if Hand.objects.filter(match=match).count() == 2:
                break  # the whole first hand and the next deal: enough
            step(match.pk)
        return match_version(match.pk)

    frames = []
    while True:
        version = await database_sync_to_async(burst)(rng.randint(1, 5))
        received = await until_version(client, version)
        # What each view shows, at the end of the burst it was read at (R8.3); the events,
        # which can name cards of the hand before, are checked below.
        await check_frames(
            [{**frame, "data": view_only(frame["data"])} for frame in received], match.pk, 0
        )
        frames += received
        if await database_sync_to_async(lambda: Hand.objects.filter(match=match).count() == 2)():
            break
    seen = start["version"]
    kept: list[dict] = []
    coalesced = False
    for frame in frames:
        assert frame["type"] == "event", frame
        events = frame["data"]["events"]
        assert [e["version"] for e in events] == list(range(seen + 1, frame["version"] + 1))
        # The frame names the change that woke it: the first it lists.
        first = dict(events[0])
        del first["version"]
        assert frame["data"]["event"] == first
        coalesced |= len(events) > 1
        kept += events
        seen = frame["version"]
    assert coalesced, "no burst was coalesced: the test did not test that"
    assert kept == await database_sync_to_async(logged_events)(match.pk, start["version"])
    played = await database_sync_to_async(played_cards)(match.pk)
    for event in kept:
        assert set(CARD.findall(json.dumps(event))) <= set(played.get(event["hand"], [])), event
    assert "hand_dealt" in {e["kind"] for e in kept}
    assert frames[-1]["data"]["view"] == await database_sync_to_async(fresh_view)(match.pk, 0)
    await client.disconnect()


async def test_a_frame_never_shows_a_state_newer_than_its_version_R8_2(monkeypatch):
    """A move that commits while a socket reads the match must not end up in a frame labelled
    with the version before it: the frame would hold a state its events do not explain."""
    import games.play.selectors

    match, users = await database_sync_to_async(make_match)("hokm2", target=3)
    client = await connect(users[0], match.pk)
    await first_state(client)
    await frame_of_type(client, "presence")  # its own arrival: the socket is idle now
    build = games.play.selectors.match_state_build
    moved = []

    def build_while_a_move_commits(**kwargs):
        if not moved:
            moved.append("moving")  # before the move: it builds a position too
            moved[0] = step(match.pk)  # another process commits right now
        return build(**kwargs)

    monkeypatch.setattr(games.play.selectors, "match_state_build", build_while_a_move_commits)
    # A position kept in memory is its version's by construction: the race is in building one
    # from the rows, which a process that kept none does.
    games.play.selectors.positions.clear()
    frame = await resync(client, 0)
    monkeypatch.undo()
    assert moved
    assert [e["version"] for e in frame["data"]["events"]] == list(range(1, frame["version"] + 1))
    assert frame["data"]["view"] == await database_sync_to_async(fresh_view)(match.pk, 0)
    assert frame["version"] == await database_sync_to_async(match_version)(match.pk)
    await client.disconnect()


# -- the event log shows no hidden card (R8.3) ---------------------------------------------------


def play_whole_match(variant: str) -> Match:
    """A whole match of people through the services, with a timeout, a seat left to the computer
    and taken back on the way: every kind of event a match logs."""
    rules = get_variant(variant)
    users = [UserFactory() for _ in range(rules.players)]
    match = match_create(
        variant=variant,
        target=2,
        seed=31,
        clock_seconds=30,
        seats=[SeatSpec(name=f"Player {i}", user=u) for i, u in enumerate(users)],
    )
    connection_open(match_id=match.pk, seat=0, user=users[0], channel_name=f"test.{match.pk}")
    for count in itertools.count():
        stored = Match.objects.get(pk=match.pk)
        if stored.status != Match.Status.PLAYING:
            return stored
        state = match_state_build(match=stored)
        if count == 4 and not state.awaiting_next_hand:
            # Nobody acts: the clock runs out and the computer decides (R8.1).
            assert match_step(match=match.pk, now=stored.step_at + timedelta(seconds=1))
        elif count == 9 and not state.awaiting_next_hand:
            seat = state.hand.to_act
            match_seat_leave(match=match.pk, seat=seat)
            assert match_step(match=match.pk, rush=True)  # the computer plays his seat
            match_seat_back(match=match.pk, seat=seat)
        else:
            step(match.pk)
    raise AssertionError("unreachable")


def played_cards(match_id: int) -> dict[int, list[str]]:
    """Every card played, by hand number, in the order played."""
    plays: dict[int, list[str]] = {}
    rows = (
        CardPlay.objects.filter(hand__match_id=match_id)
        .order_by("hand__number", "trick__number", "order")
        .values_list("hand__number", "card")
    )
    for number, card in rows:
        plays.setdefault(number, []).append(card)
    return plays


@pytest.mark.parametrize("variant", ["hokm4", "hokm3", "hokm2-draw"])
def test_no_event_in_the_log_shows_a_hidden_card_R8_3(variant, settings):
    # The stored log is what is checked here; no socket listens, and from a test without an
    # event loop each broadcast over Redis would open a connection of its own.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    match = play_whole_match(variant)
    rows = list(MatchEvent.objects.filter(match=match).order_by("version"))
    assert [row.version for row in rows] == list(range(match.version + 1))
    kinds = {row.kind for row in rows}
    assert {"match_created", "hand_dealt", "call_trump", "play_card", "seat_left", "seat_back"} <= (
        kinds
    )
    assert any(row.data.get("timeout") for row in rows)
    plays = played_cards(match.pk)
    hand, count = 0, 0
    for row in rows:
        data = dict(row.data)
        if row.kind == "match_created":
            # The flips that chose the first Hakem are public (R2.2) and from their own shuffle.
            assert data.pop("hakem_draw") == match.hakem_draw
        if row.kind in ("match_created", "hand_dealt"):
            hand, count = data["hand"], 0
        if row.kind == "play_card":
            assert data["hand"] == hand
            assert data["card"] == plays[hand][count]  # the card the log says is the one played
            count += 1
        if row.kind == "discard":
            # How many, never which (R3.5).
            assert set(data) - {"timeout", "back"} == {"hand", "seat", "count"}
            assert data["count"] in get_variant(variant).draw_discards
        shown = set(CARD.findall(json.dumps(data)))
        assert shown <= CARD_TEXTS
        assert shown <= set(plays.get(hand, [])[:count]), (row, shown)
    if variant == "hokm2-draw":
        assert {"discard", "keep_or_throw"} <= kinds


# -- the HTML page and spectators ----------------------------------------------------------------


TABLE_VERSION = re.compile(r'<div id="table"[^>]* data-version="(\d+)"')


def html_cards_allowed(match_id: int, seat: int | None) -> set[str]:
    return cards_allowed(match_state_build(match=Match.objects.get(pk=match_id)), seat)


@pytest.mark.parametrize("missed", ["trick", "hand"])
async def test_the_page_reconnecting_with_since_gets_the_whole_current_table_R8_2(missed):
    match, users = await database_sync_to_async(make_match)("hokm4", target=7, seed=21)
    seat = 1
    page = await connect(users[seat], match.pk, api=False)
    await table_html(page)
    await database_sync_to_async(steps)(match.pk, 3)
    await table_html(page)
    since = await database_sync_to_async(match_version)(match.pk)
    await page.disconnect()
    await database_sync_to_async(MISSED[missed])(match.pk)

    page = await connect(users[seat], match.pk, api=False, query=f"since={since}")
    html = await table_html(page)
    current = await database_sync_to_async(match_version)(match.pk)
    assert TABLE_VERSION.search(html).group(1) == str(current)
    assert cards_named(html) <= await database_sync_to_async(html_cards_allowed)(match.pk, seat)
    # Reloading shows exactly what a first visit shows.
    other = await connect(users[seat], match.pk, api=False)
    assert await table_html(other) == html
    await other.disconnect()
    await page.disconnect()


@pytest.mark.parametrize("how", ["since_in_address", "resync_message"])
async def test_a_spectator_gets_the_events_it_missed_and_never_a_hand_R8_2_R8_3(how):
    match, users = await database_sync_to_async(make_match)("hokm4", target=7, seed=21)
    watcher = await database_sync_to_async(UserFactory)()
    spectator = await connect(watcher, match.pk)
    await first_state(spectator)
    await database_sync_to_async(steps)(match.pk, 3)
    since = await database_sync_to_async(match_version)(match.pk)
    await until_version(spectator, since)
    if how == "since_in_address":
        await spectator.disconnect()
    await database_sync_to_async(play_past_the_hand)(match.pk)
    if how == "since_in_address":
        spectator = await connect(watcher, match.pk, query=f"since={since}")
        frame = await first_state(spectator)
    else:
        frame = await resync(spectator, since)
    await assert_caught_up(frame, user=watcher, match_id=match.pk, seat=None, since=since)
    hand = frame["data"]["view"]["hand"]
    assert frame["data"]["seat"] is None
    assert "hand" not in hand and "legal" not in hand  # no hand at all (R8.3)
    await spectator.disconnect()
