"""The replay in Chromium: step through a finished hand with the keyboard while the URL follows,
open a position's link directly, and import a record through the form to land on its replay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from games.engine import HandState
from games.models import Match
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, match_play

from .helpers import log_in, verified_user

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ["Shirin", "Kaveh", "Laleh", "Babak"]
RECORDS = Path(__file__).resolve().parents[1] / "records"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _finished_match() -> tuple[Match, list[HandState]]:
    """A hokm4 match to 3 played to its end through the services (nobody moves on it later)."""
    seats = [SeatSpec(name=n) for n in NAMES]
    match = MatchFactory(variant="hokm4", target=3, seed=31, seats=seats)
    played = match_play(match, rng_seed=7)
    assert played.match.status == Match.Status.FINISHED and len(played.hands) >= 2
    return played.match, played.hands


def _open(page: Page, match: Match, hash_: str = "") -> None:
    page.goto(f"/match/{match.pk}/replay/{hash_}")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))


def _trick(page: Page) -> list[str]:
    return page.locator("[data-trick] [data-card]").evaluate_all(
        "(cards) => cards.map((card) => card.dataset.card)"
    )


def _seat_cards(page: Page, seat: int) -> list[str]:
    return page.locator(f'[data-seat="{seat}"] [data-hand-cards] [data-card]').evaluate_all(
        "(cards) => cards.map((card) => card.dataset.card)"
    )


def _hash(page: Page) -> str:
    return page.evaluate("() => window.location.hash")


def test_step_through_a_hand_with_the_keyboard(open_page, screenshot) -> None:
    match, hands = _finished_match()
    first, second = hands[0], hands[1]
    page = open_page(viewport={"width": 1280, "height": 800})
    _open(page, match)
    caption = page.locator("[data-caption]")
    expect(caption).to_contain_text("Hand 1: the deal.")
    hakem_name = NAMES[first.hakem]
    expect(page.locator(f'[data-seat="{first.hakem}"] [data-hakem-badge]')).to_be_visible()
    expect(caption).to_contain_text(f"{hakem_name} is the Hakem")
    history_length = page.evaluate("() => history.length")
    # Every hand face up at the deal: each seat's 13 cards.
    for seat in range(4):
        assert len(_seat_cards(page, seat)) == 13

    trick = first.tricks[0]
    leader = trick.leader
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"#h1t1c1$"))
    assert _trick(page) == [trick.cards[0].text]
    assert len(_seat_cards(page, leader)) == 12
    assert trick.cards[0].text not in _seat_cards(page, leader)
    expect(caption).to_contain_text(f"Hand 1, trick 1, card 1: {NAMES[leader]} leads the")
    expect(page.locator("[data-status]")).to_have_text(f"{NAMES[leader]} led")
    expect(page.locator(f'[data-seat="{leader}"]')).not_to_have_class(re.compile("is-on-turn"))
    next_seat = page.locator(f'[data-seat="{(leader + 1) % 4}"]')
    expect(next_seat).to_have_class(re.compile("is-on-turn"))

    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"#h1t1$"))
    assert _trick(page) == [card.text for card in trick.cards]
    winner = page.locator("[data-trick] .trick__card.is-winner [data-card]")
    expect(winner).to_have_attribute("data-card", trick.cards[(trick.winner - leader) % 4].text)
    expect(page.locator("[data-status]")).to_contain_text(f"{NAMES[trick.winner]} takes the trick")
    side = trick.winner % 2
    expect(page.locator(f'[data-side="{side}"] [data-tricks]')).to_have_text("1")
    screenshot(page, "desktop-trick-1")

    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"#h1t1c3$"))
    assert _trick(page) == [card.text for card in trick.cards[:3]]
    expect(page.locator(f'[data-side="{side}"] [data-tricks]')).to_have_text("0")

    page.keyboard.press("End")
    last = len(first.tricks)
    expect(page).to_have_url(re.compile(rf"#h1t{last}$"))
    assert _trick(page) == [card.text for card in first.tricks[-1].cards]
    result = first.result
    expect(page.locator(f'[data-side="{result.winner}"] [data-gain]')).to_have_text(
        f"+{result.points}"
    )
    expect(page.locator(f'[data-side="{result.winner}"] [data-points]')).to_have_text(
        str(result.points)
    )
    expect(caption).to_contain_text("won the hand")
    for seat in range(4):
        assert len(_seat_cards(page, seat)) == 13 - last
    screenshot(page, "desktop-hand-end")

    page.keyboard.press("Home")
    expect(page).to_have_url(re.compile(r"#h1$"))
    assert _trick(page) == []

    page.keyboard.press("ArrowDown")
    expect(page).to_have_url(re.compile(r"#h2$"))
    expect(caption).to_contain_text("Hand 2: the deal.")
    expect(page.locator("[data-hand-label]")).to_have_text(f"Hand 2 of {len(hands)}")
    expect(page.locator('[data-hand-link="2"]')).to_have_attribute("aria-current", "step")
    expect(page.locator("[data-trump-symbol]")).to_have_text(second.trump.symbol)
    page.keyboard.press("ArrowUp")
    expect(page).to_have_url(re.compile(r"#h1$"))

    # The buttons do what the keys do; the URL follows without adding to the history.
    page.get_by_role("button", name="Next trick").click()
    expect(page).to_have_url(re.compile(r"#h1t1$"))
    page.get_by_role("button", name="Next card").click()
    expect(page).to_have_url(re.compile(r"#h1t2c1$"))
    page.get_by_role("button", name="Previous hand").click()
    expect(page).to_have_url(re.compile(r"#h1$"))
    expect(page.get_by_role("button", name="Previous hand")).to_be_disabled()
    assert page.evaluate("() => history.length") == history_length


def test_a_position_link_opens_at_that_card(open_page, screenshot) -> None:
    match, hands = _finished_match()
    second = hands[1]
    page = open_page(**PHONE)
    _open(page, match, "#h2t3c2")
    trick = second.tricks[2]
    expect(page.locator("[data-caption]")).to_contain_text(
        f"Hand 2, trick 3, card 2: {NAMES[(trick.leader + 1) % 4]} plays the"
    )
    assert _trick(page) == [card.text for card in trick.cards[:2]]
    expect(page.locator("[data-position-label]")).to_have_text("Trick 3, card 2")
    screenshot(page, "phone-h2t3c2")

    # A complete trick, then a hash naming no position: the first deal, with no error.
    page.goto(f"/match/{match.pk}/replay/#h2t3")
    expect(page).to_have_url(re.compile(r"#h2t3$"))
    expect(page.locator("[data-trick] .trick__card")).to_have_count(4)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/match/{match.pk}/replay/#h{len(hands) + 5}t1c9")
    expect(page).to_have_url(re.compile(r"#h1$"))
    expect(page.locator("[data-caption]")).to_contain_text("Hand 1: the deal.")
    assert errors == []


def _points(page, go: str) -> str:
    """Which way the chevron of a step button points on screen: every icon is drawn pointing
    back (left), and a horizontal mirror turns it."""
    transform = page.locator(f"[data-go='{go}'] .rp-icon").evaluate(
        "(icon) => getComputedStyle(icon).transform"
    )
    return "right" if transform.startswith("matrix(-1") else "left"


def test_step_buttons_point_back_and_on(open_page, base_url) -> None:
    """Back points left and on points right; in Persian, mirrored, the other way round, and
    never both the same way."""
    match, hands = _finished_match()
    page = open_page()
    _open(page, match)
    for go in ("prev-card", "prev-trick"):
        assert _points(page, go) == "left", go
    for go in ("next-card", "next-trick"):
        assert _points(page, go) == "right", go
    page.context.add_cookies([{"name": "django_language", "value": "fa", "url": base_url}])
    _open(page, match)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    for go in ("prev-card", "prev-trick"):
        assert _points(page, go) == "right", go
    for go in ("next-card", "next-trick"):
        assert _points(page, go) == "left", go


def test_on_a_phone_the_steps_stay_in_view_with_the_trick(open_page) -> None:
    """The hands' rows push the controls far down a phone's page: they stay at the bottom of
    the screen, and a tap steps on with the trick still in sight."""
    match, hands = _finished_match()
    page = open_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    _open(page, match, "#h1t1")
    page.locator("[data-trick]").scroll_into_view_if_needed()
    expect(page.locator("[data-go='next-card']")).to_be_in_viewport()
    page.locator("[data-go='next-card']").click()
    expect(page).to_have_url(re.compile(r"#h1t2c1$"))
    expect(page.locator("[data-trick]")).to_be_in_viewport()


def test_arrows_follow_the_buttons_in_persian(open_page, base_url) -> None:
    """In Persian the page is mirrored, "next" points left, and so does the arrow that steps on."""
    match, hands = _finished_match()
    page = open_page()
    page.context.add_cookies([{"name": "django_language", "value": "fa", "url": base_url}])
    _open(page, match)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"#h1t1c1$"))
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"#h1$"))


def test_import_a_record_and_land_on_its_replay(open_page, screenshot) -> None:
    verified_user("nasrin")
    page = open_page()
    log_in(page, "nasrin")
    page.goto("/records/import/")

    # A faulty record first: the fault, located, and nothing stored.
    page.locator("main input[type=file]").set_input_files(
        str(RECORDS / "faulty" / "trick_not_following_diamonds.json")
    )
    page.locator("main form.record-form button[type=submit]").click()
    fault = page.locator(".record-fault")
    expect(fault).to_contain_text("hand 1, trick 3, dave (seat 4)")
    expect(fault).to_contain_text("holds a diamond and diamonds were led")
    screenshot(page, "import-fault")
    assert not Match.objects.filter(imported=True).exists()

    page.locator("main input[type=file]").set_input_files(
        str(RECORDS / "valid" / "hokm3_kot_non_hakem.json")
    )
    page.locator("main form.record-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/match/\d+/replay/$"))
    match = Match.objects.get(imported=True)
    assert page.url.endswith(f"/match/{match.pk}/replay/")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))
    expect(page.locator("[data-caption]")).to_contain_text("Hand 1: the deal.")
    expect(page.locator(".replay-head")).to_contain_text("Imported")
    page.keyboard.press("End")
    expect(page).to_have_url(re.compile(r"#h1t7$"))
    expect(page.locator("[data-caption]")).to_contain_text("Kot!")
    screenshot(page, "imported-replay")
