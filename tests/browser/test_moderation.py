"""Moderation in a real headless Chromium (issue 6): a player reports another from the table; a
moderator opens the queue, the report and its evidence (the replay at the moment), mutes the
player from the report page, and the moderation log shows the mute.

The match is created here through ``games.play.services.match_create`` (committed rows the live
server reads); everything after that happens through the pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.roles import MODERATORS_GROUP
from games.models import ComputerLevel, Match, Table
from games.play.services import SeatSpec, match_create
from moderation.models import Report, Sanction

from .helpers import log_in, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)


def _start_match(arash, bahar) -> Match:
    """A running match of the two people and two computer players, without a turn clock."""

    def create() -> Match:
        try:
            table = Table.objects.create(
                name="Shab-neshini", variant="hokm4", created_by=arash, status=Table.Status.PLAYING
            )
            return match_create(
                variant="hokm4",
                target=7,
                seed=11,
                table=table,
                seats=[
                    SeatSpec(name="arash", user=arash),
                    SeatSpec(name="Bot 1", computer_level=ComputerLevel.EASY),
                    SeatSpec(name="bahar", user=bahar),
                    SeatSpec(name="Bot 2", computer_level=ComputerLevel.EASY),
                ],
            )
        finally:
            connections.close_all()

    # In a thread of its own: the services broadcast after the commit with async_to_sync, which
    # refuses to run in this thread, where Playwright's event loop runs.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(create).result()


def test_a_report_from_the_table_is_muted_from_the_queue_and_logged(
    open_page: Callable[..., Page], screenshot
):
    arash = verified_user("arash")
    bahar = verified_user("bahar")
    mina = verified_user("mina")
    mina.is_staff = True
    mina.save(update_fields=["is_staff"])
    mina.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    match = _start_match(arash, bahar)

    # The player, at the table, reports the other person.
    player = open_page()
    log_in(player, "arash")
    player.goto(f"/match/{match.pk}/")
    wait_match_live(player)
    player.locator("#table .report-tool").click()
    expect(player).to_have_url(re.compile(rf"/report/\?match={match.pk}$"))
    player.locator("select[name=reported]").select_option("bahar")
    player.locator("select[name=reason]").select_option("chat_abuse")
    player.get_by_label("What happened").fill("Insults after every trick.")
    player.get_by_role("button", name="Send the report").click()
    expect(player).to_have_url(re.compile(rf"/match/{match.pk}/$"))
    expect(player.locator(".messages")).to_contain_text("your report was sent")
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.match_id) == (arash, bahar, match.pk)
    assert report.hand == 0

    # The moderator: queue, report, evidence, back, mute.
    moderator = open_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    log_in(moderator, "mina")
    moderator.locator(".site-header").get_by_role("link", name="Moderation").click()
    expect(moderator).to_have_url(re.compile(r"/moderation/$"))
    moderator.get_by_role("link", name=re.compile("bahar")).first.click()
    expect(moderator).to_have_url(re.compile(rf"/moderation/reports/{report.pk}/$"))
    screenshot(moderator, "report")
    expected_hash = f"#h{report.hand + 1}" + (
        f"t{report.trick + 1}" if report.trick is not None else ""
    )
    moderator.locator("a.mod-evidence").click()
    expect(moderator).to_have_url(
        re.compile(rf"/match/{match.pk}/replay/{re.escape(expected_hash)}$")
    )
    moderator.go_back()
    expect(moderator).to_have_url(re.compile(rf"/moderation/reports/{report.pk}/$"))

    moderator.get_by_label("Reason for a sanction").fill("Insults in chat")
    moderator.get_by_label("Minutes (mute, suspension)").fill("60")
    before = timezone.now()
    moderator.get_by_role("button", name="Mute", exact=True).click()
    expect(moderator.locator(".messages")).to_contain_text("mute in chat")
    sanction = Sanction.objects.get(user=bahar, kind=Sanction.Kind.MUTE)
    minutes = (sanction.ends_at - before).total_seconds() / 60
    assert 59 < minutes <= 61

    moderator.get_by_role("link", name="Log", exact=True).first.click()
    expect(moderator).to_have_url(re.compile(r"/moderation/log/$"))
    entry = moderator.locator(".mod-log__entry[data-action=mute]")
    expect(entry).to_contain_text("bahar")
    expect(entry).to_contain_text("Insults in chat")
    screenshot(moderator, "log")
