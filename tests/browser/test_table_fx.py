"""The table's sounds, motion and "your turn" signals (static/js/table-fx.js, sounds.js), and the
service worker (static/js/sw.js), in Chromium against the computer.

Sounds are counted, not heard: a script run before the page's own counts the AudioContexts made
and the sources started. Motion is counted the same way (``Element.animate``), and every frame
the animations running in the document are sampled (``document.getAnimations()``), so that an
animation started by a stylesheet counts too.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import TURN_OR_BANNER, log_in, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

FX_PROBE = """
(() => {
  const fx = { contexts: 0, sounds: 0, animate: 0, running: 0, seen: [], notices: [] };
  fx.hidden = false;
  window.__fx = fx;
  const Context = window.AudioContext;
  window.AudioContext = class extends Context {
    constructor(...args) { super(...args); fx.contexts += 1; }
  };
  const start = AudioScheduledSourceNode.prototype.start;
  AudioScheduledSourceNode.prototype.start = function (...args) {
    fx.sounds += 1;
    return start.apply(this, args);
  };
  const animate = Element.prototype.animate;
  fx.moved = [];
  Element.prototype.animate = function (...args) {
    fx.animate += 1;
    for (const name of this.classList) {
      if (!name.includes("--") && !fx.moved.includes(name)) fx.moved.push(name);
    }
    return animate.apply(this, args);
  };
  const sample = () => {
    const running = document.getAnimations();
    fx.running = Math.max(fx.running, running.length);
    running.forEach((animation) => {
      const target = animation.effect && animation.effect.target;
      const name = `${animation.constructor.name} ${animation.animationName || ""} ${
        target ? target.className : ""}`;
      if (fx.seen.length < 20 && !fx.seen.includes(name)) fx.seen.push(name);
    });
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  // After each table: whether it was his turn, the title and the icons then (table-fx.js, whose
  // listener runs after this one, has updated them by the next task).
  fx.tables = [];
  document.addEventListener("htmx:wsAfterMessage", () => setTimeout(() => {
    const table = document.querySelector("#table");
    fx.tables.push({
      turn: !!table && table.classList.contains("is-your-turn"),
      title: document.title,
      icons: [...document.querySelectorAll("link[rel~='icon']")].map((link) => link.href),
    });
  }));
  // A tab in the background, and notifications allowed, on request of the test.
  Object.defineProperty(document, "hidden", { get: () => fx.hidden, configurable: true });
  window.Notification = class {
    static permission = "granted";
    static requestPermission() { return Promise.resolve("granted"); }
    constructor(title, options) { fx.notices.push({ title, tag: options.tag }); }
    close() {}
  };
})();
"""


def _fx(page: Page) -> dict:
    return page.evaluate("() => window.__fx")


def _start(page: Page, username: str, **prefs: bool) -> None:
    """A new player with these preferences (accounts.preferences: the server writes them on
    <html>) starts hokm2 against the computer from the lobby; up to his first card, calling
    trump if it is his to call."""
    page.context.add_init_script(FX_PROBE)
    user = verified_user(username)
    type(user).objects.filter(pk=user.pk).update(**prefs)
    log_in(page, username)
    page.goto("/lobby/")
    page.locator("form[action$='/play/computer/'] button[name=variant][value=hokm2]").click()
    wait_match_live(page)
    page.evaluate("() => { window.__hokm.holdOnBanner = true; }")
    call = page.locator("#table button[data-suit='S']")
    if call.count():
        call.click()
        expect(page.locator("#table .trump__name")).to_have_text("Spades")


def _play(page: Page, moves: int) -> int:
    """Play up to ``moves`` cards, each when it is his turn; stops at the end of the hand."""
    played = 0
    while played < moves:
        if page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value() == "banner":
            break
        card = page.locator("#table .hand button[data-card]:not([disabled])").first
        text = card.get_attribute("data-card")
        card.click()
        expect(page.locator(f"#table .hand [data-card='{text}']")).to_have_count(0)
        played += 1
    return played


def test_sound_and_motion_on_a_card_played_makes_a_sound_and_flies(open_page) -> None:
    # The browser's own setting allows motion: the player's switch alone decides.
    page = open_page(reduced_motion="no-preference")
    _start(page, "parvaneh")
    assert page.evaluate("() => document.documentElement.dataset.sound") == "on"
    assert _play(page, 2) >= 1
    fx = _fx(page)
    assert fx["contexts"] == 1, "one AudioContext, made on his first click"
    assert fx["sounds"] > 0, "playing a card made no sound"
    # His card and the computer's flew to the trick; the first trick, once the next card was
    # led, swept to its winner.
    assert {"trick__card", "fx-sweep__card"} <= set(fx["moved"]), fx["moved"]
    assert fx["running"] > 0
    # Nothing of it stays: the layer the copies move in empties itself.
    page.wait_for_function("() => !document.querySelector('.fx-layer *')")


def test_sound_off_starts_no_sound_and_motion_off_no_animation(open_page) -> None:
    # The browser's own setting allows motion: the player's switch alone decides.
    page = open_page(reduced_motion="no-preference")
    _start(page, "shirin", sound=False, motion=False)
    assert page.evaluate("() => document.documentElement.dataset.motion") == "off"
    assert _play(page, 4) >= 1
    fx = _fx(page)
    assert fx["contexts"] == 0 and fx["sounds"] == 0, "a sound with sound off"
    assert fx["animate"] == 0, "a card moved with motion off"
    assert fx["running"] == 0, f"animations with motion off: {fx['seen']}"


def test_reduced_motion_runs_no_animation(open_page) -> None:
    page = open_page(reduced_motion="reduce")
    _start(page, "bijan")
    assert page.evaluate("() => document.documentElement.dataset.motion") == "on"
    assert _play(page, 4) >= 1
    fx = _fx(page)
    assert fx["animate"] == 0 and fx["running"] == 0, f"animations: {fx['seen']}"


_TITLE_TURN = re.compile(r"^● Your turn · Match \d+ · Hokm online$")


def test_his_turn_shows_in_the_title_the_icon_and_a_notification_when_hidden(open_page) -> None:
    page = open_page()
    _start(page, "golnar", notify=True)
    page.evaluate("() => { window.__fx.hidden = true; }")
    _play(page, 3)
    tables = _fx(page)["tables"]
    assert {table["turn"] for table in tables} == {True, False}
    for table in tables:
        turn_icons = [icon.endswith("/img/favicon-turn.svg") for icon in table["icons"]]
        if table["turn"]:
            assert _TITLE_TURN.match(table["title"]), table
            assert all(turn_icons), table
        else:
            assert table["title"].startswith("Match "), table
            assert not any(turn_icons), table
    notices = _fx(page)["notices"]
    assert notices, "no notification of his turn in a hidden tab"
    assert notices[0]["title"] == "Hokm online"
    assert notices[0]["tag"].startswith("hokm-turn-")


_CACHED_URLS = """
  async () => {
    const urls = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
    }
    return urls;
  }
"""


def test_the_service_worker_caches_only_static_files(open_page) -> None:
    page = open_page()
    _start(page, "mehrdad")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    # Loaded again, now under the worker: every request of the page goes past it.
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    expect(page.locator("[data-connection]")).to_have_attribute("data-state", "open")
    page.wait_for_function(
        "() => caches.open('hokm-static-v1').then((c) => c.keys()).then((k) => k.length > 3)"
    )
    urls = page.evaluate(_CACHED_URLS)
    assert "/static/js/match.js" in urls
    assert urls and all(url.startswith("/static/") for url in urls), urls
