"""Layouts of the live table, measured in a real Chromium (issue 22): a long hand on a phone, every
card of it a tap target with its index in sight; the whole table on a short laptop screen without
scrolling; and nothing on the felt drawn over anything else (seat plates, their counts, the
trick, the turn clock, the status line, the banners).

Each match is brought to its moment through the services and held there (layout_helpers), and its
page opened without a socket: nothing on it moves while its boxes are read. Screenshots go to
tests/screenshots/layout/.
"""

from __future__ import annotations

import pytest

from games.engine import Phase

from .layout_helpers import OVERLAPS, SIZES, TRICK_INDEX_COVERED, held_match, open_held, shot

pytestmark = pytest.mark.django_db(transaction=True)

TAP = 44  # pixels, both ways (WCAG 2.5.5; Apple's and Google's guides say the same)

#: For each card of the hand: the part of it in sight, read with elementFromPoint (what a tap
#: there reaches) from the card's top corner on the start side, where its index is. ``width``: how
#: far the card is reached along its first TAP pixels of height; ``height``: how far down it is
#: reached along its first TAP pixels of width; ``index``: whether every point of the index is.
_HAND_IN_SIGHT = """
  (tap) => {
    const hand = document.querySelector("#table .hand");
    hand.scrollIntoView({ block: "end" });
    const rtl = getComputedStyle(hand).direction === "rtl";
    return [...hand.querySelectorAll(".card")].map((card) => {
      const own = card.dataset.card;
      const r = card.getBoundingClientRect();
      const reached = (x, y) => {
        const hit = document.elementFromPoint(x, y);
        return hit !== null && hit.closest("[data-card]")?.dataset.card === own;
      };
      // Along the inline axis from the start edge, d pixels in.
      const at = (d, y) => reached(rtl ? r.right - 0.5 - d : r.left + 0.5 + d, y);
      // Clear of the rounded corner, which a tap misses too.
      const round = parseFloat(getComputedStyle(card).borderTopLeftRadius);
      let width = Infinity;
      for (let y = r.top + round; y < r.top + tap; y += 2) {
        let d = 0;
        while (d < r.width - 1 && at(d, y)) d += 1;
        width = Math.min(width, d + 0.5);
      }
      let height = Infinity;
      for (let d = round; d < tap; d += 2) {
        let y = r.top + 0.5;
        while (y < r.bottom - 1 && at(d, y)) y += 1;
        height = Math.min(height, y - r.top);
      }
      const i = card.querySelector(".card__index--top").getBoundingClientRect();
      let index = true;
      for (let x = i.left + 0.5; x < i.right; x += 2) {
        for (let y = i.top + 0.5; y < i.bottom; y += 2) index = index && reached(x, y);
      }
      return {
        card: own, width: Math.round(width), height: Math.round(height), index,
        left: r.left, right: r.right, cardWidth: r.width,
      };
    });
  }
"""


def _lead(state) -> bool:
    return state.hand.phase is Phase.PLAY


@pytest.mark.parametrize(
    ("variant", "size", "language", "count"),
    [
        ("hokm3", "phone", "en", 17),
        ("hokm3", "phone", "fa", 17),
        ("hokm3", "narrow", "en", 17),
        ("hokm3", "narrow", "fa", 17),
        ("hokm4", "narrow", "en", 13),
        ("hokm4", "phone", "fa", 13),
    ],
)
def test_every_card_of_a_long_hand_is_a_tap_target_with_its_index_in_sight(
    open_page, base_url, variant, size, language, count
) -> None:
    """hokm3's 17 cards in one row on a 390 pixel phone left 20 pixels of each card in sight (13
    cards: 26): too narrow a target for a finger. Each card shows 44 pixels both ways at least
    now, its index (rank and suit) whole, every card on the screen."""
    match = held_match(variant, hakem=0, until=_lead)
    page = open_held(open_page, base_url, size, language, f"/match/{match.pk}/")
    cards = page.evaluate(_HAND_IN_SIGHT, TAP)
    shot(page, f"hand-{variant}-{size}-{language}")

    assert len(cards) == count
    narrowest = min(cards, key=lambda c: c["width"])
    lowest = min(cards, key=lambda c: c["height"])
    assert narrowest["width"] >= TAP, f"a card {narrowest['width']} pixels wide in sight: {cards}"
    print(f"{variant} {size} {language}: in sight at least {narrowest['width']}x{lowest['height']}")
    assert lowest["height"] >= TAP, f"a card {lowest['height']} pixels high in sight: {cards}"
    assert [c["card"] for c in cards if not c["index"]] == [], "an index is covered"
    width = SIZES[size]["viewport"]["width"]
    off = [c for c in cards if c["left"] < 0 or c["right"] > width]
    assert off == [], f"off the screen: {off}"
    assert min(c["cardWidth"] for c in cards) >= 50, "the cards shrank too far"


def test_a_laptop_keeps_hokm3s_hand_in_one_row_every_index_in_sight(open_page, base_url) -> None:
    """With a mouse, at 1366x657, hokm3's 17 cards stay in one row, 39 pixels of each in sight
    and its index whole: a second row would cost the height the table does not have there."""
    match = held_match("hokm3", hakem=0, until=_lead)
    page = open_held(open_page, base_url, "laptop", "en", f"/match/{match.pk}/")
    cards = page.evaluate(_HAND_IN_SIGHT, TAP)
    assert len(cards) == 17
    tops = page.locator("#table .hand .card").evaluate_all(
        "(cards) => cards.map((card) => Math.round(card.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, "one row"
    assert min(c["width"] for c in cards) >= 32
    assert [c["card"] for c in cards if not c["index"]] == []


#: What the table shows, each element's box where it ends up below the top of the screen, the
#: page as it opens (not scrolled): whatever part of the table lies under its bottom edge.
_BELOW_THE_FOLD = """
  () => {
    const selectors = [
      "#table .table-bar", "#table .felt", "#table .hand .card", "#table .discard-bar",
      "#table button[data-suit]", "#table [data-keep]", "#table .discard-bar button",
      "#table .table-tools > .tool-button", "#table .table-tools summary",
      "#table .table-tools .leave-button", "#table .table-tools .table-info",
    ];
    const out = [];
    for (const selector of selectors) {
      document.querySelectorAll(selector).forEach((element) => {
        const r = element.getBoundingClientRect();
        if (r.height === 0) return;
        if (r.top < 0 || r.bottom > innerHeight + 0.5) {
          out.push(`${selector} ${element.textContent.trim().slice(0, 20)}: ${Math.round(r.top)}`
            + `-${Math.round(r.bottom)}`);
        }
      });
    }
    return { out, scrollY, bottom: Math.round(Math.max(
      ...[...document.querySelectorAll("#table .hand .card, #table .table-tools > *")]
        .map((e) => e.getBoundingClientRect().bottom))) };
  }
"""


def _draw_turn(state) -> bool:
    return state.hand.phase is Phase.DRAW and state.hand.to_act == 0


def _discard_turn(state) -> bool:
    return state.hand.phase is Phase.DISCARD and state.hand.to_act == 0


@pytest.mark.parametrize(
    ("variant", "moment", "language"),
    [
        ("hokm3", "lead", "en"),
        ("hokm3", "lead", "fa"),
        ("hokm4", "call", "en"),
        ("hokm4", "call", "fa"),
        ("hokm2-draw", "discard", "en"),
        ("hokm2-draw", "draw", "fa"),
    ],
)
def test_the_whole_table_is_in_sight_on_a_short_laptop_screen(
    open_page, base_url, variant, moment, language
) -> None:
    """At 1366x657 (a 1366x768 laptop less its browser's bars) the hand began 570 pixels down
    and its cards ended under the bottom edge, the tools row under them out of sight. The score
    bar, the felt, every card of the hand, the buttons of the moment (the trump call, the discard,
    keep or throw) and the tools row are in sight as the page opens, unscrolled."""
    until = {"lead": _lead, "call": None, "discard": _discard_turn, "draw": _draw_turn}[moment]
    match = held_match(variant, hakem=0, until=until)
    page = open_held(open_page, base_url, "laptop", language, f"/match/{match.pk}/")
    shot(page, f"laptop-{variant}-{moment}-{language}")
    buttons = {
        "call": "#table button[data-suit]",
        "discard": "#table .discard-bar button",
        "draw": "#table [data-keep]",
        "lead": "#table .hand button[data-card]:not([disabled])",
    }[moment]
    assert page.locator(buttons).count() > 0
    seen = page.evaluate(_BELOW_THE_FOLD)
    assert seen["scrollY"] == 0
    assert seen["out"] == [], f"out of sight at 657 pixels: {seen['out']}"
    felt = page.locator("#table .felt").bounding_box()
    assert felt["height"] >= 21 * 16, "the felt gave up its room for the trick"


def _on_turn(seat: int, played: int):
    def moment(state) -> bool:
        hand = state.hand
        return (
            hand.phase is Phase.PLAY
            and len(hand.tricks) >= 1
            and len(hand.current) == played
            and hand.to_act == seat
        )

    return moment


#: The felt's pieces that must stay apart (layout_helpers.OVERLAPS).
FELT = {
    "plate": "#table .seat__plate",
    "tricks": "#table .seat__tricks",
    "backs": "#table .backs",
    "turn": "#table .seat__turn",
    "clock": "#table .turn-clock",
    "card": "#table .trick__card .card",
    "who": "#table .trick__who",
    "status": "#table .status > *",
    "banner": "#table .banner",
}
#: A card of the trick may touch another's name (the names stand out of a small card), so long as
#: every index stays in sight (TRICK_INDEX_COVERED).
TOUCHING = [["plate", "tricks"], ["card", "who", "anywhere"]]


@pytest.mark.parametrize(
    ("variant", "hakem", "seat", "played", "size", "language"),
    [
        # Three cards in, the viewer on turn: his clock above his plate, "Your turn" above it.
        ("hokm4", 1, 0, 3, "phone", "en"),
        ("hokm4", 1, 0, 3, "narrow", "en"),
        ("hokm4", 1, 0, 3, "narrow", "fa"),
        ("hokm4", 1, 0, 3, "laptop", "fa"),
        # The seat across the table thinking, its clock under its plate, above the trick.
        ("hokm4", 3, 2, 3, "narrow", "en"),
        ("hokm4", 3, 2, 3, "laptop", "en"),
        # A side seat thinking: its label and clock beside the trick.
        ("hokm4", 1, 3, 2, "phone", "fa"),
        ("hokm4", 1, 3, 2, "narrow", "en"),
        ("hokm3", 1, 0, 2, "narrow", "en"),
        ("hokm3", 2, 1, 2, "laptop", "fa"),
        ("hokm2", 1, 0, 1, "narrow", "fa"),
    ],
)
def test_seats_counts_trick_clock_and_status_stay_apart(
    open_page, base_url, variant, hakem, seat, played, size, language
) -> None:
    """On a phone the West seat's card in the trick lay on the West seat's plate and tricks
    count, and a turn clock could sit on the status line. Seat plates, their counts, the backs,
    the "Thinking" labels, the turn clock, the cards of the trick with their names and the status
    line are drawn apart, a 30-second clock running."""
    match = held_match(variant, hakem=hakem, clock=30, until=_on_turn(seat, played))
    page = open_held(open_page, base_url, size, language, f"/match/{match.pk}/")
    page.locator("#table .felt").scroll_into_view_if_needed()
    shot(page, f"felt-{variant}-seat{seat}-{played}-{size}-{language}")
    assert page.locator("#table .trick__card").count() == played
    assert page.locator("#table .turn-clock").count() == 1
    assert page.evaluate(OVERLAPS, [FELT, TOUCHING]) == []
    assert page.evaluate(TRICK_INDEX_COVERED) == []


def _hand_over(state) -> bool:
    return state.awaiting_next_hand


def _match_over(state) -> bool:
    return state.is_over


@pytest.mark.parametrize(
    ("variant", "moment", "size", "language"),
    [
        ("hokm4", "hand", "phone", "en"),
        ("hokm4", "hand", "narrow", "fa"),
        ("hokm4", "hand", "laptop", "en"),
        ("hokm4", "match", "phone", "fa"),
        ("hokm4", "match", "narrow", "en"),
        ("hokm4", "match", "laptop", "fa"),
        ("hokm3", "hand", "narrow", "en"),
        ("hokm2", "match", "narrow", "en"),
    ],
)
def test_the_banners_hide_no_seat(open_page, base_url, variant, moment, size, language) -> None:
    """The banner of a hand's end lay over the whole felt: on a phone it covered the side seats,
    their plates and their counts of tricks and cards. Neither that banner nor the end of the
    match's (with its buttons) hides any part of a seat."""
    until = _hand_over if moment == "hand" else _match_over
    match = held_match(variant, hakem=0, target=7 if moment == "hand" else 1, until=until)
    page = open_held(open_page, base_url, size, language, f"/match/{match.pk}/")
    page.locator("#table .felt").scroll_into_view_if_needed()
    shot(page, f"banner-{variant}-{moment}-{size}-{language}")
    assert page.locator("#table .banner").count() == 1
    seats = page.locator("#table .seat").count()
    assert seats == {"hokm4": 4, "hokm3": 3, "hokm2": 2}[variant]
    assert page.evaluate(OVERLAPS, [FELT, TOUCHING]) == []
    # Every seat is on the felt, inside its wooden rail.
    felt = page.locator("#table .felt").bounding_box()
    for box in page.locator("#table .seat__plate").all():
        b = box.bounding_box()
        assert felt["x"] < b["x"] and b["x"] + b["width"] < felt["x"] + felt["width"]
        assert felt["y"] < b["y"] and b["y"] + b["height"] < felt["y"] + felt["height"]


def test_page_is_not_scrolled_sideways(open_page, base_url) -> None:
    """Nothing of a phone's table (a long hand, a wide banner) makes the page wider than the
    screen."""
    match = held_match("hokm3", hakem=0, until=_lead)
    page = open_held(open_page, base_url, "narrow", "fa", f"/match/{match.pk}/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
