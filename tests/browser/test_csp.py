"""The Content-Security-Policy (hokm_site/csp.py) in a real Chromium: the main pages of a player,
a moderator's pages and the admin load, run their scripts and open their sockets with nothing
refused by the policy.

A violation shows twice: as a ``securitypolicyviolation`` event in the page (recorded by a script
that runs before the page's own) and as a console error "… violates the following Content
Security Policy directive …". Both are collected over every page and must stay empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import connections
from playwright.sync_api import ConsoleMessage, Page, expect

from accounts.roles import MODERATORS_GROUP
from games.models import ComputerLevel, Match, Table
from games.play.services import SeatSpec, match_create
from tests.games.factories import MatchFactory, match_play

from .helpers import log_in, verified_user, wait_match_live, wait_socket_open

pytestmark = pytest.mark.django_db(transaction=True)

VIOLATIONS = """
(() => {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (event) => {
    window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
  });
})();
"""


def _in_thread(make: Callable[[], object]) -> object:
    """Run ``make`` in a thread of its own: the services broadcast after the commit with
    async_to_sync, which refuses to run in this thread, where Playwright's event loop runs."""

    def run() -> object:
        try:
            return make()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def _matches(player) -> tuple[Match, Match]:
    """A running match of ``player`` against computer players, and a finished one."""

    def create() -> tuple[Match, Match]:
        table = Table.objects.create(
            name="Yalda", variant="hokm4", created_by=player, status=Table.Status.PLAYING
        )
        seats = [SeatSpec(name=player.username, user=player)] + [
            SeatSpec(name=f"Bot {i}", computer_level=ComputerLevel.EASY) for i in (1, 2, 3)
        ]
        live = match_create(variant="hokm4", target=7, seed=5, table=table, seats=seats)
        finished = MatchFactory(target=1, seats=seats)
        match_play(finished)
        return live, finished

    return _in_thread(create)


class Watch:
    """The policy's refusals on every page opened through it, and the header on each."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.console: list[str] = []
        page.add_init_script(VIOLATIONS)
        page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(f"{self.page.url}: {message.text}")

    def open(self, path: str) -> None:
        response = self.page.goto(path)
        assert response is not None and response.ok, path
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path

    def violations(self) -> list[str]:
        return self.page.evaluate("() => window.__cspViolations || []") + self.console

    def check(self, path: str) -> None:
        self.open(path)
        self.page.wait_for_load_state("load")
        assert self.violations() == [], path


def test_a_players_pages_run_under_the_policy(open_page) -> None:
    player = verified_user("sahar")
    live, finished = _matches(player)
    page = open_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)

    for path in ("/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"):
        watch.check(path)
    log_in(page, "sahar")
    wait_socket_open(page)  # the lobby's socket
    assert watch.violations() == []

    watch.check(f"/match/{live.pk}/")
    wait_match_live(page)
    watch.check("/history/")
    # A filter updates the list with htmx and pushes the address.
    page.locator("main select[name=variant]").select_option("hokm4")
    expect(page).to_have_url(re.compile(r"variant=hokm4"))
    watch.check(f"/match/{finished.pk}/summary/")
    watch.check(f"/match/{finished.pk}/replay/")
    expect(page.locator("[data-replay]")).to_have_class(re.compile(r"\bis-ready\b"))
    page.keyboard.press("ArrowRight")
    for path in (
        "/tables/new/",
        "/players/sahar/",
        "/accounts/profile/",
        "/accounts/password/change/",
        "/records/import/",
    ):
        watch.check(path)
    page.locator("form.language-switch select").select_option("fa")
    page.locator("form.language-switch button").click()
    page.wait_for_load_state("load")
    assert watch.violations() == []


def test_a_moderators_pages_and_the_admin_run_under_the_policy(open_page) -> None:
    moderator = verified_user("mina")
    moderator.is_staff = moderator.is_superuser = True
    moderator.save()
    moderator.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    page = open_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    log_in(page, "mina")

    admin = f"/{settings.ADMIN_URL}"
    for path in (
        "/moderation/",
        "/moderation/log/",
        "/moderation/players/mina/",
        admin,
        f"{admin}accounts/user/",
        f"{admin}accounts/user/{moderator.pk}/change/",
        f"{admin}games/table/add/",
        f"{admin}games/match/",
    ):
        watch.check(path)
