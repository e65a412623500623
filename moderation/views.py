"""The moderation pages: a player's report and his own sanctions, the moderators' queue, report,
player and log pages. Views check access, call moderation.services, and redirect with a message."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from accounts.http import AuthenticatedHttpRequest
from accounts.models import User
from accounts.roles import is_moderator
from games.models import VARIANT_CHOICES, Hand, Match, Trick
from games.play.access import match_viewable_in
from moderation import services as moderation
from moderation.forms import (
    AppealForm,
    DecisionForm,
    LiftForm,
    NoteForm,
    ReportForm,
    SanctionForm,
)
from moderation.middleware import BLOCKED_APPEAL_SALT, blocked_response
from moderation.models import Appeal, ModerationLogEntry, RatingFlag, Report, Sanction
from moderation.sanctions import sanction_in_force

LOG_PAGE_SIZE = 50

#: What each action code of the log (moderation.services) reads as.
ACTION_LABELS = {
    "report": gettext_lazy("report received"),
    "report_take": gettext_lazy("took the report"),
    "report_close": gettext_lazy("closed the report"),
    "lift": gettext_lazy("lifted a sanction"),
    "note": gettext_lazy("added a note"),
    "appeal": gettext_lazy("appealed"),
    "appeal_grant": gettext_lazy("granted the appeal"),
    "appeal_refuse": gettext_lazy("refused the appeal"),
    "warning_seen": gettext_lazy("saw the warning"),
    "rename_done": gettext_lazy("changed the username"),
    "rating_flag": gettext_lazy("flagged the rating gains of"),
    "rating_flag_close": gettext_lazy("closed the rating flag on"),
    **{kind.value: kind.label for kind in Sanction.Kind},
}

#: The sanctions the report page gives, and whether each needs a duration.
SANCTION_ACTIONS: dict[str, tuple[str, bool]] = {
    "warn": (Sanction.Kind.WARN, False),
    "mute": (Sanction.Kind.MUTE, True),
    "suspend": (Sanction.Kind.SUSPEND, True),
    "ban": (Sanction.Kind.BAN, False),
    "rename": (Sanction.Kind.RENAME, False),
    "void": (Sanction.Kind.VOID, False),
}


def moderator_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Moderators only; to anyone else the page does not exist (404, not a login prompt)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_moderator(request.user):
            raise Http404
        return view(request, *args, **kwargs)

    return wrapped


def replay_anchor(report: Report) -> str | None:
    """The replay at the reported moment; the page's hash counts hands and tricks from 1."""
    if report.match_id is None:
        return None
    url = reverse("games:replay", args=[report.match_id])
    if report.hand is None:
        return url
    anchor = f"#h{report.hand + 1}"
    if report.trick is not None:
        anchor += f"t{report.trick + 1}"
    return url + anchor


def _current_moment(match: Match) -> tuple[int | None, int | None]:
    """The hand and trick a match is at now (0-based), for a report made from the live table."""
    hand = Hand.objects.filter(match=match).order_by("-number").first()
    if hand is None:
        return None, None
    trick = Trick.objects.filter(hand=hand).order_by("-number").first()
    return hand.number, trick.number if trick else None


def _report_page(request: AuthenticatedHttpRequest, *, reported: User | None) -> HttpResponse:
    source = request.POST if request.method == "POST" else request.GET
    match = None
    match_id = source.get("match", "")
    if match_id.isdecimal():
        match = Match.objects.select_related("table").filter(pk=int(match_id)).first()
    if match is not None and not match_viewable_in(request, match):
        # A match the reporter may not see is left out, as if it did not exist: its number on
        # the form, its hand in play, and whether the reported player sat in it (the report was
        # refused for anyone else) would all tell him about a private match.
        match = None
    players = None
    if reported is None:
        # The names of a match's people are offered to those who played in it only.
        if match is None or not match.seats.filter(user=request.user).exists():
            raise Http404
        players = User.objects.filter(
            match_seats__match=match, match_seats__computer_level__isnull=True
        ).exclude(pk=request.user.pk)
    initial = {"match": match.pk if match else None}
    if match is not None:
        hand, trick = source.get("hand", ""), source.get("trick", "")
        if hand.isdecimal():
            initial.update(hand=int(hand), trick=int(trick) if trick.isdecimal() else None)
        else:
            initial["hand"], initial["trick"] = _current_moment(match)
    if request.method == "POST":
        form = ReportForm(request.POST, players=players)
        if form.is_valid():
            data = form.cleaned_data
            try:
                moderation.report_create(
                    reporter=request.user,
                    reported=reported or data["reported"],
                    reason=data["reason"],
                    comment=data["comment"],
                    match=match,
                    hand=data["hand"] if match else None,
                    trick=data["trick"] if match else None,
                )
            except moderation.ModerationError as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, _("Thank you: your report was sent to the moderators."))
                if match is not None:
                    return redirect("games:match", match.pk)
                assert reported is not None, "a report without a match names its player (404)"
                return redirect("games:profile", reported.username)
    else:
        form = ReportForm(initial=initial, players=players)
    return render(
        request,
        "moderation/report_form.html",
        {"form": form, "reported": reported, "match": match},
    )


@login_required
def report_player(request: AuthenticatedHttpRequest, username: str) -> HttpResponse:
    """Report a named player: from his profile, a match summary or the table."""
    reported = get_object_or_404(User, username=username)
    return _report_page(request, reported=reported)


@login_required
def report_in_match(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Report one of the people of ``?match=``, chosen in the form (the live table's link)."""
    return _report_page(request, reported=None)


@login_required
def my_sanctions(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The player's own sanctions, each with its reason and end, and its one appeal."""
    sanctions = (
        Sanction.objects.filter(user=request.user)
        .select_related("appeal")
        .order_by("-starts_at", "-pk")
    )
    return render(
        request,
        "moderation/sanctions.html",
        {"sanctions": sanctions, "appeal_form": AppealForm()},
    )


@login_required
def rename(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A forced rename: the player picks a new username, under the sign-up rules. Until he does,
    every page leads here (``moderation.middleware``)."""
    sanction = sanction_in_force(user=request.user, kinds=[Sanction.Kind.RENAME])
    if sanction is None:
        return redirect("accounts:settings")
    error = ""
    if request.method == "POST":
        try:
            moderation.rename_done(user=request.user, new_username=request.POST.get("username", ""))
        except moderation.ModerationError as refusal:
            error = refusal.message
        else:
            # The username itself: str(user) is the display name when he has one.
            messages.success(
                request, _("Your username is now %(name)s.") % {"name": request.user.username}
            )
            return redirect("games:profile", username=request.user.username)
    return render(
        request,
        "moderation/rename.html",
        {"sanction": sanction, "error": error, "value": request.POST.get("username", "")},
        status=400 if error else 200,
    )


def _appeal_refusal(request: HttpRequest, form: AppealForm) -> str:
    """Why an appeal form was refused: empty, or too long. The browser's maxlength counts a line
    break once, the form counts the CR LF it receives twice, so a long appeal can pass the one,
    not this."""
    if not request.POST.get("text", "").strip():
        return _("Write why the sanction should be lifted.")
    return _form_errors(form)


#: How long the appeal form of the blocked page stays good after the page was shown.
BLOCKED_APPEAL_MAX_AGE = 60 * 60


@require_POST
def appeal_blocked(request: HttpRequest) -> HttpResponse:
    """The appeal of a suspended or banned player, from the page that keeps him out (he is not
    signed in: the form's signed sanction id, ``middleware.blocked_response``, says whose)."""
    try:
        sanction_id = signing.loads(
            request.POST.get("token", ""), salt=BLOCKED_APPEAL_SALT, max_age=BLOCKED_APPEAL_MAX_AGE
        )
        sanction = Sanction.objects.select_related("user").get(pk=int(sanction_id))
    except (signing.BadSignature, Sanction.DoesNotExist, TypeError, ValueError):
        return render(
            request,
            "moderation/blocked_appeal_expired.html",
            {
                "message": _(
                    "This appeal form is out of date or was changed. Sign in again to get a new "
                    "one."
                )
            },
            status=400,
        )
    form = AppealForm(request.POST)
    if not form.is_valid():
        return blocked_response(
            request,
            sanction,
            appeal_error=_appeal_refusal(request, form),
            appeal_text=request.POST.get("text", ""),
            status=400,
        )
    try:
        moderation.appeal_create(
            user=sanction.user, sanction=sanction, text=form.cleaned_data["text"]
        )
    except moderation.ModerationError as refusal:
        return blocked_response(request, sanction, appeal_error=refusal.message, status=400)
    # The page again, now with his appeal waiting for a moderator instead of the form; he is
    # still kept out, but what he asked for was done.
    return blocked_response(request, sanction, status=200)


@login_required
@require_POST
def appeal_sanction(request: AuthenticatedHttpRequest, sanction_id: int) -> HttpResponse:
    sanction = get_object_or_404(Sanction, pk=sanction_id, user=request.user)
    form = AppealForm(request.POST)
    if not form.is_valid():
        messages.error(request, _appeal_refusal(request, form))
        return redirect("moderation:my_sanctions")
    try:
        moderation.appeal_create(
            user=request.user, sanction=sanction, text=form.cleaned_data["text"]
        )
    except moderation.ModerationError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("Your appeal was sent; a moderator will decide on it."))
    return redirect("moderation:my_sanctions")


def _open_reports_of(user_ref) -> Coalesce:
    counts = (
        Report.objects.filter(
            reported=user_ref, status__in=[Report.Status.OPEN, Report.Status.TAKEN]
        )
        .values("reported")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counts), 0)


@moderator_required
def queue(request: HttpRequest) -> HttpResponse:
    """Open and taken reports, oldest first or by how many open reports the player has; the
    open rating flags and the open appeals below."""
    sort = "count" if request.GET.get("sort") == "count" else "age"
    reports = (
        Report.objects.filter(status__in=[Report.Status.OPEN, Report.Status.TAKEN])
        .select_related("reporter", "reported", "taken_by", "match")
        .annotate(player_open=_open_reports_of(OuterRef("reported")))
    )
    if sort == "count":
        reports = reports.order_by("-player_open", "created_at", "pk")
    else:
        reports = reports.order_by("created_at", "pk")
    appeals = (
        Appeal.objects.filter(status=Appeal.Status.OPEN)
        .select_related("sanction__user", "sanction__moderator")
        .order_by("created_at", "pk")
    )
    flags = (
        RatingFlag.objects.filter(status=RatingFlag.Status.OPEN)
        .select_related("user", "opponent")
        .order_by("created_at", "pk")
    )
    return render(
        request,
        "moderation/queue.html",
        {
            "reports": reports,
            "flags": flags,
            "flag_threshold": moderation.RATING_GAIN_FLAG,
            "appeals": appeals,
            "sort": sort,
            "decision_form": DecisionForm(),
        },
    )


@moderator_required
def report_detail(request: HttpRequest, report_id: int) -> HttpResponse:
    """One report with its evidence and every action on the same screen."""
    report = get_object_or_404(
        Report.objects.select_related("reporter", "reported", "taken_by", "match"), pk=report_id
    )
    player = report.reported
    return render(
        request,
        "moderation/report.html",
        {
            "report": report,
            "chat_lines": _chat_lines(report.chat),
            "replay_url": replay_anchor(report),
            "sanctions": player.sanctions.select_related("moderator").order_by("-starts_at"),
            "notes": player.moderator_notes.select_related("author"),
            "other_reports": player.reports.exclude(pk=report.pk).order_by("-created_at")[:20],
            "decision_form": DecisionForm(),
            "sanction_form": SanctionForm(),
            "note_form": NoteForm(),
        },
    )


def _chat_lines(lines: list[dict]) -> list[dict]:
    """The chat copied into a report, each line's time as a date the template can format."""
    shown = []
    for line in lines:
        at = line.get("at")
        try:
            when = datetime.fromisoformat(at) if isinstance(at, str) else None
        except ValueError:
            when = None
        shown.append({**line, "when": when})
    return shown


def _labelled(entries) -> list[ModerationLogEntry]:
    """The log entries, each with ``label``: its action in words."""
    entries = list(entries)
    for entry in entries:
        entry.label = ACTION_LABELS.get(entry.action, entry.action)
    return entries


def _form_errors(form) -> str:
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def _sanction_from_post(
    request: AuthenticatedHttpRequest,
    action: str,
    *,
    user: User,
    report: Report | None = None,
    match: Match | None = None,
) -> None:
    """Apply the sanction ``action`` names (``SANCTION_ACTIONS``) with the reason and minutes
    of the posted form, and say what was done or why not (a message for the page after it)."""
    kind, needs_minutes = SANCTION_ACTIONS[action]
    form = SanctionForm(request.POST, needs_minutes=needs_minutes)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return
    sanction = moderation.sanction_apply(
        moderator=request.user,
        user=user,
        kind=kind,
        reason=form.cleaned_data["reason"],
        minutes=form.cleaned_data["minutes"] if needs_minutes else None,
        report=report,
        match=match,
    )
    messages.success(
        request,
        _("Done: %(sanction)s for %(player)s.")
        % {"sanction": sanction.get_kind_display(), "player": user},
    )


def _note_from_post(request: AuthenticatedHttpRequest, *, user: User) -> None:
    """Add the posted note about ``user``; say so, or why not, in a message for the next page."""
    form = NoteForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return
    moderation.note_add(moderator=request.user, user=user, text=form.cleaned_data["text"])
    messages.success(request, _("Note added."))


@moderator_required
@require_POST
def report_action(request: AuthenticatedHttpRequest, report_id: int, action: str) -> HttpResponse:
    """Take, close, sanction or add a note from the report page, then back to it."""
    report = get_object_or_404(Report.objects.select_related("reported", "match"), pk=report_id)
    back = redirect("moderation:moderation_report", report.pk)
    moderator = request.user
    try:
        if action == "take":
            moderation.report_take(report=report, moderator=moderator)
            messages.success(request, _("You took this report."))
        elif action == "close":
            form: Form = DecisionForm(request.POST)
            if not form.is_valid():
                messages.error(request, _form_errors(form))
                return back
            moderation.report_close(
                report=report, moderator=moderator, decision=form.cleaned_data["decision"]
            )
            messages.success(request, _("The report is closed."))
        elif action == "note":
            _note_from_post(request, user=report.reported)
        elif action in SANCTION_ACTIONS:
            if SANCTION_ACTIONS[action][0] == Sanction.Kind.VOID and report.match is None:
                messages.error(request, _("This report names no match to void."))
                return back
            _sanction_from_post(
                request, action, user=report.reported, report=report, match=report.match
            )
        else:
            raise Http404
    except moderation.ModerationError as error:
        messages.error(request, str(error))
    return back


@moderator_required
@require_POST
def appeal_decide(request: AuthenticatedHttpRequest, appeal_id: int) -> HttpResponse:
    appeal = get_object_or_404(Appeal, pk=appeal_id)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect("moderation:moderation_queue")
    grant = request.POST.get("grant") == "1"
    try:
        moderation.appeal_decide(
            moderator=request.user,
            appeal=appeal,
            grant=grant,
            decision=form.cleaned_data["decision"],
        )
    except moderation.ModerationError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("Appeal granted: the sanction is lifted.") if grant else _("Appeal refused."),
        )
    return redirect("moderation:moderation_queue")


@moderator_required
def player_page(request: HttpRequest, username: str) -> HttpResponse:
    """Everything the moderators know of one player: sanctions, notes, reports, the log."""
    player = get_object_or_404(User, username=username)
    return render(
        request,
        "moderation/player.html",
        {
            "player": player,
            "sanctions": player.sanctions.select_related("moderator", "appeal").order_by(
                "-starts_at"
            ),
            "notes": player.moderator_notes.select_related("author"),
            "reports": player.reports.select_related("reporter").order_by("-created_at")[:50],
            "log": _labelled(
                ModerationLogEntry.objects.filter(target=player).select_related("target")[:50]
            ),
            "note_form": NoteForm(),
            "lift_form": LiftForm(),
        },
    )


@moderator_required
@require_safe
def player_opponents(request: HttpRequest, username: str) -> HttpResponse:
    """A player's rated results by variant and opponent, most rating points gained first, with
    his rating flags: what a moderator judges farming on. A fixed number of queries."""
    player = get_object_or_404(User, username=username)
    labels = dict(VARIANT_CHOICES)
    variants = [
        {"code": variant, "label": labels[variant], "rows": rows}
        for variant, rows in moderation.rated_results_by_opponent(user=player).items()
    ]
    flags = player.rating_flags.select_related("opponent", "closed_by").order_by(
        "-created_at", "-pk"
    )[:50]
    return render(
        request,
        "moderation/opponents.html",
        {
            "player": player,
            "variants": variants,
            "flags": flags,
            "flag_threshold": moderation.RATING_GAIN_FLAG,
        },
    )


@moderator_required
@require_POST
def rating_flag_close(request: AuthenticatedHttpRequest, flag_id: int) -> HttpResponse:
    """Close a rating flag with the moderator's decision; back to the queue, or to the player's
    results by opponent when the form was sent from there."""
    flag = get_object_or_404(RatingFlag.objects.select_related("user"), pk=flag_id)
    if request.POST.get("back") == "player":
        back = redirect("moderation:moderation_player_opponents", flag.user.username)
    else:
        back = redirect("moderation:moderation_queue")
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return back
    try:
        moderation.rating_flag_close(
            moderator=request.user, flag=flag, decision=form.cleaned_data["decision"]
        )
    except moderation.ModerationError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("The flag is closed."))
    return back


@moderator_required
@require_POST
def player_action(request: AuthenticatedHttpRequest, username: str, action: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    back = redirect("moderation:moderation_player", player.username)
    try:
        if action == "note":
            _note_from_post(request, user=player)
        elif action == "lift":
            sanction_id = request.POST.get("sanction", "")
            if not sanction_id.isdecimal():
                raise Http404
            sanction = get_object_or_404(Sanction, pk=int(sanction_id), user=player)
            form = LiftForm(request.POST)
            if not form.is_valid():
                messages.error(request, _form_errors(form))
                return back
            moderation.sanction_lift(
                moderator=request.user, sanction=sanction, reason=form.cleaned_data["reason"]
            )
            messages.success(request, _("The sanction is lifted."))
        elif action in SANCTION_ACTIONS and action != "void":
            # Straight from the player's page, without a report: what a moderator saw in a
            # match, the chat or the admin. A void needs a match, so it stays on reports.
            _sanction_from_post(request, action, user=player)
        else:
            raise Http404
    except moderation.ModerationError as error:
        messages.error(request, str(error))
    return back


@moderator_required
def log(request: HttpRequest) -> HttpResponse:
    """The moderation log, newest first; ``?player=`` keeps the entries about one player."""
    player = request.GET.get("player", "").strip()
    entries = ModerationLogEntry.objects.select_related("report", "target")
    if player:
        entries = entries.filter(Q(target_name__iexact=player) | Q(target__username__iexact=player))
    page = Paginator(entries.order_by("-created_at", "-pk"), LOG_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "moderation/log.html",
        {"page": page, "entries": _labelled(page.object_list), "player": player},
    )
