"""Playing with the keyboard alone: Tab goes through the hand in the order it is shown, Enter
plays the card with the focus, and when the table comes back the focus is in the hand again, a
card away from the next move (not thrown back to the top of the page)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import TURN_OR_BANNER, hokm2_against_computer

pytestmark = pytest.mark.django_db(transaction=True)


_FOCUSED_CARD = """
  () => {
    const active = document.activeElement;
    return active && active.closest("#table .hand") ? active.dataset.card || "?" : null;
  }
"""


def _cards_left_to_right_in_page_order(page: Page) -> None:
    lefts = page.locator("#table .hand .hand__slot").evaluate_all(
        "(slots) => slots.map((slot) => slot.getBoundingClientRect().left)"
    )
    assert lefts == sorted(lefts), "the hand's page order is not the order it is shown in"


def test_a_whole_hand_with_the_keyboard(open_page) -> None:
    page = open_page()
    _, hakem = hokm2_against_computer(page, "kian")
    if hakem:
        page.locator("#table button[data-suit='S']").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#table .trump__name")).to_have_text("Spades")

    moves = 0
    while page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value() == "turn":
        _cards_left_to_right_in_page_order(page)
        if page.evaluate(_FOCUSED_CARD) is None:
            assert moves == 0, "after his last move the focus left the hand"
            page.locator("#table .hand button[data-card]:not([disabled])").first.focus()
        # Tab from card to card, in the order shown, to a card he may play.
        playable = page.locator("#table .hand button[data-card]:not([disabled])")
        first = playable.first.get_attribute("data-card")
        for _ in range(13):
            if page.evaluate(_FOCUSED_CARD) == first:
                break
            page.keyboard.press("Tab")
        card = page.evaluate(_FOCUSED_CARD)
        assert card == first
        page.keyboard.press("Enter")
        expect(page.locator(f"#table .hand [data-card='{card}']")).to_have_count(0)
        moves += 1
        assert moves <= 13
    assert moves >= 1
