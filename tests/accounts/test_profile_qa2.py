"""Profile QA, second pass (regression tests of the defects found)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.accounts.players import make_player

pytestmark = pytest.mark.django_db


def test_a_profile_answers_head_like_every_other_page():
    """HEAD (link previews, uptime checks) got 405 on a profile, the one page to refuse it:
    the view took GET only where the others take the safe methods."""
    sara = make_player("سارا", display_name="سارا جان")
    url = reverse("accounts:profile", args=[sara.username])
    get, head = Client().get(url), Client().head(url)
    assert (get.status_code, head.status_code) == (200, 200)
    assert head.content == b""
    assert head["Content-Type"] == get["Content-Type"]


def test_head_on_an_unknown_player_is_404_and_post_stays_refused():
    assert Client().head(reverse("accounts:profile", args=["nobody"])).status_code == 404
    make_player("bahar")
    assert Client().post(reverse("accounts:profile", args=["bahar"])).status_code == 405
