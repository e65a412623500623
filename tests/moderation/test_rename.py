"""A forced rename (issue 6): until the player picks a new name, every page leads to the rename
page; the new name follows the sign-up rules; the rename ends the sanction and is logged."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.tokens import token_create
from games.lobby.services import TableError, play_against_computer, table_join_seat
from games.models import Match
from moderation.models import ModerationLogEntry, Sanction
from moderation.services import sanction_apply
from tests.accounts.players import client_for, make_player
from tests.games.factories import UserFactory, api_match_start, open_table

pytestmark = pytest.mark.django_db

RENAME_URL = reverse("moderation:rename")


def test_every_page_leads_to_the_rename_page_until_he_renames(client, renamed):
    client.force_login(renamed)
    for url in (reverse("games:lobby"), reverse("games:my_games"), "/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"] == RENAME_URL, url
    page = client.get(RENAME_URL)
    assert page.status_code == 200
    assert "offensive name" in page.content.decode()
    # His sanctions and the appeal stay in reach.
    assert client.get(reverse("moderation:my_sanctions")).status_code == 200


@pytest.mark.parametrize("name", ["ab", "the_admin", "rude_name", "bad name!"])
def test_a_new_name_must_follow_the_rules_and_be_new(client, renamed, name):
    UserFactory(username="taken_one")
    client.force_login(renamed)
    response = client.post(RENAME_URL, {"username": name})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert User.objects.get(pk=renamed.pk).username == "rude_name"


def test_a_taken_name_is_refused(client, renamed):
    UserFactory(username="taken_one")
    client.force_login(renamed)
    response = client.post(RENAME_URL, {"username": "TAKEN_one"})
    assert response.status_code == 400
    assert User.objects.get(pk=renamed.pk).username == "rude_name"


def test_renaming_ends_the_sanction_and_is_logged(client, renamed):
    client.force_login(renamed)
    response = client.post(RENAME_URL, {"username": "kind_name"})
    assert response.status_code == 302
    assert response["Location"] == reverse("games:profile", kwargs={"username": "kind_name"})
    assert User.objects.get(pk=renamed.pk).username == "kind_name"
    sanction = Sanction.objects.get(user=renamed, kind=Sanction.Kind.RENAME)
    assert sanction.ends_at is not None
    entry = ModerationLogEntry.objects.filter(target=renamed, action="rename_done").get()
    assert entry.details == {"old": "rude_name", "new": "kind_name"}
    assert client.get(reverse("games:lobby")).status_code == 200
    # Nothing left to rename: the page sends him to his settings.
    assert client.get(RENAME_URL).status_code == 302


def test_without_a_rename_the_page_is_not_in_the_way(client):
    client.force_login(UserFactory())
    assert client.get(reverse("games:lobby")).status_code == 200
    assert client.get(RENAME_URL)["Location"] == reverse("accounts:settings")


def test_until_he_renames_he_starts_no_match_through_the_api_or_a_table(client, renamed):
    # Programs reach neither the rename page nor its redirects: the services refuse him.
    _, raw = token_create(user=renamed, name="bot")
    response = api_match_start(raw, {"variant": "hokm4"})
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "play_banned"
    assert "change your username (offensive name)" in error["message"]
    with pytest.raises(TableError, match="change your username"):
        play_against_computer(user=renamed)
    table = open_table()
    with pytest.raises(TableError, match="change your username"):
        table_join_seat(table=table, user=renamed, seat_index=1)
    assert not Match.objects.filter(seats__user=renamed).exists()

    client.force_login(renamed)
    assert client.post(RENAME_URL, {"username": "kind_name"}).status_code == 302
    renamed.refresh_from_db()
    assert play_against_computer(user=renamed).seats.filter(user=renamed).exists()


def test_the_rename_is_confirmed_with_the_new_username_not_the_display_name(moderator):
    """A player with a display name was told "Your username is now <display name>."."""
    player = make_player("badname", display_name="Bahar Jan")
    sanction_apply(moderator=moderator, user=player, kind="rename", reason="Rude name")
    response = client_for(player).post(
        reverse("moderation:rename"), {"username": "bahar_new"}, follow=True
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Your username is now bahar_new." in page
    assert "Your username is now Bahar Jan." not in page
