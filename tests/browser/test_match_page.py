"""QA of the live match page as a person uses it: whole matches against the computer in every
variant, on a phone and a desktop, in English and Persian, with no JavaScript error."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from games.lobby.services import table_join_seat
from tests.games.factories import open_table

from .helpers import log_in, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/qa-shots")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}

#: What the player must do next, or the end of a hand or of the match.
_NEXT_STEP = """
  () => {
    const table = document.querySelector("#table");
    if (table === null || table.classList.contains("is-sending")) return false;
    const banner = table.querySelector(".banner");
    if (banner) return banner.classList.contains("banner--match") ? "over" : "hand-end";
    if (table.querySelector("button[data-suit]")) return "call";
    if (table.querySelector(".discard-form")) return "discard";
    if (table.querySelector("button[data-keep]")) return "keep";
    if (table.querySelector(".hand button[data-card]:not([disabled])")) return "play";
    return false;
  }
"""


def _errors_of(page: Page) -> list[str]:
    """What the page reports from now on: uncaught exceptions and console errors."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: (
            errors.append(f"console {message.type}: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    return errors


def _start_against_computer(page: Page, variant: str, target: int = 1) -> int:
    """The lobby's quick start at the easy level, to ``target`` points (a field the view reads
    and the form does not show); returns the match id."""
    page.goto("/lobby/")
    form = page.locator("form[action$='/play/computer/']")
    form.evaluate(
        """(form, target) => {
             const input = document.createElement("input");
             input.type = "hidden"; input.name = "target"; input.value = String(target);
             form.append(input);
             form.querySelector("input[name=computer_level][value=easy]").checked = true;
           }""",
        target,
    )
    form.locator(f"button[name=variant][value={variant}]").click()
    return wait_match_live(page)


def _play_match(page: Page) -> dict[str, int]:
    """Play until the end-of-match banner, by clicks; returns how often each step came."""
    seen: dict[str, int] = {}
    while True:
        step = page.wait_for_function(_NEXT_STEP, polling="raf").json_value()
        seen[step] = seen.get(step, 0) + 1
        if step == "over":
            return seen
        if step == "hand-end":
            hand = page.locator("#table").get_attribute("data-hand")
            page.wait_for_function(
                "(hand) => { const t = document.querySelector('#table');"
                " return t && (t.dataset.hand !== hand"
                " || t.querySelector('.banner--match')); }",
                arg=hand,
            )
            continue
        version = page.locator("#table").get_attribute("data-version")
        if step == "call":
            page.locator("#table button[data-suit]").first.click()
        elif step == "discard":
            form = page.locator("#table .discard-form")
            need = int(form.get_attribute("data-count"))
            for index in range(need):
                form.locator(".card-check").nth(index).click()
            form.locator("[data-discard-submit]").click()
        elif step == "keep":
            page.locator("#table button[data-keep]").nth(seen[step] % 2).click()
        else:
            page.locator("#table .hand button[data-card]:not([disabled])").first.click()
        page.wait_for_function(
            "(v) => document.querySelector('#table')?.dataset.version !== v", arg=version
        )


#: What is wrong with the end-of-match banner: something of the table drawn over it (a seat's
#: plate), a button or link of it whose middle is not the topmost thing there (the plate would
#: take the tap), or the banner leaving the table's felt.
_BANNER_BUTTONS_COVERED = """
  () => {
    const felt = document.querySelector("#table .felt").getBoundingClientRect();
    const banner = document.querySelector("#table .banner");
    const box = banner.getBoundingClientRect();
    const wrong = [];
    if (box.top < felt.top || box.bottom > felt.bottom
        || box.left < felt.left || box.right > felt.right) wrong.push("banner outside the felt");
    banner.scrollIntoView({ block: "center" });
    const b = banner.getBoundingClientRect();
    for (let i = 0; i <= 10; i += 1) {
      for (let j = 0; j <= 10; j += 1) {
        const x = b.left + 3 + (b.width - 6) * i / 10, y = b.top + 3 + (b.height - 6) * j / 10;
        const hit = document.elementFromPoint(x, y);
        const seat = hit && hit.closest(".seat");
        if (seat) wrong.push(`seat ${seat.dataset.seat} over the banner`);
      }
    }
    banner.querySelectorAll("a, button").forEach((control) => {
      const r = control.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      window.scrollTo(0, Math.max(0, window.scrollY + y - innerHeight / 2));
      const r2 = control.getBoundingClientRect();
      const hit = document.elementFromPoint(r2.left + r2.width / 2, r2.top + r2.height / 2);
      if (!hit || !control.contains(hit)) {
        wrong.push(`${control.textContent.trim()} under ${hit && hit.className}`);
      }
    });
    return wrong;
  }
"""


def _wait_banner_settled(page: Page) -> None:
    page.wait_for_function(
        "() => document.querySelector('#table .banner')"
        "?.getAnimations().every((a) => a.playState === 'finished')"
    )


@pytest.mark.parametrize(
    ("variant", "size", "language"),
    # Every variant once, both sizes and both languages among them (the suite's time is short).
    [
        ("hokm4", "phone", "fa"),
        ("hokm3", "desktop", "fa"),
        ("hokm2", "desktop", "en"),
        ("hokm2-draw", "phone", "en"),
    ],
)
def test_whole_match_then_play_again_every_button_of_the_banner_can_be_tapped(
    open_page, base_url, variant, size, language
) -> None:
    """A whole match against the computer by clicks, with no JavaScript error; at its end every
    button of the banner lies on the felt, over the seats (on a phone the match's banner ran into
    the player's own seat, whose plate covered "Hand by hand"), and "Play again" starts a new
    match of the same game."""
    SHOTS.mkdir(exist_ok=True)
    verified_user("qa")
    page = open_page(**(PHONE if size == "phone" else DESKTOP))
    errors = _errors_of(page)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    log_in(page, "qa")
    first = _start_against_computer(page, variant)
    seen = _play_match(page)
    assert seen.get("play", 0) >= 1
    if variant == "hokm2-draw":
        assert seen.get("keep", 0) >= 1, "he never drew from the stock"
    banner = page.locator("#table .banner--match")
    expect(banner).to_be_visible()
    _wait_banner_settled(page)
    page.screenshot(path=str(SHOTS / f"over-{variant}-{size}-{language}.png"), full_page=True)
    assert page.evaluate(_BANNER_BUTTONS_COVERED) == []
    play_again = banner.locator("button[form=play-again]")
    expect(play_again).to_be_visible()
    play_again.click()
    expect(page).not_to_have_url(re.compile(rf"/match/{first}/$"))
    second = wait_match_live(page)
    assert second != first
    expect(page.locator("#table")).to_have_class(re.compile(rf"\btable--{variant}\b"))
    assert errors == []


#: Keeps the page's newest WebSocket within reach, to hand it a frame again.
_KEEP_SOCKET = """
  (() => {
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args) { super(...args); window.__qaSocket = this; }
    };
  })();
"""


def test_cards_picked_to_discard_stay_picked_when_the_table_comes_again_R3_5(
    open_page, base_url
) -> None:
    """The server sends the same table again when nothing moved (a player connected or left, a
    spectator came: games.play.consumers render_presence). The Hakem picking his discards lost his
    picks each time, and the "Discard" button went back to disabled."""
    verified_user("qd")
    page = open_page(**PHONE)
    page.context.add_init_script(_KEEP_SOCKET)
    errors = _errors_of(page)
    frames: list[str] = []
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framereceived",
            lambda payload: frames.append(payload) if 'id="table"' in str(payload) else None,
        ),
    )
    log_in(page, "qd")
    _start_against_computer(page, "hokm2-draw", target=3)
    while (step := page.wait_for_function(_NEXT_STEP, polling="raf").json_value()) != "discard":
        assert step in ("call", "keep", "play", "hand-end"), step
        version = page.locator("#table").get_attribute("data-version")
        if step == "call":
            page.locator("#table button[data-suit]").first.click()
        elif step == "keep":
            page.locator("#table button[data-keep]").first.click()
        elif step == "play":
            page.locator("#table .hand button[data-card]:not([disabled])").first.click()
        else:
            page.wait_for_function(
                "(v) => document.querySelector('#table')?.dataset.version !== v", arg=version
            )
            continue
        page.wait_for_function(
            "(v) => document.querySelector('#table')?.dataset.version !== v", arg=version
        )
    form = page.locator("#table .discard-form")
    need = int(form.get_attribute("data-count"))
    assert need >= 2
    boxes = form.locator(".card-check")
    picked = [boxes.nth(0).get_attribute("data-card"), boxes.nth(1).get_attribute("data-card")]
    boxes.nth(0).click()
    boxes.nth(1).click()
    status = form.locator("[data-discard-status]")
    expect(status).to_have_text(f"2 of {need} chosen")

    # The same table again, as the server sends it on a presence change.
    page.evaluate("() => { window.__qaReplaced = document.querySelector('#table .hand'); }")
    page.evaluate(
        "(data) => window.__qaSocket.dispatchEvent(new MessageEvent('message', { data }))",
        frames[-1],
    )
    page.wait_for_function("() => document.querySelector('#table .hand') !== window.__qaReplaced")
    for card in picked:
        expect(form.locator(f".card-check[data-card='{card}'] input")).to_be_checked()
    expect(status).to_have_text(f"2 of {need} chosen")
    for index in range(2, need):
        boxes.nth(index).click()
    submit = form.locator("[data-discard-submit]")
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.locator("#table .discard-form")).to_have_count(0)
    expect(page.locator("#table .own-discards summary")).to_contain_text(f"Your discards: {need}")
    assert errors == []


def _act_if_turn(page: Page) -> str | bool:
    """One move of this page's player if it is his to make; what the page was at."""
    step = page.evaluate(_NEXT_STEP)
    if step not in ("call", "discard", "keep", "play"):
        return step
    version = page.locator("#table").get_attribute("data-version")
    if step == "call":
        page.locator("#table button[data-suit]").first.click()
    elif step == "keep":
        page.locator("#table button[data-keep]").first.click()
    else:
        page.locator("#table .hand button[data-card]:not([disabled])").first.click()
    page.wait_for_function(
        "(v) => document.querySelector('#table')?.dataset.version !== v", arg=version
    )
    return step


def test_two_people_finish_a_match_one_asks_for_a_rematch_the_other_joins_it(
    open_page, base_url
) -> None:
    """Between people the end-of-match banner offers "Rematch"; once one asked, the other's
    banner turns into "Join the rematch" by itself, every button of it can be tapped on a
    phone in Persian, and joining starts the new match for both."""
    arash_user, bahar_user = verified_user("arash"), verified_user("bahar")
    table = open_table(
        arash_user, name="QA rematch", variant="hokm2", target=1, turn_clock_seconds=60
    )
    match = table_join_seat(table=table, user=bahar_user, seat_index=1)
    assert match is not None
    arash = open_page(**DESKTOP)
    bahar = open_page(**PHONE)
    bahar.context.add_cookies([{"name": "django_language", "value": "fa", "url": base_url}])
    errors = {"arash": _errors_of(arash), "bahar": _errors_of(bahar)}
    for page, name in ((arash, "arash"), (bahar, "bahar")):
        log_in(page, name)
        page.goto(f"/match/{match.pk}/")
        wait_match_live(page)

    deadline = time.monotonic() + 240
    while not all(page.evaluate(_NEXT_STEP) == "over" for page in (arash, bahar)):
        assert time.monotonic() < deadline, "the match did not end"
        if not any(_act_if_turn(page) in ("call", "keep", "play") for page in (arash, bahar)):
            arash.wait_for_timeout(100)
    for page in (arash, bahar):
        expect(page.locator("#table .banner--match button[form=rematch]")).to_be_visible()
        expect(page.locator("#table .banner--match button[form=play-again]")).to_have_count(0)

    arash.locator("#table .banner--match button[form=rematch]").click()
    expect(arash).to_have_url(re.compile(r"/tables/\d+/$"))
    join = bahar.locator("#table .banner--match button[form=rematch].is-offered")
    expect(join).to_have_text("پیوستن به بازی دوباره")
    _wait_banner_settled(bahar)
    bahar.screenshot(path=str(SHOTS / "rematch-join-phone-fa.png"), full_page=True)
    assert bahar.evaluate(_BANNER_BUTTONS_COVERED) == []
    join.click()
    second = wait_match_live(bahar)
    assert second != match.pk
    assert wait_match_live(arash) == second
    assert errors == {"arash": [], "bahar": []}


#: The names under the cards of the trick that something else covers (rotated with their cards:
#: looked at inside their middle).
#: Points of each trick name that must show the name itself. The names turn with their cards (a
#: few degrees), so a point near the edge of the box around a turned name may lie outside the
#: name: 0.85 of its height was 0.2 to 0.5 px inside it, and a layout shift of a fraction of a
#: pixel failed the test with nothing covered. 0.7 stays a few pixels inside.
_TRICK_NAMES_COVERED = """
  () => {
    const covered = [];
    document.querySelectorAll("#table .trick__who").forEach((name) => {
      const r = name.getBoundingClientRect();
      for (const [across, down] of [[0.3, 0.5], [0.5, 0.5], [0.7, 0.5], [0.5, 0.7]]) {
        const hit = document.elementFromPoint(r.left + r.width * across, r.top + r.height * down);
        if (!hit || !name.contains(hit)) covered.push(`${name.textContent}: ${hit?.className}`);
      }
    });
    return covered;
  }
"""

#: The finished trick of four cards in the middle, left there while it is the player's lead.
_FULL_TRICK_ON_HIS_LEAD = """
  () => {
    const table = document.querySelector("#table");
    return table !== null && !table.classList.contains("is-sending")
      && table.querySelectorAll(".trick--done .trick__card").length === 4
      && table.querySelector(".hand button[data-card]:not([disabled])") !== null;
  }
"""


@pytest.mark.parametrize(("size", "language"), [("phone", "en"), ("desktop", "fa")])
def test_who_played_each_card_of_a_four_card_trick_can_be_read(
    open_page, base_url, size, language
) -> None:
    """The name under the card across the table was half covered by the near card (his own) on
    a phone: it goes above that card now. The status line stays clear of his seat."""
    verified_user("qf")
    page = open_page(**(PHONE if size == "phone" else DESKTOP))
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    log_in(page, "qf")
    _start_against_computer(page, "hokm4", target=7)
    moves = 0
    while not page.evaluate(_FULL_TRICK_ON_HIS_LEAD):
        page.wait_for_function(_NEXT_STEP, polling="raf")
        if page.evaluate(_FULL_TRICK_ON_HIS_LEAD):
            break
        if page.evaluate(_NEXT_STEP) in ("hand-end", "over"):
            hand = page.locator("#table").get_attribute("data-hand")
            page.wait_for_function(
                "(hand) => document.querySelector('#table')?.dataset.hand !== hand", arg=hand
            )
            continue
        _act_if_turn(page)
        moves += 1
        assert moves < 40, "he never took a trick"
    page.screenshot(path=str(SHOTS / f"trick-{size}-{language}.png"))
    expect(page.locator("#table .trick__who")).to_have_count(4)
    assert page.evaluate(_TRICK_NAMES_COVERED) == []
    status = page.locator("#table .center .status").bounding_box()
    plate = page.locator("#table .seat--bottom .seat__plate").bounding_box()
    assert status["y"] + status["height"] <= plate["y"], "the status line runs into his seat"


#: How far the first card he may play stands raised (negative: up), read only from a card in the
#: page and at rest: the socket's first frame replaces #table just after the page opens, and a
#: card read from the replaced table has no style at all (a lift of 0); a moving card is read
#: once it has stopped.
_LIFT = """
  () => {
    const button = document.querySelector("#table .hand button[data-card]:not([disabled])");
    if (button === null || !button.isConnected || button.getAnimations().length) return false;
    return {lift: new DOMMatrixReadOnly(getComputedStyle(button).transform).m42};
  }
"""


def _lift(page: Page) -> float:
    return page.wait_for_function(_LIFT, polling="raf").json_value()["lift"]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_card_rises_under_a_hovering_pointer_only_where_there_is_one(open_page, size) -> None:
    """On a touch screen :hover stays on the card under the last tap: after a move, the card that
    came under the finger stood raised higher than the others, as if picked. A mouse still
    lifts the card it points at."""
    verified_user("qi")
    page = open_page(**(PHONE if size == "phone" else DESKTOP))
    log_in(page, "qi")
    _start_against_computer(page, "hokm2", target=3)
    while (step := page.wait_for_function(_NEXT_STEP, polling="raf").json_value()) != "play":
        assert step == "call", step
        _act_if_turn(page)
    rest = _lift(page)
    assert rest < 0, "a card he may play stands a little raised"
    page.locator("#table .hand button[data-card]:not([disabled])").first.hover()
    hovered = _lift(page)
    if size == "phone":
        assert hovered == rest
    else:
        assert hovered < rest
