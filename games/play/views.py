"""The live match page: the table as the viewer's seat sees it, then updates over the socket."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.http import AuthenticatedHttpRequest
from accounts.models import User
from games.lobby.services import TableError
from games.models import Match, MatchSeat
from games.play.access import (
    match_chat_readable,
    match_existence_secret,
    match_public,
    match_viewable_in,
)
from games.play.chat import QUICK_PHRASES, chat_recent, phrase_text
from games.play.presence import presence_of
from games.play.rematch import match_rematch, rematch_possible
from games.play.rendering import chat_lines, play_again, render_table
from games.play.selectors import match_position


def match_viewer_seat(*, seats: list[MatchSeat], user: User | AnonymousUser) -> int | None:
    """The seat ``user`` plays at this match, or None (a spectator, or not signed in)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return next((s.index for s in seats if s.user_id == user.pk), None)


@require_safe
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """A seated player sees his seat's view; anyone else the spectator's, where allowed (R8.3).

    Someone not signed in who may not watch is sent to sign in, as signing in may give access.
    A signed-in person who may not watch gets 404, as on the replay and history pages (the match
    might not exist), unless its table is public: a lobby table's existence is no secret, and 403
    tells him why he cannot watch.

    Once over, a public table's match is anyone's to see (``games.play.access.match_public``),
    with a button to share its link; its chat only where the table let spectators in.
    """
    match = get_object_or_404(Match.objects.select_related("table"), pk=match_id)
    seats = list(match.seats.order_by("index"))
    seat = match_viewer_seat(seats=seats, user=request.user)
    if seat is None and not match_viewable_in(request, match):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if match_existence_secret(match):
            raise Http404("No such match")
        reason = _("This table does not allow spectators.")
        return render(request, "403.html", {"reason": reason}, status=403)
    state = match_position(match=match).state  # the state of the version read
    presence = presence_of(match_id=match.pk)
    table = render_table(match=match, seats=seats, state=state, seat=seat, presence=presence)
    context = {
        "match": match,
        "table": table,
        "seat": seat,
        "play_again": play_again(match=match, seats=seats, seat=seat),
        "rematch_possible": rematch_possible(match=match, seats=seats, seat=seat),
        "chat_lines": (
            chat_lines(chat_recent(match=match), seat=seat)
            if match_chat_readable(match=match, user=request.user, seat=seat)
            else []
        ),
        "shareable": match_public(match),
        "chat_phrases": [(code, phrase_text(code)) for code in QUICK_PHRASES],
    }
    return render(request, "games/match.html", context)


@login_required
@require_POST
def match_rematch_view(request: AuthenticatedHttpRequest, match_id: int) -> HttpResponse:
    """The end-of-match banner's "Rematch" / "Join the rematch": to the rematch table's page
    (which sends him on to its match once it has started)."""
    # 404 to anyone who did not play it, as for a match he may not see.
    match = get_object_or_404(Match, pk=match_id, seats__user=request.user)
    try:
        table = match_rematch(match=match, user=request.user)
    except TableError as error:
        messages.error(request, error.message)
        return redirect("games:match", match_id=match.pk)
    return redirect("games:table_detail", table_id=table.pk)
