"""Issue 22 in Chromium: a signed-out visitor picks a quick-start game in the lobby, is told on the
sign-in page why he is there, signs in, and lands on the game he chose, ready to start."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match

from .helpers import PASSWORD, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

USERNAME = "parisa"


def test_a_signed_out_pick_explains_sign_in_and_comes_back_to_the_game(
    open_page, screenshot
) -> None:
    verified_user(USERNAME)
    page = open_page()

    # Signed out, in the lobby: choose the hard level, then two-player Hokm.
    page.goto("/lobby/")
    quick_start = page.locator("form[action$='/play/computer/']")
    quick_start.locator("label[for$='computer_level_2']").click()
    quick_start.locator("button[name=variant][value=hokm2]").click()

    # The sign-in page says why, and that he comes back to this game.
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    reason = page.locator("main .entrance-reason")
    expect(reason).to_have_text("Sign in to play: you will come straight back to your game.")
    screenshot(page, "1-sign-in-says-why")
    page.locator("main input[name=login]").fill(USERNAME)
    page.locator("main input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()

    # Back on the chosen game: two-player Hokm, the hard level still chosen, one Start button.
    expect(page).to_have_url(
        re.compile(r"/play/computer/start/\?variant=hokm2&computer_level=hard$")
    )
    expect(page.locator(".site-header .nav-player")).to_have_text(USERNAME)
    start = page.locator("main form[action$='/play/computer/']")
    expect(start.locator("input[name=variant]")).to_have_value("hokm2")
    expect(start.locator("input[name=computer_level]:checked")).to_have_value("hard")
    expect(start.locator("button")).to_have_count(1)
    screenshot(page, "2-back-on-the-game")
    start.locator("button").click()

    match_id = wait_match_live(page)
    match = Match.objects.get(pk=match_id)
    assert match.variant == "hokm2"
    assert list(
        match.seats.exclude(computer_level=None).values_list("computer_level", flat=True)
    ) == ["hard"]
