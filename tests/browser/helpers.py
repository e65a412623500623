"""What the browser tests do and check again and again: log in, wait for the live table, read the
database's view of a match, and look for cards a page must not hold."""

from __future__ import annotations

import email
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from django.utils import translation
from playwright.sync_api import Page, expect

from games.engine import Card, HandState, get_variant, new_match
from games.models import Match, Table
from games.play.rendering import card_face
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create

PASSWORD = "Shab-e-Yalda-1403"


def verified_user(username: str):
    """A player who signed up and confirmed the address before (allauth needs the row)."""
    user = get_user_model().objects.create_user(
        username=username, email=f"{username}@example.com", password=PASSWORD
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def seed_with_hakem(variant: str, seat: int) -> int:
    """A match seed whose draw makes ``seat`` the first Hakem."""
    rules = get_variant(variant)
    return next(s for s in range(1000) if new_match(rules, seed=s).hand.hakem == seat)


def running_match(
    variant: str,
    seats: list[SeatSpec],
    *,
    creator,
    hakem: int | None = None,
    clock: int | None = None,
    waiting: bool = False,
) -> Match:
    """A match to 7 at a public table that allows spectators, ``hakem`` its first Hakem (else
    the seed's draw decides), with a turn clock of ``clock`` seconds or none. ``waiting``: its
    next step is not set, as when its clock stopped because nobody was there (the first player
    to connect starts it)."""
    seed = seed_with_hakem(variant, hakem) if hakem is not None else None

    def create() -> Match:
        try:
            with transaction.atomic():
                table = Table.objects.create(
                    name="Shab-neshini",
                    variant=variant,
                    created_by=creator,
                    turn_clock_seconds=clock,
                    allow_spectators=True,
                    status=Table.Status.PLAYING,
                )
                match = match_create(
                    variant=variant,
                    target=7,
                    seats=seats,
                    seed=seed,
                    table=table,
                    clock_seconds=clock,
                )
                if waiting:
                    Match.objects.filter(pk=match.pk).update(step_at=None)
            return match
        finally:
            connections.close_all()

    # In a thread of its own: the services broadcast after the commit with async_to_sync, which
    # refuses to run in this thread, where Playwright's event loop runs.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(create).result()


def log_in(page: Page, username: str, password: str = PASSWORD) -> None:
    """Through allauth's login page, as a person does; it leads to the lobby."""
    page.goto("/accounts/login/")
    page.locator("main input[name=login]").fill(username)
    page.locator("main input[name=password]").fill(password)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/lobby/$"))
    expect(page.locator(".site-header .nav-player")).to_have_text(username)


def wait_socket_open(page: Page, count: int = 1) -> None:
    """Until this page's htmx WebSocket has opened (``count`` times since the page loaded)."""
    page.wait_for_function("(n) => window.__hokm && window.__hokm.wsOpen >= n", arg=count)


def wait_match_live(page: Page) -> int:
    """On a match page: until its socket is open; returns the match id from the URL."""
    expect(page).to_have_url(re.compile(r"/match/\d+/$"))
    expect(page.locator("[data-connection]")).to_have_attribute("data-state", "open")
    return int(re.search(r"/match/(\d+)/$", page.url).group(1))


def hokm2_against_computer(page: Page, username: str) -> tuple[int, bool]:
    """Sign ``username`` (a new player) in, start hokm2 against the computer from the lobby's
    quick start and wait for the live table, holding it still once a hand-end banner comes.
    Returns the match id and whether he is the Hakem (then the trump call is his to make)."""
    from games.models import MatchSeat

    verified_user(username)
    log_in(page, username)
    page.goto("/lobby/")
    page.locator("form[action$='/play/computer/'] button[name=variant][value=hokm2]").click()
    match_id = wait_match_live(page)
    page.evaluate("() => { window.__hokm.holdOnBanner = true; }")
    seat = MatchSeat.objects.get(match_id=match_id, user__username=username).index
    _, state = match_state(match_id)
    return match_id, state.hand.hakem == seat


def table_version(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version"))


def wait_table_version(page: Page, version: int) -> None:
    """Until the page shows the table at exactly this version of the match."""
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))


def mark_page(page: Page) -> None:
    """Leave a mark in the page's JavaScript world; a reload or navigation would wipe it."""
    page.evaluate("() => { window.__hokmNotReloaded = true; }")


def assert_not_reloaded(page: Page) -> None:
    assert page.evaluate("() => window.__hokmNotReloaded === true"), "the page was reloaded"


def match_state(match_id: int):
    match = Match.objects.get(pk=match_id)
    return match, match_state_build(match=match)


def played_cards(hand: HandState) -> set[Card]:
    """Every card played face up in the hand so far (finished tricks and the current one)."""
    cards = set(hand.current)
    for trick in hand.tricks:
        cards.update(trick.cards)
    return cards


def hakem_draw_cards(match: Match) -> set[str]:
    """The cards turned face up to choose the first Hakem: public, from a shuffle of their own."""
    draw = match.hakem_draw or {}
    return {*draw.get("cards", []), *draw.get("partner_cards", [])}


def card_marks(card: Card) -> list[str]:
    """How a card would show in a page or a frame: its text as an attribute value (``data-card``,
    form values, JSON) and its name anywhere (``aria-label``, text), e.g. "queen of hearts"."""
    with translation.override("en"):
        label = str(card_face(card).label)
    return [f'"{card.text}"', label]


#: The page's HTML without the public Hakem-draw flips, whose cards come from another shuffle and
#: may be cards of the hand being played.
_HTML_WITHOUT_DRAW = """
  (html) => {
    const template = document.createElement("template");
    template.innerHTML = html === null ? document.documentElement.outerHTML : html;
    template.content.querySelectorAll(".hakem-draw").forEach((element) => element.remove());
    return template.innerHTML;
  }
"""


def page_html_without_draw(page: Page, html: str | None = None) -> str:
    return page.evaluate(_HTML_WITHOUT_DRAW, html)


def leaked_cards(html: str, hidden: set[Card]) -> list[str]:
    return sorted(card.text for card in hidden if any(mark in html for mark in card_marks(card)))


def assert_page_shows_only_what_seat_may_see(page: Page, match_id: int, seat: int) -> None:
    """Read the page once it shows the match's current version: it holds every card of the seat's
    own hand and the cards played, and no other card of the deal (R8.3).

    Only for matches where nothing moves by itself (no computer players, hand not decided).
    """
    match, state = match_state(match_id)
    wait_table_version(page, match.version)
    full_html = page.content()
    assert Match.objects.get(pk=match_id).version == match.version, "the match moved meanwhile"
    html = page_html_without_draw(page, full_html)
    hand = state.hand
    own = set(hand.holdings[seat])
    hidden = set(hand.deck) - own - played_cards(hand)
    assert len(hand.deck) == 52 and hidden, "the deal should hide cards from this seat"
    assert leaked_cards(html, hidden) == [], f"seat {seat} sees cards it may not"
    for card in own:
        assert f'data-card="{card.text}"' in html, f"seat {seat} does not see its own {card.text}"
    # The draw block shows the draw's cards and nothing else.
    draw_shown = set(
        page.locator(".hakem-draw [data-card]").evaluate_all(
            "(cards) => cards.map((card) => card.dataset.card)"
        )
    )
    assert draw_shown <= hakem_draw_cards(match)


def confirmation_link(email_dir: Path, address: str, timeout: float = 30.0) -> str:
    """The link of the confirmation email the server wrote for ``address`` (the file backend
    writes each message, then a line of dashes, to a file in ``email_dir``)."""
    deadline = time.monotonic() + timeout
    while True:
        for path in sorted(email_dir.glob("*.log")):
            for raw in path.read_text().split("-" * 79):
                if not raw.strip():
                    continue
                message = email.message_from_string(raw.strip())
                if address not in message.get("To", ""):
                    continue
                body = next(
                    part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
                    for part in message.walk()
                    if part.get_content_type() == "text/plain"
                )
                found = re.search(r"https?://\S+/accounts/confirm-email/[^/\s]+/", body)
                assert found, f"no confirmation link in the email:\n{body}"
                return found.group(0)
        assert time.monotonic() < deadline, f"no email to {address} in {email_dir}"
        time.sleep(0.1)


#: What a player waits for: his turn (a card he may play, his last move answered) or the end of
#: the hand; for ``page.wait_for_function``.
TURN_OR_BANNER = """
  () => {
    const table = document.querySelector("#table");
    if (table === null) return false;
    if (table.querySelector(".banner")) return "banner";
    if (!table.classList.contains("is-sending")
        && table.querySelector(".hand button[data-card]:not([disabled])")) return "turn";
    return false;
  }
"""
