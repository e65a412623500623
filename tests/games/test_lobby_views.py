"""The lobby and table pages: access, forms, htmx answers, redirects, query counts."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.lobby.selectors import table_for_invite, table_view
from games.lobby.services import (
    INVITED_SESSION_KEY,
    play_against_computer,
    table_join_seat,
    table_leave_seat,
    table_start,
)
from games.models import ComputerLevel, Match, MatchConnection, MatchSeat, Seat, Table
from games.play.presence import ALIVE_SECONDS, connection_open
from tests.accounts.players import client_for
from tests.games.factories import UserFactory, open_table, table_form_data, table_snapshot

pytestmark = pytest.mark.django_db

LOGIN_URL = "/accounts/login/"


@pytest.fixture(autouse=True)
def _login_url(settings):
    # The accounts app points LOGIN_URL at allauth's page; pin a path so these tests say where
    # anonymous people are sent without depending on the accounts URLs.
    settings.LOGIN_URL = LOGIN_URL


def htmx(client: Client, url: str) -> Any:
    return client.post(url, headers={"HX-Request": "true"})


def join_url(table: Table, seat: int) -> str:
    return reverse("games:table_join", args=[table.pk, seat])


def detail_url(table: Table) -> str:
    return reverse("games:table_detail", args=[table.pk])


def login_redirect(next_url: str) -> str:
    return f"{LOGIN_URL}?next={next_url}"


# -- the lobby -----------------------------------------------------------------------------------


def test_the_lobby_lists_public_tables_with_who_sits_where(client):
    table = open_table(UserFactory(display_name="Shirin"), name="Friday night")
    table_join_seat(table=table, user=UserFactory(display_name="Dara"), seat_index=2)

    page = client.get(reverse("games:lobby")).content.decode()

    assert "Friday night" in page
    assert "2/4" in page
    assert "Shirin" in page and "Dara" in page
    assert "Team A" in page and "Team B" in page
    assert detail_url(table) in page
    assert 'ws-connect="/ws/lobby/"' in page


def test_private_tables_are_hidden_from_the_lobby(client):
    open_table(name="Secret game", is_private=True)

    page = client.get(reverse("games:lobby")).content.decode()

    assert "Secret game" not in page
    assert "No open tables right now" in page


def test_the_lobby_offers_the_computer_for_every_variant_and_a_create_link(client):
    page = client.get(reverse("games:lobby")).content.decode()

    # One form: the level cards, then a submit button per game.
    assert page.count(f'action="{reverse("games:play_computer")}"') == 1
    for variant in ("hokm4", "hokm3", "hokm2", "hokm2-draw"):
        assert f'name="variant" value="{variant}"' in page
    assert reverse("games:table_create") in page


def test_the_lobby_links_back_to_the_players_matches_in_progress():
    user = UserFactory()
    match = play_against_computer(user=user)
    other = play_against_computer(user=UserFactory())

    page = client_for(user).get(reverse("games:lobby")).content.decode()

    assert reverse("games:match", args=[match.pk]) in page
    assert reverse("games:match", args=[other.pk]) not in page


@pytest.mark.parametrize("count", [1, 10])
def test_the_lobby_takes_a_fixed_number_of_queries(count, django_assert_num_queries):
    user = UserFactory()
    play_against_computer(user=user)
    for _ in range(count):
        table = open_table()
        table_join_seat(table=table, user=UserFactory(), seat_index=1)
    client = client_for(user)
    client.get(reverse("games:lobby"))  # his first visit seals his first shuffles (R8.4)

    # session, user, his sanctions (moderation.middleware), tables + seats with users, the seated
    # players' ratings, his matches with people (none here, so no seats), his unfinished matches
    # against the computer + their seats, his open tables, matches to watch, his sealed shuffles
    with django_assert_num_queries(12):
        response = client.get(reverse("games:lobby"))

    assert response.status_code == 200
    assert response.content.decode().count('class="lobby-table"') == count


def _player_connects(match: Match, *, seen_at: datetime | None = None) -> None:
    seat = MatchSeat.objects.filter(match=match, user__isnull=False).order_by("index").first()
    connection_open(
        match_id=match.pk, seat=seat.index, user=seat.user, channel_name=f"test.{match.pk}"
    )
    if seen_at is not None:
        MatchConnection.objects.filter(match=match).update(seen_at=seen_at)


def _started(**table_options: Any) -> Match:
    table = open_table(fill_with_computer=True, **table_options)
    table_start(table=table, user=table.created_by)
    return table.matches.get()


def _watch_links(page: str) -> list[str]:
    return re.findall(r'href="/match/(\d+)/">Watch<', page)


def test_the_lobby_shows_public_matches_being_played_to_watch(client):
    watched = _started(allow_spectators=True)
    _player_connects(watched)
    closed = _started(allow_spectators=False)
    _player_connects(closed)
    private = play_against_computer(user=UserFactory())  # private: never listed
    _player_connects(private)
    response = client_for(UserFactory()).get(reverse("games:lobby"))
    page = response.content.decode()
    assert "Matches being played" in page
    assert _watch_links(page) == [str(watched.pk)]


def test_the_lobby_lists_only_matches_a_player_is_connected_to_R8_2():
    # Left by everyone (to be resumed, R8.2), gone a while, or watched only: nothing to watch.
    live = _started(allow_spectators=True)
    _player_connects(live)
    _started(allow_spectators=True)
    gone = _started(allow_spectators=True)
    _player_connects(gone, seen_at=timezone.now() - timedelta(seconds=ALIVE_SECONDS + 5))
    watched_only = _started(allow_spectators=True)
    connection_open(
        match_id=watched_only.pk, seat=None, user=UserFactory(), channel_name="test.spectator"
    )
    page = client_for(UserFactory()).get(reverse("games:lobby")).content.decode()
    assert _watch_links(page) == [str(live.pk)]

    MatchConnection.objects.filter(match=live).delete()  # the last player left too
    page = client_for(UserFactory()).get(reverse("games:lobby")).content.decode()
    assert _watch_links(page) == []
    assert "Matches being played" not in page


# -- creating a table ----------------------------------------------------------------------------


def test_creating_a_table_needs_a_login(client):
    url = reverse("games:table_create")

    response = client.get(url)

    assert response.status_code == 302
    assert response.url == login_redirect(url)


def test_the_create_form_opens_a_table_and_seats_its_creator():
    user = UserFactory()

    response = client_for(user).post(
        reverse("games:table_create"), table_form_data(partner_draw="on")
    )

    table = Table.objects.get()
    assert response.status_code == 302
    assert response.url == detail_url(table)
    assert (table.name, table.variant, table.target, table.turn_clock_seconds) == (
        "Evening game",
        "hokm4",
        7,
        30,
    )
    assert table.partner_draw and table.allow_spectators and not table.is_private
    assert Seat.objects.get(table=table, index=0).user == user


def test_the_create_form_shows_its_choices():
    page = client_for(UserFactory()).get(reverse("games:table_create")).content.decode()

    for value in ("hokm4", "hokm3", "hokm2", "hokm2-draw", "easy", "medium", "hard", "expert"):
        assert f'value="{value}"' in page
    for seconds in ("15", "30", "60"):
        assert f'value="{seconds}"' in page
    assert 'list="target-presets"' in page


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"variant": "hokm3", "partner_draw": "on"}, "four players only"),
        ({"target": "22"}, "less than or equal to 21"),
        ({"target": "0"}, "greater than or equal to 1"),
        ({"turn_clock_seconds": ""}, "Only private tables can play without a turn clock"),
        ({"turn_clock_seconds": "45"}, "Select a valid choice"),
    ],
)
def test_the_create_form_refuses_bad_settings(overrides, error):
    response = client_for(UserFactory()).post(
        reverse("games:table_create"), table_form_data(**overrides)
    )

    assert response.status_code == 200
    assert error in response.content.decode()
    assert Table.objects.count() == 0


def test_a_private_table_may_have_no_clock():
    client = client_for(UserFactory())

    client.post(
        reverse("games:table_create"), table_form_data(turn_clock_seconds="", is_private="on")
    )

    assert Table.objects.get().turn_clock_seconds is None


# -- the table page ------------------------------------------------------------------------------


def test_the_table_page_draws_the_seats_for_anyone(client):
    table = open_table(UserFactory(display_name="Shirin"))

    response = client.get(detail_url(table))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Shirin" in page
    assert page.count("Sit here") == 3
    assert f'ws-connect="/ws/table/{table.pk}/"' in page
    assert "Partners sit opposite" in page


def test_a_private_table_is_reachable_by_its_invite_only(client):
    table = open_table(is_private=True)

    assert client.get(detail_url(table)).status_code == 404
    assert client.get(reverse("games:table_invite", args=["wrong"])).status_code == 404

    invited = client.get(reverse("games:table_invite", args=[table.invite_code]))

    assert invited.status_code == 200
    assert table.name in invited.content.decode()
    # The invite opened the table for this browser.
    assert client.get(detail_url(table)).status_code == 200


def test_seated_players_of_a_private_table_see_it_and_its_invite_link():
    table = open_table(is_private=True)
    invite = reverse("games:table_invite", args=[table.invite_code])

    page = client_for(table.created_by).get(detail_url(table)).content.decode()

    assert f"http://testserver{invite}" in page
    assert "data-copy-target" in page
    assert invite not in client_for(UserFactory()).get(detail_url(open_table())).content.decode()


def test_a_stranger_cannot_join_a_private_table_by_its_id():
    table = open_table(is_private=True)

    response = client_for(UserFactory()).post(join_url(table, 1))

    assert response.status_code == 404
    assert Seat.objects.get(table=table, index=1).user is None


def test_the_table_page_of_a_started_table_redirects_to_the_match(client):
    table = open_table(variant="hokm2")
    match = table_join_seat(table=table, user=UserFactory(), seat_index=1)

    response = client.get(detail_url(table))

    assert response.status_code == 302
    assert response.url == reverse("games:match", args=[match.pk])


# -- joining, leaving, starting ------------------------------------------------------------------


def test_joining_needs_a_login_and_comes_back_to_the_table(client):
    table = open_table()

    response = client.post(join_url(table, 1))

    assert response.status_code == 302
    assert response.url == login_redirect(detail_url(table))
    assert htmx(client, join_url(table, 1)).headers["HX-Redirect"] == login_redirect(
        detail_url(table)
    )
    assert Seat.objects.get(table=table, index=1).user is None


def test_join_leave_and_start_are_posts_only():
    table = open_table(fill_with_computer=True)
    client = client_for(table.created_by)

    for url in (
        join_url(table, 1),
        reverse("games:table_leave", args=[table.pk]),
        reverse("games:table_start", args=[table.pk]),
        reverse("games:play_computer"),
    ):
        assert client.get(url).status_code == 405


def test_posts_are_csrf_protected():
    table = open_table()
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())

    response = client.post(join_url(table, 1))

    assert response.status_code == 403
    assert Seat.objects.get(table=table, index=1).user is None


def test_joining_from_the_page_redirects_back_to_it():
    table = open_table()
    guest = UserFactory()

    response = client_for(guest).post(join_url(table, 2))

    assert response.status_code == 302
    assert response.url == detail_url(table)
    assert Seat.objects.get(table=table, index=2).user == guest


def test_joining_with_htmx_answers_with_the_seats_fragment():
    table = open_table()
    guest = UserFactory(display_name="Dara")

    response = htmx(client_for(guest), join_url(table, 1))

    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="table-seats"')
    assert "<html" not in page
    assert "Dara" in page and "Leave" in page and "Move here" in page


def test_a_refused_join_shows_the_reason():
    table = open_table()
    table_join_seat(table=table, user=UserFactory(), seat_index=1)

    response = htmx(client_for(UserFactory()), join_url(table, 1))

    assert "Someone already sits in this seat." in response.content.decode()


def test_the_last_join_takes_the_player_to_the_match():
    table = open_table(variant="hokm3")
    table_join_seat(table=table, user=UserFactory(), seat_index=1)
    last = UserFactory()

    response = htmx(client_for(last), join_url(table, 2))

    match = Match.objects.get(table=table)
    assert response.headers["HX-Redirect"] == reverse("games:match", args=[match.pk])
    assert MatchSeat.objects.get(match=match, user=last).index == 2


def test_leaving_frees_the_seat():
    table = open_table()
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)

    response = htmx(client_for(guest), reverse("games:table_leave", args=[table.pk]))

    assert response.status_code == 200
    assert Seat.objects.get(table=table, index=1).user is None


def test_the_last_player_leaving_goes_back_to_the_lobby():
    table = open_table()

    response = client_for(table.created_by).post(reverse("games:table_leave", args=[table.pk]))

    assert response.url == reverse("games:lobby")
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_the_creator_starts_with_computer_players():
    table = open_table(fill_with_computer=True, computer_level=ComputerLevel.EASY)
    page = client_for(table.created_by).get(detail_url(table)).content.decode()
    assert "Start with computer players" in page

    response = client_for(table.created_by).post(reverse("games:table_start", args=[table.pk]))

    match = Match.objects.get(table=table)
    assert response.url == reverse("games:match", args=[match.pk])
    assert list(match.seats.order_by("index").values_list("computer_level", flat=True)) == [
        None,
        "easy",
        "easy",
        "easy",
    ]


def test_only_the_creator_sees_and_uses_the_start_button():
    table = open_table(fill_with_computer=True)
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)
    client = client_for(guest)

    assert "Start with computer players" not in client.get(detail_url(table)).content.decode()
    response = htmx(client, reverse("games:table_start", args=[table.pk]))

    assert "Only the player who opened this table can start it." in response.content.decode()
    assert Match.objects.count() == 0


# -- play against the computer -------------------------------------------------------------------


def test_play_against_the_computer_needs_a_login(client):
    response = client.post(reverse("games:play_computer"), {"variant": "hokm4"})

    # Back to the game he picked once signed in (issue 22; tests/games/test_signed_out_start.py).
    start = reverse("games:play_computer_start")
    assert unquote(response.url) == login_redirect(f"{start}?variant=hokm4&computer_level=medium")
    assert Match.objects.count() == 0


def test_play_against_the_computer_starts_a_match_at_once():
    user = UserFactory()

    response = client_for(user).post(reverse("games:play_computer"), {"variant": "hokm3"})

    match = Match.objects.get()
    assert response.url == reverse("games:match", args=[match.pk])
    assert match.variant == "hokm3"
    assert match.seats.get(index=0).user == user


def test_play_against_the_computer_refuses_an_unknown_game():
    client = client_for(UserFactory())

    response = client.post(reverse("games:play_computer"), {"variant": "bridge"}, follow=True)

    assert "Choose one of the games offered." in response.content.decode()
    assert Match.objects.count() == 0


def test_the_lobby_lists_the_open_tables_he_sits_at_private_ones_too() -> None:
    """A player who opened a private table and went elsewhere finds it again in the lobby (no
    other list shows it); a table that started or that he left is not listed."""
    user = UserFactory(username="nasrin")
    other = UserFactory(username="omid")
    private = open_table(user, is_private=True, turn_clock_seconds=None, name="Family night")
    public = open_table(other, name="Open to all")
    table_join_seat(table=public, user=user, seat_index=2)
    left = open_table(user, name="Gone")
    table_leave_seat(table=left, user=user)
    started = open_table(user, variant="hokm2", name="Started")
    table_join_seat(table=started, user=other, seat_index=1)

    page = client_for(user).get(reverse("games:lobby")).content.decode()
    start = page.index('id="my-tables"')
    section = page[start : page.index("</section>", start)]
    assert "Family night" in section and "Open to all" in section
    assert "Gone" not in section and "Started" not in section
    assert section.index("Open to all") < section.index("Family night")  # newest first
    assert "private" in section
    assert re.search(r"2 of 4 seats taken", section)  # omid and nasrin at the public table
    assert reverse("games:table_detail", args=[private.pk]) in section
    # Nobody else sees his private table listed anywhere in the lobby.
    assert "Family night" not in client_for(other).get(reverse("games:lobby")).content.decode()


# -- the creator who left --------------------------------------------------------------------------


def test_the_start_button_is_not_offered_to_a_creator_who_left_his_seat():
    creator, guest = UserFactory(), UserFactory()
    table = open_table(creator, fill_with_computer=True)
    table_join_seat(table=table, user=guest, seat_index=1)
    client = client_for(creator)
    start_url = reverse("games:table_start", args=[table.pk])
    assert start_url in client.get(detail_url(table)).content.decode()

    table_leave_seat(table=table, user=creator)

    assert not table_view(table=table, viewer=creator).can_start
    assert start_url not in client.get(detail_url(table)).content.decode()
    response = client.post(start_url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "Take a seat at this table to start its match." in response.content.decode()
    assert not Match.objects.exists()


# -- a started table without spectators ------------------------------------------------------------


def start_without_spectators() -> tuple[Table, Match]:
    table = open_table(variant="hokm2", allow_spectators=False)
    match = table_join_seat(table=table, user=UserFactory(), seat_index=1)
    assert match is not None
    return table, match


def test_a_strangers_table_page_does_not_send_him_to_a_match_he_may_not_watch():
    table, match = start_without_spectators()
    match_url = reverse("games:match", args=[match.pk])

    for client in (Client(), client_for(UserFactory())):
        response = client.get(detail_url(table))

        # Sent on, he would get the login page or "This table does not allow spectators" (403).
        assert response.status_code == 200
        page = response.content.decode()
        assert "data-redirect" not in page
        assert match_url not in page
        assert "This table does not allow spectators." in page
    # Its players still go straight to their match.
    player = client_for(table.created_by).get(detail_url(table))
    assert player.status_code == 302
    assert player.url == match_url


def test_a_join_refused_as_the_match_started_leaves_a_stranger_on_the_table_page():
    table, match = start_without_spectators()
    join = reverse("games:table_join", args=[table.pk, 1])
    client = client_for(UserFactory())

    response = client.post(join, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert "HX-Redirect" not in response.headers
    page = response.content.decode()
    assert "The match at this table has already started." in page
    assert reverse("games:match", args=[match.pk]) not in page


# -- refusals that say the right thing -------------------------------------------------------------


def test_an_empty_post_to_the_create_form_says_what_is_missing():
    client = client_for(UserFactory())

    response = client.post(reverse("games:table_create"), {})

    assert response.status_code == 200
    form = response.context["form"]
    assert form.is_bound
    assert {"variant", "target"} <= set(form.errors)
    assert not Table.objects.exists()


# -- leaving a private table -----------------------------------------------------------------------


@pytest.mark.parametrize("with_htmx", [False, True])
def test_leaving_a_private_table_seen_only_as_its_player_goes_to_the_lobby_not_a_404(with_htmx):
    table = open_table(is_private=True, turn_clock_seconds=None)
    guest = UserFactory()
    # He sat down through the invite link in another browser (or before signing out and in).
    table_join_seat(table=table, user=guest, seat_index=1)
    client = client_for(guest)
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
    other_client = client_for(other)
    other_client.get(reverse("games:table_invite", args=[table.invite_code]))
    table_join_seat(table=table, user=other, seat_index=2)
    response = other_client.post(reverse("games:table_leave", args=[table.pk]))
    assert response.url == detail_url(table)


# -- methods ---------------------------------------------------------------------------------------


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


# -- invite codes no link can hold -----------------------------------------------------------------


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


# -- forged ids ------------------------------------------------------------------------------------


def test_forged_table_ids_answer_404_and_forged_seats_a_reason():
    # Past the database's integer range too (PostgreSQL's bigint): a 404, never a 500.
    table = open_table()
    client = client_for(UserFactory())
    client.raise_request_exception = False
    huge = 10**30
    for method, url in (
        ("get", f"/tables/{huge}/"),
        ("post", f"/tables/{huge}/seats/1/join/"),
        ("post", f"/tables/{huge}/leave/"),
        ("post", f"/tables/{huge}/start/"),
    ):
        assert getattr(client, method)(url).status_code == 404, url
    before = table_snapshot(table)

    response = client.post(f"/tables/{table.pk}/seats/{huge}/join/", headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert f"This table has no seat {huge + 1}." in response.content.decode()
    assert table_snapshot(table) == before
