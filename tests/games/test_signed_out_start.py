"""Issue 22: a signed-out visitor who picks a game is told why he must sign in, and comes back to
the game he chose once signed in or signed up, not to the lobby.

The lobby's quick start is a POST form; the visitor is sent to sign in with the quick start's own
page (``games:play_computer_start``) as the way back: the game, level and target he chose, and
one Start button.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.views import redirect_to_login
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils.http import urlencode

from games.lobby.start_views import QuickStart, quick_start_from, quick_start_url
from games.models import VARIANT_CHOICES, Match, Table
from games.templatetags.game_return import leads_to_game
from tests.accounts.emails import link_in
from tests.accounts.players import PASSWORD, client_for, make_player, sign_up
from tests.games.factories import UserFactory

pytestmark = pytest.mark.django_db

START = reverse("games:play_computer_start")
SIGN_IN_REASON = "Sign in to play: you will come straight back to your game."
SIGN_UP_REASON = (
    "Sign up to play: once your account is ready, you will come straight back to your game."
)


def picked_signed_out(client: Client, **fields: str) -> str:
    """A signed-out visitor's click on a game of the lobby's quick start: where he is sent."""
    client.get(reverse("games:lobby"))  # the lobby sets the CSRF cookie its form needs
    response = client.post(reverse("games:play_computer"), fields)
    assert response.status_code == 302
    return response["Location"]


def next_of(url: str) -> str:
    (value,) = parse_qs(urlsplit(url).query)["next"]
    return value


# -- where the click leads -------------------------------------------------------------------


def test_a_signed_out_pick_goes_to_sign_in_with_the_chosen_game_as_the_way_back():
    location = picked_signed_out(Client(), variant="hokm2", computer_level="hard")

    assert urlsplit(location).path == reverse("account_login")
    assert (
        next_of(location) == f"{START}?{urlencode({'variant': 'hokm2', 'computer_level': 'hard'})}"
    )
    assert Table.objects.count() == 0


def test_a_pick_of_a_game_not_offered_comes_back_to_the_lobby():
    location = picked_signed_out(Client(), variant="chess", computer_level="hard")

    assert next_of(location) == reverse("games:lobby")


def test_the_quick_start_page_asks_a_signed_out_visitor_to_sign_in_and_come_back():
    url = f"{START}?variant=hokm3&computer_level=easy"

    response = Client().get(url)

    assert response.url == redirect_to_login(url).url


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"variant": "hokm4"}, QuickStart("hokm4", "medium", 7)),
        (
            {"variant": "court-piece", "computer_level": "expert"},
            QuickStart("court-piece", "expert", 1),
        ),
        (
            {"variant": "hokm2", "computer_level": "easy", "target": "3"},
            QuickStart("hokm2", "easy", 3),
        ),
        ({"variant": "hokm2", "computer_level": "greedy"}, None),
        ({"variant": "hokm2", "target": "22"}, None),
        ({"variant": "hokm2", "target": "seven"}, None),
        ({"variant": "go"}, None),
    ],
)
def test_a_quick_start_is_read_from_the_lobby_forms_fields(data, expected):
    assert quick_start_from(data) == expected


def test_the_way_back_keeps_a_target_only_when_one_was_chosen():
    assert "target" not in quick_start_url({"variant": "hokm4"})
    assert quick_start_url({"variant": "hokm4", "target": "3"}).endswith("&target=3")


# -- the sign-in and sign-up pages say why ---------------------------------------------------


def test_the_sign_in_page_says_why_when_the_way_back_is_a_game():
    location = picked_signed_out(Client(), variant="hokm4", computer_level="medium")

    html = Client().get(location).content.decode()

    assert SIGN_IN_REASON in html
    # The way to sign up keeps the way back, and says why too.
    signup = f"{reverse('account_signup')}?{urlencode({'next': next_of(location)})}"
    assert signup.replace("&", "&amp;") in html
    assert SIGN_UP_REASON in Client().get(signup).content.decode()


@pytest.mark.parametrize(
    "next_url",
    ["", "/lobby/", "/history/", "https://example.com/play/computer/start/", "//evil/tables/1/"],
)
def test_the_sign_in_page_says_nothing_more_when_the_way_back_is_no_game(next_url):
    url = reverse("account_login") + (f"?{urlencode({'next': next_url})}" if next_url else "")

    html = Client().get(url).content.decode()

    assert SIGN_IN_REASON not in html


def test_a_table_and_a_match_are_games_to_come_back_to():
    assert leads_to_game(reverse("games:table_detail", args=[3]))
    assert leads_to_game(reverse("games:match", args=[3]))
    assert leads_to_game(f"{START}?variant=hokm4")
    assert not leads_to_game(reverse("games:lobby"))
    assert not leads_to_game(None)


def test_a_signed_out_visitor_who_takes_a_seat_at_a_table_is_told_why_too():
    owner = UserFactory()
    client_for(owner).post(
        reverse("games:table_create"),
        {"variant": "hokm4", "target": 7, "turn_clock_seconds": "30", "computer_level": "medium"},
    )
    table = Table.objects.get()
    visitor = Client()
    visitor.get(reverse("games:table_detail", args=[table.pk]))

    location = visitor.post(reverse("games:table_join", args=[table.pk, 1]))["Location"]

    assert next_of(location) == reverse("games:table_detail", args=[table.pk])
    assert SIGN_IN_REASON in visitor.get(location).content.decode()


# -- and comes back to the game ----------------------------------------------------------------


def test_after_signing_in_he_lands_on_the_chosen_game_ready_to_start():
    make_player("roya")
    client = Client()
    location = picked_signed_out(client, variant="hokm2", computer_level="hard", target="3")

    response = client.post(
        location, {"login": "roya", "password": PASSWORD, "next": next_of(location)}
    )

    assert response.url == next_of(location)
    page = client.get(response.url)
    html = page.content.decode()
    assert page.status_code == 200
    assert f"<h1>{dict(VARIANT_CHOICES)['hokm2']} against the computer</h1>" in html
    form = html[html.index(f'action="{reverse("games:play_computer")}"') :]
    assert 'name="variant" value="hokm2"' in form
    assert 'name="target" value="3"' in form
    assert re.findall(r'name="computer_level" value="(\w+)"[^>]*\bchecked\b', form) == ["hard"]
    assert form.count("<button") == 1
    # One click on Start, and the match is on.
    started = client.post(
        reverse("games:play_computer"),
        {"variant": "hokm2", "computer_level": "hard", "target": "3"},
    )
    match = Match.objects.get()
    assert started.url == reverse("games:match", args=[match.pk])
    assert (match.variant, match.target) == ("hokm2", 3)
    assert list(
        match.seats.exclude(computer_level=None).values_list("computer_level", flat=True)
    ) == ["hard"]


def test_after_signing_up_and_confirming_the_address_he_lands_on_the_chosen_game():
    client = Client()
    location = picked_signed_out(client, variant="hokm3", computer_level="easy")
    way_back = next_of(location)

    response = client.post(
        f"{reverse('account_signup')}?{urlencode({'next': way_back})}",
        {
            "username": "sara_k",
            "email": "sara@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": way_back,
        },
    )
    assert response.url == reverse("account_email_verification_sent")

    # The link confirms as it opens, signs him in (the same browser) and takes him to his game.
    response = client.get(link_in(mail.outbox[0]))

    assert response.url == way_back
    assert "_auth_user_id" in client.session
    assert client.get(way_back).status_code == 200


def test_a_quick_start_page_for_a_game_not_offered_sends_back_to_the_lobby():
    client = client_for(UserFactory())

    response = client.get(f"{START}?variant=chess")

    assert response.url == reverse("games:lobby")
    assert Table.objects.count() == 0


def test_sign_up_without_a_game_still_lands_in_the_lobby():
    client = Client()
    sign_up(client)

    response = client.get(link_in(mail.outbox[0]))

    assert response.url == "/lobby/"
