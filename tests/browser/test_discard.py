"""The discard of hokm2-draw (R3.5) in the browser: the counter follows the cards picked, in the
page's language, and the button is ready only at the right number."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import MatchSeat

from .helpers import log_in, match_state, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

_DISCARD_OR_CALL = """
  () => {
    const table = document.querySelector("#table");
    if (table === null || table.classList.contains("is-sending")) return false;
    if (table.querySelector(".discard-form")) return "discard";
    if (table.querySelector("button[data-suit]")) return "call";
    return false;
  }
"""


def _digits(text: str, language: str) -> str:
    """``text`` in the page's digits: Persian pages count in ۰–۹ (lib/numerals.py)."""
    return text.translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")) if language == "fa" else text


@pytest.mark.parametrize(
    ("language", "progress"),
    [("en", "{} of {} chosen"), ("fa", "{} از {} انتخاب شد")],
)
def test_the_discard_counter_follows_the_cards_picked_R3_5(
    open_page, base_url, language, progress
) -> None:
    verified_user("nika")
    page = open_page()
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    log_in(page, "nika")
    page.goto("/lobby/")
    page.locator("form[action$='/play/computer/'] button[name=variant][value=hokm2-draw]").click()
    match_id = wait_match_live(page)
    seat = MatchSeat.objects.get(match_id=match_id, user__username="nika").index
    while (step := page.wait_for_function(_DISCARD_OR_CALL).json_value()) == "call":
        page.locator("#table button[data-suit]").first.click()
        page.wait_for_function("() => !document.querySelector('#table button[data-suit]')")
    assert step == "discard"
    _, state = match_state(match_id)
    assert state.hand.to_act == seat

    form = page.locator("#table .discard-form")
    need = int(form.get_attribute("data-count"))
    status = form.locator("[data-discard-status]")
    prompt = status.inner_text()
    submit = form.locator("[data-discard-submit]")
    # On a laptop's screen (1280 x 720 here) the hand reaches the fold: the button and the count
    # stay in view without scrolling, at the bottom of the screen.
    expect(submit).to_be_in_viewport()
    expect(status).to_be_in_viewport()
    boxes = form.locator(".card-check")
    for picked in range(1, need + 1):
        boxes.nth(picked - 1).click()
        expect(status).to_have_text(_digits(progress.format(picked, need), language))
    expect(submit).to_be_enabled()
    boxes.nth(0).click()  # one less: not ready, and the count says so
    expect(status).to_have_text(_digits(progress.format(need - 1, need), language))
    expect(submit).to_be_disabled()
    for index in range(need - 1):
        boxes.nth(index + 1).click()
    expect(status).to_have_text(prompt)  # none picked: the prompt again
