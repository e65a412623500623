"""The lobby and table pages: access, forms, htmx answers, redirects, query counts."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import ComputerLevel, Match, MatchConnection, MatchSeat, Seat, Table
from games.presence import ALIVE_SECONDS, connection_open
from games.tables import play_against_computer, table_join_seat, table_leave_seat, table_start
from tests.games.factories import UserFactory, open_table

pytestmark = pytest.mark.django_db

LOGIN_URL = "/accounts/login/"


@pytest.fixture(autouse=True)
def _login_url(settings):
    # The accounts app points LOGIN_URL at allauth's page; pin a path so these tests say where
    # anonymous people are sent without depending on the accounts URLs.
    settings.LOGIN_URL = LOGIN_URL


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


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

    page = logged_in(user).get(reverse("games:lobby")).content.decode()

    assert reverse("games:match", args=[match.pk]) in page
    assert reverse("games:match", args=[other.pk]) not in page


@pytest.mark.parametrize("count", [1, 10])
def test_the_lobby_takes_a_fixed_number_of_queries(count, django_assert_num_queries):
    user = UserFactory()
    play_against_computer(user=user)
    for _ in range(count):
        table = open_table()
        table_join_seat(table=table, user=UserFactory(), seat_index=1)
    client = logged_in(user)

    # session, user, his sanctions (accounts.middleware), tables + seats with users, the user's
    # matches + their seats, his open tables, matches to watch
    with django_assert_num_queries(9):
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
    response = logged_in(UserFactory()).get(reverse("games:lobby"))
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
    page = logged_in(UserFactory()).get(reverse("games:lobby")).content.decode()
    assert _watch_links(page) == [str(live.pk)]

    MatchConnection.objects.filter(match=live).delete()  # the last player left too
    page = logged_in(UserFactory()).get(reverse("games:lobby")).content.decode()
    assert _watch_links(page) == []
    assert "Matches being played" not in page


# -- creating a table ----------------------------------------------------------------------------


def form_data(**overrides: Any) -> dict[str, Any]:
    data = {
        "name": "Evening game",
        "variant": "hokm4",
        "target": "7",
        "turn_clock_seconds": "30",
        "allow_spectators": "on",
        "computer_level": "medium",
    }
    return {key: value for key, value in (data | overrides).items() if value is not None}


def test_creating_a_table_needs_a_login(client):
    url = reverse("games:table_create")

    response = client.get(url)

    assert response.status_code == 302
    assert response.url == login_redirect(url)


def test_the_create_form_opens_a_table_and_seats_its_creator():
    user = UserFactory()

    response = logged_in(user).post(reverse("games:table_create"), form_data(partner_draw="on"))

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
    page = logged_in(UserFactory()).get(reverse("games:table_create")).content.decode()

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
    response = logged_in(UserFactory()).post(reverse("games:table_create"), form_data(**overrides))

    assert response.status_code == 200
    assert error in response.content.decode()
    assert Table.objects.count() == 0


def test_a_private_table_may_have_no_clock():
    client = logged_in(UserFactory())

    client.post(reverse("games:table_create"), form_data(turn_clock_seconds="", is_private="on"))

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

    page = logged_in(table.created_by).get(detail_url(table)).content.decode()

    assert f"http://testserver{invite}" in page
    assert "data-copy-target" in page
    assert invite not in logged_in(UserFactory()).get(detail_url(open_table())).content.decode()


def test_a_stranger_cannot_join_a_private_table_by_its_id():
    table = open_table(is_private=True)

    response = logged_in(UserFactory()).post(join_url(table, 1))

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
    client = logged_in(table.created_by)

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

    response = logged_in(guest).post(join_url(table, 2))

    assert response.status_code == 302
    assert response.url == detail_url(table)
    assert Seat.objects.get(table=table, index=2).user == guest


def test_joining_with_htmx_answers_with_the_seats_fragment():
    table = open_table()
    guest = UserFactory(display_name="Dara")

    response = htmx(logged_in(guest), join_url(table, 1))

    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="table-seats"')
    assert "<html" not in page
    assert "Dara" in page and "Leave" in page and "Move here" in page


def test_a_refused_join_shows_the_reason():
    table = open_table()
    table_join_seat(table=table, user=UserFactory(), seat_index=1)

    response = htmx(logged_in(UserFactory()), join_url(table, 1))

    assert "Someone already sits in this seat." in response.content.decode()


def test_the_last_join_takes_the_player_to_the_match():
    table = open_table(variant="hokm3")
    table_join_seat(table=table, user=UserFactory(), seat_index=1)
    last = UserFactory()

    response = htmx(logged_in(last), join_url(table, 2))

    match = Match.objects.get(table=table)
    assert response.headers["HX-Redirect"] == reverse("games:match", args=[match.pk])
    assert MatchSeat.objects.get(match=match, user=last).index == 2


def test_leaving_frees_the_seat():
    table = open_table()
    guest = UserFactory()
    table_join_seat(table=table, user=guest, seat_index=1)

    response = htmx(logged_in(guest), reverse("games:table_leave", args=[table.pk]))

    assert response.status_code == 200
    assert Seat.objects.get(table=table, index=1).user is None


def test_the_last_player_leaving_goes_back_to_the_lobby():
    table = open_table()

    response = logged_in(table.created_by).post(reverse("games:table_leave", args=[table.pk]))

    assert response.url == reverse("games:lobby")
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_the_creator_starts_with_computer_players():
    table = open_table(fill_with_computer=True, computer_level=ComputerLevel.EASY)
    page = logged_in(table.created_by).get(detail_url(table)).content.decode()
    assert "Start with computer players" in page

    response = logged_in(table.created_by).post(reverse("games:table_start", args=[table.pk]))

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
    client = logged_in(guest)

    assert "Start with computer players" not in client.get(detail_url(table)).content.decode()
    response = htmx(client, reverse("games:table_start", args=[table.pk]))

    assert "Only the player who opened this table can start it." in response.content.decode()
    assert Match.objects.count() == 0


# -- play against the computer -------------------------------------------------------------------


def test_play_against_the_computer_needs_a_login(client):
    response = client.post(reverse("games:play_computer"), {"variant": "hokm4"})

    assert response.url == login_redirect(reverse("games:lobby"))
    assert Match.objects.count() == 0


def test_play_against_the_computer_starts_a_match_at_once():
    user = UserFactory()

    response = logged_in(user).post(reverse("games:play_computer"), {"variant": "hokm3"})

    match = Match.objects.get()
    assert response.url == reverse("games:match", args=[match.pk])
    assert match.variant == "hokm3"
    assert match.seats.get(index=0).user == user


def test_play_against_the_computer_refuses_an_unknown_game():
    client = logged_in(UserFactory())

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

    page = logged_in(user).get(reverse("games:lobby")).content.decode()
    start = page.index('id="my-tables"')
    section = page[start : page.index("</section>", start)]
    assert "Family night" in section and "Open to all" in section
    assert "Gone" not in section and "Started" not in section
    assert section.index("Open to all") < section.index("Family night")  # newest first
    assert "private" in section
    assert re.search(r"2 of 4 seats taken", section)  # omid and nasrin at the public table
    assert reverse("games:table_detail", args=[private.pk]) in section
    # Nobody else sees his private table listed anywhere in the lobby.
    assert "Family night" not in logged_in(other).get(reverse("games:lobby")).content.decode()
