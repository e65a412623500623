"""Tables and the lobby under hostile or unlucky use: players who left or were sanctioned since
they sat down, strangers at a table whose match started, refusals that must say the right thing
and change nothing."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any
from urllib.parse import unquote

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test import Client
from django.urls import path, reverse
from django.utils import timezone

from accounts.models import Sanction, User
from accounts.tokens import token_create
from games import tables
from games.lobby_consumers import TableConsumer, scope_site_url
from games.models import ComputerLevel, Match, MatchSeat, Seat, Table
from games.tables import (
    INVITED_SESSION_KEY,
    NAME_MAX_LENGTH,
    TABLES_PER_WINDOW,
    TABLES_WINDOW,
    TableError,
    TooManyTablesError,
    play_against_computer,
    table_for_invite,
    table_join_seat,
    table_leave_seat,
    table_start,
    table_view,
)
from tests.games.factories import UserFactory, api_match_start, open_table
from tests.games.test_tables import snapshot

pytestmark = pytest.mark.django_db

db = database_sync_to_async


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def detail_url(table: Table) -> str:
    return reverse("games:table_detail", args=[table.pk])


def sanction(user: User, kind: str, *, minutes: int = 60) -> Sanction:
    """A sanction in force from a second ago, written as the moderation services would."""
    now = timezone.now()
    return Sanction.objects.create(
        user=user,
        kind=kind,
        reason="Left 3 matches",
        starts_at=now - timedelta(seconds=1),
        ends_at=now + timedelta(minutes=minutes),
    )


# -- the creator who left ------------------------------------------------------------------------


def test_a_creator_who_left_his_seat_cannot_start_the_table_for_those_who_stayed():
    creator, guest = UserFactory(), UserFactory()
    table = open_table(creator, fill_with_computer=True)
    table_join_seat(table=table, user=guest, seat_index=1)
    table_leave_seat(table=table, user=creator)
    before = snapshot(table)

    with pytest.raises(TableError) as refused:
        table_start(table=table, user=creator)

    assert refused.value.message == "Take a seat at this table to start its match."
    assert snapshot(table) == before
    # Seated again, he may.
    table_join_seat(table=table, user=creator, seat_index=0)
    assert table_start(table=table, user=creator).pk


def test_the_start_button_is_not_offered_to_a_creator_who_left_his_seat():
    creator, guest = UserFactory(), UserFactory()
    table = open_table(creator, fill_with_computer=True)
    table_join_seat(table=table, user=guest, seat_index=1)
    client = logged_in(creator)
    start_url = reverse("games:table_start", args=[table.pk])
    assert start_url in client.get(detail_url(table)).content.decode()

    table_leave_seat(table=table, user=creator)

    assert not table_view(table=table, viewer=creator).can_start
    assert start_url not in client.get(detail_url(table)).content.decode()
    response = client.post(start_url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "Take a seat at this table to start its match." in response.content.decode()
    assert not Match.objects.exists()


# -- players sanctioned after they sat down ------------------------------------------------------


@pytest.mark.parametrize(
    "kind", [Sanction.Kind.PLAY_BAN, Sanction.Kind.RENAME, Sanction.Kind.SUSPEND]
)
def test_the_last_join_does_not_deal_in_a_player_kept_from_playing_since_he_sat_down(kind):
    table = open_table()
    barred, third, last = UserFactory(), UserFactory(), UserFactory()
    table_join_seat(table=table, user=barred, seat_index=1)
    table_join_seat(table=table, user=third, seat_index=2)
    # A play ban (or a suspension that starts later) is not enforced on open tables at once.
    sanction(barred, kind)

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
    sanction(barred, Sanction.Kind.PLAY_BAN)

    match = table_start(table=table, user=creator)

    seats = list(match.seats.order_by("index").values_list("user", "computer_level"))
    assert seats == [
        (creator.pk, None),
        (None, ComputerLevel.HARD),
        (None, ComputerLevel.HARD),
        (None, ComputerLevel.HARD),
    ]


# -- a started table without spectators ---------------------------------------------------------


def start_without_spectators() -> tuple[Table, Match]:
    table = open_table(variant="hokm2", allow_spectators=False)
    match = table_join_seat(table=table, user=UserFactory(), seat_index=1)
    assert match is not None
    return table, match


def test_a_strangers_table_page_does_not_send_him_to_a_match_he_may_not_watch():
    table, match = start_without_spectators()
    match_url = reverse("games:match", args=[match.pk])

    for client in (Client(), logged_in(UserFactory())):
        response = client.get(detail_url(table))

        # Sent on, he would get the login page or "This table does not allow spectators" (403).
        assert response.status_code == 200
        page = response.content.decode()
        assert "data-redirect" not in page
        assert match_url not in page
        assert "This table does not allow spectators." in page
    # Its players still go straight to their match.
    player = logged_in(table.created_by).get(detail_url(table))
    assert player.status_code == 302
    assert player.url == match_url


def test_a_join_refused_as_the_match_started_leaves_a_stranger_on_the_table_page():
    table, match = start_without_spectators()
    join = reverse("games:table_join", args=[table.pk, 1])
    client = logged_in(UserFactory())

    response = client.post(join, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert "HX-Redirect" not in response.headers
    page = response.content.decode()
    assert "The match at this table has already started." in page
    assert reverse("games:match", args=[match.pk]) not in page


# -- refusals that say the right thing -----------------------------------------------------------


def test_leaving_a_closed_table_says_it_is_closed_not_that_its_match_started():
    creator = UserFactory()
    table = open_table(creator)
    table_leave_seat(table=table, user=creator)
    before = snapshot(table)

    with pytest.raises(TableError) as refused:
        table_leave_seat(table=table, user=creator)

    assert refused.value.message == "This table is closed."
    assert snapshot(table) == before


def test_an_empty_post_to_the_create_form_says_what_is_missing():
    client = logged_in(UserFactory())

    response = client.post(reverse("games:table_create"), {})

    assert response.status_code == 200
    form = response.context["form"]
    assert form.is_bound
    assert {"variant", "target"} <= set(form.errors)
    assert not Table.objects.exists()


def test_the_wait_for_the_next_table_says_one_minute_not_one_minutes():
    lale = UserFactory()
    for _ in range(TABLES_PER_WINDOW):
        open_table(lale, is_private=True, turn_clock_seconds=None)
    # The oldest leaves the window in 30 seconds: one minute to wait.
    oldest = Table.objects.filter(created_by=lale).order_by("created_at").first()
    Table.objects.filter(pk=oldest.pk).update(
        created_at=timezone.now() - TABLES_WINDOW + timedelta(seconds=30)
    )

    with pytest.raises(TooManyTablesError) as refused:
        open_table(lale)

    assert refused.value.message.endswith("You can open another in 1 minute.")
    assert 0 < refused.value.retry_after <= 31


# -- the table allowance under parallel requests -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_tables_opened_at_once_cannot_slip_past_the_allowance(monkeypatch):
    lale = UserFactory()
    for _ in range(TABLES_PER_WINDOW - 1):
        open_table(lale, is_private=True, turn_clock_seconds=None)
    # The first request stops inside its transaction, its table written but not committed, until
    # the second has had its chance to count.
    written, go_on = threading.Event(), threading.Event()
    announce = tables._table_changed_on_commit

    def slow_announce(table: Table, **kwargs: Any) -> None:
        if not written.is_set():
            written.set()
            go_on.wait(timeout=5)
        announce(table, **kwargs)

    monkeypatch.setattr(tables, "_table_changed_on_commit", slow_announce)
    outcomes: list[str] = []

    def open_one() -> None:
        try:
            open_table(lale, is_private=True, turn_clock_seconds=None)
            outcomes.append("opened")
        except TooManyTablesError:
            outcomes.append("refused")
        finally:
            connection.close()

    first = threading.Thread(target=open_one)
    first.start()
    assert written.wait(timeout=5)
    second = threading.Thread(target=open_one)
    second.start()
    second.join(timeout=0.5)  # it counts now, or waits for the first's lock
    go_on.set()
    first.join(timeout=30)
    second.join(timeout=30)

    assert sorted(outcomes) == ["opened", "refused"]
    assert Table.objects.filter(created_by=lale).count() == TABLES_PER_WINDOW


# -- leaving a private table ---------------------------------------------------------------------


@pytest.mark.parametrize("with_htmx", [False, True])
def test_leaving_a_private_table_seen_only_as_its_player_goes_to_the_lobby_not_a_404(with_htmx):
    table = open_table(is_private=True, turn_clock_seconds=None)
    guest = UserFactory()
    # He sat down through the invite link in another browser (or before signing out and in).
    table_join_seat(table=table, user=guest, seat_index=1)
    client = logged_in(guest)
    assert client.get(detail_url(table)).status_code == 200
    headers = {"HX-Request": "true"} if with_htmx else {}

    response = client.post(reverse("games:table_leave", args=[table.pk]), headers=headers)

    lobby = reverse("games:lobby")
    assert (response.headers["HX-Redirect"] if with_htmx else response.url) == lobby
    assert Seat.objects.get(table=table, index=1).user is None
    page = client.get(lobby)
    assert "You left the table." in page.content.decode()
    # With its invite link opened here, he stays on the table's page.
    other = UserFactory()
    other_client = logged_in(other)
    other_client.get(reverse("games:table_invite", args=[table.invite_code]))
    table_join_seat(table=table, user=other, seat_index=2)
    response = other_client.post(reverse("games:table_leave", args=[table.pk]))
    assert response.url == detail_url(table)


# -- names made for the player -------------------------------------------------------------------

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
    client = logged_in(UserFactory())
    form = {"name": name, "variant": "hokm4", "target": 7, "turn_clock_seconds": "30"}
    form["computer_level"] = ComputerLevel.MEDIUM

    response = client.post(reverse("games:table_create"), form)

    assert response.status_code == 200
    assert "invisible characters" in response.context["form"].errors["name"][0]
    assert not Table.objects.exists()


# -- methods -------------------------------------------------------------------------------------


def test_the_lobby_and_table_pages_answer_head_as_get_does():
    # RFC 9110 9.1: a general-purpose server supports GET and HEAD (the match page already does).
    table = open_table(is_private=True, turn_clock_seconds=None)
    client = Client()
    for url in (
        reverse("games:lobby"),
        detail_url(open_table()),
        reverse("games:table_invite", args=[table.invite_code]),
    ):
        get, head = client.get(url), client.head(url)
        assert get.status_code == head.status_code == 200, url
        assert head.content == b""
    assert client.post(reverse("games:lobby")).status_code == 405
    client.force_login(UserFactory())
    assert client.head(reverse("games:table_create")).status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_a_strangers_table_socket_does_not_send_him_to_a_match_he_may_not_watch(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    table = await db(open_table)(variant="hokm2", allow_spectators=False)
    stranger = await db(UserFactory)()
    router = URLRouter([path("ws/table/<int:table_id>/", TableConsumer.as_asgi())])

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await router({**scope, "user": stranger, "session": {}}, receive, send)

    watcher = WebsocketCommunicator(app, f"/ws/table/{table.pk}/")
    assert (await watcher.connect())[0]
    await watcher.receive_from()

    match = await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)
    fragment = await watcher.receive_from()

    assert "data-redirect" not in fragment
    assert f"/match/{match.pk}/" not in fragment
    assert "This table does not allow spectators." in fragment
    await watcher.disconnect()


# -- the invite link over the socket -------------------------------------------------------------


def test_the_invite_link_sent_over_the_socket_keeps_the_pages_https_behind_a_proxy():
    # nginx ends TLS and daphne runs without --proxy-headers (docs/operations.md): the socket's
    # scheme is ws, while the page, and its Origin, are https.
    scope = {
        "scheme": "ws",
        "headers": [(b"host", b"hokm.example"), (b"origin", b"https://hokm.example")],
    }

    assert scope_site_url(scope) == "https://hokm.example"
    # Without an Origin (no browser), the host and the socket's scheme still do.
    assert scope_site_url({"scheme": "wss", "headers": [(b"host", b"hokm.example")]}) == (
        "https://hokm.example"
    )
    assert scope_site_url({"scheme": "ws", "headers": [(b"origin", b"null")]}) == ""


# -- invite codes no link can hold ---------------------------------------------------------------


@pytest.mark.parametrize("code", ["%00", "abc%00def", "%C3%A9t%C3%A9", "x" * 33])
def test_an_invite_code_no_link_can_hold_is_a_404_without_a_lookup(code, django_assert_num_queries):
    # PostgreSQL refuses a text holding NUL with an error (a 500) instead of finding nothing.
    open_table(is_private=True, turn_clock_seconds=None)
    client = Client(raise_request_exception=False)

    with django_assert_num_queries(0):
        assert table_for_invite(unquote(code)) is None
    response = client.get(f"/invite/{code}/")

    # A NUL in any address is a 400 before any view (hokm_site.null_characters).
    assert response.status_code == (400 if "%00" in code else 404)
    assert INVITED_SESSION_KEY not in client.session


# -- forged ids ----------------------------------------------------------------------------------


def test_forged_table_ids_answer_404_and_forged_seats_a_reason():
    # Past the database's integer range too (PostgreSQL's bigint): a 404, never a 500.
    table = open_table()
    client = logged_in(UserFactory())
    client.raise_request_exception = False
    huge = 10**30
    for method, url in (
        ("get", f"/tables/{huge}/"),
        ("post", f"/tables/{huge}/seats/1/join/"),
        ("post", f"/tables/{huge}/leave/"),
        ("post", f"/tables/{huge}/start/"),
    ):
        assert getattr(client, method)(url).status_code == 404, url
    before = snapshot(table)

    response = client.post(f"/tables/{table.pk}/seats/{huge}/join/", headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert f"This table has no seat {huge + 1}." in response.content.decode()
    assert snapshot(table) == before
