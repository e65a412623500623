"""The moderation pages: who may see them, and what their forms change (issue 6)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.roles import MODERATORS_GROUP
from games.models import Match
from games.play.services import SeatSpec
from moderation import services as moderation
from moderation.models import Appeal, ModerationLogEntry, ModeratorNote, Report, Sanction
from moderation.sanctions import sanction_in_force
from tests.accounts.players import client_for, make_player
from tests.games.factories import MatchFactory, open_table

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


def moderator_pages(report: Report, bahar: User) -> list[str]:
    return [
        reverse("moderation:moderation_queue"),
        reverse("moderation:moderation_log"),
        reverse("moderation:moderation_report", args=[report.pk]),
        reverse("moderation:moderation_player", args=[bahar.username]),
    ]


def moderator_posts(report: Report, bahar: User, sanction: Sanction) -> list[tuple[str, dict]]:
    data = {"reason": "x", "minutes": "60", "decision": "x", "text": "x", "sanction": sanction.pk}
    actions = ["take", "close", "warn", "mute", "suspend", "ban", "rename", "void", "note"]
    posts = [
        (reverse("moderation:moderation_report_action", args=[report.pk, a]), data) for a in actions
    ]
    posts += [
        (reverse("moderation:moderation_player_action", args=[bahar.username, a]), data)
        for a in ("note", "lift")
    ]
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="not me")
    posts.append(
        (reverse("moderation:moderation_appeal_decide", args=[appeal.pk]), {**data, "grant": "1"})
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
    queue = reverse("moderation:moderation_queue")
    assert queue not in client_for(player).get("/").content.decode()
    assert queue in client_for(moderator).get("/").content.decode()


def test_the_admin_index_links_the_queue(moderator):
    page = client_for(moderator).get(reverse("admin:index"))
    assert reverse("moderation:moderation_queue") in page.content.decode()


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

    by_age = list(client.get(reverse("moderation:moderation_queue")).context["reports"])
    assert by_age == [oldest, middle, newest]
    assert [r.player_open for r in by_age] == [1, 2, 2]

    by_count = client.get(reverse("moderation:moderation_queue"), {"sort": "count"})
    assert list(by_count.context["reports"]) == [middle, newest, oldest]
    assert "2 open reports" in by_count.content.decode()


def test_a_moderator_takes_and_closes_a_report(moderator, report):
    client = client_for(moderator)
    back = reverse("moderation:moderation_report", args=[report.pk])
    response = client.post(reverse("moderation:moderation_report_action", args=[report.pk, "take"]))
    assert response.status_code == 302 and response.url == back
    report.refresh_from_db()
    assert report.status == Report.Status.TAKEN and report.taken_by == moderator

    response = client.post(
        reverse("moderation:moderation_report_action", args=[report.pk, "close"]),
        {"decision": "Warned in chat."},
        follow=True,
    )
    report.refresh_from_db()
    assert report.status == Report.Status.CLOSED and report.decision == "Warned in chat."
    assert "The report is closed." in response.content.decode()
    assert not client.get(reverse("moderation:moderation_queue")).context["reports"]


def test_the_report_page_shows_the_evidence(moderator, report, match, bahar):
    page = client_for(moderator).get(reverse("moderation:moderation_report", args=[report.pk]))
    html = page.content.decode()
    assert reverse("games:replay", args=[match.pk]) + "#h2t4" in html
    assert reverse("moderation:moderation_player", args=[bahar.username]) in html


def test_a_moderator_mutes_from_the_report_page(moderator, report, bahar):
    before = timezone.now()
    response = client_for(moderator).post(
        reverse("moderation:moderation_report_action", args=[report.pk, "mute"]),
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
        reverse("moderation:moderation_report_action", args=[report.pk, "mute"]),
        {"reason": "Insults in chat"},
    )
    assert not Sanction.objects.filter(user=bahar).exists()


def test_a_moderator_adds_a_note_on_the_player(moderator, report, bahar):
    client = client_for(moderator)
    client.post(
        reverse("moderation:moderation_report_action", args=[report.pk, "note"]),
        {"text": "Second time this week."},
    )
    assert ModeratorNote.objects.get(user=bahar).author == moderator
    page = client.get(reverse("moderation:moderation_player", args=[bahar.username]))
    assert "Second time this week." in page.content.decode()


def test_the_log_is_searched_by_player(moderator, player, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="warn", reason="about bahar")
    moderation.sanction_apply(moderator=moderator, user=player, kind="warn", reason="about roya")
    client = client_for(moderator)
    everything = client.get(reverse("moderation:moderation_log")).content.decode()
    assert "about bahar" in everything and "about roya" in everything
    assert everything.index("about roya") < everything.index("about bahar")  # newest first
    only_bahar = client.get(reverse("moderation:moderation_log"), {"player": "BAHAR"})
    html = only_bahar.content.decode()
    assert "about bahar" in html and "about roya" not in html


def test_the_log_links_a_renamed_player_under_his_new_name(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="rename", reason="rude name")
    moderation.rename_done(user=bahar, new_username="bahar2")
    client = client_for(moderator)
    for url in (
        reverse("moderation:moderation_log"),
        reverse("moderation:moderation_player", args=["bahar2"]),
    ):
        html = client.get(url).content.decode()
        assert reverse("moderation:moderation_player", args=["bahar2"]) in html
        assert reverse("moderation:moderation_player", args=["bahar"]) + '"' not in html
        assert "<bdi>bahar</bdi>" in html  # the name the entry was written under


def test_the_log_names_a_deleted_player_without_a_link(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="warn", reason="once")
    bahar.delete()
    html = client_for(moderator).get(reverse("moderation:moderation_log")).content.decode()
    assert "<bdi>bahar</bdi>" in html
    assert reverse("moderation:moderation_player", args=["bahar"]) not in html


def test_the_log_is_paginated(moderator, bahar):
    for n in range(60):
        moderation.note_add(moderator=moderator, user=bahar, text=f"note {n}")
    client = client_for(moderator)
    first = client.get(reverse("moderation:moderation_log"))
    assert len(first.context["page"].object_list) == 50
    second = client.get(reverse("moderation:moderation_log"), {"page": 2})
    assert len(second.context["page"].object_list) == 10


def test_a_report_from_a_profile_links_the_match_and_moment(player, bahar, match):
    client = client_for(player)
    url = reverse("moderation:report", args=[bahar.username])
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
    page = client.get(reverse("moderation:report_in_match"), {"match": match.pk})
    assert list(page.context["form"].fields["reported"].queryset) == [bahar]
    assert page.context["form"].initial["hand"] == 0
    client.post(
        reverse("moderation:report_in_match"),
        {"reported": "bahar", "reason": "stalling", "match": match.pk, "hand": 0, "trick": 0},
    )
    report = Report.objects.get()
    assert (report.reported, report.match, report.hand, report.trick) == (bahar, match, 0, 0)


def test_the_report_form_shows_refusals(player):
    client = client_for(player)
    response = client.post(
        reverse("moderation:report", args=[player.username]), {"reason": "other"}
    )
    assert response.status_code == 200
    assert "You cannot report yourself." in response.content.decode()
    assert not Report.objects.exists()


def test_the_report_form_is_for_signed_in_players_only(bahar):
    response = Client().get(reverse("moderation:report", args=[bahar.username]))
    assert response.status_code == 302 and "login" in response.url


def test_a_player_appeals_once_and_the_appeal_reaches_the_queue(moderator, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    client = client_for(bahar)
    page = client.get(reverse("moderation:my_sanctions")).content.decode()
    assert "Insults" in page and reverse("moderation:appeal_sanction", args=[sanction.pk]) in page

    url = reverse("moderation:appeal_sanction", args=[sanction.pk])
    client.post(url, {"text": "It was a joke between friends."})
    client.post(url, {"text": "Again."})
    assert Appeal.objects.get(sanction=sanction).text == "It was a joke between friends."
    page = client.get(reverse("moderation:my_sanctions")).content.decode()
    assert url not in page

    queue = client_for(moderator).get(reverse("moderation:moderation_queue"))
    assert "It was a joke between friends." in queue.content.decode()


def test_a_moderator_grants_an_appeal_from_the_queue(moderator, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="Sorry")
    client_for(moderator).post(
        reverse("moderation:moderation_appeal_decide", args=[appeal.pk]),
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
        reverse("moderation:appeal_sanction", args=[sanction.pk]), {"text": "hi"}
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
    page = client_for(moderator).get(reverse("moderation:moderation_log"))
    assert "added a note" in page.content.decode()


def test_the_table_report_form_is_for_the_people_of_the_match(match, moderator):
    response = client_for(moderator).get(reverse("moderation:report_in_match"), {"match": match.pk})
    assert response.status_code == 404


def test_a_moderator_lifts_a_sanction_from_the_player_page(moderator, bahar, report):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30, report=report
    )
    client = client_for(moderator)
    page = client.get(reverse("moderation:moderation_player", args=[bahar.username]))
    html = page.content.decode()
    assert "Insults" in html and reverse("moderation:moderation_report", args=[report.pk]) in html
    client.post(
        reverse("moderation:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction.pk, "reason": "Mistake"},
    )
    sanction.refresh_from_db()
    assert sanction.lifted_at is not None
    report_page = client.get(reverse("moderation:moderation_report", args=[report.pk]))
    assert "Insults" in report_page.content.decode()


@pytest.mark.parametrize("sanction", ["abc", "", "1.5", "-1", "\u00b2"])
def test_a_lift_naming_no_sanction_is_404_not_500(moderator, bahar, sanction):
    response = client_for(moderator).post(
        reverse("moderation:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction, "reason": "Mistake"},
    )
    assert response.status_code == 404


def test_a_sanction_s_span_reads_the_same_way_right_to_left(moderator, bahar):
    moderation.sanction_apply(moderator=moderator, user=bahar, kind="mute", reason="r", minutes=30)
    client = client_for(moderator)
    html = client.get(
        reverse("moderation:moderation_player", args=[bahar.username]), HTTP_ACCEPT_LANGUAGE="fa"
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
        reverse("moderation:report", args=[bahar.username]),
        reverse("moderation:report_in_match"),
    ):
        response = client.get(url, query)
        assert response.status_code in (200, 404)


@pytest.fixture
def private_match(bahar: User) -> Match:
    """A match at a private table (spectators welcome, with the invite link) where Bahar plays."""
    table = open_table(user=bahar, is_private=True, allow_spectators=True)
    return MatchFactory(
        table=table,
        seats=[
            SeatSpec(name="bahar", user=bahar),
            SeatSpec(name="bot1", computer_level="easy"),
            SeatSpec(name="bot2", computer_level="easy"),
            SeatSpec(name="bot3", computer_level="easy"),
        ],
    )


# The report form and a match the reporter may not see.


def test_the_report_form_says_nothing_of_a_private_match_to_a_stranger(
    player, bahar, private_match
):
    """Roya never saw Bahar's private match: the form neither names it nor gives its hand."""
    page = client_for(player).get(
        reverse("moderation:report", args=[bahar.username]), {"match": private_match.pk}
    )
    assert page.status_code == 200
    assert page.context["match"] is None
    assert page.context["form"].initial.get("hand") is None
    assert f"match {private_match.pk}" not in page.content.decode()


def test_a_report_does_not_tell_a_stranger_who_played_a_private_match(player, bahar, private_match):
    """Before, a report naming the match was refused for anyone who had not played it ("That
    player did not play in this match.") and accepted for anyone who had: who played a private
    match could be found out name by name. Now the match is left out of the report."""
    arash = make_player("arash")
    client = client_for(player)
    for reported in (bahar, arash):
        response = client.post(
            reverse("moderation:report", args=[reported.username]),
            {"reason": "other", "match": private_match.pk, "hand": 0, "trick": 0},
        )
        assert response.status_code == 302, reported
        assert response["Location"] == reverse("games:profile", args=[reported.username])
    reports = Report.objects.order_by("pk")
    assert [(r.reported, r.match, r.hand, r.trick) for r in reports] == [
        (bahar, None, None, None),
        (arash, None, None, None),
    ]


def test_a_player_of_the_private_match_still_reports_it(bahar, private_match):
    """The reported player's partner at the table (seated, so he may see it) keeps the match."""
    roya = make_player("roya2")
    table = open_table(user=roya, is_private=True)
    match = MatchFactory(
        table=table,
        seats=[
            SeatSpec(name="roya2", user=roya),
            SeatSpec(name="bot1", computer_level="easy"),
            SeatSpec(name="bahar", user=bahar),
            SeatSpec(name="bot2", computer_level="easy"),
        ],
    )
    client_for(roya).post(
        reverse("moderation:report", args=[bahar.username]),
        {"reason": "other", "match": match.pk, "hand": 0, "trick": 0},
    )
    assert Report.objects.get().match == match


# Appeals: nobody decides on his own.


@pytest.fixture
def superuser_pair(db: None) -> tuple[User, User]:
    return (
        make_player("sara", is_staff=True, is_superuser=True),
        make_player("omid", is_staff=True, is_superuser=True),
    )


def group_moderator(username: str) -> User:
    """A member of the moderators' group without staff status: ``is_moderator`` lets him in."""
    user = make_player(username)
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    user.groups.add(group)
    return user


def appealed_mute(*, judge: User, user: User) -> Appeal:
    sanction = moderation.sanction_apply(
        moderator=judge, user=user, kind="mute", reason="chat", minutes=60
    )
    return moderation.appeal_create(user=user, sanction=sanction, text="It was not me.")


@pytest.mark.parametrize("grant", [True, False])
def test_a_superuser_does_not_decide_on_his_own_appeal(superuser_pair, grant):
    sara, omid = superuser_pair
    appeal = appealed_mute(judge=omid, user=sara)
    with pytest.raises(moderation.ModerationError) as refused:
        moderation.appeal_decide(moderator=sara, appeal=appeal, grant=grant, decision="Fine.")
    assert refused.value.code == "self"
    appeal.refresh_from_db()
    assert appeal.status == Appeal.Status.OPEN
    assert Sanction.objects.get(pk=appeal.sanction_id).lifted_at is None
    # Another superuser may.
    moderation.appeal_decide(moderator=omid, appeal=appeal, grant=grant, decision="Fine.")
    appeal.refresh_from_db()
    assert appeal.status == (Appeal.Status.GRANTED if grant else Appeal.Status.REFUSED)


def test_a_moderator_cannot_lift_his_mute_by_granting_his_own_appeal(moderator):
    """Kaveh, in the moderators' group, is muted by Mina: he may not lift the mute (the rule of
    ``sanction_lift``), so he may not grant his own appeal against it from the queue either."""
    kaveh = group_moderator("kaveh")
    appeal = appealed_mute(judge=moderator, user=kaveh)
    decide = reverse("moderation:moderation_appeal_decide", args=[appeal.pk])
    queue = reverse("moderation:moderation_queue")
    # The queue lists his appeal for the others to decide, without the buttons for him.
    assert decide not in client_for(kaveh).get(queue).content.decode()
    assert decide in client_for(moderator).get(queue).content.decode()
    response = client_for(kaveh).post(
        reverse("moderation:moderation_appeal_decide", args=[appeal.pk]),
        {"decision": "Granted by me.", "grant": "1"},
        follow=True,
    )
    assert response.status_code == 200
    assert "Another moderator must decide on your appeal." in response.content.decode()
    appeal.refresh_from_db()
    assert appeal.status == Appeal.Status.OPEN
    assert Sanction.objects.get(pk=appeal.sanction_id).lifted_at is None


# A sanction lifted while its appeal waits.


def test_lifting_a_sanction_answers_its_open_appeal(moderator, bahar):
    """Bahar appeals her mute; Mina reads it and lifts the mute from Bahar's page. Before, the
    appeal stayed open: still in the queue for a moderator to decide, and Bahar's page still
    said "You appealed; a moderator will decide." under a mute lifted already."""
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="A joke.")
    mina = client_for(moderator)
    mina.post(
        reverse("moderation:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction.pk, "reason": "Fair enough."},
    )

    appeal.refresh_from_db()
    assert (appeal.status, appeal.decided_by, appeal.decision) == (
        Appeal.Status.GRANTED,
        moderator,
        "Fair enough.",
    )
    assert appeal.decided_at == Sanction.objects.get(pk=sanction.pk).lifted_at
    assert list(mina.get(reverse("moderation:moderation_queue")).context["appeals"]) == []
    page = client_for(bahar).get(reverse("moderation:my_sanctions")).content.decode()
    assert "Your appeal was granted." in page
    assert "a moderator will decide" not in page


def test_lifting_a_sanction_leaves_a_decided_appeal_as_it_was(moderator, bahar):
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    appeal = moderation.appeal_create(user=bahar, sanction=sanction, text="A joke.")
    moderation.appeal_decide(moderator=moderator, appeal=appeal, grant=False, decision="No.")
    moderation.sanction_lift(moderator=moderator, sanction=sanction, reason="Served enough.")
    appeal.refresh_from_db()
    assert (appeal.status, appeal.decision) == (Appeal.Status.REFUSED, "No.")


# Notes: for the other moderators.


def test_a_moderator_writes_no_note_about_himself(moderator, player):
    """Notes are what the other moderators know of a player: Mina could add her own, to the file
    they read when judging a report about her (from her page, or a report about her)."""
    report = moderation.report_create(reporter=player, reported=moderator, reason="other")
    with pytest.raises(moderation.ModerationError) as refused:
        moderation.note_add(moderator=moderator, user=moderator, text="Reports on me are trolls.")
    assert refused.value.code == "self"
    mina = client_for(moderator)
    own_page = reverse("moderation:moderation_player", args=[moderator.username])
    assert reverse(
        "moderation:moderation_player_action", args=[moderator.username, "note"]
    ) not in (mina.get(own_page).content.decode())
    report_page = mina.get(reverse("moderation:moderation_report", args=[report.pk]))
    assert reverse("moderation:moderation_report_action", args=[report.pk, "note"]) not in (
        report_page.content.decode()
    )
    for url in (
        reverse("moderation:moderation_player_action", args=[moderator.username, "note"]),
        reverse("moderation:moderation_report_action", args=[report.pk, "note"]),
    ):
        response = mina.post(url, {"text": "Reports on me are trolls."}, follow=True)
        assert "You cannot add a note about yourself." in response.content.decode()
    assert not moderator.moderator_notes.exists()
    # Another moderator still may.
    omid = make_player("omid", is_staff=True, is_superuser=True)
    moderation.note_add(moderator=omid, user=moderator, text="Asked about her reports.")
    assert moderator.moderator_notes.count() == 1


# The appeal form's refusals.


def test_an_appeal_too_long_is_told_so_not_to_write_one(moderator, bahar):
    """An appeal over 2,000 characters was answered "Write why the sanction should be lifted.",
    as if it were empty. The browser's maxlength does not stop it: it counts a line break as one
    character where the form, receiving CR LF, counts two."""
    sanction = moderation.sanction_apply(
        moderator=moderator, user=bahar, kind="mute", reason="Insults", minutes=30
    )
    client = client_for(bahar)
    url = reverse("moderation:appeal_sanction", args=[sanction.pk])
    text = (
        "It was a joke.\r\n" * 130
    )  # 1,950 characters in the browser, 2,078 here (the last line break stripped)
    page = client.post(url, {"text": text}, follow=True).content.decode()
    assert "Ensure this value has at most 2000 characters (it has 2078)." in page
    assert "Write why the sanction should be lifted." not in page
    assert not Appeal.objects.exists()

    page = client.post(url, {"text": "  "}, follow=True).content.decode()
    assert "Write why the sanction should be lifted." in page


# A report taken by someone who moderates no more.


@pytest.mark.parametrize("leaves", ["group", "account"])
def test_a_report_taken_by_a_former_moderator_can_be_taken_over(player, bahar, leaves):
    """Kaveh took a report, then left the moderators (removed from the group, or his account
    closed): every other moderator was told "kaveh is working on this report." for good, and
    nobody could close it."""
    kaveh = group_moderator("kaveh")
    omid = group_moderator("omid")
    report = moderation.report_create(reporter=player, reported=bahar, reason="other")
    moderation.report_take(report=report, moderator=kaveh)
    with pytest.raises(moderation.ModerationError):
        moderation.report_take(report=report, moderator=omid)
    if leaves == "group":
        kaveh.groups.clear()
    else:
        User.objects.filter(pk=kaveh.pk).update(is_active=False)

    taken = moderation.report_take(report=report, moderator=omid)
    assert (taken.status, taken.taken_by) == (Report.Status.TAKEN, omid)
    closed = moderation.report_close(report=report, moderator=omid, decision="Nothing wrong.")
    assert (closed.status, closed.taken_by) == (Report.Status.CLOSED, omid)


def test_a_report_taken_by_a_former_moderator_is_closed_by_the_next_one(player, bahar):
    kaveh = group_moderator("kaveh")
    omid = group_moderator("omid")
    report = moderation.report_create(reporter=player, reported=bahar, reason="other")
    moderation.report_take(report=report, moderator=kaveh)
    kaveh.groups.clear()
    response = client_for(omid).post(
        reverse("moderation:moderation_report_action", args=[report.pk, "close"]),
        {"decision": "Nothing wrong."},
        follow=True,
    )
    assert "The report is closed." in response.content.decode()
    report.refresh_from_db()
    assert (report.status, report.taken_by) == (Report.Status.CLOSED, omid)


# A sanction without an end, given twice.


@pytest.mark.parametrize("kind", ["ban", "rename"])
def test_a_sanction_without_an_end_is_not_given_twice(moderator, bahar, kind):
    """A double click on Ban gave two bans: lifting the one a moderator lifted left the other in
    force, and Bahar stayed banned after "The sanction is lifted."."""
    mina = client_for(moderator)
    url = reverse("moderation:moderation_player_action", args=[bahar.username, kind])
    mina.post(url, {"reason": "Cheating"})
    second = mina.post(url, {"reason": "Cheating"}, follow=True)
    assert "This player is under this sanction already." in second.content.decode()
    sanction = Sanction.objects.get(user=bahar, kind=kind)

    mina.post(
        reverse("moderation:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction.pk, "reason": "Mistake"},
    )
    assert sanction_in_force(user=bahar, kinds=[kind]) is None
    # Once lifted, it may be given again.
    moderation.sanction_apply(moderator=moderator, user=bahar, kind=kind, reason="Again")
    assert Sanction.objects.filter(user=bahar, kind=kind).count() == 2


def test_timed_sanctions_and_warnings_may_follow_each_other(moderator, bahar):
    for kind, minutes in (("warn", None), ("warn", None), ("mute", 10), ("mute", 600)):
        moderation.sanction_apply(
            moderator=moderator, user=bahar, kind=kind, reason="Again", minutes=minutes
        )
    assert Sanction.objects.filter(user=bahar).count() == 4
