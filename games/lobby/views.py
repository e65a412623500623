"""Pages of the lobby and of tables before their match starts.

Views stay thin: they check who may see or do what, read with the selectors of
``games.lobby.services``, write through its services, and turn a
:class:`~games.lobby.services.TableError` into a message on the page. Join, leave and start work as
plain form posts and, from the table page, as htmx requests that swap the seats fragment.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from accounts.http import AuthenticatedHttpRequest, HtmxHttpRequest
from games.engine import GAME_VARIANTS
from games.lobby.forms import TableForm
from games.lobby.rendering import lobby_tables_html
from games.lobby.selectors import (
    TableView,
    lobby_tables,
    matches_to_watch,
    table_can_view,
    table_for_invite,
    table_view,
    user_computer_matches_unfinished,
    user_matches_in_progress,
    user_open_tables,
)
from games.lobby.services import (
    INVITED_SESSION_KEY,
    TARGET_MAX,
    TARGET_MIN,
    TARGET_PRESETS,
    TableError,
    UnfinishedMatchError,
    computer_match_resign,
    default_target,
    play_against_computer,
    table_client_seed,
    table_create,
    table_join_seat,
    table_leave_seat,
    table_start,
)
from games.lobby.start_views import quick_start_url
from games.models import VARIANT_CHOICES, ComputerLevel, Table
from games.play.services import abandon_after

#: How many invites a session remembers (the oldest are forgotten first).
INVITED_SESSION_LIMIT = 50


@require_safe
def lobby(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "games/lobby.html",
        {
            # Rendered once per state of the list (games.lobby.rendering).
            "tables_html": lobby_tables_html(tables=lobby_tables()),
            "my_matches": user_matches_in_progress(user=request.user),
            # Offered to resume before a new quick start (R8.2).
            "computer_unfinished": user_computer_matches_unfinished(user=request.user),
            "abandon_days": abandon_after().days,
            "my_tables": user_open_tables(user=request.user),
            "live_matches": matches_to_watch(),
            "variants": VARIANT_CHOICES,
            # The quick start offers the table form's level cards, medium chosen.
            "computer_level": TableForm()["computer_level"],
        },
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def table_create_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    # Bound on every POST, even an empty one: that must show what is missing, not a fresh form.
    form = TableForm(request.POST if request.method == "POST" else None)
    retry_after = None
    if request.method == "POST" and form.is_valid():
        try:
            table = table_create(user=request.user, **form.cleaned_data)
        except TableError as error:
            form.add_error(None, error.message)
            retry_after = getattr(error, "retry_after", None)
        else:
            return redirect("games:table_detail", table_id=table.pk)
    response = render(
        request, "games/table_form.html", {"form": form, "target_presets": TARGET_PRESETS}
    )
    if retry_after is not None:  # too many tables opened: as the API says it (RFC 6585)
        response.status_code = 429
        response["Retry-After"] = str(retry_after)
    return response


@require_safe
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_page(request, _visible_table(request, table_id))


@require_safe
def table_invite(request: HttpRequest, code: str) -> HttpResponse:
    table = table_for_invite(code)
    if table is None:
        raise Http404(_("This invite link is not valid."))
    invited = [pk for pk in request.session.get(INVITED_SESSION_KEY, []) if pk != table.pk]
    request.session[INVITED_SESSION_KEY] = [*invited, table.pk][-INVITED_SESSION_LIMIT:]
    return _table_page(request, table)


@require_POST
def table_join(request: HtmxHttpRequest, table_id: int, seat: int) -> HttpResponse:
    table = _visible_table(request, table_id)
    if not request.user.is_authenticated:
        return _to_login(request, table)
    try:
        match = table_join_seat(
            table=table, user=request.user, seat_index=seat, **_seal_answer(request)
        )
    except TableError as error:
        messages.error(request, error.message)
        match = None
    if match is not None:
        return _to_match(request, match.pk)
    return _seats_response(request, table)


@require_POST
def table_leave(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _visible_table(request, table_id)
    if not request.user.is_authenticated:
        return _to_login(request, table)
    try:
        table_leave_seat(table=table, user=request.user)
    except TableError as error:
        messages.error(request, error.message)
    else:
        table.refresh_from_db(fields=["status"])
        if table.status == Table.Status.CLOSED:
            messages.info(request, _("You left the table; nobody sits there any more."))
            return _redirect(request, reverse("games:lobby"))
        if not _may_view(request, table):
            # A private table he saw only as one of its players, its invite link not opened in
            # this browser: its page would now answer 404.
            messages.info(request, _("You left the table."))
            return _redirect(request, reverse("games:lobby"))
    return _seats_response(request, table)


@require_POST
def table_start_view(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    table = _visible_table(request, table_id)
    if not request.user.is_authenticated:
        return _to_login(request, table)
    try:
        match = table_start(table=table, user=request.user, **_seal_answer(request))
    except TableError as error:
        messages.error(request, error.message)
        return _seats_response(request, table)
    return _to_match(request, match.pk)


@require_POST
def play_computer(request: HttpRequest) -> HttpResponse:
    """The quick start against the computer; with ``resign`` (a match id), the lobby's "Resign"
    of an unfinished match against the computer instead.

    A player with an unfinished match against the computer is asked first (R8.2): the page
    offers to resume it, or to resign it and start the new one, which posts again with
    ``unfinished=resign``.
    """
    if not request.user.is_authenticated:
        # Back to the game he picked once signed in: the POST itself cannot be replayed.
        return redirect_to_login(quick_start_url(request.POST))
    if "resign" in request.POST:
        return _computer_match_resign(request)
    variant = request.POST.get("variant", "hokm4")
    # Medium unless chosen, and never remembered: each quick start asks afresh.
    computer_level = request.POST.get("computer_level", ComputerLevel.MEDIUM)
    try:
        target = int(request.POST.get("target", default_target(variant)))
    except ValueError:
        target = 0
    if variant not in GAME_VARIANTS or not TARGET_MIN <= target <= TARGET_MAX:
        messages.error(request, _("Choose one of the games offered."))
        return redirect("games:lobby")
    # "Play again" sends a Court Piece match's settings as the record stores them (R9.11); the
    # table service checks them.
    try:
        options = json.loads(request.POST.get("options") or "null")
        max_deals = int(request.POST["max_deals"]) if request.POST.get("max_deals") else None
    except (ValueError, RecursionError):
        options, max_deals = "bad", None
    if options is not None and not isinstance(options, dict):
        messages.error(request, _("Choose one of the games offered."))
        return redirect("games:lobby")
    try:
        match = play_against_computer(
            user=request.user,
            variant=variant,
            target=target,
            computer_level=computer_level,
            options=options,
            max_deals=max_deals,
            if_unfinished="resign" if request.POST.get("unfinished") == "resign" else "ask",
            **_seal_answer(request),
        )
    except UnfinishedMatchError as unfinished:
        # The same game again, once he has chosen: every field as he sent it.
        fields = [
            (name, request.POST[name])
            for name in ("variant", "computer_level", "target", "options", "max_deals")
            if name in request.POST
        ]
        context = {"matches": unfinished.matches, "fields": fields, "question": unfinished.message}
        return render(request, "games/computer_unfinished.html", context)
    except TableError as error:
        messages.error(request, error.message)
        return redirect("games:lobby")
    return redirect("games:match", match_id=match.pk)


@require_POST
def table_seed(request: HttpRequest, table_id: int) -> HttpResponse:
    """A seated player's page adds its seed to the table's sealed first shuffles (R8.4): posted
    by static/js/app.js once the page has shown their commitment. 204, or 409 with the reason."""
    table = _visible_table(request, table_id)
    if not request.user.is_authenticated:
        return HttpResponse(status=403)
    try:
        table_client_seed(table=table, user=request.user, **_seal_answer(request))
    except TableError as error:
        return HttpResponse(error.message, status=409, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


# -- helpers -------------------------------------------------------------------------------------


def _seal_answer(request: HttpRequest) -> dict[str, str]:
    """The sealed shuffle's commitment a form carried back, with the page's seed (R8.4,
    games/templatetags/fair_seal.py): text, however a program sent them."""
    commit, seed = request.POST.get("shuffle_commit", ""), request.POST.get("client_seed", "")
    return {"commit": commit[:64], "client_seed": seed}


def _computer_match_resign(request: HttpRequest) -> HttpResponse:
    assert request.user.is_authenticated, "play_computer sends visitors to sign in"
    match_id = request.POST["resign"]
    try:
        if not (match_id.isascii() and match_id.isdigit() and len(match_id) <= 18):
            raise TableError(_("This match is over already."))
        match = computer_match_resign(match_id=int(match_id), user=request.user)
    except TableError as error:
        messages.error(request, error.message)
    else:
        messages.info(
            request,
            _("You resigned the match against the computer (%(variant)s).")
            % {"variant": match.get_variant_display()},
        )
    return redirect("games:lobby")


def _visible_table(request: HttpRequest, table_id: int) -> Table:
    """The table, or 404 for a private table this person has no invite to: the same answer as
    for a table that does not exist, so ids reveal nothing."""
    table = get_object_or_404(Table, pk=table_id)
    if not _may_view(request, table):
        raise Http404(_("No such table."))
    return table


def _may_view(request: HttpRequest, table: Table) -> bool:
    invited = request.session.get(INVITED_SESSION_KEY, [])
    return table_can_view(table=table, user=request.user, invited_table_ids=invited)


def _table_page(request: HttpRequest, table: Table) -> HttpResponse:
    view = table_view(table=table, viewer=request.user)
    if view.sends_to_match:
        return redirect("games:match", match_id=view.match_id)
    return render(request, "games/table_detail.html", seats_context(request, view))


def seats_context(request: HttpRequest, view: TableView) -> dict[str, object]:
    """What ``_table_seats.html`` needs, besides ``request`` for its forms and messages."""
    return {"view": view, "site_url": request.build_absolute_uri("/").rstrip("/")}


def _seats_response(request: HtmxHttpRequest, table: Table) -> HttpResponse:
    if not request.htmx:
        return redirect("games:table_detail", table_id=table.pk)
    table.refresh_from_db()
    view = table_view(table=table, viewer=request.user)
    if view.sends_to_match and view.match_id is not None:
        return _to_match(request, view.match_id)
    return render(request, "games/_table_seats.html", seats_context(request, view))


def _to_match(request: HtmxHttpRequest, match_id: int) -> HttpResponse:
    return _redirect(request, reverse("games:match", args=[match_id]))


def _redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    # htmx would follow a plain redirect and swap the whole next page into the seats.
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _to_login(request: HtmxHttpRequest, table: Table) -> HttpResponse:
    """To the login page, coming back to the table page (the POST itself cannot be replayed)."""
    to_login = redirect_to_login(reverse("games:table_detail", args=[table.pk]))
    return HttpResponseClientRedirect(to_login.url) if request.htmx else to_login
