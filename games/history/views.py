"""History pages: "My games", a player's public games, a match's summary, and the download of its
record.

Views stay thin: the filters are a GET form, the reads are the selectors of
``games.history.selectors``, who may see a match is ``games.play.access.match_viewable`` and whether
its hands may be shown face up ``games.play.access.match_revealed`` (R8.3). A match the viewer may
not see answers 404, as if it did not exist, except to a visitor who is not signed in, who is sent
to sign in first (as on the live page): signing in may well give access. A public table's match
that is over is anyone's to see (``games.play.access.match_public``): its pages offer to share it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe
from django_htmx.http import push_url

from accounts.http import AuthenticatedHttpRequest
from accounts.models import User
from games.history.forms import FILTER_FIELDS, HistoryFilterForm
from games.history.records import match_export_record
from games.history.selectors import (
    history_co_players,
    history_page,
    match_summary_build,
    player_public_history,
    record_file_names,
)
from games.history.stats import player_stats
from games.models import Match
from games.play.access import match_public, match_revealed, match_viewable_in
from games.ratings.charts import rating_chart_layouts
from games.ratings.selectors import BOARD_RULES, player_ratings


@login_required
@require_safe
def my_games(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The signed-in player's matches, newest first, narrowed by the filters in the query.

    An htmx request from the filter form or a page link gets the list fragment alone and pushes
    the page's canonical URL (empty filters left out), so the address bar can be shared; any other
    request, a history restore included, gets the whole page.
    """
    form = HistoryFilterForm(request.GET)
    page = None
    if form.is_valid():
        page = history_page(
            user=request.user, filters=form.filters(), page_number=request.GET.get("page")
        )
    filters_query = _filters_query(request)
    number = page.page.number if page else 1
    page_query = f"page={number}" if number > 1 else ""
    query = "&".join(part for part in (filters_query, page_query) if part)
    context: dict[str, Any] = {
        "form": form,
        "history": page,
        "filters_query": filters_query,
        "filtered": bool(filters_query),
    }
    fragment = request.htmx and not request.htmx.history_restore_request
    if fragment:
        response = render(request, "games/_history_list.html", {**context, "oob_errors": True})
        push_url(response, f"{reverse('games:my_games')}{'?' if query else ''}{query}")
    else:
        context["co_players"] = history_co_players(user=request.user)
        response = render(request, "games/history.html", context)
    # The same URL answers a fragment or a page: caches must keep them apart.
    patch_vary_headers(response, ["HX-Request"])
    return response


def _filters_query(request: HttpRequest) -> str:
    """The filters as given, in a fixed order, empty ones left out: the shareable query."""
    pairs = [(name, request.GET.get(name, "").strip()) for name in FILTER_FIELDS]
    return urlencode([(name, value) for name, value in pairs if value])


def _match_for(request: HttpRequest, match_id: int) -> Match | HttpResponse:
    """The match if the viewer may see it; else a redirect to sign in (not signed in) or 404."""
    try:
        match = Match.objects.select_related("table", "imported_by").get(pk=match_id)
    except Match.DoesNotExist:
        raise Http404("No such match") from None
    if match_viewable_in(request, match):
        return match
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    raise Http404("No such match")


def _summary_response(request: HttpRequest, match: Match, *, status: int = 200) -> HttpResponse:
    summary = match_summary_build(match=match, viewer=request.user)
    context = {
        "summary": summary,
        "match": match,
        "revealed": match_revealed(match),
        "refused": status != 200,
        "shareable": match_public(match),
    }
    return render(request, "games/match_summary.html", context, status=status)


@require_safe
def match_summary(request: HttpRequest, match_id: int) -> HttpResponse:
    """Players by side, the final score and the score after each hand, with each hand's Hakem,
    trump, tricks, result and points (Kot and Hakem Kot named, R5.2). For Court Piece, each
    deal's dealer, caller, trump, result (court, goon court, 52-court, seven in a row named),
    courts and the streak after it (R9.7, R9.8), and the table settings once (R9.11)."""
    match = _match_for(request, match_id)
    if isinstance(match, HttpResponse):
        return match
    return _summary_response(request, match)


@require_safe
def match_record_download(request: HttpRequest, match_id: int) -> HttpResponse:
    """The ``hokm-record/1`` file of a match that is over, as an attachment.

    A match still being played is refused (403, on its summary page, saying why): its record
    holds the cards of the hand in play, which nobody may see yet (R8.3).
    """
    match = _match_for(request, match_id)
    if isinstance(match, HttpResponse):
        return match
    if not match_revealed(match):
        return _summary_response(request, match, status=403)
    record = match_export_record(match=match)
    ascii_name, unicode_name = record_file_names(match=match, players=record["players"])
    body = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = (
        f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(unicode_name)}"
    )
    return response


@require_safe
def player_games(request: HttpRequest, username: str) -> HttpResponse:
    """A player's matches that anyone may see, signed out too, newest first: those over, played at
    a public table (``games.history.selectors.player_public_history``), each with its summary and
    replay, as a lichess player's games are. His own private and imported matches are in "My
    games", for him alone."""
    player = _active_player(username, view="games:player_games")
    if isinstance(player, HttpResponse):
        return player
    history = player_public_history(
        player=player, viewer=request.user, page_number=request.GET.get("page")
    )
    return render(request, "games/player_games.html", {"player": player, "history": history})


def _active_player(username: str, *, view: str) -> User | HttpResponse:
    """The active player called ``username``; else a redirect to ``view`` with his name as it is
    spelled; 404 when there is none."""
    player = User.objects.filter(username=username, is_active=True).first()
    if player is not None:
        return player
    # Usernames are unique in any letter case (allauth), so "/players/sara_k/" is Sara_K's.
    others = list(User.objects.filter(username__iexact=username, is_active=True)[:2])
    if len(others) != 1:
        raise Http404
    return redirect(view, username=others[0].username, permanent=True)


# GET and HEAD, as every page: HEAD was refused here alone (link previews, uptime checks).
@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's public page: names, date joined, statistics of the matches he finished here,
    and his ratings with their places and charts.

    Seven queries whatever the number of matches and players (six without a rated match): the
    player, ``player_stats``, his ratings with their places, and the points of every chart.
    """
    player = _active_player(username, view="games:profile")
    if isinstance(player, HttpResponse):
        return player
    stats = player_stats(user=player, include_private=request.user.pk == player.pk)
    standings = player_ratings(user=player)
    charts = rating_chart_layouts(user=player, variants=[s.variant for s in standings])
    ratings = [(standing, charts.get(standing.variant)) for standing in standings]
    return render(
        request,
        "games/profile.html",
        {
            "player": player,
            "stats": stats,
            "chart": stats.chart,
            "ratings": ratings,
            "board_rules": BOARD_RULES,
        },
    )
