"""Screenshots of the live match page in interesting states, to look at the table for real.

    DATABASE_URL=sqlite:////tmp/table-dev.sqlite3 .venv/bin/python scripts/screenshot_match.py

Migrates that database, creates users and matches advanced through ``games.play.services`` (the
trump call, the middle of a trick, a hand ended by a Kot, the end of a match, the draw of
hokm2-draw, three players, a spectator), serves the site with daphne on 127.0.0.1:8013, logs a
seated user in through a session cookie and photographs each page with Playwright (Debian's
Chromium) at phone and desktop sizes (``SHOTS_NARROW=1`` adds a 360 px phone), in English and
Persian, into ``/tmp/table-shots/`` (``--out``).
The socket is not needed: the page renders the table on its own.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hokm_site.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/table-dev.sqlite3")
# The scenes stay where they were put: no computer move or next deal behind our back, here or in
# the server.
os.environ["HOKM_AUTOPLAY"] = "off"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from games.engine import (  # noqa: E402
    VARIANTS,
    Action,
    CallTrump,
    CourtPieceMatch,
    CourtPieceOptions,
    Discard,
    HiddenTrump,
    KeepOrThrow,
    MatchState,
    Phase,
    PlayCard,
    RevealTrump,
    Suit,
    court_piece_apply,
    court_piece_legal_actions,
    match_apply,
    match_legal_actions,
    new_court_piece_match,
    new_match,
    next_deal,
    next_hand,
)
from games.models import Match, Table  # noqa: E402
from games.play.services import (  # noqa: E402
    SeatSpec,
    match_apply_action,
    match_create,
    match_deal_next_hand,
)

HOST = "127.0.0.1"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORTS = {"phone": (390, 844), "desktop": (1366, 657)}
if os.environ.get("SHOTS_NARROW"):
    VIEWPORTS["narrow"] = (360, 740)
LANGUAGES = ("en", "fa")
NAMES = ("Sara", "Dariush", "Mina", "Kaveh")


@dataclass
class Scene:
    """One match brought to one moment, seen from one seat (None: a spectator); or, with
    ``path``, another page of the site (``ready``: what to wait for there; ``clicks``: how many
    cards a replay steps on)."""

    slug: str
    match: Match | None
    viewer: object | None
    path: str | None = None
    ready: str = "#table"
    clicks: int = 0  # a replay: steps of its "next card" button


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/table-shots", help="where the PNG files go")
    parser.add_argument("--only", default="", help="photograph only scenes whose name has this")
    parser.add_argument("--port", type=int, default=0, help="the server's port (0: a free one)")
    parser.add_argument(
        "--narrow", action="store_true", help="add a 360x740 phone (as SHOTS_NARROW=1 does)"
    )
    parser.add_argument(
        "--screen",
        action="store_true",
        help="photograph what the screen shows (what sticks to its edges included), not the page",
    )
    args = parser.parse_args()
    # A port of its own each run: two runs side by side (several people work on one machine)
    # would otherwise meet on one.
    port = args.port or _free_port()
    if args.narrow:
        VIEWPORTS["narrow"] = (360, 740)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    call_command("migrate", verbosity=0)
    users = [_user(name) for name in NAMES]
    scenes = [scene for scene in _scenes(users) if args.only in scene.slug]

    server = _serve(port)
    try:
        _photograph(scenes, out, port=port, full_page=not args.screen)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"{len(scenes)} scenes photographed into {out}")


def _user(name: str):
    user, _ = get_user_model().objects.get_or_create(username=name.lower())
    if hasattr(user, "display_name") and not user.display_name:
        user.display_name = name
        user.save()
    return user


def _scenes(users: list) -> list[Scene]:
    """Every state worth looking at; the viewer is users[0] unless said."""
    you = users[0]
    scenes = []

    # hokm4: the Hakem calls trump on his first five (R3.1), and a partner waits with no card.
    match, state = _match("hokm4", users, seed=_seed_for("hokm4", lambda s: s.hand.hakem == 0))
    scenes.append(Scene("hokm4-call-hakem", match, you))
    scenes.append(Scene("hokm4-call-waiting", match, users[1]))
    match, state = _match("hokm4", users, seed=match.seed)
    state = _advance(match, state, until=lambda s: s.hand.phase is Phase.PLAY)
    scenes.append(Scene("hokm4-first-lead", match, you))

    # hokm4: the middle of a trick with the viewer on turn and a suit to follow.
    match, state = _match("hokm4", users, seed=11)
    state = _advance(match, state, until=lambda s: _on_turn_mid_trick(s, seat=0, played=2))
    scenes.append(Scene("hokm4-mid-trick", match, you))
    scenes.append(Scene("hokm4-spectator", match, None))

    # hokm4: a hand ended by a Kot, then the match's end.
    seed = _seed_for("hokm4", _random_hand_ends(lambda r: r.kot and not r.hakem_kot))
    match, state = _match("hokm4", users, seed=seed)
    state = _advance(match, state, rng=random.Random(seed), until=lambda s: s.hand.is_over)
    scenes.append(Scene("hokm4-kot", match, you))

    seed = _seed_for("hokm4", _random_hand_ends(lambda r: r.hakem_kot))
    match, state = _match("hokm4", users, seed=seed)
    state = _advance(match, state, rng=random.Random(seed), until=lambda s: s.hand.is_over)
    scenes.append(Scene("hokm4-hakem-kot", match, users[1]))

    match, state = _match("hokm4", users, seed=5, target=1)
    state = _advance(match, state, until=lambda s: s.is_over)
    scenes.append(Scene("hokm4-match-over", match, you))
    # A rated match: ratings beside the names, then every change in the end banner.
    match, state = _match("hokm4", users, seed=11, rated=True)
    state = _advance(match, state, until=lambda s: _on_turn_mid_trick(s, seat=0, played=2))
    scenes.append(Scene("hokm4-rated-mid-trick", match, you))
    match, state = _match("hokm4", users, seed=5, target=1, rated=True)
    state = _advance(match, state, until=lambda s: s.is_over)
    scenes.append(Scene("hokm4-rated-over", match, you))
    match, state = _match("hokm4", users, seed=5, target=1, computers="expert")
    state = _advance(match, state, until=lambda s: s.is_over)
    scenes.append(Scene("hokm4-computer-over", match, you))

    # The lobby: the viewer's open tables, a private one among them, above the quick start.
    from games.lobby.services import table_create, table_join_seat

    options = {
        "variant": "hokm4",
        "target": 7,
        "allow_spectators": True,
        "fill_with_computer": False,
        "computer_level": "medium",
        "partner_draw": False,
    }
    table_create(user=you, name="", is_private=True, turn_clock_seconds=None, **options)
    public = table_create(
        user=users[1], name="شب جمعه", is_private=False, turn_clock_seconds=30, **options
    )
    table_join_seat(table=public, user=you, seat_index=2)
    scenes.append(Scene("lobby-your-tables", None, you, path="/lobby/", ready="#my-tables"))

    # hokm3: the whole hand of 17 cards, the viewer (the Hakem) to lead; and the replay of a
    # hokm4 match stepped into a trick of its last hand (seats, counts and trick apart).
    seed = _seed_for("hokm3", lambda s: s.hand.hakem == 0)
    match, state = _match("hokm3", users[:3], seed=seed)
    state = _advance(match, state, until=lambda s: s.hand.phase is Phase.PLAY)
    scenes.append(Scene("hokm3-full-hand", match, you))
    match, state = _match("hokm4", users, seed=5, target=1)
    state = _advance(match, state, until=lambda s: s.is_over)
    replay = f"/match/{match.pk}/replay/"
    scenes.append(
        Scene("replay-mid-trick", match, you, path=replay, ready="[data-table]", clicks=6)
    )

    # hokm3: three players, someone else on turn.
    match, state = _match("hokm3", users[:3], seed=21)
    state = _advance(match, state, until=lambda s: _on_turn_mid_trick(s, seat=2, played=1))
    scenes.append(Scene("hokm3-mid-trick", match, you))

    # hokm2-draw: the Hakem's discard, then a keep-or-throw turn (R3.5).
    seed = _seed_for("hokm2-draw", lambda s: s.hand.hakem == 0)
    match, state = _match("hokm2-draw", users[:2], seed=seed)
    state = _advance(match, state, until=lambda s: s.hand.phase is Phase.DISCARD)
    scenes.append(Scene("hokm2draw-discard", match, you))
    match, state = _match("hokm2-draw", users[:2], seed=seed)
    state = _advance(
        match, state, until=lambda s: s.hand.phase is Phase.DRAW and s.hand.draw_turn == 6
    )
    scenes.append(Scene("hokm2draw-keep-or-throw", match, you))

    # hokm2: two players mid-hand.
    match, state = _match("hokm2", users[:2], seed=8)
    state = _advance(match, state, until=lambda s: _on_turn_mid_trick(s, seat=0, played=1))
    scenes.append(Scene("hokm2-mid-trick", match, you))
    scenes += _court_piece_scenes(users)
    return scenes


def _court_piece_scenes(users: list) -> list[Scene]:
    """Court Piece (R9): the secret call, hidden trump to ask for, the reveal, the Double Sir
    pile, the chase to 52 and a court's banner. The viewer is whoever the moment is about."""
    scenes = []
    by_user = dict(enumerate(users))
    match, state = _cp_match(users, seed=2, options=CourtPieceOptions())
    scenes.append(Scene("cp-call", match, by_user[state.deal.caller]))
    chosen = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    match, state = _cp_match(users, seed=3, options=chosen)
    scenes.append(Scene("cp-choose-indicator", match, by_user[state.deal.caller]))
    state = _cp_advance(match, state, until=lambda s: len(s.deal.tricks) >= 1)
    scenes.append(Scene("cp-hidden-caller", match, by_user[state.deal.caller]))

    blind = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND, double_sir=True)
    match, state = _cp_match(users, seed=5, options=blind)

    def may_ask(s: CourtPieceMatch) -> bool:
        return any(
            isinstance(a, RevealTrump) and a.seat != s.deal.caller
            for a in court_piece_legal_actions(s)
        )

    state = _cp_advance(match, state, until=may_ask)
    asker = state.deal.to_act
    scenes.append(Scene("cp-ask-for-trump", match, by_user[asker]))
    # The same moment in a match of its own, where he asks: a scene shows its match as it is.
    match, state = _cp_match(users, seed=5, options=blind)
    state = _cp_advance(match, state, until=may_ask)
    match_apply_action(match=match.pk, seat=asker, action=RevealTrump(asker))
    state = court_piece_apply(state, RevealTrump(asker))
    scenes.append(Scene("cp-revealed", match, by_user[asker]))

    double_sir = CourtPieceOptions(double_sir=True, ace_rule=True)
    match, state = _cp_match(users, seed=7, options=double_sir)
    state = _cp_advance(
        match, state, until=lambda s: len(s.deal.tricks) >= 4 and len(s.deal.current) == 2
    )
    scenes.append(Scene("cp-double-sir-pile", match, by_user[state.deal.to_act]))

    def chase(s: CourtPieceMatch) -> bool:
        tricks = s.deal.tricks
        return (
            not s.deal.is_over and len(tricks) >= 8 and len({t.winner % 2 for t in tricks[:7]}) == 1
        )

    for seed in range(300):
        match, state = _cp_match(users, seed=seed, options=CourtPieceOptions())
        try:
            state = _cp_advance(match, state, until=lambda s: chase(s) or s.deal.is_over)
        except RuntimeError:
            continue
        if chase(state):
            scenes.append(Scene("cp-chase", match, you_of(users)))
            state = _cp_advance(match, state, until=lambda s: s.deal.is_over)
            scenes.append(Scene("cp-court-banner", match, you_of(users)))
            break
    return scenes


def you_of(users: list):
    return users[0]


def _cp_match(
    users: list, *, seed: int, options: CourtPieceOptions, target: int = 2
) -> tuple[Match, CourtPieceMatch]:
    table = Table.objects.create(
        name=f"court piece {seed}",
        variant="court-piece",
        target=target,
        created_by=users[0],
        options=options.to_json(),
    )
    seats = [SeatSpec(name=NAMES[i], user=user) for i, user in enumerate(users)]
    match = match_create(
        variant="court-piece",
        target=target,
        seats=seats,
        seed=seed,
        table=table,
        options=options.to_json(),
    )
    return match, new_court_piece_match(options, seed=seed, target=target)


def _cp_advance(
    match: Match, state: CourtPieceMatch, *, until: Callable[[CourtPieceMatch], bool]
) -> CourtPieceMatch:
    """Play on through the services (and the engine alongside) until ``until(state)``; never
    asks for trump, so that the moments to ask stay open."""
    rng = random.Random(match.seed)
    for _ in range(2000):
        if until(state):
            return state
        if state.is_over:
            break
        if state.awaiting_next_deal:
            match_deal_next_hand(match=match.pk)
            state = next_deal(state)
            continue
        legal = [a for a in court_piece_legal_actions(state) if not isinstance(a, RevealTrump)]
        action = rng.choice(legal or court_piece_legal_actions(state))
        match_apply_action(match=match.pk, seat=action.seat, action=action)
        state = court_piece_apply(state, action)
    raise RuntimeError(f"match {match.pk} never reached the state asked for")


def _match(
    variant: str,
    users: list,
    *,
    seed: int,
    target: int = 7,
    computers: str | None = None,
    rated: bool = False,
) -> tuple[Match, MatchState]:
    """A match of ``users``; with ``computers`` (a level), of users[0] and computer players;
    ``rated``: at a rated table with a 30-second clock (docs/ratings.md)."""
    clock = 30 if rated else None
    table = Table.objects.create(
        name=f"{variant} {seed}",
        variant=variant,
        target=target,
        created_by=users[0],
        rated=rated,
        turn_clock_seconds=clock,
    )
    seats = [SeatSpec(name=NAMES[i], user=user) for i, user in enumerate(users)]
    if computers:
        seats = [seats[0]] + [
            SeatSpec(name=f"Computer {i}", computer_level=computers)
            for i in range(1, VARIANTS[variant].players)
        ]
    match = match_create(
        variant=variant,
        target=target,
        seats=seats,
        seed=seed,
        table=table,
        rated=rated,
        clock_seconds=clock,
    )
    state = new_match(VARIANTS[variant], seed=seed, target=target)
    return match, state


def _advance(
    match: Match,
    state: MatchState,
    *,
    until: Callable[[MatchState], bool],
    rng: random.Random | None = None,
) -> MatchState:
    """Play on through the services (and the engine alongside) until ``until(state)``."""
    rng = rng or random.Random(match.seed)
    for _ in range(2000):
        if until(state):
            return state
        if state.awaiting_next_hand:
            match_deal_next_hand(match=match.pk)
            state = next_hand(state)
            continue
        action = _choose(state, rng)
        match_apply_action(match=match.pk, seat=action.seat, action=action)
        state = match_apply(state, action)
    raise RuntimeError(f"match {match.pk} never reached the state asked for")


def _choose(state: MatchState, rng: random.Random) -> Action:
    legal = match_legal_actions(state)
    first = legal[0]
    if isinstance(first, CallTrump):
        return CallTrump(first.seat, Suit.HEARTS)
    if isinstance(first, Discard | KeepOrThrow | PlayCard):
        return rng.choice(legal)
    return first


def _on_turn_mid_trick(state: MatchState, *, seat: int, played: int) -> bool:
    hand = state.hand
    return (
        hand.phase is Phase.PLAY
        and len(hand.tricks) >= 2
        and len(hand.current) == played
        and hand.to_act == seat
    )


def _random_hand_ends(predicate: Callable) -> Callable[[MatchState], bool]:
    """A seed test: the first hand, played by ``_choose`` from that seed, ends as asked."""

    def check(state: MatchState, seed: int) -> bool:
        rng = random.Random(seed)
        while not state.hand.is_over:
            state = match_apply(state, _choose(state, rng))
        return predicate(state.hand.result)

    check.needs_seed = True
    return check


def _seed_for(variant: str, predicate: Callable, *, limit: int = 20000) -> int:
    for seed in range(limit):
        state = new_match(VARIANTS[variant], seed=seed)
        ok = predicate(state, seed) if getattr(predicate, "needs_seed", False) else predicate(state)
        if ok:
            return seed
    raise RuntimeError(f"no {variant} seed below {limit} gives the state asked for")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _serve(port: int) -> subprocess.Popen:
    daphne = BASE_DIR / ".venv" / "bin" / "daphne"
    server = subprocess.Popen(
        [str(daphne), "-b", HOST, "-p", str(port), "hokm_site.asgi:application"],
        cwd=BASE_DIR,
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("daphne did not start")


def _photograph(scenes: list[Scene], out: Path, *, port: int, full_page: bool = True) -> None:
    from playwright.sync_api import sync_playwright

    # Sessions first: sync Playwright runs an event loop, inside which Django refuses the database.
    cookies_of = {scene.slug: _session_cookies(scene.viewer) for scene in scenes}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            for scene in scenes:
                cookies = cookies_of[scene.slug]
                for language in LANGUAGES:
                    for size, (width, height) in VIEWPORTS.items():
                        context = browser.new_context(
                            viewport={"width": width, "height": height},
                            device_scale_factor=1,
                            is_mobile=size != "desktop",
                            has_touch=size != "desktop",
                        )
                        context.add_cookies(
                            [
                                *cookies,
                                _cookie(settings.LANGUAGE_COOKIE_NAME, language),
                            ]
                        )
                        # A socket that reaches no server: a live one would move the match on
                        # (the next hand is dealt on its own) between two photographs.
                        context.route_web_socket("**/ws/**", lambda ws: None)
                        page = context.new_page()
                        path = scene.path or f"/match/{scene.match.pk}/"
                        page.goto(f"http://{HOST}:{port}{path}")
                        page.wait_for_selector(scene.ready)
                        for _ in range(scene.clicks):
                            page.locator("[data-go=next-card]").click()
                        if scene.path:  # another page: what it is about at the top of the screen
                            page.locator(scene.ready).evaluate("(e) => e.scrollIntoView()")
                        page.wait_for_timeout(400)  # let the entry animations finish
                        page.screenshot(
                            path=str(out / f"{scene.slug}-{size}-{language}.png"),
                            full_page=full_page,
                        )
                        context.close()
        finally:
            browser.close()


def _session_cookies(user) -> list[dict]:
    if user is None:
        return []
    client = Client()
    client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return [_cookie(settings.SESSION_COOKIE_NAME, session)]


def _cookie(name: str, value: str) -> dict:
    return {"name": name, "value": value, "domain": HOST, "path": "/"}


if __name__ == "__main__":
    main()
