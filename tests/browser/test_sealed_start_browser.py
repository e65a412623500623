"""The first shuffles of a match are sealed before anyone is dealt, and the player's page adds its
seed (R8.4, docs/fairness.md "The first shuffles"), in a real Chromium: the table page shows the
commitment and its script answers it at once, "Start" deals from that seal with the player's seed
(his own from the settings, else the page's random one), and the lobby's quick start deals from
the seal the lobby showed. Screenshots go to tests/screenshots/sealed/.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import Page, expect

from games.models import Hand, Seat, Table
from games.play import fairness
from tests.browser.helpers import log_in, verified_user, wait_match_live
from tests.games.factories import open_table

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[1] / "screenshots" / "sealed"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
RANDOM_SEED = re.compile(r"^[0-9a-f]{32}$")


def _in_thread(call, /, **kwargs):
    """A service call beside Playwright's loop: it broadcasts with async_to_sync, which refuses
    to run in this thread (tests/browser/helpers.py)."""

    def run():
        try:
            return call(**kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def _seat_seed(table: Table, index: int, *, not_: str = "") -> str:
    """The seat's client seed once it is other than ``not_`` (the page answers on its own)."""
    for _ in range(100):
        seed = Seat.objects.get(table=table, index=index).client_seed
        if seed != not_:
            return seed
        time.sleep(0.1)
    raise AssertionError(f"seat {index}'s seed is still {not_!r}")


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png", animations="disabled")


def test_the_table_page_answers_its_seal_and_start_deals_from_it_R8_4(open_page) -> None:
    creator = verified_user("roya")
    table = _in_thread(open_table, user=creator, variant="hokm2", fill_with_computer=True)
    commit = fairness.seal_commit(table.fair_start)
    page = open_page(**PHONE)
    log_in(page, "roya")
    page.goto(f"/tables/{table.pk}/")
    sealed = page.locator(".fair-seal")
    expect(sealed).to_contain_text("First shuffle sealed")
    expect(sealed.locator("code")).to_have_text(commit[:12] + "…")
    random_seed = _seat_seed(table, 0)
    assert RANDOM_SEED.match(random_seed), random_seed
    # The seats fragment (and the line with it) may be swapped in again by the table's socket at
    # any moment: scroll to whichever copy is there now, not to an element held from before.
    page.evaluate("() => document.querySelector('.fair-seal').scrollIntoView({block: 'center'})")
    _shot(page, "table-phone")
    html = page.content()
    assert table.fair_start["hand"]["server_seed"] not in html
    assert table.fair_start["draw"]["server_seed"] not in html

    # His own seed, typed in the settings, goes with "Start".
    page.evaluate("() => localStorage.setItem('hokm-client-seed', 'roya was here')")
    page.get_by_role("button", name="Start with computer players").click()
    match_id = wait_match_live(page)
    hand = Hand.objects.get(match_id=match_id, number=0).fair
    assert hand["commit"] == commit
    assert hand["client_seeds"] == ["roya was here", ""]


def test_the_lobby_quick_start_deals_from_the_seal_it_showed_R8_4(open_page) -> None:
    verified_user("kaveh")
    page = open_page(viewport={"width": 1366, "height": 657})
    log_in(page, "kaveh")
    form = page.locator("form.computer-start")
    shown = form.locator("input[name=shuffle_commit]").get_attribute("value")
    expect(form.locator(".fair-seal code")).to_have_text(shown[:12] + "…")
    form.locator(".fair-seal").scroll_into_view_if_needed()
    _shot(page, "lobby-desktop")
    form.locator("button[name=variant][value=hokm3]").click()
    match_id = wait_match_live(page)
    hand = Hand.objects.get(match_id=match_id, number=0).fair
    assert hand["commit"] == shown
    assert RANDOM_SEED.match(hand["client_seeds"][0]), hand["client_seeds"]
    assert hand["client_seeds"][1:] == ["", ""]
