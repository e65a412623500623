"""Tables before their match: the services and selectors of ``games.lobby.services``."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.tokens import token_create
from games.lobby.selectors import (
    TABLE_IDLE_SECONDS,
    computer_player_name,
    lobby_tables,
    table_can_view,
    table_for_invite,
    table_view,
)
from games.lobby.services import (
    LOBBY_GROUP,
    NAME_MAX_LENGTH,
    TableError,
    play_against_computer,
    table_group_name,
    table_join_seat,
    table_leave_seat,
    table_start,
    tables_idle_close,
)
from games.models import ComputerLevel, Match, MatchSeat, Seat, Table
from games.play.autoplay import Worker
from moderation.models import Sanction
from tests.accounts.players import client_for, sanction_in_force
from tests.games.factories import UserFactory, api_match_start, open_table, table_snapshot

pytestmark = pytest.mark.django_db


def seat_users(table: Table) -> list[int | None]:
    return list(Seat.objects.filter(table=table).order_by("index").values_list("user", flat=True))


# -- creating ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), [("hokm4", 4), ("hokm3", 3), ("hokm2", 2)])
def test_create_gives_a_seat_per_player_with_the_creator_at_seat_0(variant, players):
    creator = UserFactory()

    table = open_table(creator, variant=variant)

    assert seat_users(table) == [creator.pk] + [None] * (players - 1)
    assert table.status == Table.Status.OPEN
    assert table.created_by == creator


def test_create_names_an_unnamed_table_after_its_creator():
    creator = UserFactory(display_name="Shirin")

    table = open_table(creator, name="  ")

    assert table.name == "Shirin's table"


@pytest.mark.parametrize("variant", ["hokm3", "hokm2", "hokm2-draw"])
def test_partner_draw_is_refused_without_four_players_R2_3(variant):
    with pytest.raises(TableError, match="four players"):
        open_table(variant=variant, partner_draw=True)

    assert Table.objects.count() == 0
    assert Seat.objects.count() == 0


@pytest.mark.parametrize("target", [0, 22, -1])
def test_target_outside_1_to_21_is_refused_R7_1(target):
    with pytest.raises(TableError, match="between 1 and 21"):
        open_table(target=target)

    assert Table.objects.count() == 0


def test_public_table_needs_a_turn_clock_R8_1():
    with pytest.raises(TableError, match="Only private tables"):
        open_table(turn_clock_seconds=None, is_private=False)

    table = open_table(turn_clock_seconds=None, is_private=True)
    assert table.turn_clock_seconds is None


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"variant": "hokm5"}, "variants"),
        ({"turn_clock_seconds": 45}, "15, 30 or 60"),
        ({"computer_level": "godlike"}, "computer levels"),
        ({"name": "x" * 61}, "at most 60"),
    ],
)
def test_other_bad_settings_are_refused_with_a_reason(overrides, message):
    with pytest.raises(TableError, match=message):
        open_table(**overrides)

    assert Table.objects.count() == 0


# -- seats ---------------------------------------------------------------------------------------


def test_join_takes_an_empty_seat():
    table = open_table()
    guest = UserFactory()

    started = table_join_seat(table=table, user=guest, seat_index=2)

    assert started is None
    assert seat_users(table)[2] == guest.pk


def test_a_taken_seat_is_refused_and_nothing_changes():
    table = open_table()
    first, second = UserFactory(), UserFactory()
    table_join_seat(table=table, user=first, seat_index=1)
    before = table_snapshot(table)

    with pytest.raises(TableError, match="already sits"):
        table_join_seat(table=table, user=second, seat_index=1)

    assert table_snapshot(table) == before


def test_a_seat_taken_by_a_computer_is_refused():
    table = open_table()
    Seat.objects.filter(table=table, index=3).update(computer_level=ComputerLevel.EASY)

    with pytest.raises(TableError, match="already sits"):
        table_join_seat(table=table, user=UserFactory(), seat_index=3)


def test_one_seat_per_player_a_second_join_moves_them():
    table = open_table()
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)

    table_join_seat(table=table, user=guest, seat_index=3)

    assert seat_users(table) == [table.created_by_id, None, None, guest.pk]


def test_joining_ones_own_seat_changes_nothing():
    table = open_table()
    before = table_snapshot(table)

    assert table_join_seat(table=table, user=table.created_by, seat_index=0) is None
    assert table_snapshot(table) == before


@pytest.mark.parametrize("seat_index", [-1, 4, 99])
def test_a_seat_the_table_does_not_have_is_refused(seat_index):
    table = open_table()
    before = table_snapshot(table)

    with pytest.raises(TableError, match="no seat"):
        table_join_seat(table=table, user=UserFactory(), seat_index=seat_index)

    assert table_snapshot(table) == before


def test_leave_frees_the_seat_before_the_start():
    table = open_table()
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=2)

    table_leave_seat(table=table, user=guest)

    assert seat_users(table) == [table.created_by_id, None, None, None]
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN


def test_leave_is_refused_to_someone_not_seated():
    table = open_table()
    before = table_snapshot(table)

    with pytest.raises(TableError, match="not sitting"):
        table_leave_seat(table=table, user=UserFactory())

    assert table_snapshot(table) == before


def test_the_last_player_leaving_closes_the_table():
    table = open_table()

    table_leave_seat(table=table, user=table.created_by)

    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert table not in [view.table for view in lobby_tables()]
    with pytest.raises(TableError, match="closed"):
        table_join_seat(table=table, user=UserFactory(), seat_index=1)


def test_partners_sit_opposite_R1_4():
    table = open_table()

    view = table_view(table=table, viewer=table.created_by)

    assert [seat.team for seat in view.seats] == ["A", "B", "A", "B"]


def test_three_and_two_players_have_no_teams_R1_4():
    for variant in ("hokm3", "hokm2"):
        view = table_view(table=open_table(variant=variant), viewer=None)
        assert {seat.team for seat in view.seats} == {""}


def test_the_viewers_seat_is_drawn_at_the_bottom_and_play_goes_anticlockwise_R1_3():
    table = open_table()
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=2)

    positions = {seat.index: seat.position for seat in table_view(table=table, viewer=guest).seats}

    # Seat 3 plays after seat 2: to its right on screen.
    assert positions == {2: "bottom", 3: "right", 0: "top", 1: "left"}


# -- the start -----------------------------------------------------------------------------------


def fill(table: Table, seats: range) -> list[Any]:
    users = []
    match = None
    for index in seats:
        user = UserFactory(display_name=f"Player {index}")
        match = table_join_seat(table=table, user=user, seat_index=index)
        users.append(user)
    return [*users, match]


def test_the_last_join_starts_the_match_with_seats_in_order():
    creator = UserFactory(username="creator")
    table = open_table(creator, target=5)
    *users, match = fill(table, range(1, 4))

    assert isinstance(match, Match)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert match.table == table
    assert (match.variant, match.target, match.status) == ("hokm4", 5, Match.Status.PLAYING)
    seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    assert [seat.user_id for seat in seats] == [creator.pk] + [user.pk for user in users]
    assert [seat.name for seat in seats] == ["creator", "Player 1", "Player 2", "Player 3"]
    assert all(seat.computer_level is None for seat in seats)
    assert match.hands.count() == 1


def test_a_table_that_started_takes_no_more_joins_or_leaves():
    table = open_table(variant="hokm2")
    table_join_seat(table=table, user=UserFactory(), seat_index=1)
    before = table_snapshot(table)

    with pytest.raises(TableError, match="already started"):
        table_join_seat(table=table, user=UserFactory(), seat_index=1)
    with pytest.raises(TableError, match="only be left before the start"):
        table_leave_seat(table=table, user=table.created_by)

    assert table_snapshot(table) == before


def test_partner_draw_reaches_the_match_and_reseats_the_same_players_R2_3():
    table = open_table(partner_draw=True)
    *users, match = fill(table, range(1, 4))

    assert match.partner_draw is True
    seated = set(MatchSeat.objects.filter(match=match).values_list("user", flat=True))
    assert seated == {table.created_by_id, *(user.pk for user in users)}


def test_start_fills_the_empty_seats_with_computers_at_the_tables_level():
    table = open_table(fill_with_computer=True, computer_level=ComputerLevel.HARD)
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=2)

    match = table_start(table=table, user=table.created_by)

    seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    assert [seat.user_id for seat in seats] == [table.created_by_id, None, guest.pk, None]
    assert [seat.computer_level for seat in seats] == [None, "hard", None, "hard"]
    assert seats[1].name == computer_player_name(level="hard", index=1) == "Hard bot 2"
    assert list(
        Seat.objects.filter(table=table).order_by("index").values_list("computer_level", flat=True)
    ) == [None, "hard", None, "hard"]
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_only_the_creator_starts_a_table():
    table = open_table(fill_with_computer=True)
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)
    before = table_snapshot(table)

    with pytest.raises(TableError, match="Only the player who opened"):
        table_start(table=table, user=guest)

    assert table_snapshot(table) == before


def test_a_table_without_computer_players_does_not_start_early():
    table = open_table(fill_with_computer=False)
    before = table_snapshot(table)

    with pytest.raises(TableError, match="starts when every seat is taken"):
        table_start(table=table, user=table.created_by)

    assert table_snapshot(table) == before


@pytest.mark.parametrize(("variant", "players"), [("hokm4", 4), ("hokm2-draw", 2)])
def test_play_against_the_computer_starts_at_once(variant, players):
    user = UserFactory()

    match = play_against_computer(user=user, variant=variant)

    assert (match.variant, match.target, match.status) == (variant, 7, Match.Status.PLAYING)
    seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    assert seats[0].user == user
    assert [seat.computer_level for seat in seats[1:]] == ["medium"] * (players - 1)
    table = match.table
    assert table.is_private
    assert table.status == Table.Status.PLAYING
    assert lobby_tables() == []


def test_play_against_the_computer_refuses_an_unknown_variant():
    with pytest.raises(TableError):
        play_against_computer(user=UserFactory(), variant="bridge")

    assert Table.objects.count() == Match.objects.count() == 0


# -- selectors -----------------------------------------------------------------------------------


def test_lobby_lists_open_public_tables_newest_first():
    older = open_table(name="older")
    newer = open_table(name="newer")
    open_table(name="secret", is_private=True)
    started = open_table(name="started", variant="hokm2")
    table_join_seat(table=started, user=UserFactory(), seat_index=1)

    assert [view.table.name for view in lobby_tables()] == [newer.name, older.name]


@pytest.mark.parametrize("count", [1, 10])
def test_lobby_tables_take_three_queries_however_many_tables(count, django_assert_num_queries):
    for _ in range(count):
        table = open_table()
        table_join_seat(table=table, user=UserFactory(), seat_index=1)

    # The tables, their seats with their users, and the seated players' ratings.
    with django_assert_num_queries(3):
        views = lobby_tables()
        names = [seat.name for view in views for seat in view.seats]

    assert len(views) == count
    assert len([name for name in names if name]) == 2 * count


def test_lobby_tables_show_seats_taken():
    table = open_table()
    table_join_seat(table=table, user=UserFactory(display_name="Dara"), seat_index=3)

    (view,) = lobby_tables()

    assert (view.taken, view.players) == (2, 4)
    assert [seat.name for seat in view.seats] == [table.created_by.username, "", "", "Dara"]


def test_table_for_invite_finds_the_table_by_its_code_only():
    table = open_table(is_private=True)

    assert table_for_invite(table.invite_code) == table
    assert table_for_invite("not-a-code") is None
    assert table_for_invite("") is None


def test_a_private_table_is_visible_with_its_invite_or_to_its_players():
    table = open_table(is_private=True)
    stranger, guest = UserFactory(), UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)

    assert not table_can_view(table=table, user=stranger, invited_table_ids=[])
    assert table_can_view(table=table, user=stranger, invited_table_ids=[table.pk])
    assert table_can_view(table=table, user=guest, invited_table_ids=[])
    assert table_can_view(table=table, user=table.created_by, invited_table_ids=[])
    public = open_table()
    assert table_can_view(table=public, user=stranger, invited_table_ids=[])


# -- events after the commit ---------------------------------------------------------------------


@pytest.fixture
def layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layer = get_channel_layer()
    yield channel_layer
    async_to_sync(channel_layer.flush)()


def listen(layer: Any, group: str) -> str:
    channel = f"probe-{group}"
    async_to_sync(layer.group_add)(group, channel)
    return channel


def heard(layer: Any, channel: str) -> list[dict[str, Any]]:
    async def drain() -> list[dict[str, Any]]:
        messages = []
        while True:
            try:
                messages.append(await asyncio.wait_for(layer.receive(channel), 0.1))
            except TimeoutError:
                return messages

    return async_to_sync(drain)()


def lobby_changes(messages: list[dict[str, Any]]) -> list[int]:
    """The tables of the lobby's messages, each a ``lobby.changed`` with an id of its own."""
    assert all(message["type"] == "lobby.changed" for message in messages), messages
    assert len({message["change"] for message in messages}) == len(messages), messages
    return [message["table_id"] for message in messages]


def test_changes_are_announced_only_after_the_commit(layer, django_capture_on_commit_callbacks):
    lobby = listen(layer, LOBBY_GROUP)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        table = open_table()
    assert heard(layer, lobby) == []

    for callback in callbacks:
        callback()

    assert lobby_changes(heard(layer, lobby)) == [table.pk]


def test_joins_tell_the_table_and_the_lobby_and_the_start_names_the_match(
    layer, django_capture_on_commit_callbacks
):
    table = open_table(variant="hokm2")
    lobby, seats = listen(layer, LOBBY_GROUP), listen(layer, table_group_name(table.pk))

    with django_capture_on_commit_callbacks(execute=True):
        match = table_join_seat(table=table, user=UserFactory(), seat_index=1)

    assert heard(layer, seats) == [
        {"type": "table.changed", "table_id": table.pk, "match_id": match.pk}
    ]
    assert lobby_changes(heard(layer, lobby)) == [table.pk]


def test_private_tables_are_never_announced_to_the_lobby(layer, django_capture_on_commit_callbacks):
    lobby = listen(layer, LOBBY_GROUP)

    with django_capture_on_commit_callbacks(execute=True):
        table = open_table(is_private=True)
        table_join_seat(table=table, user=UserFactory(), seat_index=1)

    assert heard(layer, lobby) == []


def test_a_refused_join_announces_nothing(layer, django_capture_on_commit_callbacks):
    table = open_table()
    seats = listen(layer, table_group_name(table.pk))

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(TableError):
        table_join_seat(table=table, user=UserFactory(), seat_index=0)

    assert heard(layer, seats) == []


# -- one match at a time -------------------------------------------------------------------------


def test_a_match_between_people_starting_stands_its_players_up_from_their_other_tables(
    layer, django_capture_on_commit_callbacks
):
    """A player waiting at two tables was dealt into two clocked matches once both filled. As a
    lichess seek goes when a game starts, the match's players leave their other open tables:
    the one only he sat at closes, the lobby and its page are told; a stranger's stays open."""
    waiting, joiner, stranger = UserFactory(), UserFactory(), UserFactory()
    first = open_table(waiting, variant="hokm2")
    own = open_table(waiting, variant="hokm2")  # only he sits here
    later = open_table(stranger, variant="hokm4")
    table_join_seat(table=later, user=waiting, seat_index=2)
    table_join_seat(table=later, user=joiner, seat_index=3)
    lobby, told = listen(layer, LOBBY_GROUP), listen(layer, table_group_name(later.pk))

    with django_capture_on_commit_callbacks(execute=True):
        match = table_join_seat(table=first, user=joiner, seat_index=1)

    assert match is not None
    assert seat_users(first) == [waiting.pk, joiner.pk]
    assert seat_users(later) == [stranger.pk, None, None, None]
    assert Table.objects.get(pk=later.pk).status == Table.Status.OPEN
    assert seat_users(own) == [None, None]
    assert Table.objects.get(pk=own.pk).status == Table.Status.CLOSED
    assert {"type": "table.changed", "table_id": later.pk} in heard(layer, told)
    assert set(lobby_changes(heard(layer, lobby))) >= {first.pk, own.pk, later.pk}


def test_a_match_against_the_computer_alone_leaves_his_open_tables_as_they_are():
    """No clock runs against the computer: a player may play it while he waits for people."""
    player = UserFactory()
    waiting = open_table(player)

    play_against_computer(user=player, variant="hokm2")

    assert seat_users(waiting) == [player.pk, None, None, None]
    assert Table.objects.get(pk=waiting.pk).status == Table.Status.OPEN


def test_a_table_started_meanwhile_is_not_left(django_capture_on_commit_callbacks):
    """The other tables are left after the commit, each under its own lock: one that started in
    between keeps its player (leaving it is refused, and that refusal is no error here)."""
    player, friend = UserFactory(), UserFactory()
    first = open_table(player, variant="hokm2")
    second = open_table(player, variant="hokm2")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        table_join_seat(table=first, user=friend, seat_index=1)
    table_join_seat(table=second, user=UserFactory(), seat_index=1)  # starts before the callbacks

    for callback in callbacks:
        callback()

    assert Table.objects.get(pk=second.pk).status == Table.Status.PLAYING
    assert seat_users(second)[0] == player.pk


# -- open tables nobody comes to -----------------------------------------------------------------


def _idle_for(table: Table, seconds: float) -> None:
    Table.objects.filter(pk=table.pk).update(
        seats_changed_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_an_open_table_where_no_seat_changed_for_an_hour_is_closed_and_told(
    layer, django_capture_on_commit_callbacks
):
    """An open table stayed in the lobby for good once its players had gone, for the next player
    to sit down and wait in vain. The worker's sweep closes those where nobody has taken or left
    a seat for TABLE_IDLE_SECONDS; the players keep their seats on the closed table."""
    creator = UserFactory()
    idle_public = open_table(creator)
    idle_private = open_table(UserFactory(), is_private=True)
    recent = open_table(UserFactory())
    started = open_table(UserFactory(), variant="hokm2")
    table_join_seat(table=started, user=UserFactory(), seat_index=1)
    for table in (idle_public, idle_private, started):
        _idle_for(table, TABLE_IDLE_SECONDS + 60)
    _idle_for(recent, TABLE_IDLE_SECONDS - 60)
    lobby, told = listen(layer, LOBBY_GROUP), listen(layer, table_group_name(idle_public.pk))

    with django_capture_on_commit_callbacks(execute=True):
        closed = tables_idle_close()

    assert closed == 2
    statuses = dict(Table.objects.values_list("pk", "status"))
    assert statuses[idle_public.pk] == statuses[idle_private.pk] == Table.Status.CLOSED
    assert statuses[recent.pk] == Table.Status.OPEN
    assert statuses[started.pk] == Table.Status.PLAYING
    assert Table.objects.get(pk=idle_public.pk).closed_idle
    assert not Table.objects.get(pk=recent.pk).closed_idle
    assert seat_users(idle_public)[0] == creator.pk
    assert heard(layer, told) == [{"type": "table.changed", "table_id": idle_public.pk}]
    assert lobby_changes(heard(layer, lobby)) == [idle_public.pk]  # not the private one
    assert [view.table for view in lobby_tables()] == [recent]


def test_taking_or_leaving_a_seat_starts_the_idle_time_again():
    table = open_table()
    guest = UserFactory()
    _idle_for(table, TABLE_IDLE_SECONDS + 60)
    table_join_seat(table=table, user=guest, seat_index=1)
    assert tables_idle_close() == 0

    _idle_for(table, TABLE_IDLE_SECONDS + 60)
    table_leave_seat(table=table, user=guest)
    assert tables_idle_close() == 0

    assert tables_idle_close(now=timezone.now() + timedelta(seconds=TABLE_IDLE_SECONDS + 1)) == 1
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_a_closed_idle_table_refuses_seats_and_its_page_says_why(client):
    creator = UserFactory()
    table = open_table(creator)
    _idle_for(table, TABLE_IDLE_SECONDS + 60)
    tables_idle_close()

    with pytest.raises(TableError, match="closed"):
        table_join_seat(table=table, user=UserFactory(), seat_index=1)
    client.force_login(creator)
    page = client.get(f"/tables/{table.pk}/").content.decode()

    assert "This table is closed." in page
    assert f"Nobody took or left a seat here for {TABLE_IDLE_SECONDS // 60} minutes." in page
    assert "/tables/new/" in page


def test_the_workers_sweep_closes_idle_tables():
    table = open_table()
    _idle_for(table, TABLE_IDLE_SECONDS + 60)

    Worker()._sweep()

    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


# -- the creator who left --------------------------------------------------------------------------


def test_a_creator_who_left_his_seat_cannot_start_the_table_for_those_who_stayed():
    creator, guest = UserFactory(), UserFactory()
    table = open_table(creator, fill_with_computer=True)
    table_join_seat(table=table, user=guest, seat_index=1)
    table_leave_seat(table=table, user=creator)
    before = table_snapshot(table)

    with pytest.raises(TableError) as refused:
        table_start(table=table, user=creator)

    assert refused.value.message == "Take a seat at this table to start its match."
    assert table_snapshot(table) == before
    # Seated again, he may.
    table_join_seat(table=table, user=creator, seat_index=0)
    assert table_start(table=table, user=creator).pk


# -- players sanctioned after they sat down --------------------------------------------------------


@pytest.mark.parametrize(
    "kind", [Sanction.Kind.PLAY_BAN, Sanction.Kind.RENAME, Sanction.Kind.SUSPEND]
)
def test_the_last_join_does_not_deal_in_a_player_kept_from_playing_since_he_sat_down(kind):
    table = open_table()
    barred, third, last = UserFactory(), UserFactory(), UserFactory()
    table_join_seat(table=table, user=barred, seat_index=1)
    table_join_seat(table=table, user=third, seat_index=2)
    # A play ban (or a suspension that starts later) is not enforced on open tables at once.
    sanction_in_force(barred, kind, reason="Left 3 matches")

    match = table_join_seat(table=table, user=last, seat_index=3)

    assert match is None
    assert not Match.objects.exists()
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    seats = dict(Seat.objects.filter(table=table).values_list("index", "user"))
    assert seats == {0: table.created_by_id, 1: None, 2: third.pk, 3: last.pk}
    # The next player to sit down starts it, without him.
    match = table_join_seat(table=table, user=UserFactory(), seat_index=1)
    assert match is not None
    assert not MatchSeat.objects.filter(match=match, user=barred).exists()


def test_a_start_with_computers_gives_a_sanctioned_players_seat_to_a_computer():
    creator, barred = UserFactory(), UserFactory()
    table = open_table(creator, fill_with_computer=True, computer_level=ComputerLevel.HARD)
    table_join_seat(table=table, user=barred, seat_index=2)
    sanction_in_force(barred, Sanction.Kind.PLAY_BAN, reason="Left 3 matches")

    match = table_start(table=table, user=creator)

    seats = list(match.seats.order_by("index").values_list("user", "computer_level"))
    assert seats == [
        (creator.pk, None),
        (None, ComputerLevel.HARD),
        (None, ComputerLevel.HARD),
        (None, ComputerLevel.HARD),
    ]


# -- refusals that say the right thing -------------------------------------------------------------


def test_leaving_a_closed_table_says_it_is_closed_not_that_its_match_started():
    creator = UserFactory()
    table = open_table(creator)
    table_leave_seat(table=table, user=creator)
    before = table_snapshot(table)

    with pytest.raises(TableError) as refused:
        table_leave_seat(table=table, user=creator)

    assert refused.value.message == "This table is closed."
    assert table_snapshot(table) == before


# -- names made for the player ---------------------------------------------------------------------


LONGEST_DISPLAY_NAME = "Shahrzad " + "x" * 31  # a display name has at most 40 characters


def test_a_player_with_the_longest_display_name_can_play_the_computer():
    player = UserFactory(display_name=LONGEST_DISPLAY_NAME)
    assert len(player.display_name) == User._meta.get_field("display_name").max_length

    match = play_against_computer(user=player)

    name = match.table.name
    assert len(name) == NAME_MAX_LENGTH
    assert name.startswith(LONGEST_DISPLAY_NAME) and name.endswith("…")
    # Over the API, and with the table form's default name too.
    _, raw = token_create(user=player, name="bot")
    assert api_match_start(raw, {"variant": "hokm2"}).status_code == 201
    assert open_table(player, name="").name == f"{LONGEST_DISPLAY_NAME}'s table"


def test_a_typed_name_too_long_is_still_refused():
    with pytest.raises(TableError) as refused:
        open_table(name="n" * (NAME_MAX_LENGTH + 1))

    assert refused.value.message == "A table's name has at most 60 characters."
    assert not Table.objects.exists()


@pytest.mark.parametrize("name", ["\x07\x07", "Friday\nnight", "Friday\tnight", "\x1bnight"])
def test_a_table_name_with_control_characters_is_refused(name):
    # "\x07\x07" would show in the lobby as a table with no name at all.
    with pytest.raises(TableError) as refused:
        open_table(name=name)
    assert "invisible characters" in refused.value.message
    client = client_for(UserFactory())
    form = {"name": name, "variant": "hokm4", "target": 7, "turn_clock_seconds": "30"}
    form["computer_level"] = ComputerLevel.MEDIUM

    response = client.post(reverse("games:table_create"), form)

    assert response.status_code == 200
    assert "invisible characters" in response.context["form"].errors["name"][0]
    assert not Table.objects.exists()
