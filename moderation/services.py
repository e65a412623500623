"""Moderation writes: reports, sanctions, notes, appeals and quitters' play bans (issue 6), and
the flags on suspicious rating gains with the results by opponent they are judged on (issue 21).

Every change to the moderation models goes through a service here. Each runs in one transaction
and writes one :class:`~accounts.models.ModerationLogEntry` (who, on whom, what, why, the report),
as Zulip's ``do_*`` actions write their audit rows. Views check who may call them; the services
check it again for the moderator's actions, and raise :class:`ModerationError` with a message a
person can read.

The immediate effects of a sanction (closing sockets, handing seats to the computer) belong to
``moderation.enforcement.sanction_enforce``, called once the sanction is committed. What is in force
is read by ``moderation.sanctions``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from accounts.roles import is_moderator
from accounts.usernames import USERNAME_VALIDATORS
from games.engine import GAME_VARIANTS, get_variant
from games.models import ChatMessage, Match, MatchSeat, RatingChange
from games.play.presence import presence_of
from games.ratings.services import match_ratings_restore, match_ratings_void
from lib.errors import ApplicationError
from moderation import enforcement
from moderation.models import (
    Appeal,
    ModerationLogEntry,
    ModeratorNote,
    RatingFlag,
    Report,
    Sanction,
)
from moderation.sanctions import blocked, sanction_in_force

#: A quitter's first play ban, in minutes; each earlier quit in the window multiplies it.
PLAY_BAN_BASE_MINUTES = 10
PLAY_BAN_FACTOR = 3
PLAY_BAN_CAP_MINUTES = 48 * 60
#: Only the play bans of this many last days count as earlier quits.
PLAY_BAN_WINDOW = timedelta(days=30)

#: A player may make this many reports in REPORT_RATE_WINDOW, no more.
REPORT_RATE_LIMIT = 10
REPORT_RATE_WINDOW = timedelta(hours=1)
#: How many chat lines before the report a report keeps.
REPORT_CHAT_LINES = 10
#: The largest hand number a report stores (``Report.hand`` is a positive small integer).
MOMENT_MAX = 32767

#: The longest timed sanction a moderator may give: longer is a ban.
SANCTION_MAX_MINUTES = 366 * 24 * 60
#: Sanctions that need a length in minutes; the others have none.
TIMED_KINDS = (Sanction.Kind.MUTE, Sanction.Kind.SUSPEND, Sanction.Kind.PLAY_BAN)
#: Sanctions in force until lifted (a rename until done too): one of each at a time.
UNENDING_KINDS = (Sanction.Kind.BAN, Sanction.Kind.RENAME)

#: A player's net rating gain against one opponent in one variant over RATING_GAIN_WINDOW above
#: which the site flags the pair for the moderators. A settled player gains about 13 points for a
#: win over an equal and a new player about 70 for his first win one against one, 50 two against
#: two; 150 points in a day against the same person is a dozen straight wins of a settled player,
#: or three or four of a new one: what an accomplice losing on purpose gives (docs/rating-abuse.md).
RATING_GAIN_FLAG = 150
RATING_GAIN_WINDOW = timedelta(hours=24)

#: The log's action codes and what each means, for the log page.
ACTIONS: dict[str, Any] = {
    "report": gettext_lazy("report made"),
    "report_take": gettext_lazy("report taken"),
    "report_close": gettext_lazy("report closed"),
    **{kind.value: kind.label for kind in Sanction.Kind},
    "lift": gettext_lazy("sanction lifted"),
    "note": gettext_lazy("note added"),
    "appeal": gettext_lazy("appeal made"),
    "appeal_grant": gettext_lazy("appeal granted"),
    "appeal_refuse": gettext_lazy("appeal refused"),
    "warning_seen": gettext_lazy("warning seen"),
    "rename_done": gettext_lazy("username changed"),
    "rating_flag": gettext_lazy("rating gains flagged"),
    "rating_flag_close": gettext_lazy("rating flag closed"),
}


class ModerationError(ApplicationError, ValueError):
    """A moderation action refused; ``message`` is for the person who tried it."""


# -- reports --------------------------------------------------------------------------------------


def report_create(
    *,
    reporter: User,
    reported: User | None,
    reason: str,
    comment: str = "",
    match: Match | None = None,
    hand: int | None = None,
    trick: int | None = None,
) -> Report:
    """File ``reporter``'s report of ``reported``, with the chat lines of ``match`` before now.

    ``reported`` is None for a seat without an account (a computer player). ``hand`` and
    ``trick`` are 0-based and need ``match``.
    """
    if reported is None or reported.pk is None or not User.objects.filter(pk=reported.pk).exists():
        raise ModerationError(
            "no_player", _("There is no such player: computer players cannot be reported.")
        )
    if reported.pk == reporter.pk:
        raise ModerationError("self", _("You cannot report yourself."))
    if reason not in Report.Reason.values:
        raise ModerationError("bad_reason", _("Choose a reason for the report."))
    comment = (comment or "").strip()
    if len(comment) > cast(int, Report._meta.get_field("comment").max_length):
        raise ModerationError("comment_too_long", _("The comment is too long."))
    if match is None and (hand is not None or trick is not None):
        raise ModerationError("no_match", _("A moment of play needs its match."))
    for number in (hand, trick):
        if number is not None and (not isinstance(number, int) or number < 0):
            raise ModerationError("bad_moment", _("There is no such moment in the match."))
    if match is not None:
        seated = MatchSeat.objects.filter(match=match, user=reported).exists()
        if not seated:
            raise ModerationError("not_in_match", _("That player did not play in this match."))
        # A trick past a hand's last is no moment of play, and a hand past the column's range
        # (a small integer) could not be stored at all: the database would refuse it.
        too_late = (hand is not None and hand > MOMENT_MAX) or (
            trick is not None and trick >= get_variant(match.variant).tricks_per_hand
        )
        if too_late:
            raise ModerationError("bad_moment", _("There is no such moment in the match."))
    with transaction.atomic(durable=True):
        # The reporter's row, locked: two reports sent at once are counted one after the other.
        User.objects.select_for_update().filter(pk=reporter.pk).first()
        now = timezone.now()
        recent = Report.objects.filter(
            reporter=reporter, created_at__gt=now - REPORT_RATE_WINDOW
        ).count()
        if recent >= REPORT_RATE_LIMIT:
            raise ModerationError(
                "rate_limited", _("You have sent many reports in the last hour: wait a while.")
            )
        report = Report.objects.create(
            reporter=reporter,
            reported=reported,
            reason=reason,
            comment=comment,
            match=match,
            hand=hand,
            trick=trick,
            chat=_chat_before(match=match, at=now),
            created_at=now,
        )
        _log(
            moderator=None,
            target=reported,
            action="report",
            reason=comment,
            report=report,
            details={"reporter": reporter.username, "reason": reason},
            at=now,
        )
    return report


def _chat_before(*, match: Match | None, at: datetime) -> list[dict[str, Any]]:
    """The last chat lines of ``match`` up to ``at``, oldest first."""
    if match is None:
        return []
    rows = ChatMessage.objects.filter(match=match, created_at__lte=at).order_by(
        "-created_at", "-pk"
    )[:REPORT_CHAT_LINES]
    return [
        {"id": row.pk, "name": row.name, "text": row.text, "at": row.created_at.isoformat()}
        for row in reversed(rows)
    ]


def report_take(*, report: Report, moderator: User) -> Report:
    """``moderator`` takes ``report``, so that no other moderator works on it at the same time."""
    _require_moderator(moderator)
    with transaction.atomic(durable=True):
        locked = Report.objects.select_for_update().get(pk=report.pk)
        _require_open(locked, moderator)
        if locked.taken_by_id == moderator.pk:
            return locked
        now = timezone.now()
        locked.status = Report.Status.TAKEN
        locked.taken_by = moderator
        locked.taken_at = now
        locked.save(update_fields=["status", "taken_by", "taken_at"])
        _log(
            moderator=moderator,
            target=locked.reported,
            action="report_take",
            report=locked,
            at=now,
        )
    return locked


def report_close(*, report: Report, moderator: User, decision: str) -> Report:
    """Close ``report`` with the moderator's ``decision`` (what was done and why)."""
    _require_moderator(moderator)
    decision = _required_text(decision, _("Write the decision."))
    with transaction.atomic(durable=True):
        locked = Report.objects.select_for_update().get(pk=report.pk)
        _require_open(locked, moderator)
        now = timezone.now()
        if locked.taken_by_id != moderator.pk:
            # Untaken, or taken by a former moderator (_require_open): he closes it himself.
            locked.taken_by = moderator
            locked.taken_at = now
        locked.status = Report.Status.CLOSED
        locked.decision = decision
        locked.closed_at = now
        locked.save(update_fields=["status", "taken_by", "taken_at", "decision", "closed_at"])
        _log(
            moderator=moderator,
            target=locked.reported,
            action="report_close",
            reason=decision,
            report=locked,
            at=now,
        )
    return locked


def _require_open(report: Report, moderator: User) -> None:
    """Refuse a closed report, one another moderator has taken, or one about the moderator
    himself or (to a moderator who is not a superuser) about a member of staff."""
    _require_may_act_on(
        moderator, report.reported, yourself=_("Another moderator must handle a report about you.")
    )
    if report.status == Report.Status.CLOSED:
        raise ModerationError("closed", _("This report is closed."))
    # One who moderates no more (out of the group, account closed) keeps no report: it would
    # wait for him for good, as nobody else could take or close it.
    taken_by_other = report.taken_by_id is not None and report.taken_by_id != moderator.pk
    if taken_by_other and report.taken_by is not None and is_moderator(report.taken_by):
        raise ModerationError(
            "taken",
            _("%(name)s is working on this report.")
            % {"name": report.taken_by.username if report.taken_by else "?"},
        )


# -- sanctions ------------------------------------------------------------------------------------


def sanction_apply(
    *,
    moderator: User,
    user: User,
    kind: str,
    reason: str,
    minutes: int | None = None,
    report: Report | None = None,
    match: Match | None = None,
) -> Sanction:
    """``moderator`` sanctions ``user``; the immediate effects follow once it is committed.

    A mute, a suspension and a play ban last ``minutes``; a warning, a ban and a void have no
    end; a forced rename lasts until the player picks a new username (:func:`rename_done`). A void
    needs ``match`` and takes it out of statistics and ratings (``Match.voided``). A ban or a
    rename is refused while one of the same kind is in force.
    """
    _require_moderator(moderator)
    if kind not in Sanction.Kind.values:
        raise ModerationError("bad_kind", _("There is no such sanction."))
    reason = _required_text(reason, _("Write the reason."))
    _require_may_act_on(
        moderator,
        user,
        yourself=_("You cannot sanction yourself."),
        staff=_("Only a superuser can sanction a member of staff."),
    )
    if kind in TIMED_KINDS:
        if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
            raise ModerationError("minutes", _("Give the length in minutes."))
        if minutes > SANCTION_MAX_MINUTES:
            raise ModerationError(
                "minutes", _("That is too long: at most a year, or a ban for good.")
            )
    elif minutes is not None:
        raise ModerationError("minutes", _("This sanction has no length."))
    if kind == Sanction.Kind.VOID:
        if match is None:
            raise ModerationError("no_match", _("Choose the match to void."))
        if not MatchSeat.objects.filter(match=match, user=user).exists():
            raise ModerationError("not_in_match", _("That player did not play in this match."))
    taken_back: list[RatingChange] = []
    with transaction.atomic(durable=True):
        now = timezone.now()
        if kind in UNENDING_KINDS:
            # The player's row, locked: a double click sends two at once.
            User.objects.select_for_update().filter(pk=user.pk).first()
            # A second one would add nothing, and lifting the one a moderator sees would leave
            # the other in force.
            if sanction_in_force(user=user, kinds=[kind], now=now) is not None:
                raise ModerationError("in_force", _("This player is under this sanction already."))
        if kind == Sanction.Kind.VOID and match is not None:  # a void has its match (above)
            locked = Match.objects.select_for_update().get(pk=match.pk)
            if locked.voided:
                raise ModerationError("voided", _("This match is void already."))
            locked.voided = True
            locked.save(update_fields=["voided"])
            match.voided = True
            # Its rating changes are taken back from every player's rating as it stands now.
            taken_back = match_ratings_void(match=locked, now=now)
        sanction = Sanction.objects.create(
            user=user,
            kind=kind,
            reason=reason,
            moderator=moderator,
            report=report,
            match=match,
            starts_at=now,
            ends_at=now + timedelta(minutes=minutes) if minutes is not None else None,
        )
        details: dict[str, Any] = {}
        if minutes is not None and sanction.ends_at is not None:
            details["minutes"] = minutes
            details["ends_at"] = sanction.ends_at.isoformat()
        if match is not None:
            details["match"] = match.pk
        if kind == Sanction.Kind.VOID and taken_back:
            details["ratings_taken_back"] = _rating_moves(taken_back)
        _log(
            moderator=moderator,
            target=user,
            action=kind,
            reason=reason,
            report=report,
            sanction=sanction,
            details=details,
            at=now,
        )
        transaction.on_commit(lambda: _enforce(sanction))
    return sanction


def _enforce(sanction: Sanction) -> None:
    # Through the module, so that a test can stand in for the enforcement (test_services.py).

    enforcement.sanction_enforce(sanction)


def sanction_lift(*, moderator: User, sanction: Sanction, reason: str) -> Sanction:
    """End ``sanction`` now; lifting a void counts the match again, and an appeal waiting
    against it is granted with ``reason``.

    The rules of :func:`sanction_apply` hold: nobody lifts his own sanction, and only a superuser
    lifts one of a member of staff.
    """
    _require_moderator(moderator)
    reason = _required_text(reason, _("Write the reason."))
    _require_may_act_on(moderator, sanction.user, yourself=_("You cannot lift your own sanction."))
    with transaction.atomic(durable=True):
        locked, restored = _lift(sanction=sanction)
        assert locked.lifted_at is not None, "_lift sets it"
        # The lift answers an appeal still waiting against it: left open, the appeal stayed in
        # the queue for a decision already made, and its player read that one was to come.
        answered = Appeal.objects.filter(sanction=locked, status=Appeal.Status.OPEN).update(
            status=Appeal.Status.GRANTED,
            decided_by=moderator,
            decision=reason,
            decided_at=locked.lifted_at,
        )
        _log(
            moderator=moderator,
            target=locked.user,
            action="lift",
            reason=reason,
            report=locked.report,
            sanction=locked,
            details=({"appeal_granted": True} if answered else {})
            | ({"ratings_restored": _rating_moves(restored)} if restored else {}),
            at=locked.lifted_at,
        )
    return locked


def _lift(*, sanction: Sanction) -> tuple[Sanction, list[RatingChange]]:
    """Lift ``sanction`` (inside the caller's transaction); return the locked row, and the rating
    changes given again when it was the last void of a rated match."""
    locked = Sanction.objects.select_for_update().get(pk=sanction.pk)
    if locked.lifted_at is not None:
        raise ModerationError("lifted", _("This sanction was lifted already."))
    now = timezone.now()
    locked.lifted_at = now
    locked.save(update_fields=["lifted_at"])
    sanction.lifted_at = now
    if locked.kind == Sanction.Kind.VOID and locked.match_id is not None:
        still_void = Sanction.objects.filter(
            kind=Sanction.Kind.VOID, match_id=locked.match_id, lifted_at__isnull=True
        ).exists()
        if not still_void:
            match = Match.objects.select_for_update().get(pk=locked.match_id)
            match.voided = False
            match.save(update_fields=["voided"])
            return locked, match_ratings_restore(match=match, now=now)
    return locked, []


def _rating_moves(changes: list[RatingChange]) -> list[dict[str, Any]]:
    """What a void or its lifting did to each player's rating, for the moderation log."""
    names = dict(
        User.objects.filter(pk__in=[c.user_id for c in changes]).values_list("pk", "username")
    )
    return [
        {
            "user": c.user_id,
            "name": names.get(c.user_id, "") if c.user_id is not None else "",
            "seat": c.seat,
            "from": c.rating_before,
            "to": c.rating_after,
        }
        for c in changes
    ]


# -- notes and appeals ----------------------------------------------------------------------------


def note_add(*, moderator: User, user: User, text: str) -> ModeratorNote:
    """A private note of ``moderator`` on ``user``, for the other moderators."""
    _require_moderator(moderator)
    # Notes are the other moderators' file on a player, read when judging reports about him.
    if user.pk == moderator.pk:
        raise ModerationError("self", _("You cannot add a note about yourself."))
    text = _required_text(text, _("Write the note."))
    if len(text) > cast(int, ModeratorNote._meta.get_field("text").max_length):
        raise ModerationError("too_long", _("The note is too long."))
    with transaction.atomic(durable=True):
        note = ModeratorNote.objects.create(user=user, author=moderator, text=text)
        _log(
            moderator=moderator,
            target=user,
            action="note",
            reason=text,
            details={"note": note.pk},
            at=note.created_at,
        )
    return note


def appeal_create(*, user: User, sanction: Sanction, text: str) -> Appeal:
    """``user``'s one appeal against his own ``sanction``; it appears in the moderation queue."""
    if sanction.user_id != user.pk:
        raise ModerationError("not_yours", _("You can only appeal your own sanctions."))
    text = _required_text(text, _("Write why the sanction should be lifted."))
    if len(text) > cast(int, Appeal._meta.get_field("text").max_length):
        raise ModerationError("too_long", _("The appeal is too long."))
    with transaction.atomic(durable=True):
        locked = Sanction.objects.select_for_update().get(pk=sanction.pk)
        if Appeal.objects.filter(sanction=locked).exists():
            raise ModerationError("appealed", _("You have appealed this sanction already."))
        if locked.lifted_at is not None:
            raise ModerationError("lifted", _("This sanction was lifted already."))
        appeal = Appeal.objects.create(sanction=locked, text=text)
        _log(
            moderator=None,
            target=user,
            action="appeal",
            reason=text,
            report=locked.report,
            sanction=locked,
            details={"appeal": appeal.pk},
            at=appeal.created_at,
        )
    return appeal


def appeal_decide(*, moderator: User, appeal: Appeal, grant: bool, decision: str) -> Appeal:
    """Grant (the sanction is lifted) or refuse ``appeal``, with the moderator's ``decision``."""
    _require_moderator(moderator)
    decision = _required_text(decision, _("Write the decision."))
    with transaction.atomic(durable=True):
        locked = Appeal.objects.select_for_update().select_related("sanction").get(pk=appeal.pk)
        if locked.status != Appeal.Status.OPEN:
            raise ModerationError("decided", _("This appeal was decided already."))
        sanction = locked.sanction
        # Granting his own appeal would lift his own sanction, which sanction_lift refuses him.
        _require_may_act_on(
            moderator, sanction.user, yourself=_("Another moderator must decide on your appeal.")
        )
        lifted = grant and sanction.lifted_at is None
        restored: list[RatingChange] = []
        if lifted:
            restored = _lift(sanction=sanction)[1]
        now = timezone.now()
        locked.status = Appeal.Status.GRANTED if grant else Appeal.Status.REFUSED
        locked.decided_by = moderator
        locked.decision = decision
        locked.decided_at = now
        locked.save(update_fields=["status", "decided_by", "decision", "decided_at"])
        _log(
            moderator=moderator,
            target=sanction.user,
            action="appeal_grant" if grant else "appeal_refuse",
            reason=decision,
            report=sanction.report,
            sanction=sanction,
            details={"appeal": locked.pk, "lifted": lifted}
            | ({"ratings_restored": _rating_moves(restored)} if restored else {}),
            at=now,
        )
    return locked


# -- what the player does -------------------------------------------------------------------------


def warning_seen(*, user: User) -> list[Sanction]:
    """The player's unseen warnings, marked seen now: each is shown once, on his next visit."""
    unseen_rows = Sanction.objects.filter(
        user=user, kind=Sanction.Kind.WARN, seen_at__isnull=True, lifted_at__isnull=True
    ).order_by("starts_at", "pk")
    # Every page asks: one plain query when there is nothing to show, no transaction.
    if not unseen_rows.exists():
        return []
    with transaction.atomic():
        unseen = list(unseen_rows.select_for_update())
        now = timezone.now()
        Sanction.objects.filter(pk__in=[s.pk for s in unseen]).update(seen_at=now)
        for warning in unseen:
            warning.seen_at = now
            _log(
                moderator=None,
                target=user,
                action="warning_seen",
                report=warning.report,
                sanction=warning,
                at=now,
            )
    return unseen


def rename_done(*, user: User, new_username: str) -> User:
    """The player picks a new username under a forced rename, which ends it.

    The name must meet the sign-up rules (``accounts.usernames``) and be free.
    """
    new_username = (new_username or "").strip()
    try:
        for validator in USERNAME_VALIDATORS:
            validator(new_username)
    except ValidationError as error:
        raise ModerationError("bad_username", " ".join(error.messages)) from error
    with transaction.atomic(durable=True):
        locked = User.objects.select_for_update().get(pk=user.pk)
        rename = sanction_in_force(user=locked, kinds=[Sanction.Kind.RENAME])
        if rename is None:
            raise ModerationError("no_rename", _("You have not been asked to change your name."))
        if new_username.casefold() == locked.username.casefold():
            raise ModerationError("same_username", _("Choose a name other than your old one."))
        taken = User.objects.filter(username__iexact=new_username).exclude(pk=locked.pk).exists()
        if taken:
            raise ModerationError("username_taken", _("This username is taken."))
        old_username = locked.username
        locked.username = new_username
        locked.save(update_fields=["username"])
        user.username = new_username
        now = timezone.now()
        Sanction.objects.filter(
            user=locked, kind=Sanction.Kind.RENAME, lifted_at__isnull=True, ends_at__isnull=True
        ).update(ends_at=now)
        _log(
            moderator=None,
            target=locked,
            action="rename_done",
            report=rename.report,
            sanction=rename,
            details={"old": old_username, "new": new_username},
            at=now,
        )
    return locked


# -- quitters -------------------------------------------------------------------------------------


def play_ban_minutes(earlier_quits: int) -> int:
    """How long a quitter's play ban lasts after ``earlier_quits`` quits in the window.

    >>> [play_ban_minutes(n) for n in range(8)]
    [10, 30, 90, 270, 810, 2430, 2880, 2880]
    """
    minutes = PLAY_BAN_BASE_MINUTES
    for _quit in range(earlier_quits):
        minutes *= PLAY_BAN_FACTOR
        if minutes >= PLAY_BAN_CAP_MINUTES:
            return PLAY_BAN_CAP_MINUTES
    return min(minutes, PLAY_BAN_CAP_MINUTES)


def quitters_penalise(*, match_id: int, now: datetime | None = None) -> list[Sanction]:
    """Give a play ban to each person who abandoned finished match ``match_id``: he left his seat
    and never came back, or he was away (his clock ran out) and gone at its end.

    The ban grows with the player's earlier play bans of the last 30 days (lifted ones do not
    count): :func:`play_ban_minutes`. Calling it again for the same match gives nothing more.
    """
    now = now or timezone.now()
    # An imported record was not played here: nobody quit it on this site.
    match = Match.objects.filter(pk=match_id, status=Match.Status.FINISHED, imported=False).first()
    if match is None:
        return []

    # He left his seat to the computer and never took it back; or his clock ran out (away) and
    # he was gone when the match ended. Someone away but still at the table was only slow.
    here = presence_of(match_id=match.pk, now=now).seats
    quitters = [
        seat
        for seat in MatchSeat.objects.filter(
            match=match,
            status__in=[MatchSeat.Status.LEFT, MatchSeat.Status.AWAY],
            user__isnull=False,
        ).order_by("index")
        if seat.status == MatchSeat.Status.LEFT or seat.index not in here
    ]
    given: list[Sanction] = []
    for seat in quitters:
        with transaction.atomic():
            # His row, locked: two matches ending at once count each other's bans.
            assert seat.user_id is not None, "quitters are people (user__isnull=False)"
            user = User.objects.select_for_update().get(pk=seat.user_id)
            bans = Sanction.objects.filter(
                user=user, kind=Sanction.Kind.PLAY_BAN, lifted_at__isnull=True
            )
            if bans.filter(match=match).exists():
                continue
            if blocked(user=user, now=now) is not None:
                continue  # his seat went to the computer because a moderator blocked him
            earlier = bans.filter(starts_at__gt=now - PLAY_BAN_WINDOW, starts_at__lte=now).count()
            minutes = play_ban_minutes(earlier)
            # Stored text, not a message of this request: in the site's language.
            with translation.override(settings.LANGUAGE_CODE):
                reason = _("You left a match before its end.")
            ends_at = now + timedelta(minutes=minutes)
            ban = Sanction.objects.create(
                user=user,
                kind=Sanction.Kind.PLAY_BAN,
                reason=reason,
                moderator=None,
                match=match,
                starts_at=now,
                ends_at=ends_at,
            )
            _log(
                moderator=None,
                target=user,
                action=Sanction.Kind.PLAY_BAN,
                reason=reason,
                sanction=ban,
                details={
                    "match": match.pk,
                    "minutes": minutes,
                    "quits": earlier + 1,
                    "ends_at": ends_at.isoformat(),
                },
                at=now,
            )
        given.append(ban)
    return given


# -- rating abuse ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated match of a player, as it counts against each opponent in it."""

    match_id: int
    won: bool
    gain: int
    played_at: datetime


@dataclass(slots=True)
class OpponentResults:
    """A player's rated results against one opponent in one variant, newest first."""

    opponent: User
    results: list[RatedResult] = field(default_factory=list)

    @property
    def matches(self) -> int:
        return len(self.results)

    @property
    def wins(self) -> int:
        return sum(result.won for result in self.results)

    @property
    def losses(self) -> int:
        return self.matches - self.wins

    @property
    def gain(self) -> int:
        """The net rating points he gained in these matches (negative: lost)."""
        return sum(result.gain for result in self.results)

    @property
    def last_played_at(self) -> datetime:
        return self.results[0].played_at


def _against(
    changes: Iterable[RatingChange], seats: Iterable[MatchSeat]
) -> Iterator[tuple[RatingChange, MatchSeat, int]]:
    """Each rating change with each person who sat on another side of its match (his opponent),
    and that person's id. ``seats`` are the seats of the changes' matches (others are ignored)."""
    by_match: dict[int, list[MatchSeat]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    for change in changes:
        if change.user_id is None:
            continue  # a deleted account's change: nobody's results to tell
        rules = get_variant(change.variant)
        side = rules.side_of(change.seat)
        for seat in by_match.get(change.match_id, ()):
            opponent_id = seat.user_id
            if (
                opponent_id is not None
                and opponent_id != change.user_id
                and rules.side_of(seat.index) != side
            ):
                yield change, seat, opponent_id


def _counted_changes() -> QuerySet[RatingChange]:
    """The rating changes that stand: those of finished rated matches, not voided."""
    return RatingChange.objects.filter(kind=RatingChange.Kind.MATCH, match__voided=False).only(
        "match",
        "user",
        "variant",
        "seat",
        "rating_before",
        "rating_after",
        "won",
        "created_at",
    )


def rated_results_by_opponent(*, user: User) -> dict[str, list[OpponentResults]]:
    """``user``'s rated results by variant (in the site's order) and opponent: each person who
    sat on another side in his rated matches not voided, most rating points gained first.

    Two queries, whatever the number of matches: the changes and the seats of their matches.
    """
    changes = _counted_changes().filter(user=user).order_by("-created_at", "-id")
    seats = (
        MatchSeat.objects.filter(match_id__in=changes.values("match_id"), user__isnull=False)
        .exclude(user=user)
        .select_related("user")
    )
    rows: dict[tuple[str, int], OpponentResults] = {}
    for change, seat, opponent_id in _against(changes, seats):
        assert seat.user is not None, "a seat with a user id has its user"
        row = rows.setdefault((change.variant, opponent_id), OpponentResults(opponent=seat.user))
        row.results.append(
            RatedResult(
                match_id=change.match_id,
                won=change.won,
                gain=change.delta,
                played_at=change.created_at,
            )
        )
    by_variant: dict[str, list[OpponentResults]] = {variant: [] for variant in GAME_VARIANTS}
    for (variant, _opponent), row in rows.items():
        by_variant[variant].append(row)
    for variant_rows in by_variant.values():
        variant_rows.sort(key=lambda r: (-r.gain, -r.matches, r.opponent.username.casefold()))
    return {variant: variant_rows for variant, variant_rows in by_variant.items() if variant_rows}


def rating_gains_flag(*, match_id: int, now: datetime | None = None) -> list[RatingFlag]:
    """Once rated match ``match_id`` is finished: flag each of its players whose net rating gain
    against one of its opponents, in its variant, over the last ``RATING_GAIN_WINDOW`` is more
    than ``RATING_GAIN_FLAG``. The pair's open flag is updated with the new total and matches
    rather than a second one opened. Returns the flags opened or updated.

    Voided matches do not count, nor the matches a moderator judged already: a pair whose flag
    was closed in the window counts from the closing on.
    """
    now = now or timezone.now()
    match = Match.objects.filter(
        pk=match_id, rated=True, voided=False, status=Match.Status.FINISHED
    ).first()
    if match is None:
        return []
    rules = get_variant(match.variant)
    people: dict[int, User] = {}
    sides: dict[int, int] = {}
    for seat in MatchSeat.objects.filter(match=match, user__isnull=False).select_related("user"):
        if seat.user is not None:
            people[seat.user.pk] = seat.user
            sides[seat.user.pk] = rules.side_of(seat.index)
    # Only the pairs of opponents in this match: no other pair's total changed.
    pairs = {(mine, theirs) for mine in sides for theirs in sides if sides[mine] != sides[theirs]}
    if not pairs:
        return []
    since = now - RATING_GAIN_WINDOW
    changes = _counted_changes().filter(
        user_id__in=people, variant=match.variant, created_at__gt=since, created_at__lte=now
    )
    seats = MatchSeat.objects.filter(match_id__in=changes.values("match_id"), user_id__in=people)
    judged = _judged_since(user_ids=list(people), variant=match.variant, since=since)
    totals: dict[tuple[int, int], tuple[int, set[int]]] = {}
    for change, _seat, opponent_id in _against(changes, seats):
        assert change.user_id is not None  # _against leaves deleted accounts out
        pair = (change.user_id, opponent_id)
        if pair not in pairs or change.created_at <= judged.get(pair, since):
            continue
        gain, matches = totals.get(pair, (0, set()))
        totals[pair] = (gain + change.delta, matches | {change.match_id})
    return [
        _rating_flag_raise(
            user=people[user_id],
            opponent=people[opponent_id],
            variant=match.variant,
            gain=gain,
            matches=sorted(matches),
            now=now,
        )
        for (user_id, opponent_id), (gain, matches) in sorted(totals.items())
        if gain > RATING_GAIN_FLAG
    ]


def _judged_since(
    *, user_ids: Iterable[int], variant: str, since: datetime
) -> dict[tuple[int, int | None], datetime]:
    """When a moderator last closed a flag of each pair of ``user_ids`` in ``variant`` since
    ``since``: the matches before it he has judged, and they are not counted again."""
    judged: dict[tuple[int, int | None], datetime] = {}
    for flagged_id, opponent_id, closed_at in RatingFlag.objects.filter(
        user_id__in=user_ids,
        opponent_id__in=user_ids,
        variant=variant,
        status=RatingFlag.Status.CLOSED,
        closed_at__gt=since,
    ).values_list("user_id", "opponent_id", "closed_at"):
        if closed_at is not None:
            pair = (flagged_id, opponent_id)
            judged[pair] = max(closed_at, judged.get(pair, since))
    return judged


def _rating_flag_raise(
    *,
    user: User,
    opponent: User,
    variant: str,
    gain: int,
    matches: list[int],
    now: datetime,
) -> RatingFlag:
    """Open the flag on ``user``'s gain against ``opponent``, or update the one open."""
    with transaction.atomic():
        # The player's row, locked: two matches of the pair ending at once make one flag.
        User.objects.select_for_update().filter(pk=user.pk).first()
        flag = RatingFlag.objects.filter(
            user=user, opponent=opponent, variant=variant, status=RatingFlag.Status.OPEN
        ).first()
        if flag is not None:
            flag.gain, flag.matches, flag.updated_at = gain, matches, now
            flag.save(update_fields=["gain", "matches", "updated_at"])
            return flag
        flag = RatingFlag.objects.create(
            user=user,
            opponent=opponent,
            opponent_name=opponent.username,
            variant=variant,
            gain=gain,
            matches=matches,
            created_at=now,
            updated_at=now,
        )
        # Stored text, not a message of this request: in the site's language.
        with translation.override(settings.LANGUAGE_CODE):
            reason = _(
                "Gained %(gain)s rating points in a day against %(opponent)s (%(variant)s)."
            ) % {"gain": gain, "opponent": opponent.username, "variant": flag.get_variant_display()}
        _log(
            moderator=None,
            target=user,
            action="rating_flag",
            reason=reason,
            details={
                "flag": flag.pk,
                "opponent": opponent.username,
                "variant": variant,
                "gain": gain,
                "matches": matches,
            },
            at=now,
        )
    return flag


def rating_flag_close(*, moderator: User, flag: RatingFlag, decision: str) -> RatingFlag:
    """Close ``flag`` with the moderator's ``decision`` (what he found and did)."""
    _require_moderator(moderator)
    decision = _required_text(decision, _("Write the decision."))
    with transaction.atomic(durable=True):
        locked = RatingFlag.objects.select_for_update().select_related("user").get(pk=flag.pk)
        _require_may_act_on(
            moderator, locked.user, yourself=_("Another moderator must close a flag about you.")
        )
        if locked.status == RatingFlag.Status.CLOSED:
            raise ModerationError("closed", _("This flag is closed."))
        now = timezone.now()
        locked.status = RatingFlag.Status.CLOSED
        locked.closed_by = moderator
        locked.closed_at = now
        locked.decision = decision
        locked.save(update_fields=["status", "closed_by", "closed_at", "decision"])
        _log(
            moderator=moderator,
            target=locked.user,
            action="rating_flag_close",
            reason=decision,
            details={
                "flag": locked.pk,
                "opponent": locked.opponent_name,
                "variant": locked.variant,
                "gain": locked.gain,
                "matches": locked.matches,
            },
            at=now,
        )
    return locked


# -- shared ---------------------------------------------------------------------------------------


def _require_moderator(user: User) -> None:
    if not is_moderator(user):
        raise ModerationError("not_moderator", _("Only moderators can do this."))


def _require_may_act_on(
    moderator: User, user: User, *, yourself: str | None = None, staff: str | None = None
) -> None:
    """Refuse a moderator acting on himself (where ``yourself`` gives the words for it) or,
    unless he is a superuser, on a member of staff (``staff``, or the general words)."""
    if yourself is not None and user.pk == moderator.pk:
        raise ModerationError("self", yourself)
    if (user.is_staff or user.is_superuser) and not moderator.is_superuser:
        raise ModerationError(
            "staff", staff or _("Only a superuser can decide for a member of staff.")
        )


def _required_text(text: str | None, message: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ModerationError("empty", message)
    return text


def _log(
    *,
    moderator: User | None,
    target: User,
    action: str,
    reason: str = "",
    report: Report | None = None,
    sanction: Sanction | None = None,
    details: dict[str, Any] | None = None,
    at: datetime,
) -> ModerationLogEntry:
    return ModerationLogEntry.objects.create(
        moderator=moderator,
        target=target,
        moderator_name=moderator.username if moderator is not None else "",
        target_name=target.username,
        action=str(action),
        reason=reason,
        report=report,
        sanction=sanction,
        details=details or {},
        created_at=at,
    )
