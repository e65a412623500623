"""The moderation pages: who may see them, and what their forms change (issue 6)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import moderation
from accounts.models import Appeal, ModerationLogEntry, ModeratorNote, Report, Sanction, User
from games.models import Match
from games.services import SeatSpec
from tests.accounts.players import make_player
from tests.games.factories import MatchFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(player: User, bahar: User) -> Match:
    return MatchFactory(
        seats=[
            SeatSpec(name="roya", user=player),
            SeatSpec(name="bot1", computer_level="easy"),
            SeatSpec(name="bahar", user=bahar),
            SeatSpec(name="bot2", computer_level="easy"),
        ]
    )


@pytest.fixture
def report(player: User, bahar: User, match: Match) -> Report:
    return moderation.report_create(
        reporter=player, reported=bahar, reason="chat_abuse", match=match, hand=1, trick=3
    )


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def moderator_pages(report: Report, bahar: User) -> list[str]:
    return [
        reverse("accounts:moderation_queue"),
        reverse("accounts:moderation_log"),
        reverse("accounts:moderation_report", args=[report.pk]),
        reverse("accounts:moderation_player", args=[bahar.username]),
    ]


def moderator_posts(report: Report, bahar: User, sanction: Sanction) -> list[tuple[str, dict]]:
    data = {"reason": "x", "minutes": "60", "decision": "x", "text": "x", "sanction": sanction.pk}
    actions = ["take", "close", "warn", "mute", "suspend", "ban", "rename", "void", "note"]
    posts = [
        (reverse("accounts:moderation_report_action", args=[report.pk, a]), data) for a in actions
    ]
    posts += [
        (reverse("accounts:moderation_player_action", args=[bahar.username, a]), data)
        for a in ("note", "lift")
    ]
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="not me")
    posts.append(
        (reverse("accounts:moderation_appeal_decide", args=[appeal.pk]), {**data, "grant": "1"})
    )
    return posts


def test_a_player_can_reach_no_moderator_page_nor_action(player, bahar, moderator, report):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="warn", reason="language"
    )
    posts = moderator_posts(report, bahar, sanction)
    counts = (Sanction.objects.count(), ModeratorNote.objects.count(), Appeal.objects.count())
    # Only moderation's own entries: a warned player who opens a refused page sees his
    # warning there, as on any page, and that is logged as seen.
    moderation_log = ModerationLogEntry.objects.exclude(action="warning_seen")
    log = moderation_log.count()
    anonymous = Client()
    for client in (client_for(player), client_for(bahar), anonymous):
        for url in moderator_pages(report, bahar):
            assert client.get(url).status_code == 404, url
        for url, data in posts:
            assert client.post(url, data).status_code == 404, url
    report.refresh_from_db()
    assert report.status == Report.Status.OPEN
    assert (
        Sanction.objects.count(),
        ModeratorNote.objects.count(),
        Appeal.objects.count(),
    ) == counts
    assert moderation_log.count() == log
    assert not Match.objects.get(pk=report.match_id).voided
    assert Sanction.objects.get(pk=sanction.pk).lifted_at is None


def test_the_header_links_the_queue_for_moderators_only(player, moderator):
    queue = reverse("accounts:moderation_queue")
    assert queue not in client_for(player).get("/").content.decode()
    assert queue in client_for(moderator).get("/").content.decode()


def test_the_admin_index_links_the_queue(moderator):
    page = client_for(moderator).get(reverse("admin:index"))
    assert reverse("accounts:moderation_queue") in page.content.decode()


def test_the_queue_is_sorted_by_age_or_by_the_players_open_reports(player, moderator, bahar):
    now = timezone.now()
    arash = make_player("arash")
    oldest = Report.objects.create(
        reporter=player, reported=arash, reason="other", created_at=now - timedelta(hours=3)
    )
    middle = Report.objects.create(
        reporter=player, reported=bahar, reason="other", created_at=now - timedelta(hours=2)
    )
    newest = Report.objects.create(
        reporter=arash,
        reported=bahar,
        reason="cheating",
        created_at=now - timedelta(hours=1),
        status=Report.Status.TAKEN,
        taken_by=moderator,
    )
    Report.objects.create(
        reporter=arash, reported=player, reason="other", status=Report.Status.CLOSED
    )
    client = client_for(moderator)

    by_age = list(client.get(reverse("accounts:moderation_queue")).context["reports"])
    assert by_age == [oldest, middle, newest]
    assert [r.player_open for r in by_age] == [1, 2, 2]

    by_count = client.get(reverse("accounts:moderation_queue"), {"sort": "count"})
    assert list(by_count.context["reports"]) == [middle, newest, oldest]
    assert "2 open reports" in by_count.content.decode()


def test_a_moderator_takes_and_closes_a_report(moderator, report):
    client = client_for(moderator)
    back = reverse("accounts:moderation_report", args=[report.pk])
    response = client.post(reverse("accounts:moderation_report_action", args=[report.pk, "take"]))
    assert response.status_code == 302 and response.url == back
    report.refresh_from_db()
    assert report.status == Report.Status.TAKEN and report.taken_by == moderator

    response = client.post(
        reverse("accounts:moderation_report_action", args=[report.pk, "close"]),
        {"decision": "Warned in chat."},
        follow=True,
    )
    report.refresh_from_db()
    assert report.status == Report.Status.CLOSED and report.decision == "Warned in chat."
    assert "The report is closed." in response.content.decode()
    assert not client.get(reverse("accounts:moderation_queue")).context["reports"]


def test_the_report_page_shows_the_evidence(moderator, report, match, bahar):
    page = client_for(moderator).get(reverse("accounts:moderation_report", args=[report.pk]))
    html = page.content.decode()
    assert reverse("games:replay", args=[match.pk]) + "#h2t4" in html
    assert reverse("accounts:moderation_player", args=[bahar.username]) in html


def test_a_moderator_mutes_from_the_report_page(moderator, report, bahar):
    before = timezone.now()
    response = client_for(moderator).post(
        reverse("accounts:moderation_report_action", args=[report.pk, "mute"]),
        {"reason": "Insults in chat", "minutes": "60"},
    )
    assert response.status_code == 302
    sanction = Sanction.objects.get(user=bahar, kind=Sanction.Kind.MUTE)
    assert sanction.moderator == moderator and sanction.report == report
    assert sanction.reason == "Insults in chat"
    assert (
        before + timedelta(minutes=60) <= sanction.ends_at <= timezone.now() + timedelta(minutes=60)
    )
    entry = ModerationLogEntry.objects.get(sanction=sanction)
    assert entry.moderator == moderator and entry.target == bahar and entry.report == report


def test_a_mute_needs_its_minutes(moderator, report, bahar):
    client_for(moderator).post(
        reverse("accounts:moderation_report_action", args=[report.pk, "mute"]),
        {"reason": "Insults in chat"},
    )
    assert not Sanction.objects.filter(user=bahar).exists()


def test_a_moderator_adds_a_note_on_the_player(moderator, report, bahar):
    client = client_for(moderator)
    client.post(
        reverse("accounts:moderation_report_action", args=[report.pk, "note"]),
        {"text": "Second time this week."},
    )
    assert ModeratorNote.objects.get(user=bahar).author == moderator
    page = client.get(reverse("accounts:moderation_player", args=[bahar.username]))
    assert "Second time this week." in page.content.decode()


def test_the_log_is_searched_by_player(moderator, player, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="warn", reason="about bahar")
    moderation.sanction_apply(moderator=moderator, user=player, kind="warn", reason="about roya")
    client = client_for(moderator)
    everything = client.get(reverse("accounts:moderation_log")).content.decode()
    assert "about bahar" in everything and "about roya" in everything
    assert everything.index("about roya") < everything.index("about bahar")  # newest first
    only_bahar = client.get(reverse("accounts:moderation_log"), {"player": "BAHAR"})
    html = only_bahar.content.decode()
    assert "about bahar" in html and "about roya" not in html


def test_the_log_links_a_renamed_player_under_his_new_name(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="rename", reason="rude name")
    moderation.rename_done(user=bahar, new_username="bahar2")
    client = client_for(moderator)
    for url in (
        reverse("accounts:moderation_log"),
        reverse("accounts:moderation_player", args=["bahar2"]),
    ):
        html = client.get(url).content.decode()
        assert reverse("accounts:moderation_player", args=["bahar2"]) in html
        assert reverse("accounts:moderation_player", args=["bahar"]) + '"' not in html
        assert "<bdi>bahar</bdi>" in html  # the name the entry was written under


def test_the_log_names_a_deleted_player_without_a_link(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="warn", reason="once")
    bahar.delete()
    html = client_for(moderator).get(reverse("accounts:moderation_log")).content.decode()
    assert "<bdi>bahar</bdi>" in html
    assert reverse("accounts:moderation_player", args=["bahar"]) not in html


def test_the_log_is_paginated(moderator, bahar):
    for n in range(60):
        moderation.note_add(moderator=moderator, user=bahar, text=f"note {n}")
    client = client_for(moderator)
    first = client.get(reverse("accounts:moderation_log"))
    assert len(first.context["page"].object_list) == 50
    second = client.get(reverse("accounts:moderation_log"), {"page": 2})
    assert len(second.context["page"].object_list) == 10


def test_a_report_from_a_profile_links_the_match_and_moment(player, bahar, match):
    client = client_for(player)
    url = reverse("accounts:report", args=[bahar.username])
    form = client.get(url, {"match": match.pk, "hand": 2, "trick": 5})
    assert form.status_code == 200
    response = client.post(
        url,
        {"reason": "cheating", "comment": "Signals", "match": match.pk, "hand": 2, "trick": 5},
        follow=True,
    )
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.reason) == (player, bahar, "cheating")
    assert (report.match, report.hand, report.trick, report.comment) == (match, 2, 5, "Signals")
    assert "your report was sent" in response.content.decode()


def test_the_table_report_form_offers_the_other_people_of_the_match(player, bahar, match):
    client = client_for(player)
    page = client.get(reverse("accounts:report_in_match"), {"match": match.pk})
    assert list(page.context["form"].fields["reported"].queryset) == [bahar]
    assert page.context["form"].initial["hand"] == 0
    client.post(
        reverse("accounts:report_in_match"),
        {"reported": "bahar", "reason": "stalling", "match": match.pk, "hand": 0, "trick": 0},
    )
    report = Report.objects.get()
    assert (report.reported, report.match, report.hand, report.trick) == (bahar, match, 0, 0)


def test_the_report_form_shows_refusals(player):
    client = client_for(player)
    response = client.post(reverse("accounts:report", args=[player.username]), {"reason": "other"})
    assert response.status_code == 200
    assert "You cannot report yourself." in response.content.decode()
    assert not Report.objects.exists()


def test_the_report_form_is_for_signed_in_players_only(bahar):
    response = Client().get(reverse("accounts:report", args=[bahar.username]))
    assert response.status_code == 302 and "login" in response.url


def test_a_player_appeals_once_and_the_appeal_reaches_the_queue(moderator, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    client = client_for(bahar)
    page = client.get(reverse("accounts:my_sanctions")).content.decode()
    assert "Insults" in page and reverse("accounts:appeal_sanction", args=[sanction.pk]) in page

    url = reverse("accounts:appeal_sanction", args=[sanction.pk])
    client.post(url, {"text": "It was a joke between friends."})
    client.post(url, {"text": "Again."})
    assert Appeal.objects.get(sanction=sanction).text == "It was a joke between friends."
    page = client.get(reverse("accounts:my_sanctions")).content.decode()
    assert url not in page

    queue = client_for(moderator).get(reverse("accounts:moderation_queue"))
    assert "It was a joke between friends." in queue.content.decode()


def test_a_moderator_grants_an_appeal_from_the_queue(moderator, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="Sorry")
    client_for(moderator).post(
        reverse("accounts:moderation_appeal_decide", args=[appeal.pk]),
        {"grant": "1", "decision": "First time."},
    )
    appeal.refresh_from_db()
    sanction.refresh_from_db()
    assert appeal.status == Appeal.Status.GRANTED and sanction.lifted_at is not None


def test_a_player_cannot_appeal_someone_elses_sanction(moderator, player, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="warn", reason="language"
    )
    response = client_for(player).post(
        reverse("accounts:appeal_sanction", args=[sanction.pk]), {"text": "hi"}
    )
    assert response.status_code == 404
    assert not Appeal.objects.exists()


def test_an_unseen_warning_is_shown_once(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="warn", reason="Be kind")
    client = client_for(bahar)
    assert "A moderator warned you: Be kind" in client.get("/").content.decode()
    assert "Be kind" not in client.get("/").content.decode()


def test_the_lobby_says_until_when_a_player_may_not_play(bahar):
    Sanction.objects.create(
        user=bahar,
        kind=Sanction.Kind.PLAY_BAN,
        reason="Left three matches",
        ends_at=timezone.now() + timedelta(minutes=90),
    )
    page = client_for(bahar).get(reverse("games:lobby")).content.decode()
    assert "You may not play until" in page and "Left three matches" in page


def test_the_log_names_each_action_in_words(moderator, bahar):
    moderation.note_add(moderator=moderator, user=bahar, text="Watch him")
    page = client_for(moderator).get(reverse("accounts:moderation_log"))
    assert "added a note" in page.content.decode()


def test_the_table_report_form_is_for_the_people_of_the_match(match, moderator):
    response = client_for(moderator).get(reverse("accounts:report_in_match"), {"match": match.pk})
    assert response.status_code == 404


def test_a_moderator_lifts_a_sanction_from_the_player_page(moderator, bahar, report):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30, report=report
    )
    client = client_for(moderator)
    page = client.get(reverse("accounts:moderation_player", args=[bahar.username]))
    html = page.content.decode()
    assert "Insults" in html and reverse("accounts:moderation_report", args=[report.pk]) in html
    client.post(
        reverse("accounts:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction.pk, "reason": "Mistake"},
    )
    sanction.refresh_from_db()
    assert sanction.lifted_at is not None
    report_page = client.get(reverse("accounts:moderation_report", args=[report.pk]))
    assert "Insults" in report_page.content.decode()


@pytest.mark.parametrize("sanction", ["abc", "", "1.5", "-1", "\u00b2"])
def test_a_lift_naming_no_sanction_is_404_not_500(moderator, bahar, sanction):
    response = client_for(moderator).post(
        reverse("accounts:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction, "reason": "Mistake"},
    )
    assert response.status_code == 404


def test_a_sanction_s_span_reads_the_same_way_right_to_left(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="mute", reason="r", minutes=30)
    client = client_for(moderator)
    html = client.get(
        reverse("accounts:moderation_player", args=[bahar.username]), HTTP_ACCEPT_LANGUAGE="fa"
    ).content.decode()
    assert 'dir="rtl"' in html
    # An arrow does not turn with the text: in Persian it would point from the end to the start.
    assert "→" not in html and "←" not in html


@pytest.mark.parametrize(
    "query",
    [{"match": "\u00b2"}, {"hand": "\u00b2"}, {"hand": "1", "trick": "\u00b2"}],
)
def test_a_report_page_with_a_superscript_digit_is_not_a_500(player, bahar, match, query):
    # "²" is a digit to str.isdigit() but no number to int().
    query = {"match": match.pk, **query}
    client = client_for(player)
    for url in (
        reverse("accounts:report", args=[bahar.username]),
        reverse("accounts:report_in_match"),
    ):
        response = client.get(url, query)
        assert response.status_code in (200, 404)
