"""Persian, Urdu and Hindi pages in a real Chromium: the table, the history, the replay, a player's
page and the rules of Hokm, each on a phone (390x844) and a laptop (1366x657), looked at in
screenshots (tests/screenshots/languages/<page>-<size>-<language>.png) and read:

* the page's language and direction (right to left for Persian and Urdu);
* its digits: ۰–۹ in Persian and Urdu, in all the text a reader sees but names (a ``<bdi>`` of no
  fixed direction) and card faces (``translate="no"``), the numbers the scripts write too (the turn
  clock); 0–9 in Hindi, no Arabic-script or Devanagari digit; names with digits as written;
* its layout, checked as the layout tests check Persian: nothing sticking out sideways on the
  phone; the table's and the replay's pieces apart (layout_helpers.OVERLAPS), every index of the
  trick in sight, at both sizes; the whole table in sight on the laptop, unscrolled;
* the language's web font (static/fonts/), loaded and first in the page's font list;
* dates: Solar Hijri in Persian (a Persian month name, a 14xx year), the month in the language's
  own letters in Urdu and Hindi;
* words: the navigation and the translated headings in the language's script, not English.

One match per language, brought to the middle of its first hand and held (layout_helpers), is the
table; played on to its end it is the history's, the replay's and the profile's. Each page is
opened once, at phone size, then the same page is made laptop size (in the phone's browser context:
touch, mobile; what these checks measure there was the same as in a laptop's own context). Every
check is made on every page, and what fails is reported together at the end.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import jdatetime
import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page

from games.models import Match, MatchSeat

from .conftest import SCREENSHOTS
from .layout_helpers import (
    OVERLAPS,
    SETTLED,
    SIZES,
    TRICK_INDEX_COVERED,
    _advance,
    held_match,
    open_held,
)
from .test_replay_layout import BOARD
from .test_replay_layout import TOUCHING as BOARD_TOUCHING
from .test_rules_pages_browser import OVERFLOW
from .test_table_layouts import _BELOW_THE_FOLD as BELOW_THE_FOLD
from .test_table_layouts import FELT
from .test_table_layouts import TOUCHING as FELT_TOUCHING

pytestmark = pytest.mark.django_db(transaction=True)

LANGUAGE_SHOTS = SCREENSHOTS / "languages"

#: Each language: its direction, its web font (static/css/site.css), the letters of its script.
LANGUAGES = {
    "fa": ("rtl", "Vazirmatn", "\u0600-\u06ff"),
    "ur": ("rtl", "Noto Naskh Arabic", "\u0600-\u06ff"),
    "hi": ("ltr", "Noto Sans Devanagari", "\u0900-\u097f"),
}

PERSIAN_DIGITS = re.compile("[\u06f0-\u06f9]")
ARABIC_DIGITS = re.compile("[\u0660-\u0669]")
DEVANAGARI_DIGITS = re.compile("[\u0966-\u096f]")
ASCII_DIGITS = re.compile("[0-9]")

#: The text a reader sees, as the pieces that hold it (text nodes), each with the element it is
#: in: all of the body's text and the title but what the site leaves as written (lib/numerals.py):
#: names (a <bdi> of no fixed direction), card faces and the nav's username (translate="no"),
#: scripts, styles, code and typed text.
READ_TEXT = """
  () => {
    const skip = "script, style, noscript, template, textarea, input, select, code, pre, kbd, samp,"
      + " [translate=no], bdi:not([dir=ltr]):not([dir=rtl])";
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const pieces = [{ where: "title", text: document.title }];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!node.data.trim() || parent.closest(skip)) continue;
      const where = parent.tagName.toLowerCase()
        + (parent.className && typeof parent.className === "string"
          ? "." + parent.className.trim().split(/\\s+/).join(".") : "");
      pieces.push({ where, text: node.data.trim() });
    }
    return pieces;
  }
"""

#: The page's language, direction, width, and fonts once every font it asked for has come.
READ_PAGE = """
  async (family) => {
    await document.fonts.ready;
    const faces = [...document.fonts].filter((f) => f.family.replace(/["']/g, "") === family);
    const heading = document.querySelector("main h1");
    return {
      lang: document.documentElement.lang,
      dir: document.documentElement.dir,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      fontStatus: faces.map((f) => f.status),
      bodyFont: getComputedStyle(document.body).fontFamily,
      nav: [...document.querySelectorAll(".site-nav a:not([translate=no]), .site-nav button")]
        .map((e) => e.textContent.trim()),
      heading: heading ? heading.textContent.trim() : null,
    };
  }
"""


def _shot(page: Page, name: str) -> Path:
    LANGUAGE_SHOTS.mkdir(parents=True, exist_ok=True)
    path = LANGUAGE_SHOTS / f"{name}.png"
    page.screenshot(path=path, animations="disabled")
    return path


def _jalali_dates() -> list[tuple[str, str]]:
    """Today's Persian month name and year (in Persian digits), and yesterday's and tomorrow's:
    the reader's time zone may put the match on either side of midnight."""
    today = dt.date.today()
    persian = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
    out = []
    for shift in (-1, 0, 1):
        day = jdatetime.date.fromgregorian(date=today + dt.timedelta(days=shift))
        out.append((jdatetime.date.j_months_fa[day.month - 1], str(day.year).translate(persian)))
    return out


def _check_page(
    page: Page,
    language: str,
    name: str,
    *,
    translated_heading: bool,
    apart: tuple[dict, list] | None = None,
    laptop_fold: bool = False,
) -> list[str]:
    """What is wrong with the page open in ``language``, at phone size then at laptop size (the
    same page made wider), its screenshots taken at both. ``apart``: the groups of boxes (and those
    that may touch) kept apart at both sizes, as the layout tests keep them for Persian
    (layout_helpers.OVERLAPS), every index of the trick in sight; ``laptop_fold``: the whole table
    in sight on the laptop, unscrolled, as test_table_layouts asks it of Persian."""
    direction, family, letters = LANGUAGES[language]
    script = re.compile(f"[{letters}]")
    where = f"{name} in {language}"
    problems: list[str] = []

    def check(ok: object, problem: str) -> None:
        if not ok:
            problems.append(f"{where}: {problem}")

    page.wait_for_function(SETTLED, polling="raf")
    facts = page.evaluate(READ_PAGE, family)
    _shot(page, f"{name}-phone-{language}")

    check((facts["lang"], facts["dir"]) == (language, direction), f"lang/dir {facts}")
    check(
        facts["scrollWidth"] <= facts["innerWidth"] + 1,
        f"{facts['scrollWidth']} pixels wide on a {facts['innerWidth']} pixel phone",
    )
    outside = page.evaluate(OVERFLOW)["outside"]
    check(outside == [], f"boxes out of a phone's width: {outside[:10]}")
    if apart is not None:
        met = page.evaluate(OVERLAPS, list(apart))
        check(met == [], f"on a phone, boxes meet: {met}")
        covered = page.evaluate(TRICK_INDEX_COVERED)
        check(covered == [], f"on a phone, trick indexes covered: {covered}")
    check("loaded" in facts["fontStatus"], f"{family} not loaded: {facts['fontStatus']}")
    check(
        facts["bodyFont"].replace('"', "").startswith(family),
        f"{family} is not the page's font: {facts['bodyFont']}",
    )
    english = [word for word in facts["nav"] if not script.search(word)]
    check(facts["nav"] and english == [], f"the nav is not in {language}: {facts['nav']}")
    if translated_heading:
        check(
            facts["heading"] and script.search(facts["heading"]),
            f"the heading is not in {language}: {facts['heading']!r}",
        )

    pieces = page.evaluate(READ_TEXT)
    text = " ".join(piece["text"] for piece in pieces)
    if language in ("fa", "ur"):
        check(PERSIAN_DIGITS.search(text), f"no ۰–۹ in {text[:300]!r}")
        latin = [p for p in pieces if ASCII_DIGITS.search(p["text"])]
        check(latin == [], f"0-9 in {latin}")
        arabic = [p for p in pieces if ARABIC_DIGITS.search(p["text"])]
        check(arabic == [], f"Arabic digits (U+0660-0669) in {arabic}")
    else:
        check(ASCII_DIGITS.search(text), f"no 0-9 in {text[:300]!r}")
        other = [
            p
            for p in pieces
            if PERSIAN_DIGITS.search(p["text"])
            or ARABIC_DIGITS.search(p["text"])
            or DEVANAGARI_DIGITS.search(p["text"])
        ]
        check(other == [], f"digits other than 0-9 in {other}")

    page.set_viewport_size(SIZES["laptop"]["viewport"])
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function(SETTLED, polling="raf")
    _shot(page, f"{name}-desktop-{language}")
    laptop = page.evaluate(READ_PAGE, family)
    check((laptop["lang"], laptop["dir"]) == (language, direction), f"lang/dir {laptop}")
    check(laptop["scrollWidth"] <= laptop["innerWidth"] + 1, f"wider than a laptop: {laptop}")
    if apart is not None:
        met = page.evaluate(OVERLAPS, list(apart))
        check(met == [], f"on a laptop, boxes meet: {met}")
        covered = page.evaluate(TRICK_INDEX_COVERED)
        check(covered == [], f"on a laptop, trick indexes covered: {covered}")
    if laptop_fold:
        seen = page.evaluate(BELOW_THE_FOLD)
        check(seen["out"] == [], f"out of sight on a 657 pixel high laptop: {seen['out']}")
    page.set_viewport_size(SIZES["phone"]["viewport"])
    return problems


def _check_date(page: Page, language: str, selector: str, name: str) -> list[str]:
    """What is wrong with the first date ``selector`` finds: in Persian, not Solar Hijri; in Urdu
    and Hindi, its month not in the language's letters."""
    date = page.locator(selector).first.inner_text().strip()
    where = f"{name} in {language}: the date {date!r}"
    if language == "fa":
        problems = []
        if not any(month in date and year in date for month, year in _jalali_dates()):
            problems.append(f"{where} is not Solar Hijri (one of {_jalali_dates()})")
        if "۲۰۲" in date:
            problems.append(f"{where} has a Gregorian year")
        return problems
    letters = LANGUAGES[language][2]
    if not re.search(f"[{letters}]", date) or re.search("[A-Za-z]", date):
        return [f"{where}: its month is not in {language}"]
    return []


def _mid_hand(state) -> bool:
    """Three tricks played, the viewer's turn to lead the fourth (the last trick still shown)."""
    return len(state.hand.tricks) >= 3 and not state.hand.current and state.hand.to_act == 0


#: Names with digits, which stay as written in every language (lib/numerals.py): a seat's name
#: (in a <bdi> of no fixed direction) and the viewer's username, shown under her display name.
SEAT_NAME = "Kaveh1990"
USERNAME = "sara2024"


def _names_as_written(page: Page, language: str, name: str, *written: str) -> list[str]:
    """What is wrong with the names ``written`` on the page: each must be there as written."""
    text = page.evaluate("() => document.body.innerText")
    return [
        f"{name} in {language}: the name {each!r} is not shown as written"
        + (f" (shown {found!r})" if (found := _digits_swapped(text, each)) else "")
        for each in written
        if each not in text
    ]


def _digits_swapped(text: str, name: str) -> str | None:
    """``name`` with its digits in another script, if ``text`` holds it so."""
    for digits in ("۰۱۲۳۴۵۶۷۸۹", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९"):
        swapped = name.translate(str.maketrans("0123456789", digits))
        if swapped in text:
            return swapped
    return None


@pytest.mark.parametrize("language", ["fa", "ur", "hi"])
def test_every_page_reads_in_its_language_on_a_phone_and_a_laptop(
    open_page, base_url, language
) -> None:
    match = held_match("hokm4", hakem=0, target=1, clock=30, until=_mid_hand)
    MatchSeat.objects.filter(match=match, index=3).update(name=SEAT_NAME)
    page = open_held(open_page, base_url, "phone", language, f"/match/{match.pk}/")
    page.locator("#table .hand .card").first.wait_for()
    problems = _check_page(
        page,
        language,
        "table",
        translated_heading=False,
        apart=(FELT, FELT_TOUCHING),
        laptop_fold=True,
    )
    problems += _names_as_written(page, language, "table", SEAT_NAME)
    # The turn clock's count, written by match.js (window.hokmDigits), in the reader's digits.
    seconds = page.locator("#table [data-clock-seconds]").inner_text()
    digits = PERSIAN_DIGITS if language in ("fa", "ur") else ASCII_DIGITS
    if not (seconds and all(digits.fullmatch(d) for d in seconds)):
        problems.append(f"table in {language}: the turn clock counts {seconds!r}")

    Match.objects.filter(pk=match.pk).update(step_at=None)
    _advance(match.pk, lambda state: state.is_over)
    Match.objects.filter(pk=match.pk).update(step_at=None)
    # Signed in still (the session keeps her id): a username with digits, under a display name.
    get_user_model().objects.filter(username="sara").update(
        username=USERNAME, display_name="Sara Tehrani"
    )

    page.goto("/history/")
    assert page.locator(".history-item").count() == 1
    problems += _check_page(page, language, "history", translated_heading=True)
    problems += _check_date(page, language, ".history-item__date", "history")
    problems += _names_as_written(page, language, "history", SEAT_NAME)

    page.goto(f"/match/{match.pk}/replay/")
    for _ in range(6):
        page.locator("[data-go=next-card]").click()
    problems += _check_page(
        page, language, "replay", translated_heading=True, apart=(BOARD, BOARD_TOUCHING)
    )
    problems += _names_as_written(page, language, "replay", SEAT_NAME)

    page.goto(f"/players/{USERNAME}/")
    problems += _check_page(page, language, "profile", translated_heading=False)
    problems += _check_date(page, language, ".player-joined", "profile")
    problems += _names_as_written(page, language, "profile", f"@{USERNAME}")

    page.goto("/rules/hokm/")
    problems += _check_page(page, language, "rules", translated_heading=True)

    assert problems == [], "\n".join(problems)
