"""The site's own error pages (templates/400.html, 403.html, 404.html, 500.html), and which of
them the live match page answers to someone who may not watch: 404 where the match's existence
is secret (private table, no table), 403 only at a public table that refuses spectators."""

from __future__ import annotations

import pytest
from django.template.loader import get_template
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import Match
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, TableFactory, UserFactory

LOBBY_LINK = f'href="{reverse("games:lobby")}"'
NOT_FOUND_EN = "Page not found"
NOT_FOUND_FA = "صفحه پیدا نشد"
NO_SPECTATORS_EN = "This table does not allow spectators."
NO_SPECTATORS_FA = "این میز تماشاگر نمی‌پذیرد."


@pytest.fixture(autouse=True)
def _production_error_pages(settings) -> None:
    """With DEBUG on, Django shows its technical pages instead of the templates."""
    settings.DEBUG = False


def test_a_missing_page_is_the_sites_404(client: Client) -> None:
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    html = response.content.decode()
    assert NOT_FOUND_EN in html
    assert LOBBY_LINK in html
    assert 'class="site-header"' in html and 'dir="ltr"' in html


def test_a_missing_page_in_persian_is_right_to_left(client: Client) -> None:
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="fa")
    assert response.status_code == 404
    html = response.content.decode()
    assert NOT_FOUND_FA in html
    assert NOT_FOUND_EN not in html
    assert 'lang="fa"' in html and 'dir="rtl"' in html
    assert LOBBY_LINK in html


@pytest.mark.django_db
def test_the_404_page_knows_who_is_signed_in(client: Client) -> None:
    """Django's handler renders it with the request, so the header is the usual one."""
    client.force_login(UserFactory(username="roya"))
    html = client.get("/no-such-page/").content.decode()
    assert reverse("games:profile", args=["roya"]) in html
    assert reverse("games:my_games") in html


def test_a_refused_host_gets_the_sites_400(client: Client) -> None:
    response = client.get("/", HTTP_HOST="evil.example", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Bad request" in html and LOBBY_LINK in html


def test_the_500_page_renders_with_no_context_at_all() -> None:
    """Django's server_error gives it neither request nor context; this test has no database."""
    html = get_template("500.html").render({})
    assert "Something went wrong" in html and LOBBY_LINK in html
    assert "/static/css/site.css" in html and 'dir="ltr"' in html


def test_the_500_page_in_persian_is_right_to_left() -> None:
    with translation.override("fa"):
        html = get_template("500.html").render({})
    assert "مشکلی پیش آمد" in html
    assert 'lang="fa"' in html and 'dir="rtl"' in html


def _match(*, private: bool = False, allow_spectators: bool = True, table: bool = True) -> Match:
    players = [UserFactory() for _ in range(4)]
    seats = [SeatSpec(name=user.username, user=user) for user in players]
    kwargs: dict[str, object] = {"seats": seats}
    if not table:
        kwargs["table"] = None
    else:
        kwargs["table"] = TableFactory(is_private=private, allow_spectators=allow_spectators)
    return MatchFactory(**kwargs)


def _url(match: Match) -> str:
    return reverse("games:match", kwargs={"match_id": match.pk})


@pytest.mark.django_db
@pytest.mark.parametrize("allow_spectators", [True, False])
def test_a_private_tables_match_is_not_found_by_a_stranger(
    client: Client, allow_spectators: bool
) -> None:
    match = _match(private=True, allow_spectators=allow_spectators)
    client.force_login(UserFactory())
    response = client.get(_url(match), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    assert NOT_FOUND_EN in response.content.decode()


@pytest.mark.django_db
def test_a_match_without_a_table_is_not_found_by_a_stranger(client: Client) -> None:
    match = _match(table=False)
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404


@pytest.mark.django_db
def test_a_public_table_without_spectators_says_why_with_403(client: Client) -> None:
    match = _match(allow_spectators=False)
    client.force_login(UserFactory())
    response = client.get(_url(match), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    html = response.content.decode()
    assert NO_SPECTATORS_EN in html and LOBBY_LINK in html
    persian = client.get(_url(match), HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    assert NO_SPECTATORS_FA in persian and 'dir="rtl"' in persian


@pytest.mark.django_db
def test_a_seated_player_plays_where_spectators_are_refused(client: Client) -> None:
    match = _match(private=True, allow_spectators=False)
    client.force_login(match.seats.get(index=2).user)
    assert client.get(_url(match)).status_code == 200


@pytest.mark.django_db
def test_a_spectator_watches_where_the_table_allows(client: Client) -> None:
    match = _match(allow_spectators=True)
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 200


@pytest.mark.django_db
def test_someone_not_signed_in_is_still_sent_to_sign_in(client: Client) -> None:
    match = _match(private=True)
    response = client.get(_url(match))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
