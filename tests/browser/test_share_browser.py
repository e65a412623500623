"""Sharing a public finished match in Chromium (issue 22): a signed-out visitor opens its replay,
steps to a position and presses "Share"; the link to that very position is copied, and said so,
or, where the clipboard is refused, shown in a field to copy by hand (static/js/share.js)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Match
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, TableFactory, match_play

pytestmark = pytest.mark.django_db(transaction=True)


def _public_finished_match() -> Match:
    """A hokm4 match to 1, over, at a public table that let no spectators in while it was played:
    public all the same once over."""
    seats = [SeatSpec(name=name) for name in ("Shirin", "Kaveh", "Laleh", "Babak")]
    table = TableFactory(variant="hokm4", allow_spectators=False)
    match = MatchFactory(variant="hokm4", target=1, seed=31, seats=seats, table=table)
    played = match_play(match, rng_seed=7)
    assert played.match.status == Match.Status.FINISHED
    return played.match


def _open_at_a_position(page: Page, match: Match) -> str:
    page.goto(f"/match/{match.pk}/replay/")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"#h1t1c2$"))
    return page.url


def test_a_signed_out_visitor_copies_the_link_to_the_position(
    open_page, base_url, screenshot
) -> None:
    match = _public_finished_match()
    page = open_page(viewport={"width": 1280, "height": 800})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    link = _open_at_a_position(page, match)
    assert link.endswith(f"/match/{match.pk}/replay/#h1t1c2")

    page.get_by_role("button", name="Share").click()
    expect(page.locator("[data-share-status]")).to_have_text("Link copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    expect(page.locator("[data-share-fallback]")).to_be_hidden()
    screenshot(page, "copied")


def test_without_the_clipboard_the_link_is_shown_to_copy_by_hand(open_page) -> None:
    match = _public_finished_match()
    page = open_page(viewport={"width": 1280, "height": 800})
    # A browser that refuses the clipboard: writeText fails, as it does without permission.
    page.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', { value: { writeText: () =>"
        " Promise.reject(new DOMException('denied', 'NotAllowedError')) } });"
    )
    link = _open_at_a_position(page, match)

    page.get_by_role("button", name="Share").click()
    field = page.get_by_label("Link to this page")
    expect(field).to_be_visible()
    expect(field).to_have_value(link)
    expect(field).to_be_focused()
    selected = page.evaluate(
        "() => { const f = document.activeElement;"
        " return f.value.slice(f.selectionStart, f.selectionEnd); }"
    )
    assert selected == link
    expect(page.locator("[data-share-status]")).to_have_text("Copy the link from the field below.")
