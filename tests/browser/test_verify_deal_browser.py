""" "Verify this deal" on the replay, in a real Chromium (R8.4; static/js/verify-deal.js): on a
match dealt fairly and played out, the browser recomputes each deal with the Web Crypto API and
says it is verified; a seed changed in the database afterwards, the server's (no longer the one
committed to) or a player's (the commitment holds, the deal does not), is caught. The live server
is http://127.0.0.1, a secure context, where crypto.subtle exists. Screenshots go to
tests/screenshots/verify/.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import Page, expect

from games.models import Hand, Match
from games.play.services import SeatSpec, match_create, match_step
from tests.games.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path(__file__).resolve().parents[1] / "screenshots" / "verify"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
VERIFIED = "This deal is verified: "
MISMATCH = "This deal does NOT match"


def _fair_match(variant: str, options: dict[str, str] | None = None) -> Match:
    """A match dealt fairly (no seed given) between computers at a public table, played out at
    once as the worker would (tests/games/test_fair_live.py)."""

    def play() -> Match:
        try:
            match = match_create(
                variant=variant,
                target=2,
                seats=[SeatSpec(name=f"Bot {n}", computer_level="easy") for n in range(4)],
                options=options,
                max_deals=2 if variant == "court-piece" else None,
                table=TableFactory(variant=variant),
                client_seeds=["my lucky seed", "", "7 of hearts", "ace of spades!"],
            )
            for _ in range(3000):
                if not match_step(match=match.pk, rush=True):
                    break
            match.refresh_from_db()
            return match
        finally:
            connections.close_all()

    # In a thread of its own: the services broadcast after the commit with async_to_sync, which
    # refuses to run in this thread, where Playwright's event loop runs (tests/browser/helpers.py).
    with ThreadPoolExecutor(max_workers=1) as pool:
        match = pool.submit(play).result()
    assert match.status == Match.Status.FINISHED
    return match


def _open(page: Page, match: Match, hash_: str = "") -> None:
    page.goto(f"/match/{match.pk}/replay/{hash_}")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))


def _verify(page: Page) -> None:
    button = page.get_by_role("button", name="Verify this deal")
    expect(button).to_be_visible()
    button.click()


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("[data-verify]").scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / f"{name}.png", animations="disabled")


@pytest.mark.parametrize(
    ("variant", "options"),
    [("hokm4", None), ("court-piece", {"hidden_trump": "blind"})],
)
def test_the_replay_verifies_each_deal_of_a_fair_match(
    open_page, variant: str, options: dict[str, str] | None
) -> None:
    match = _fair_match(variant, options)
    hands = Hand.objects.filter(match=match).count()
    page = open_page(**PHONE)
    _open(page, match)
    result = page.locator("[data-verify-result]")
    expect(result).to_have_attribute("aria-live", "polite")
    _verify(page)
    expect(result).to_contain_text(VERIFIED)
    expect(page.locator("[data-verify]")).to_have_attribute("data-verdict", "verified")
    _shot(page, f"verified-{variant}-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    _shot(page, f"verified-{variant}-desktop")
    # Another hand: its own check, the last verdict gone.
    if hands > 1:
        page.locator("[data-go='next-hand']").click()
        expect(page).to_have_url(re.compile(r"#h2$"))
        expect(result).to_be_empty()
        _verify(page)
        expect(result).to_contain_text(VERIFIED)


def test_a_seed_changed_afterwards_does_not_verify(open_page, base_url) -> None:
    """The server seed changed: no longer the SHA-256 commitment. Put back, a player's seed
    changed instead: the commitment holds, the shuffle deals other cards."""
    match = _fair_match("hokm4")
    hand = Hand.objects.get(match=match, number=0)
    honest = dict(hand.fair)
    hand.fair = {**honest, "server_seed": "ab" * 32}
    hand.save(update_fields=["fair"])

    page = open_page(**PHONE)
    _open(page, match)
    result = page.locator("[data-verify-result]")
    _verify(page)
    expect(result).to_contain_text(MISMATCH)
    expect(result.locator("li")).to_have_text(
        ["The server seed is not the one committed to before the deal."]
    )
    expect(page.locator("[data-verify]")).to_have_attribute("data-verdict", "mismatch")

    hand.fair = {**honest, "client_seeds": ["not my seed", *honest["client_seeds"][1:]]}
    hand.save(update_fields=["fair"])
    page.context.add_cookies([{"name": "django_language", "value": "fa", "url": base_url}])
    _open(page, match)
    page.locator("[data-verify-button]").click()
    expect(page.locator("[data-verify]")).to_have_attribute("data-verdict", "mismatch")
    # A player's seed changed: every seat's cards differ, said in one line (in Persian here).
    expect(result.locator("li")).to_have_count(1)
    expect(result.locator("li")).not_to_contain_text("The shuffle")
    _shot(page, "mismatch-client-seed-phone-fa")
