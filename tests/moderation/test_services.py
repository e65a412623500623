"""The moderation services (moderation.services): reports, sanctions, notes, appeals, the log and
quitters' play bans, and the read-only moderation models in the admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.roles import MODERATORS_GROUP
from games.models import ChatMessage, ComputerLevel, Match, MatchSeat
from games.play.chat import chat_post
from games.play.services import SeatSpec, match_create, match_seat_back, match_seat_leave
from moderation import enforcement
from moderation import services as moderation
from moderation.models import Appeal, ModerationLogEntry, ModeratorNote, Report, Sanction
from moderation.sanctions import blocked, muted, play_banned
from moderation.services import (
    PLAY_BAN_BASE_MINUTES,
    PLAY_BAN_CAP_MINUTES,
    PLAY_BAN_FACTOR,
    ModerationError,
    appeal_create,
    appeal_decide,
    note_add,
    quitters_penalise,
    rename_done,
    report_close,
    report_create,
    report_take,
    sanction_apply,
    sanction_lift,
    warning_seen,
)
from tests.accounts.players import client_for, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def enforced(monkeypatch: pytest.MonkeyPatch) -> list[Sanction]:
    """The sanctions handed to ``moderation.enforcement.sanction_enforce``; its own effects
    (sockets, seats) are tested with the enforcement module."""
    calls: list[Sanction] = []
    monkeypatch.setattr(enforcement, "sanction_enforce", calls.append)
    return calls


def make_moderator(username: str = "mina") -> User:
    moderator = make_player(username, is_staff=True)
    moderator.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    return moderator


@pytest.fixture
def mina() -> User:
    return make_moderator("mina")


@pytest.fixture
def roya() -> User:
    return make_player("roya")


@pytest.fixture
def dariush() -> User:
    return make_player("dariush")


def new_match(*people: User, computers: int = 0, target: int = 7) -> Match:
    """A running hokm4 match: ``people`` in the first seats, then computer players."""
    seats = [SeatSpec(name=user.username, user=user) for user in people]
    seats += [
        SeatSpec(name=f"Computer {i}", computer_level=ComputerLevel.EASY) for i in range(computers)
    ]
    seats += [SeatSpec(name=f"nobody{i}") for i in range(4 - len(seats))]
    return match_create(variant="hokm4", target=target, seats=seats, seed=7)


def seat_of(match: Match, user: User) -> int:
    return MatchSeat.objects.get(match=match, user=user).index


def finish(match: Match) -> None:
    # Playing out a whole match takes the computer players' turns for the seats that were left
    # (autoplay is off in tests): set the end as games.play.services stores it instead.
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )


def last_log() -> ModerationLogEntry:
    return ModerationLogEntry.objects.order_by("-pk").first()


# -- reports --------------------------------------------------------------------------------------


def test_report_keeps_the_moment_and_the_chat_before_it(roya: User, dariush: User) -> None:
    match = new_match(roya, dariush)
    early = timezone.now() - timedelta(minutes=5)
    for i in range(12):
        ChatMessage.objects.create(
            match=match, seat=1, user=dariush, name="dariush", text=f"line {i}", created_at=early
        )
    posted = chat_post(match=match, user=dariush, seat=seat_of(match, dariush), text="you fool")
    other = new_match(roya, dariush)
    chat_post(match=other, user=dariush, seat=seat_of(other, dariush), text="elsewhere")

    report = report_create(
        reporter=roya,
        reported=dariush,
        reason=Report.Reason.CHAT_ABUSE,
        comment=" insults ",
        match=match,
        hand=0,
        trick=2,
    )

    assert (report.status, report.hand, report.trick, report.comment) == ("open", 0, 2, "insults")
    assert len(report.chat) == 10
    assert report.chat[-1] == {
        "id": posted.pk,
        "name": "dariush",
        "text": "you fool",
        "at": posted.created_at.isoformat(),
    }
    assert [line["text"] for line in report.chat[:2]] == ["line 3", "line 4"]
    entry = last_log()
    assert (entry.action, entry.moderator, entry.target_name, entry.report) == (
        "report",
        None,
        "dariush",
        report,
    )
    assert entry.details["reporter"] == "roya"


def test_a_report_names_a_moment_a_match_can_have(roya: User, dariush: User) -> None:
    match = new_match(roya, dariush)
    for hand, trick in ((0, 13), (32768, None), (40000, 0)):
        with pytest.raises(ModerationError) as refused:
            report_create(
                reporter=roya,
                reported=dariush,
                reason=Report.Reason.CHEATING,
                match=match,
                hand=hand,
                trick=trick,
            )
        assert refused.value.code == "bad_moment"
    assert not Report.objects.exists()

    last = report_create(
        reporter=roya, reported=dariush, reason="cheating", match=match, hand=32767, trick=12
    )
    assert (last.hand, last.trick) == (32767, 12)


def test_report_from_a_profile_has_no_match(roya: User, dariush: User) -> None:
    report = report_create(reporter=roya, reported=dariush, reason=Report.Reason.OFFENSIVE_NAME)

    assert (report.match, report.chat) == (None, [])


def test_reporting_yourself_is_refused(roya: User) -> None:
    with pytest.raises(ModerationError) as refused:
        report_create(reporter=roya, reported=roya, reason=Report.Reason.OTHER)

    assert refused.value.code == "self"
    assert not Report.objects.exists()


def test_reporting_a_computer_seat_or_nobody_is_refused(roya: User) -> None:
    match = new_match(roya, computers=3)
    computer = MatchSeat.objects.filter(match=match, computer_level__isnull=False).first()
    ghost = User(pk=9999, username="ghost")

    for reported in (computer.user, ghost):
        with pytest.raises(ModerationError) as refused:
            report_create(
                reporter=roya, reported=reported, reason=Report.Reason.CHEATING, match=match
            )
        assert refused.value.code == "no_player"
    assert not Report.objects.exists()


def test_reporting_a_player_of_another_match_is_refused(roya: User, dariush: User) -> None:
    match = new_match(roya)

    with pytest.raises(ModerationError) as refused:
        report_create(reporter=roya, reported=dariush, reason=Report.Reason.CHEATING, match=match)

    assert refused.value.code == "not_in_match"


def test_reports_are_limited_to_ten_an_hour(roya: User, dariush: User) -> None:
    old = report_create(reporter=roya, reported=dariush, reason=Report.Reason.OTHER)
    Report.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(minutes=61))
    for _ in range(10):
        report_create(reporter=roya, reported=dariush, reason=Report.Reason.OTHER)

    with pytest.raises(ModerationError) as refused:
        report_create(reporter=roya, reported=dariush, reason=Report.Reason.OTHER)

    assert refused.value.code == "rate_limited"
    assert Report.objects.count() == 11


def test_a_report_is_taken_by_one_moderator(mina: User, roya: User, dariush: User) -> None:
    report = report_create(reporter=roya, reported=dariush, reason=Report.Reason.STALLING)
    omid = make_moderator("omid")

    taken = report_take(report=report, moderator=mina)
    assert report_take(report=report, moderator=mina).taken_by == mina
    with pytest.raises(ModerationError) as refused:
        report_take(report=report, moderator=omid)
    with pytest.raises(ModerationError):
        report_close(report=report, moderator=omid, decision="nothing")

    assert refused.value.code == "taken"
    assert (taken.status, taken.taken_by, taken.taken_at is not None) == ("taken", mina, True)
    assert ModerationLogEntry.objects.filter(action="report_take").count() == 1


def test_closing_a_report_records_the_decision(mina: User, roya: User, dariush: User) -> None:
    report = report_create(reporter=roya, reported=dariush, reason=Report.Reason.STALLING)

    closed = report_close(report=report, moderator=mina, decision=" Warned him. ")

    assert (closed.status, closed.decision, closed.taken_by) == ("closed", "Warned him.", mina)
    assert closed.closed_at is not None
    entry = last_log()
    assert (entry.action, entry.moderator_name, entry.target_name, entry.reason) == (
        "report_close",
        "mina",
        "dariush",
        "Warned him.",
    )
    assert entry.report == report
    with pytest.raises(ModerationError) as refused:
        report_take(report=report, moderator=mina)
    assert refused.value.code == "closed"
    with pytest.raises(ModerationError):
        report_close(report=report, moderator=mina, decision="again")


def test_a_report_about_a_moderator_is_not_his_to_take_or_close(mina: User, roya: User) -> None:
    about_mina = report_create(reporter=roya, reported=mina, reason=Report.Reason.CHAT_ABUSE)
    kaveh = make_moderator("kaveh")
    boss = make_player("boss", is_staff=True, is_superuser=True)

    for moderator, code in ((mina, "self"), (kaveh, "staff")):
        with pytest.raises(ModerationError) as refused:
            report_take(report=about_mina, moderator=moderator)
        assert refused.value.code == code
        with pytest.raises(ModerationError) as refused:
            report_close(report=about_mina, moderator=moderator, decision="nothing")
        assert refused.value.code == code
    about_mina.refresh_from_db()
    assert (about_mina.status, about_mina.taken_by) == ("open", None)

    assert report_close(report=about_mina, moderator=boss, decision="ok").status == "closed"


def test_closing_needs_a_decision(mina: User, roya: User, dariush: User) -> None:
    report = report_create(reporter=roya, reported=dariush, reason=Report.Reason.OTHER)

    with pytest.raises(ModerationError) as refused:
        report_close(report=report, moderator=mina, decision="  ")

    assert refused.value.code == "empty"


def test_a_player_cannot_take_close_or_sanction(roya: User, dariush: User) -> None:
    report = report_create(reporter=roya, reported=dariush, reason=Report.Reason.OTHER)

    for attempt in (
        lambda: report_take(report=report, moderator=roya),
        lambda: report_close(report=report, moderator=roya, decision="x"),
        lambda: sanction_apply(moderator=roya, user=dariush, kind="ban", reason="x"),
        lambda: note_add(moderator=roya, user=dariush, text="x"),
    ):
        with pytest.raises(ModerationError) as refused:
            attempt()
        assert refused.value.code == "not_moderator"
    assert not Sanction.objects.exists()
    assert not ModeratorNote.objects.exists()


# -- sanctions ------------------------------------------------------------------------------------


def test_warn_has_no_end_and_is_enforced_after_commit(
    mina: User, dariush: User, enforced: list[Sanction], django_capture_on_commit_callbacks
) -> None:
    report = report_create(reporter=make_player("roya"), reported=dariush, reason="chat_abuse")

    with django_capture_on_commit_callbacks(execute=True):
        warning = sanction_apply(
            moderator=mina, user=dariush, kind="warn", reason="Mind your words", report=report
        )

    assert (warning.kind, warning.ends_at, warning.moderator, warning.report) == (
        "warn",
        None,
        mina,
        report,
    )
    assert enforced == [warning]
    entry = last_log()
    assert (entry.action, entry.moderator_name, entry.target_name, entry.reason) == (
        "warn",
        "mina",
        "dariush",
        "Mind your words",
    )
    assert (entry.report, entry.sanction) == (report, warning)


@pytest.mark.parametrize("kind", ["mute", "suspend"])
def test_mute_and_suspend_last_the_minutes_given(mina: User, dariush: User, kind: str) -> None:
    for minutes in (None, 0, -5, True, "10"):
        with pytest.raises(ModerationError) as refused:
            sanction_apply(moderator=mina, user=dariush, kind=kind, reason="r", minutes=minutes)
        assert refused.value.code == "minutes"

    sanction = sanction_apply(moderator=mina, user=dariush, kind=kind, reason="r", minutes=90)

    assert sanction.ends_at - sanction.starts_at == timedelta(minutes=90)
    assert last_log().details["minutes"] == 90
    check = muted if kind == "mute" else blocked
    assert check(user=dariush) == sanction
    assert check(user=dariush, now=sanction.ends_at + timedelta(seconds=1)) is None


def test_ban_has_no_end_and_no_minutes(mina: User, dariush: User) -> None:
    with pytest.raises(ModerationError) as refused:
        sanction_apply(moderator=mina, user=dariush, kind="ban", reason="cheat", minutes=10)
    assert refused.value.code == "minutes"

    ban = sanction_apply(moderator=mina, user=dariush, kind="ban", reason="cheat")

    assert ban.ends_at is None
    assert blocked(user=dariush, now=timezone.now() + timedelta(days=3650)) == ban
    assert play_banned(user=dariush) == ban


def test_unknown_kind_and_empty_reason_are_refused(mina: User, dariush: User) -> None:
    with pytest.raises(ModerationError) as unknown:
        sanction_apply(moderator=mina, user=dariush, kind="flog", reason="r")
    with pytest.raises(ModerationError) as empty:
        sanction_apply(moderator=mina, user=dariush, kind="warn", reason=" ")

    assert (unknown.value.code, empty.value.code) == ("bad_kind", "empty")


def test_void_marks_the_match_voided(mina: User, roya: User, dariush: User) -> None:
    match = new_match(roya, dariush)
    with pytest.raises(ModerationError) as no_match:
        sanction_apply(moderator=mina, user=dariush, kind="void", reason="collusion")
    with pytest.raises(ModerationError) as not_there:
        sanction_apply(
            moderator=mina, user=make_player("sara"), kind="void", reason="x", match=match
        )

    void = sanction_apply(
        moderator=mina, user=dariush, kind="void", reason="collusion", match=match
    )

    assert (no_match.value.code, not_there.value.code) == ("no_match", "not_in_match")
    assert Match.objects.get(pk=match.pk).voided
    assert (void.match, void.ends_at) == (match, None)
    assert last_log().details["match"] == match.pk
    with pytest.raises(ModerationError) as again:
        sanction_apply(moderator=mina, user=roya, kind="void", reason="again", match=match)
    assert again.value.code == "voided"

    sanction_lift(moderator=mina, sanction=void, reason="no collusion after all")

    assert not Match.objects.get(pk=match.pk).voided


def test_staff_are_sanctioned_only_by_a_superuser(mina: User) -> None:
    omid = make_moderator("omid")
    boss = make_player("boss", is_staff=True, is_superuser=True)

    for target in (omid, boss):
        with pytest.raises(ModerationError) as refused:
            sanction_apply(moderator=mina, user=target, kind="ban", reason="r")
        assert refused.value.code == "staff"
    with pytest.raises(ModerationError) as himself:
        sanction_apply(moderator=mina, user=mina, kind="warn", reason="r")
    assert himself.value.code == "self"
    assert not Sanction.objects.exists()

    assert sanction_apply(moderator=boss, user=omid, kind="suspend", reason="r", minutes=60)


def test_lift_ends_a_sanction_once(mina: User, dariush: User) -> None:
    mute = sanction_apply(moderator=mina, user=dariush, kind="mute", reason="r", minutes=60)

    lifted = sanction_lift(moderator=mina, sanction=mute, reason="he apologised")

    assert lifted.lifted_at is not None
    assert muted(user=dariush) is None
    entry = last_log()
    assert (entry.action, entry.reason, entry.sanction) == ("lift", "he apologised", mute)
    with pytest.raises(ModerationError) as again:
        sanction_lift(moderator=mina, sanction=mute, reason="twice")
    assert again.value.code == "lifted"


def test_nobody_lifts_his_own_sanction_and_only_a_superuser_lifts_one_of_staff(
    mina: User,
) -> None:
    boss = make_player("boss", is_staff=True, is_superuser=True)
    mute = sanction_apply(moderator=boss, user=mina, kind="mute", reason="r", minutes=60)

    for moderator, code in ((mina, "self"), (make_moderator("kaveh"), "staff")):
        with pytest.raises(ModerationError) as refused:
            sanction_lift(moderator=moderator, sanction=mute, reason="not me")
        assert refused.value.code == code
    assert muted(user=mina) is not None
    assert not ModerationLogEntry.objects.filter(action="lift").exists()

    assert sanction_lift(moderator=boss, sanction=mute, reason="r").lifted_at is not None


# -- notes and appeals ----------------------------------------------------------------------------


def test_note_is_kept_and_logged(mina: User, dariush: User) -> None:
    note = note_add(moderator=mina, user=dariush, text=" Talks a lot. ")

    assert (note.user, note.author, note.text) == (dariush, mina, "Talks a lot.")
    entry = last_log()
    assert (entry.action, entry.moderator_name, entry.target_name) == ("note", "mina", "dariush")
    with pytest.raises(ModerationError):
        note_add(moderator=mina, user=dariush, text="")


def test_appeal_once_and_only_against_own_sanction(mina: User, roya: User, dariush: User) -> None:
    ban = sanction_apply(moderator=mina, user=dariush, kind="ban", reason="cheat")

    with pytest.raises(ModerationError) as not_yours:
        appeal_create(user=roya, sanction=ban, text="free him")
    appeal = appeal_create(user=dariush, sanction=ban, text="I did not cheat")
    with pytest.raises(ModerationError) as twice:
        appeal_create(user=dariush, sanction=ban, text="really")

    assert (not_yours.value.code, twice.value.code) == ("not_yours", "appealed")
    assert (appeal.status, appeal.sanction) == ("open", ban)
    assert Appeal.objects.count() == 1
    entry = last_log()
    assert (entry.action, entry.target_name, entry.sanction) == ("appeal", "dariush", ban)


def test_granted_appeal_lifts_the_sanction(mina: User, dariush: User) -> None:
    ban = sanction_apply(moderator=mina, user=dariush, kind="ban", reason="cheat")
    appeal = appeal_create(user=dariush, sanction=ban, text="I did not cheat")

    decided = appeal_decide(moderator=mina, appeal=appeal, grant=True, decision="Right, sorry.")

    assert (decided.status, decided.decided_by, decided.decision) == (
        "granted",
        mina,
        "Right, sorry.",
    )
    assert Sanction.objects.get(pk=ban.pk).lifted_at is not None
    assert blocked(user=dariush) is None
    entry = last_log()
    assert (entry.action, entry.reason, entry.details["lifted"]) == (
        "appeal_grant",
        "Right, sorry.",
        True,
    )
    with pytest.raises(ModerationError) as again:
        appeal_decide(moderator=mina, appeal=appeal, grant=False, decision="no")
    assert again.value.code == "decided"


def test_refused_appeal_keeps_the_sanction(mina: User, dariush: User) -> None:
    ban = sanction_apply(moderator=mina, user=dariush, kind="ban", reason="cheat")
    appeal = appeal_create(user=dariush, sanction=ban, text="I did not cheat")

    decided = appeal_decide(moderator=mina, appeal=appeal, grant=False, decision="You did.")

    assert decided.status == "refused"
    assert blocked(user=dariush) == ban
    assert last_log().action == "appeal_refuse"


# -- what the player does -------------------------------------------------------------------------


def test_warning_is_seen_once(mina: User, dariush: User) -> None:
    first = sanction_apply(moderator=mina, user=dariush, kind="warn", reason="one")
    second = sanction_apply(moderator=mina, user=dariush, kind="warn", reason="two")
    sanction_apply(moderator=mina, user=dariush, kind="mute", reason="three", minutes=5)

    seen = warning_seen(user=dariush)

    assert seen == [first, second]
    assert all(s.seen_at is not None for s in Sanction.objects.filter(kind="warn"))
    assert warning_seen(user=dariush) == []
    assert ModerationLogEntry.objects.filter(action="warning_seen").count() == 2


def test_no_warning_costs_one_query(dariush: User, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        assert warning_seen(user=dariush) == []


def test_rename_done_checks_the_name_and_ends_the_rename(mina: User, dariush: User) -> None:
    with pytest.raises(ModerationError) as not_asked:
        rename_done(user=dariush, new_username="darius")
    rename = sanction_apply(moderator=mina, user=dariush, kind="rename", reason="rude name")
    assert rename.ends_at is None
    make_player("taken")

    for bad, code in (
        ("x", "bad_username"),
        ("the_admin", "bad_username"),
        ("with space", "bad_username"),
        ("TAKEN", "username_taken"),
        ("Dariush", "same_username"),
    ):
        with pytest.raises(ModerationError) as refused:
            rename_done(user=dariush, new_username=bad)
        assert refused.value.code == code, bad

    rename_done(user=dariush, new_username="darius")

    assert not_asked.value.code == "no_rename"
    assert User.objects.get(pk=dariush.pk).username == "darius"
    assert Sanction.objects.get(pk=rename.pk).ends_at is not None
    entry = last_log()
    assert (entry.action, entry.target_name, entry.details) == (
        "rename_done",
        "darius",
        {"old": "dariush", "new": "darius"},
    )
    with pytest.raises(ModerationError) as again:
        rename_done(user=dariush, new_username="dario")
    assert again.value.code == "no_rename"


# -- quitters -------------------------------------------------------------------------------------


def quit_a_match(user: User, *, now=None) -> list[Sanction]:
    """``user`` leaves a new match that then ends; returns the play bans given for it."""
    match = new_match(user, computers=3)
    match_seat_leave(match=match, seat=seat_of(match, user))
    finish(match)
    return quitters_penalise(match_id=match.pk, now=now)


def test_play_ban_constants() -> None:
    assert (PLAY_BAN_BASE_MINUTES, PLAY_BAN_FACTOR, PLAY_BAN_CAP_MINUTES) == (10, 3, 2880)


def test_play_bans_grow_threefold_up_to_48_hours(dariush: User) -> None:
    start = timezone.now()
    lengths = []
    for i in range(8):
        # An hour apart, so each ban has ended before the next quit.
        now = start + timedelta(hours=i)
        (ban,) = quit_a_match(dariush, now=now)
        assert (ban.kind, ban.moderator, ban.starts_at) == ("play_ban", None, now)
        lengths.append((ban.ends_at - ban.starts_at) / timedelta(minutes=1))

    assert lengths == [10, 30, 90, 270, 810, 2430, 2880, 2880]
    entry = last_log()
    assert (entry.action, entry.moderator, entry.target_name) == ("play_ban", None, "dariush")
    assert (entry.details["minutes"], entry.details["quits"]) == (2880, 8)


def test_play_ban_is_in_force_until_its_end(dariush: User) -> None:
    now = timezone.now()

    (ban,) = quit_a_match(dariush, now=now)

    assert ban.ends_at == now + timedelta(minutes=10)
    assert play_banned(user=dariush, now=now + timedelta(minutes=9)) == ban
    assert play_banned(user=dariush, now=now + timedelta(minutes=10)) is None


def test_only_play_bans_of_the_last_30_days_count(dariush: User) -> None:
    now = timezone.now()
    for days in (31, 29, 40):
        (old,) = quit_a_match(dariush, now=now)
        Sanction.objects.filter(pk=old.pk).update(starts_at=now - timedelta(days=days))

    (ban,) = quit_a_match(dariush, now=now)

    # Only the one of 29 days ago counts: the second quit's length.
    assert ban.ends_at - ban.starts_at == timedelta(minutes=30)


def test_a_lifted_play_ban_does_not_count(mina: User, dariush: User) -> None:
    (first,) = quit_a_match(dariush)
    sanction_lift(moderator=mina, sanction=first, reason="his connection failed")

    (ban,) = quit_a_match(dariush)

    assert ban.ends_at - ban.starts_at == timedelta(minutes=10)


def test_a_player_who_came_back_is_not_penalised(roya: User, dariush: User) -> None:
    match = new_match(roya, dariush, computers=2)
    match_seat_leave(match=match, seat=seat_of(match, roya))
    match_seat_back(match=match, seat=seat_of(match, roya))
    match_seat_leave(match=match, seat=seat_of(match, dariush))
    finish(match)

    bans = quitters_penalise(match_id=match.pk)

    assert [ban.user for ban in bans] == [dariush]
    assert play_banned(user=roya) is None
    assert quitters_penalise(match_id=match.pk) == []
    assert Sanction.objects.filter(kind="play_ban").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_quitter_is_banned_when_the_computer_has_played_the_match_out(settings) -> None:
    """The whole way: he leaves, the computer players finish the match for him (inline autoplay
    on commit), and games.play.services calls quitters_penalise once the end is stored."""
    settings.HOKM_AUTOPLAY = "inline"
    dariush = make_player("dariush")
    match = new_match(dariush, computers=3, target=1)

    match_seat_leave(match=match, seat=seat_of(match, dariush))

    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    ban = play_banned(user=dariush)
    assert (ban.kind, ban.match, ban.ends_at - ban.starts_at) == (
        "play_ban",
        match,
        timedelta(minutes=10),
    )


def test_no_play_ban_while_the_match_runs(dariush: User) -> None:
    match = new_match(dariush, computers=3)
    match_seat_leave(match=match, seat=seat_of(match, dariush))

    assert quitters_penalise(match_id=match.pk) == []


# -- the admin ------------------------------------------------------------------------------------

MODELS = ("report", "sanction", "appeal", "moderatornote", "moderationlogentry")


@pytest.fixture
def history(mina: User, roya: User, dariush: User) -> dict[str, int]:
    report = report_create(reporter=roya, reported=dariush, reason="chat_abuse")
    ban = sanction_apply(moderator=mina, user=dariush, kind="ban", reason="r", report=report)
    appeal = appeal_create(user=dariush, sanction=ban, text="sorry")
    note = note_add(moderator=mina, user=dariush, text="n")
    return {
        "report": report.pk,
        "sanction": ban.pk,
        "appeal": appeal.pk,
        "moderatornote": note.pk,
        "moderationlogentry": last_log().pk,
    }


@pytest.mark.parametrize("model", MODELS)
def test_moderators_read_the_moderation_models_in_the_admin(
    mina: User, history: dict[str, int], model: str
) -> None:
    client = client_for(mina)

    assert client.get(reverse(f"admin:moderation_{model}_changelist")).status_code == 200
    page = client.get(reverse(f"admin:moderation_{model}_change", args=[history[model]]))
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert client.get(reverse(f"admin:moderation_{model}_add")).status_code == 403
    assert (
        client.post(
            reverse(f"admin:moderation_{model}_delete", args=[history[model]]), {"post": "yes"}
        ).status_code
        == 403
    )


@pytest.mark.parametrize("model", MODELS)
def test_players_cannot_see_the_moderation_models(
    roya: User, history: dict[str, int], model: str
) -> None:
    response = client_for(roya).get(reverse(f"admin:moderation_{model}_changelist"))

    assert response.status_code in (302, 403)


def test_the_log_is_read_only_for_superusers_too(history: dict[str, int]) -> None:
    client = client_for(make_player("boss", is_staff=True, is_superuser=True))
    pk = history["moderationlogentry"]

    assert client.get(reverse("admin:moderation_moderationlogentry_add")).status_code == 403
    page = client.get(reverse("admin:moderation_moderationlogentry_change", args=[pk]))
    assert b'name="_save"' not in page.content
    deleted = client.post(
        reverse("admin:moderation_moderationlogentry_delete", args=[pk]), {"post": "yes"}
    )
    assert deleted.status_code == 403
    assert ModerationLogEntry.objects.filter(pk=pk).exists()


def test_a_superuser_deletes_a_player_and_the_log_keeps_his_name(
    history: dict[str, int], dariush: User
) -> None:
    client = client_for(make_player("boss", is_staff=True, is_superuser=True))

    client.post(reverse("admin:accounts_user_delete", args=[dariush.pk]), {"post": "yes"})

    assert not User.objects.filter(pk=dariush.pk).exists()
    assert not Sanction.objects.exists()
    entry = ModerationLogEntry.objects.get(pk=history["moderationlogentry"])
    assert (entry.target, entry.target_name) == (None, "dariush")


def test_the_log_is_searchable_by_player(mina: User, history: dict[str, int]) -> None:
    note_add(moderator=mina, user=make_player("sara"), text="about sara")
    url = reverse("admin:moderation_moderationlogentry_changelist")

    page = client_for(mina).get(url, {"q": "sara"})

    assert page.status_code == 200
    assert page.context["cl"].result_count == 1


def test_moderation_action_codes_have_labels() -> None:
    codes = set(ModerationLogEntry.objects.values_list("action", flat=True))
    assert codes <= set(moderation.ACTIONS)
    assert {kind.value for kind in Sanction.Kind} <= set(moderation.ACTIONS)


def test_a_player_banned_mid_match_gets_no_play_ban_for_it(dariush: User) -> None:
    """His seat went to the computer because a moderator blocked him, not because he quit."""
    now = timezone.now()
    Sanction.objects.create(
        user=dariush,
        kind=Sanction.Kind.BAN,
        reason="cheating",
        starts_at=now - timedelta(minutes=1),
    )
    assert quit_a_match(dariush, now=now) == []
    assert not Sanction.objects.filter(user=dariush, kind=Sanction.Kind.PLAY_BAN).exists()


def test_a_player_away_and_gone_at_the_end_is_a_quitter_one_still_there_is_not(
    roya: User, dariush: User
) -> None:
    """Both timed out (away, R8.1); Roya is still connected when the match ends, Dariush is
    gone: only Dariush abandoned it."""
    from games.play.presence import connection_open

    match = new_match(roya, dariush, computers=2)
    MatchSeat.objects.filter(match=match, user__in=[roya, dariush]).update(
        status=MatchSeat.Status.AWAY
    )
    connection_open(
        match_id=match.pk, seat=seat_of(match, roya), user=roya, channel_name="test.roya"
    )
    finish(match)

    bans = quitters_penalise(match_id=match.pk)

    assert [ban.user for ban in bans] == [dariush]
