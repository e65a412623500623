"""A rematch: once a match between people is over (R7.1), its players sit down together again in
one click each, at a table with the same settings, each in the seat he had where it is free."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from games.lobby.services import (
    TableError,
    play_against_computer,
    table_join_seat,
    table_leave_seat,
)
from games.models import Match, Seat, Table
from games.play.rematch import match_rematch
from tests.accounts.players import client_for
from tests.games.factories import UserFactory, match_play, open_table
from tests.live.match_sockets import CLOSE_WAIT, connect, table_html

pytestmark = pytest.mark.django_db

REMATCH = re.compile(
    r'<button type="submit" form="rematch"[^>]*>(Rematch|Join the rematch)</button>'
)


def _finished(
    variant: str = "hokm2", *, names=("arash", "bahar"), **settings
) -> tuple[Match, list]:
    """A match of people at a table opened by the first, played to its end (target 1)."""
    people = [UserFactory(username=name) for name in names]
    options = {"variant": variant, "target": 1, "is_private": True, "allow_spectators": False}
    table = open_table(people[0], **(options | {"computer_level": "hard"} | settings))
    for index, person in enumerate(people[1:], start=1):
        match = table_join_seat(table=table, user=person, seat_index=index)
    if match is None:  # seats left for computer players
        from games.lobby.services import table_start

        match = table_start(table=table, user=people[0])
    played = match_play(match)
    assert played.match.status == Match.Status.FINISHED
    return played.match, people


def _button(client: Client, match: Match) -> str | None:
    response = client.get(reverse("games:match", args=[match.pk]))
    assert response.status_code == 200
    found = REMATCH.search(response.content.decode())
    return found.group(1) if found else None


def _seat_of(table: Table, user) -> int | None:
    return Seat.objects.filter(table=table, user=user).values_list("index", flat=True).first()


def test_first_asks_the_other_joins_and_the_rematch_starts_R7_1() -> None:
    match, (arash, bahar) = _finished()
    first, second = client_for(arash), client_for(bahar)
    assert _button(first, match) == "Rematch"
    assert _button(second, match) == "Rematch"

    response = second.post(reverse("games:match_rematch", args=[match.pk]))
    match.refresh_from_db()
    table = match.rematch_table
    assert response.status_code == 302
    assert response["Location"] == reverse("games:table_detail", args=[table.pk])
    # The same settings, and bahar in the seat he had (the one who asks need not be seat 0).
    old = match.table
    for field in ("variant", "target", "turn_clock_seconds", "is_private", "allow_spectators"):
        assert getattr(table, field) == getattr(old, field), field
    assert (table.fill_with_computer, table.computer_level) == (False, "hard")
    assert table.status == Table.Status.OPEN
    assert _seat_of(table, bahar) == 1 and _seat_of(table, arash) is None
    assert _button(first, match) == "Join the rematch"

    # Private, yet arash needs no invitation: he played the match.
    response = first.post(reverse("games:match_rematch", args=[match.pk]))
    table.refresh_from_db()
    assert response["Location"] == reverse("games:table_detail", args=[table.pk])
    assert _seat_of(table, arash) == 0
    assert table.status == Table.Status.PLAYING
    again = table.matches.get()
    assert again.status == Match.Status.PLAYING and again.pk != match.pk
    # The table's page sends both to the new match.
    assert first.get(response["Location"])["Location"] == reverse("games:match", args=[again.pk])


def test_asking_twice_gives_the_same_table_and_a_started_rematch_refuses_latecomers() -> None:
    match, (ava, ben, cyrus) = _finished("hokm3", names=("ava", "ben", "cyrus"))
    table = match_rematch(match=match, user=ava)
    assert match_rematch(match=match, user=ava) == table
    assert Table.objects.filter(created_by=ava).count() == 2  # the match's table and this one
    match_rematch(match=match, user=ben)
    # While cyrus waits, someone else takes the last seat: the table fills and starts.
    stranger = UserFactory(username="dariush")
    table_join_seat(table=table, user=stranger, seat_index=2)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    with pytest.raises(TableError, match="already started without you"):
        match_rematch(match=match, user=cyrus)


def test_his_seat_taken_he_gets_a_free_one() -> None:
    match, (ava, ben, cyrus) = _finished("hokm3", names=("ava", "ben", "cyrus"))
    table = match_rematch(match=match, user=ben)  # seat 1
    stranger = UserFactory(username="dariush")
    table_join_seat(table=table, user=stranger, seat_index=2)  # cyrus's seat
    match_rematch(match=match, user=cyrus)
    assert _seat_of(table, cyrus) == 0


def test_a_rematch_table_everyone_left_is_replaced_by_a_new_one() -> None:
    match, (arash, bahar) = _finished()
    table = match_rematch(match=match, user=arash)
    table_leave_seat(table=table, user=arash)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    renewed = match_rematch(match=match, user=bahar)
    assert renewed != table and renewed.status == Table.Status.OPEN
    assert _seat_of(renewed, bahar) == 1
    match.refresh_from_db()
    assert match.rematch_table == renewed


def test_computer_seats_of_the_match_are_filled_again_by_the_table() -> None:
    """A table of two people and two computer players: the rematch fills with computers too,
    and its opener starts it."""
    match, (arash, bahar) = _finished("hokm4", fill_with_computer=True, computer_level="easy")
    table = match_rematch(match=match, user=arash)
    assert (table.fill_with_computer, table.computer_level) == (True, "easy")
    client = client_for(arash)
    response = client.post(reverse("games:table_start", args=[table.pk]))
    assert response.status_code in (200, 302)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_refused_before_the_end_to_strangers_and_against_the_computer_alone() -> None:
    people = [UserFactory(username=name) for name in ("arash", "bahar")]
    table = open_table(people[0], variant="hokm2", target=1, is_private=True)
    playing = table_join_seat(table=table, user=people[1], seat_index=1)
    tables = Table.objects.count()

    client = client_for(people[0])
    response = client.post(reverse("games:match_rematch", args=[playing.pk]), follow=True)
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "A rematch can be asked for once the match is over."
    ]
    assert _button(client, playing) is None

    finished, (arash, bahar) = _finished(names=("kaveh", "laleh"))
    stranger = client_for(UserFactory(username="mitra"))
    assert stranger.post(reverse("games:match_rematch", args=[finished.pk])).status_code == 404
    assert (
        client_for(arash).get(reverse("games:match_rematch", args=[finished.pk])).status_code == 405
    )
    anonymous = Client().post(reverse("games:match_rematch", args=[finished.pk]))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]

    alone = play_against_computer(user=people[0], variant="hokm2", target=1)
    match_play(alone)
    with pytest.raises(TableError, match="Play again"):
        match_rematch(match=alone, user=people[0])
    assert _button(client, alone) is None
    assert Table.objects.count() == tables + 2  # the two matches' own tables, no rematch


@pytest.mark.django_db(transaction=True)
async def test_the_other_players_table_offers_the_rematch_as_soon_as_it_is_opened() -> None:
    match, (arash, bahar) = await database_sync_to_async(_finished)()
    page = await connect(bahar, match.pk, api=False)
    assert REMATCH.search(await table_html(page)).group(1) == "Rematch"
    await database_sync_to_async(match_rematch)(match=match.pk, user=arash)
    while True:
        found = REMATCH.search(await table_html(page))
        if found.group(1) == "Join the rematch":
            break
    await page.disconnect(timeout=CLOSE_WAIT)
