"""Moderation QA, second pass: what the report form tells a stranger about a private match, and
moderators deciding on their own appeals (regression tests of the defects found)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from accounts import moderation
from accounts.models import Appeal, Report, Sanction, User
from accounts.roles import MODERATORS_GROUP
from accounts.sanctions import sanction_in_force
from games.models import Match
from games.services import SeatSpec
from tests.accounts.players import make_player
from tests.games.factories import MatchFactory, open_table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


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
        reverse("accounts:report", args=[bahar.username]), {"match": private_match.pk}
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
            reverse("accounts:report", args=[reported.username]),
            {"reason": "other", "match": private_match.pk, "hand": 0, "trick": 0},
        )
        assert response.status_code == 302, reported
        assert response["Location"] == reverse("accounts:profile", args=[reported.username])
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
        reverse("accounts:report", args=[bahar.username]),
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
    decide = reverse("accounts:moderation_appeal_decide", args=[appeal.pk])
    queue = reverse("accounts:moderation_queue")
    # The queue lists his appeal for the others to decide, without the buttons for him.
    assert decide not in client_for(kaveh).get(queue).content.decode()
    assert decide in client_for(moderator).get(queue).content.decode()
    response = client_for(kaveh).post(
        reverse("accounts:moderation_appeal_decide", args=[appeal.pk]),
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
        reverse("accounts:moderation_player_action", args=[bahar.username, "lift"]),
        {"sanction": sanction.pk, "reason": "Fair enough."},
    )

    appeal.refresh_from_db()
    assert (appeal.status, appeal.decided_by, appeal.decision) == (
        Appeal.Status.GRANTED,
        moderator,
        "Fair enough.",
    )
    assert appeal.decided_at == Sanction.objects.get(pk=sanction.pk).lifted_at
    assert list(mina.get(reverse("accounts:moderation_queue")).context["appeals"]) == []
    page = client_for(bahar).get(reverse("accounts:my_sanctions")).content.decode()
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
    own_page = reverse("accounts:moderation_player", args=[moderator.username])
    assert reverse("accounts:moderation_player_action", args=[moderator.username, "note"]) not in (
        mina.get(own_page).content.decode()
    )
    report_page = mina.get(reverse("accounts:moderation_report", args=[report.pk]))
    assert reverse("accounts:moderation_report_action", args=[report.pk, "note"]) not in (
        report_page.content.decode()
    )
    for url in (
        reverse("accounts:moderation_player_action", args=[moderator.username, "note"]),
        reverse("accounts:moderation_report_action", args=[report.pk, "note"]),
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
    url = reverse("accounts:appeal_sanction", args=[sanction.pk])
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
        reverse("accounts:moderation_report_action", args=[report.pk, "close"]),
        {"decision": "Nothing wrong."},
        follow=True,
    )
    assert "The report is closed." in response.content.decode()
    report.refresh_from_db()
    assert (report.status, report.taken_by) == (Report.Status.CLOSED, omid)


# A forced rename.


def test_the_rename_is_confirmed_with_the_new_username_not_the_display_name(moderator):
    """A player with a display name was told "Your username is now <display name>."."""
    player = make_player("badname", display_name="Bahar Jan")
    moderation.sanction_apply(moderator=moderator, user=player, kind="rename", reason="Rude name")
    response = client_for(player).post(
        reverse("accounts:rename"), {"username": "bahar_new"}, follow=True
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Your username is now bahar_new." in page
    assert "Your username is now Bahar Jan." not in page


# A sanction without an end, given twice.


@pytest.mark.parametrize("kind", ["ban", "rename"])
def test_a_sanction_without_an_end_is_not_given_twice(moderator, bahar, kind):
    """A double click on Ban gave two bans: lifting the one a moderator lifted left the other in
    force, and Bahar stayed banned after "The sanction is lifted."."""
    mina = client_for(moderator)
    url = reverse("accounts:moderation_player_action", args=[bahar.username, kind])
    mina.post(url, {"reason": "Cheating"})
    second = mina.post(url, {"reason": "Cheating"}, follow=True)
    assert "This player is under this sanction already." in second.content.decode()
    sanction = Sanction.objects.get(user=bahar, kind=kind)

    mina.post(
        reverse("accounts:moderation_player_action", args=[bahar.username, "lift"]),
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
