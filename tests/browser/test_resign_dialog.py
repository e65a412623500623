"""Resigning against the computer in Chromium (issue 22): the page's own confirm dialog (no
browser confirm()), Esc keeps playing, yes ends the match and the page says so (R8); then the
lobby's quick start asks before opening another match over an unfinished one (R8.2)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match

from .helpers import hokm2_against_computer, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 740}


def test_resign_asks_in_the_page_dialog_then_ends_the_match_R8_R8_2(open_page) -> None:
    page = open_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a browser dialog opened: {dialog.message}"))
    page.set_viewport_size(PHONE)
    match_id, _ = hokm2_against_computer(page, "golnar")
    dialog = page.locator("#confirm-dialog")
    resign = page.locator("#table [data-seat-form='resign'] button")

    # Asked first; the safe answer has the focus, and Esc keeps the match going.
    resign.click()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading")).to_have_text("Resign the match?")
    expect(dialog).to_contain_text("Your side loses the match at once")
    expect(dialog.locator("button[value=cancel]")).to_be_focused()
    box = dialog.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert Match.objects.get(pk=match_id).status == Match.Status.PLAYING

    # Yes: the match ends, and the page says how, over the table it left.
    page.locator("#table [data-seat-form='resign'] button").click()
    dialog.get_by_role("button", name="Resign").click()
    ending = page.locator("#match-ending")
    expect(ending).to_be_visible()
    expect(ending).to_contain_text("You resigned")
    expect(ending).to_contain_text("You lose the match")
    expect(page.locator("#table [data-seat-form]")).to_have_count(0)
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.ended_by, match.winner_side) == ("finished", "resign", 1)

    # A new match, left unfinished: the next quick start asks, and "Resume" goes back to it.
    ending.get_by_role("button", name="Play again").click()
    unfinished = wait_match_live(page)
    assert unfinished != match_id
    page.goto("/lobby/")
    expect(page.locator(".resume")).to_contain_text("Your unfinished match")
    page.locator("form.computer-start button[name=variant][value=hokm3]").click()
    expect(page.locator("h1")).to_have_text("An unfinished match")
    page.get_by_role("link", name="Resume").click()
    expect(page).to_have_url(re.compile(rf"/match/{unfinished}/$"))
    assert Match.objects.filter(seats__user__username="golnar").count() == 2
