"""What the layout tests share: screen sizes, a match brought to a moment through the services and
held there, its page opened without a socket (so nothing on it moves while boxes are read), and
scripts that read boxes in the page.

A match is advanced in a thread of its own: the services broadcast after the commit with
async_to_sync, which refuses to run in the test's thread, where Playwright's event loop runs.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import connections
from django.utils import timezone
from playwright.sync_api import Page

from games.engine import CallTrump, MatchState, Suit, get_variant, match_legal_actions
from games.models import Match, Table
from games.play.selectors import match_state_build
from games.play.services import (
    SeatSpec,
    match_apply_action,
    match_create,
    match_deal_next_hand,
)

from .conftest import SCREENSHOTS
from .helpers import log_in, seed_with_hakem, verified_user

LAYOUT_SHOTS = SCREENSHOTS / "layout"

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "narrow": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
    # A 1366x768 laptop less its browser's own bars.
    "laptop": {"viewport": {"width": 1366, "height": 657}},
}

#: Players' names as long as real ones get: "Shahrzad" is cut on a phone's side plate.
NAMES = ("Sara", "Dariush", "Shahrzad", "Kaveh")


def _in_thread(work: Callable):
    def run():
        try:
            return work()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def held_match(
    variant: str,
    *,
    hakem: int = 0,
    clock: int | None = None,
    target: int = 7,
    until: Callable[[MatchState], bool] | None = None,
) -> Match:
    """A match of people (``NAMES``; the viewer "sara" in seat 0) at a table that allows
    spectators, ``hakem`` its first Hakem, played on through the services with the first legal
    action (hearts called) until ``until(state)``; then held: no next step is set, so the server
    moves nothing (no computer plays, no next hand is dealt), but with a ``clock`` of seconds,
    whose turn clock shows while its step is due (after any test has read the page)."""
    players = get_variant(variant).players
    viewer = verified_user("sara")
    users = [viewer] + [
        get_user_model().objects.create_user(username=name.lower()) for name in NAMES[1:players]
    ]
    seed = seed_with_hakem(variant, hakem)

    def create() -> Match:
        table = Table.objects.create(
            name="Shab-neshini",
            variant=variant,
            target=target,
            created_by=viewer,
            turn_clock_seconds=clock,
            allow_spectators=True,
            status=Table.Status.PLAYING,
        )
        seats = [SeatSpec(name=NAMES[i], user=user) for i, user in enumerate(users)]
        return match_create(
            variant=variant,
            target=target,
            seats=seats,
            seed=seed,
            table=table,
            clock_seconds=clock,
        )

    match = _in_thread(create)
    if until is not None:
        _advance(match.pk, until)
    # A clock shows while its step is due: 29 seconds more than any test takes to read the page.
    step_at = timezone.now() + timedelta(seconds=29) if clock else None
    Match.objects.filter(pk=match.pk).update(step_at=step_at)
    return match


def _advance(match_id: int, until: Callable[[MatchState], bool]) -> None:
    for _ in range(400):
        state = match_state_build(match=Match.objects.get(pk=match_id))
        if until(state):
            return
        if state.is_over:
            break
        if state.awaiting_next_hand:
            _in_thread(lambda: match_deal_next_hand(match=match_id))
            continue
        action = match_legal_actions(state)[0]
        if isinstance(action, CallTrump):
            action = CallTrump(action.seat, Suit.HEARTS)
        _in_thread(
            lambda action=action: match_apply_action(
                match=match_id, seat=action.seat, action=action
            )
        )
    raise AssertionError(f"match {match_id} never reached the moment asked for")


def open_held(open_page, base_url: str, size: str, language: str, path: str) -> Page:
    """Sara's page at ``path`` in ``language``, its socket going nowhere: the page shows the
    table as served, and nothing moves on it but the turn clock's count."""
    page = open_page(**SIZES[size])
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page.context.route_web_socket("**/ws/**", lambda socket: None)
    log_in(page, "sara")
    page.goto(path)
    page.wait_for_function(SETTLED, polling="raf")
    return page


def shot(page: Page, name: str) -> Path:
    """What the screen shows now, as tests/screenshots/layout/<name>.png."""
    LAYOUT_SHOTS.mkdir(parents=True, exist_ok=True)
    path = LAYOUT_SHOTS / f"{name}.png"
    page.screenshot(path=path, animations="disabled")
    return path


#: The page once every animation that ends has ended (the "Thinking" dots blink for ever).
SETTLED = """
  () => document.readyState === "complete" && !document.getAnimations().some(
    (a) => a.playState === "running" && a.effect.getComputedTiming().iterations !== Infinity
  )
"""

#: Pairs of boxes that overlap. ``groups`` maps a name to a selector: every element found is a box
#: (named by its group and its place in it), kept apart from every other box; only the pairs of
#: groups in ``touching`` may overlap, within one owner (a seat, a card of the trick): a plate and
#: the tricks badge on its corner, a card and the name on its edge; a pair with a third item,
#: "anywhere", whatever their owners. Boxes are the elements' borders as drawn (a rotated card:
#: the box around it), less half a pixel.
OVERLAPS = """
  ([groups, touching]) => {
    const boxes = [];
    for (const [name, selector] of Object.entries(groups)) {
      document.querySelectorAll(selector).forEach((element, index) => {
        const r = element.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return;
        const owner = element.closest(".seat, .rp-seat, .trick__card");
        boxes.push({ group: name, name: `${name}[${index}]`, r, owner });
      });
    }
    const allowed = (a, b) => touching.some(
      ([x, y, anywhere]) => ((a.group === x && b.group === y) || (a.group === y && b.group === x))
        && (anywhere || (a.owner !== null && a.owner === b.owner))
    );
    const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
      && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const show = (x) => `${x.name} ${[x.r.left, x.r.top, x.r.right, x.r.bottom].map(Math.round)}`;
    const found = [];
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
      if (!allowed(a, b) && meet(a.r, b.r)) found.push(`${show(a)} meets ${show(b)}`);
    }));
    return found;
  }
"""

#: The cards of the trick whose index (the top corner's rank and suit) something else covers,
#: read with elementFromPoint every other pixel of it: of its middle half each way, as a side card
#: is turned 8 degrees and the corners of the box around its index are off the card.
TRICK_INDEX_COVERED = """
  () => [...document.querySelectorAll(".trick .card")].filter((card) => {
    const i = card.querySelector(".card__index--top").getBoundingClientRect();
    const [w, h] = [i.width / 4, i.height / 4];
    for (let x = i.left + w; x < i.right - w; x += 2) {
      for (let y = i.top + h; y < i.bottom - h; y += 2) {
        if (document.elementFromPoint(x, y)?.closest(".card") !== card) return true;
      }
    }
    return false;
  }).map((card) => card.dataset.card)
"""
