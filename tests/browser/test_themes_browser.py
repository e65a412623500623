"""Table themes, card fronts and backs in Chromium: picked on the settings page they change the
preview and the whole page at once, with no reload, and stay after one; and a screenshot of each
on a phone (tests/screenshots/themes/), on a replay's table, to look at."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import Back, Face, Theme, User
from games.models import Match
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, match_play

from .conftest import SCREENSHOTS
from .helpers import log_in, verified_user

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SHOTS = SCREENSHOTS / "themes"
NAMES = ["Shirin", "Kaveh", "Laleh", "Babak"]

#: What a theme, a face or a back changes, read from the page as the browser draws it.
LOOKS = """
() => {
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  const felt = style(".looks-preview__felt");
  const diamond = style(".looks-preview__hand .card--d");
  const rank = style(".looks-preview__hand .card__rank");
  const back = style(".looks-preview__backs .back");
  const body = getComputedStyle(document.body);
  return {
    page: body.backgroundImage + body.backgroundColor,
    text: body.color,
    felt: felt.backgroundImage + felt.backgroundColor + felt.borderTopColor,
    face: [diamond.color, diamond.backgroundImage, diamond.backgroundColor, diamond.borderTopColor,
           rank.fontSize, rank.fontFamily, rank.fontWeight].join("|"),
    back: back.backgroundImage + back.borderTopColor,
  };
}
"""


def _settings(page: Page) -> None:
    page.goto(reverse("accounts:settings"))
    expect(page.locator("#looks")).to_be_visible()
    page.wait_for_load_state("load")
    # Gone if the page reloads: every choice below must apply without one.
    page.evaluate("() => { window.__samePage = true; }")


def _pick(page: Page, name: str, value: str) -> None:
    with page.expect_response(
        lambda r: r.url.endswith("/account/preferences/") and r.request.method == "POST"
    ) as answer:
        page.locator(f'.looks-option:has(input[name="{name}"][value="{value}"])').click()
    assert answer.value.status == 204
    expect(page.locator("html")).to_have_attribute(f"data-{name}", value)


def _looks(page: Page) -> dict[str, str]:
    return page.evaluate(LOOKS)


def _stored(username: str) -> tuple[str, str, str]:
    user = User.objects.get(username=username)
    return user.theme, user.face, user.back


@pytest.mark.parametrize(
    ("name", "values", "changes"),
    [
        ("theme", Theme.values, ("page", "felt")),
        ("face", Face.values, ("face",)),
        ("back", Back.values, ("back",)),
    ],
)
def test_each_choice_changes_the_preview_and_the_page_at_once_and_stays(
    open_page: Callable[..., Page], name: str, values: list[str], changes: tuple[str, ...]
) -> None:
    verified_user("mina")
    page = open_page(**PHONE)
    log_in(page, "mina")
    _settings(page)
    seen: dict[str, dict[str, str]] = {}
    # The default last, so that each value is picked away from the one before.
    for value in [*values[1:], values[0], values[-1]]:
        before = _looks(page)
        _pick(page, name, value)
        after = _looks(page)
        for key in changes:
            assert after[key] != before[key], f"{name}={value} changes {key}"
        seen[value] = after
    assert page.evaluate("() => window.__samePage") is True
    # Each looks different from every other.
    for key in changes:
        drawn = [seen[value][key] for value in values]
        assert len(set(drawn)) == len(values), f"every {name} draws its own {key}"

    page.reload()
    expect(page.locator("html")).to_have_attribute(f"data-{name}", values[-1])
    expect(page.locator(f'input[name="{name}"][value="{values[-1]}"]')).to_be_checked()
    stored = dict(zip(("theme", "face", "back"), _stored("mina"), strict=True))
    assert stored[name] == values[-1]


def test_sound_motion_and_notifications_switch_at_once_and_stay(
    open_page: Callable[..., Page],
) -> None:
    verified_user("dara")
    page = open_page(**PHONE)
    log_in(page, "dara")
    _settings(page)
    events = page.evaluate_handle(
        "() => { const seen = []; document.addEventListener('hokm:prefs',"
        " (e) => seen.push(e.detail.name + '=' + e.detail.value)); return seen; }"
    )
    html = page.locator("html")
    page.locator('.looks-switch:has(input[name="sound"])').click()
    expect(html).to_have_attribute("data-sound", "off")
    page.locator('.looks-switch:has(input[name="motion"])').click()
    expect(html).to_have_attribute("data-motion", "off")
    page.locator('.looks-switch:has(input[name="notify"])').click()
    expect(html).to_have_attribute("data-notify", "on")
    page.locator('input[name="volume"]').fill("25")
    expect(html).to_have_attribute("data-volume", "25")
    assert events.json_value() == ["sound=off", "motion=off", "notify=on", "volume=25"]
    # The volume is stored a moment after the slider stops.
    page.wait_for_timeout(800)
    page.reload()
    expect(html).to_have_attribute("data-sound", "off")
    expect(html).to_have_attribute("data-volume", "25")
    expect(page.locator('input[name="sound"][type="checkbox"]')).not_to_be_checked()
    expect(page.locator('input[name="notify"][type="checkbox"]')).to_be_checked()
    user = User.objects.get(username="dara")
    assert (user.sound, user.volume, user.motion, user.notify) == (False, 25, False, True)


def test_hokm_prefs_set_wires_every_control_of_the_page(open_page: Callable[..., Page]) -> None:
    """A visitor (his choice in the session): hokmPrefs.set from another script moves the
    settings' own controls too, and a bad value is refused on the page."""
    page = open_page(**PHONE)
    page.goto(reverse("rules_hokm"))
    page.wait_for_load_state("load")
    assert page.evaluate("() => window.hokmPrefs.get('theme')") == "felt"
    page.evaluate(
        "() => { const box = document.createElement('input'); box.type = 'checkbox';"
        " box.dataset.pref = 'sound'; box.id = 'probe'; document.body.append(box); }"
    )
    page.evaluate("() => window.hokmPrefs.set('sound', false)")
    expect(page.locator("#probe")).not_to_be_checked()
    assert page.evaluate("() => window.hokmPrefs.set('theme', 'nope')") is False
    with page.expect_response(lambda r: r.url.endswith("/account/preferences/")) as answer:
        page.evaluate("() => window.hokmPrefs.set('theme', 'night')")
    assert answer.value.status == 204
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "night")
    expect(page.locator("html")).to_have_attribute("data-sound", "off")


def test_the_settings_form_works_without_scripts(open_page: Callable[..., Page]) -> None:
    verified_user("sina")
    page = open_page(java_script_enabled=False, **PHONE)
    page.goto("/accounts/login/")
    page.locator("main input[name=login]").fill("sina")
    page.locator("main input[name=password]").fill("Shab-e-Yalda-1403")
    page.locator("main form button[type=submit]").click()
    page.goto(reverse("accounts:settings"))
    page.locator('.looks-option:has(input[value="wood"])').click()
    page.locator('.looks-option:has(input[value="four"])').click()
    page.locator('.looks-switch:has(input[name="motion"])').click()
    page.locator(".looks-form button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Your looks and sounds are saved.")
    expect(page.locator("html")).to_have_attribute("data-theme", "wood")
    expect(page.locator("html")).to_have_attribute("data-face", "four")
    expect(page.locator("html")).to_have_attribute("data-motion", "off")
    expect(page.locator("html")).to_have_attribute("data-sound", "on")


# -- screenshots ---------------------------------------------------------------------------------


def _shot(page: Page, name: str, *, full_page: bool = False) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=path, animations="disabled", full_page=full_page)
    return path


def _set(page: Page, name: str, value: str) -> None:
    page.evaluate("([name, value]) => window.hokmPrefs.set(name, value)", [name, value])
    expect(page.locator("html")).to_have_attribute(f"data-{name}", value)
    # Pictures (backs, cloths) load once asked for.
    page.wait_for_load_state("networkidle")


def _replay(page: Page, match: Match, position: str) -> None:
    page.goto(f"/match/{match.pk}/replay/{position}")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))
    page.wait_for_load_state("load")


def _match(*, finished: bool) -> Match:
    seats = [SeatSpec(name=n) for n in NAMES]
    match = MatchFactory(variant="hokm4", target=3, seed=31, seats=seats)
    if finished:
        return match_play(match, rng_seed=7).match
    # Into the third trick: the hands are face down in its replay, three tricks' cards seen.
    match_play(match, rng_seed=7, until=lambda s: len(s.hand.tricks) >= 3 and s.hand.current)
    return Match.objects.get(pk=match.pk)


def test_screenshot_every_theme_deck_and_back_on_a_phone(open_page: Callable[..., Page]) -> None:
    finished = _match(finished=True)
    playing = _match(finished=False)
    page = open_page(**PHONE)
    _replay(page, finished, "#h1t4c3")
    for theme in Theme.values:
        _set(page, "theme", theme)
        _shot(page, f"theme-{theme}")
    _set(page, "theme", "felt")
    for face in Face.values:
        _set(page, "face", face)
        _shot(page, f"face-{face}")
    _set(page, "face", "classic")
    _replay(page, playing, "#h1t3c2")
    for back in Back.values:
        _set(page, "back", back)
        # The whole page: the hands, face down, are below the table.
        _shot(page, f"back-{back}", full_page=True)


@pytest.mark.parametrize(("language", "theme"), [("en", "felt"), ("fa", "carpet")])
def test_screenshot_the_settings_page(
    open_page: Callable[..., Page], language: str, theme: str
) -> None:
    verified_user("roya")
    page = open_page(locale=language, **PHONE)
    log_in(page, "roya")
    _settings(page)
    _set(page, "theme", theme)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"settings-{language}-{theme}.png", full_page=True)
    # Close-ups of the preview and the pickers, to look at the cards and samples.
    page.locator(".looks-preview").screenshot(path=SHOTS / f"preview-{language}-{theme}.png")
    for index, picker in enumerate(page.locator(".looks-picker").all()):
        picker.screenshot(path=SHOTS / f"picker-{index}-{language}-{theme}.png")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390
