""" "My games" and the match summary, QA second pass (regression tests of the defects found)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from tests.games.factories import UserFactory
from tests.games.test_history import COMPUTER, URL, seated_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def me() -> User:
    return UserFactory(username="me")


@pytest.fixture
def gone() -> User:
    """A player whose account a moderator closed (inactive): he has no profile any more."""
    return UserFactory(username="gone")


def test_a_closed_account_is_named_without_a_link_to_its_missing_profile(client, me, gone):
    """Inactive accounts have no profile (404): My games and the summary linked their names to
    it all the same, and the summary offered to report them."""
    match = seated_match(me, gone, COMPUTER, COMPUTER, play=False)
    User.objects.filter(pk=gone.pk).update(is_active=False)
    profile = reverse("accounts:profile", args=["gone"])
    assert client.get(profile).status_code == 404
    client.force_login(me)

    for page in (URL, reverse("games:match_summary", args=[match.pk])):
        html = client.get(page).content.decode()
        assert "<bdi>gone</bdi>" in html, page
        assert f'href="{profile}"' not in html, page
        assert reverse("accounts:report", args=["gone"]) not in html, page


def test_an_active_co_player_keeps_the_link_to_his_profile(client, me):
    friend = UserFactory(username="friend")
    match = seated_match(me, friend, COMPUTER, COMPUTER, play=False)
    client.force_login(me)
    profile = reverse("accounts:profile", args=["friend"])
    for page in (URL, reverse("games:match_summary", args=[match.pk])):
        assert f'href="{profile}"' in client.get(page).content.decode(), page
