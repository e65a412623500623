"""Layout QA of the live match page, measured in a real Chromium: what sticks out over the table's
wooden rail or over a seat's plate on a phone, what a laptop's 800 pixels leave under the fold,
and what the sticky discard bar covers.

Matches are created here through ``games.play.services.match_create`` with the viewer as the first
Hakem, so that nothing moves while a box is read: the table waits for his call. Boxes are read in
one script run, after the socket's first frame (which replaces #table) and the entry animations.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from games.engine import get_variant
from games.models import ComputerLevel, MatchSeat
from games.play.services import SeatSpec

from .helpers import log_in, running_match, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "narrow": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}

#: Counts the socket's messages: the first one replaces the table the page was served with.
_FRAMES = """
(() => {
  window.__layoutFrames = 0;
  document.addEventListener("htmx:wsAfterMessage", () => { window.__layoutFrames += 1; });
})();
"""

#: The table once the socket's first frame is in, nothing is being sent and every animation that
#: ends has ended (the "Thinking" dots blink for ever); then what the player is to do.
_SETTLED_STEP = """
  () => {
    const table = document.querySelector("#table");
    if (window.__layoutFrames < 1 || table === null || table.classList.contains("is-sending")) {
      return false;
    }
    const moving = table.getAnimations({ subtree: true }).some(
      (a) => a.playState === "running" && a.effect.getComputedTiming().iterations !== Infinity
    );
    if (moving) return false;
    if (table.querySelector("button[data-suit]")) return "call";
    if (table.querySelector(".discard-form")) return "discard";
    if (table.querySelector(".hand button[data-card]:not([disabled])")) return "play";
    return "wait";
  }
"""

#: What sticks out: a seat's tricks badge or "Thinking" label off the felt inside its wooden rail
#: (the felt's padding box, with its rounded corners: on a wide screen an oval), or an away badge
#: off its seat's plate. Badges and labels are pills: points of their outline are looked at, not
#: their box's corners.
_STICKING_OUT = """
  () => {
    const felt = document.querySelector("#table .felt");
    const box = felt.getBoundingClientRect();
    const style = getComputedStyle(felt);
    const border = parseFloat(style.borderTopWidth);
    const inner = {
      left: box.left + border, top: box.top + border,
      right: box.right - border, bottom: box.bottom - border,
    };
    const length = (value, size) =>
      value.endsWith("%") ? parseFloat(value) / 100 * size : parseFloat(value);
    const [across, down] = style.borderTopLeftRadius.split(" ");
    const rx = Math.max(0, length(across, box.width) - border);
    const ry = Math.max(0, length(down || across, box.height) - border);
    const onFelt = (x, y) => {
      if (x < inner.left - 0.5 || x > inner.right + 0.5) return false;
      if (y < inner.top - 0.5 || y > inner.bottom + 0.5) return false;
      if (rx === 0 || ry === 0) return true;
      const cx = Math.min(Math.max(x, inner.left + rx), inner.right - rx);
      const cy = Math.min(Math.max(y, inner.top + ry), inner.bottom - ry);
      return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.02;
    };
    const offFelt = (element) => {
      const b = element.getBoundingClientRect();
      const r = Math.min(b.width, b.height) / 2;
      const d = r * (1 - Math.SQRT1_2);
      const middle = (b.top + b.bottom) / 2;
      const outline = [
        [b.left + r, b.top], [b.right - r, b.top], [b.left + r, b.bottom], [b.right - r, b.bottom],
        [b.left, middle], [b.right, middle], [b.left + d, b.top + d], [b.right - d, b.top + d],
        [b.left + d, b.bottom - d], [b.right - d, b.bottom - d],
      ];
      return outline.find(([x, y]) => !onFelt(x, y));
    };
    const wrong = [];
    document.querySelectorAll("#table .seat").forEach((seat) => {
      const where = `${seat.classList[1]} (seat ${seat.dataset.seat})`;
      for (const selector of [".seat__tricks", ".seat__turn"]) {
        const element = seat.querySelector(selector);
        const off = element && offFelt(element);
        if (off) wrong.push(`${selector} of ${where} on the rail at ${off.map(Math.round)}`);
      }
      const away = seat.querySelector(".seat-badge--away");
      if (away) {
        const a = away.getBoundingClientRect();
        const p = seat.querySelector(".seat__plate").getBoundingClientRect();
        if (a.left < p.left - 0.5 || a.right > p.right + 0.5
            || a.top < p.top - 0.5 || a.bottom > p.bottom + 0.5) {
          wrong.push(`away badge of ${where} out of its plate: ${[a.left, a.right].map(Math.round)}`
            + ` in ${[p.left, p.right].map(Math.round)}`);
        }
      }
    });
    return wrong;
  }
"""


def _open_match(open_page, base_url: str, size: str, language: str, username: str, match_id: int):
    page = open_page(**SIZES[size])
    page.context.add_init_script(_FRAMES)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    log_in(page, username)
    page.goto(f"/match/{match_id}/")
    wait_match_live(page)
    return page


def _settled_step(page: Page) -> str:
    return page.wait_for_function(_SETTLED_STEP, polling="raf").json_value()


@pytest.mark.parametrize(
    ("variant", "size", "language", "hakem"),
    [
        ("hokm4", "phone", "en", 0),
        ("hokm4", "phone", "fa", 1),
        ("hokm4", "narrow", "en", 0),
        ("hokm4", "narrow", "fa", 3),
        ("hokm3", "phone", "fa", 2),
        ("hokm4", "desktop", "en", 0),
        ("hokm3", "desktop", "fa", 0),
    ],
)
def test_seat_badges_and_labels_stay_on_the_felt_and_away_badges_on_their_plates(
    open_page, base_url, variant, size, language, hakem
) -> None:
    """The count of tricks on each seat's plate stuck out over the wooden rail on a phone (the
    side seat's on the outer side, the seats' across the table above the rail), and the
    "Away · computer plays" badge of the seat across the table stuck out of its plate, which was
    squeezed into half the felt; in Persian the "Thinking" label of a seat at the side was wider
    than the seat and stuck out over the rail too. The others here left or ran out of time (the
    badges at their widest), but the Hakem, who is thinking over his call."""
    viewer = verified_user("sara")
    others = [get_user_model().objects.create_user(username=n) for n in ("kaveh", "mina", "dara")]
    players = get_variant(variant).players
    seats = [SeatSpec(name="Sara", user=viewer)] + [
        SeatSpec(name=user.username.title(), user=user) for user in others[: players - 1]
    ]
    match = running_match(variant, seats, creator=viewer, hakem=hakem)
    stand_ins = MatchSeat.objects.filter(match=match, index__gte=1).exclude(index=hakem)
    stand_ins.update(status=MatchSeat.Status.LEFT)
    stand_ins.filter(index=players // 2).update(status=MatchSeat.Status.AWAY)

    page = _open_match(open_page, base_url, size, language, "sara", match.pk)
    assert _settled_step(page) == ("call" if hakem == 0 else "wait")
    expect(page.locator("#table .seat-badge--away")).to_have_count(stand_ins.count())
    expect(page.locator("#table .seat__turn")).to_have_count(0 if hakem == 0 else 1)
    assert page.evaluate(_STICKING_OUT) == []


#: Every control of the tools row under the table, and the line about the match beside them.
_TOOLS_BELOW_FOLD = """
  () => {
    const items = document.querySelectorAll(
      "#table .table-tools .tool-button, #table .table-tools .table-info"
    );
    return [...items]
      .map((item) => [item.textContent.trim(), item.getBoundingClientRect().bottom])
      .filter(([, bottom]) => bottom > innerHeight)
      .map(([text, bottom]) => `${text}: ${Math.round(bottom)}`);
  }
"""


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_tools_row_is_in_sight_on_a_laptop_without_scrolling(
    open_page, base_url, language
) -> None:
    """At 1280x800 the row of tools under the table (the hand's order, the last trick, how the
    Hakem was chosen, hand by hand, report, leave) began at the bottom edge of the screen and
    ended 54 pixels under it. The table keeps its size and the cards stay cards."""
    viewer = verified_user("sara")
    seats = [SeatSpec(name="Sara", user=viewer)] + [
        SeatSpec(name=f"Computer {i}", computer_level=ComputerLevel.EASY) for i in (1, 2, 3)
    ]
    match = running_match("hokm4", seats, creator=viewer, hakem=0)
    page = _open_match(open_page, base_url, "desktop", language, "sara", match.pk)
    assert _settled_step(page) == "call"
    version = page.locator("#table").get_attribute("data-version")
    page.locator("#table button[data-suit]").first.click()
    page.wait_for_function(
        "(v) => document.querySelector('#table')?.dataset.version !== v", arg=version
    )
    assert _settled_step(page) == "play"
    expect(page.locator("#table .table-tools .leave-button")).to_be_visible()

    assert page.evaluate("() => window.scrollY") == 0
    assert page.evaluate(_TOOLS_BELOW_FOLD) == []
    felt = page.locator("#table .felt").bounding_box()
    assert felt["height"] >= 27 * 16, "the felt gave up its room for the trick"
    card = page.locator("#table .hand .card").first.bounding_box()
    assert card["width"] >= 5 * 16, "the cards of the hand shrank too far"


#: What the discard bar covers of the cards of the hand, as the page opens (not scrolled).
_CARDS_UNDER_THE_BAR = """
  () => {
    const bar = document.querySelector("#table .discard-bar").getBoundingClientRect();
    const covered = [];
    document.querySelectorAll("#table .hand .card-check").forEach((check) => {
      const c = check.querySelector(".card").getBoundingClientRect();
      const across = Math.min(c.right, bar.right) - Math.max(c.left, bar.left);
      const down = Math.min(c.bottom, bar.bottom) - Math.max(c.top, bar.top);
      if (across > 0 && down > 0) {
        covered.push(`${check.dataset.card}: ${Math.round(across)}x${Math.round(down)}`);
      }
    });
    return { covered, barTop: bar.top, barBottom: bar.bottom, scrollY: window.scrollY };
  }
"""


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_discard_bar_covers_no_card_on_a_laptop_R3_5(open_page, base_url, language) -> None:
    """In hokm2-draw at 1280x800 the bar with the "Discard" button, stuck to the bottom of the
    screen, lay over the bottom corners of the hand's cards (15 pixels of them) until the page
    was scrolled. It stays in sight, under the cards."""
    viewer = verified_user("sara")
    seats = [
        SeatSpec(name="Sara", user=viewer),
        SeatSpec(name="Computer 1", computer_level=ComputerLevel.EASY),
    ]
    match = running_match("hokm2-draw", seats, creator=viewer, hakem=0)
    page = _open_match(open_page, base_url, "desktop", language, "sara", match.pk)
    assert _settled_step(page) == "call"
    page.locator("#table button[data-suit]").first.click()
    expect(page.locator("#table .discard-form")).to_have_count(1)
    assert _settled_step(page) == "discard"

    seen = page.evaluate(_CARDS_UNDER_THE_BAR)
    assert seen["scrollY"] == 0
    assert seen["covered"] == []
    assert seen["barTop"] >= 0 and seen["barBottom"] <= 800, "the bar is out of sight"
