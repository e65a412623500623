"""A moderator sanctions a player from the player's moderation page, without a report: what he
saw in a match, the chat or the admin is enough. The same rules as from a report apply."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from moderation.models import ModerationLogEntry, Sanction
from tests.accounts.players import client_for, make_player

pytestmark = pytest.mark.django_db


def act(client: Client, player: User, action: str, **data) -> object:
    url = reverse("moderation:moderation_player_action", args=[player.username, action])
    return client.post(url, data, follow=True)


def test_the_player_page_offers_the_sanctions_but_not_a_void(moderator, bahar):
    html = (
        client_for(moderator)
        .get(reverse("moderation:moderation_player", args=[bahar.username]))
        .content.decode()
    )
    for action in ("warn", "mute", "suspend", "ban", "rename"):
        assert reverse("moderation:moderation_player_action", args=["bahar", action]) in html
    assert "void" not in html  # a void needs a match: from a report only


def test_a_mute_from_the_player_page_is_applied_logged_and_said(moderator, bahar):
    response = act(client_for(moderator), bahar, "mute", reason="insults in chat", minutes="30")

    sanction = Sanction.objects.get(user=bahar)
    assert sanction.kind == Sanction.Kind.MUTE
    assert sanction.moderator == moderator
    assert sanction.reason == "insults in chat"
    assert sanction.report is None
    assert (sanction.ends_at - sanction.starts_at).total_seconds() == 30 * 60
    assert ModerationLogEntry.objects.filter(target=bahar).exists()
    assert "Done: " in response.content.decode()


@pytest.mark.parametrize(
    ("action", "data"),
    [
        ("mute", {"reason": "", "minutes": "30"}),  # no reason
        ("suspend", {"reason": "cheating", "minutes": ""}),  # no length
        ("mute", {"reason": "x", "minutes": "-5"}),
    ],
)
def test_a_sanction_without_what_it_needs_is_refused_and_nothing_changes(
    moderator, bahar, action, data
):
    response = act(client_for(moderator), bahar, action, **data)
    assert response.status_code == 200
    assert not Sanction.objects.filter(user=bahar).exists()


def test_no_void_from_the_player_page_and_no_unknown_action(moderator, bahar):
    client = client_for(moderator)
    for action in ("void", "explode"):
        response = act(client, bahar, action, reason="x")
        assert response.status_code == 404
    assert not Sanction.objects.exists()


def test_a_moderator_cannot_sanction_himself(moderator):
    response = act(client_for(moderator), moderator, "ban", reason="test")
    assert response.status_code == 200
    assert not Sanction.objects.exists()


def test_only_moderators_may_sanction(bahar):
    other = make_player("kaveh")
    response = act(client_for(other), bahar, "ban", reason="I don't like him")
    assert response.status_code in (302, 403, 404)
    assert not Sanction.objects.exists()


def test_a_users_admin_page_links_to_his_moderation_page(moderator, bahar):
    html = (
        client_for(moderator)
        .get(reverse("admin:accounts_user_change", args=[bahar.pk]))
        .content.decode()
    )
    assert reverse("moderation:moderation_player", args=[bahar.username]) in html
