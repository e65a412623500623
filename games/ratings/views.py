"""The leaderboards: every family's top ten on one page, and each family's top 100 with the
viewer's own place, or why he has none (docs/ratings.md).

Each page makes a fixed number of queries whatever the number of players: one per board, and
one for the viewer's own standing.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from games.ratings.selectors import (
    BOARD_RULES,
    RATED_VARIANTS,
    leaderboard,
    player_ratings,
    variant_title,
    viewer_standing,
)

#: How many players of each family the page of all leaderboards shows.
PREVIEW_SIZE = 10


def _tabs(current: str | None) -> list[tuple[str, str, bool]]:
    return [(variant, variant_title(variant), variant == current) for variant in RATED_VARIANTS]


@require_safe
def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every family's top ten, with the viewer's place in each: one query per family (the index
    on ``(variant, -rating)`` makes each a short walk from the top, cheaper than one query
    ranking every eligible player of every family), and one for his own standings."""
    now = timezone.now()
    mine = (
        {s.variant: s for s in player_ratings(user=request.user, now=now)}
        if request.user.is_authenticated
        else {}
    )
    boards = [
        {
            "variant": variant,
            "title": variant_title(variant),
            "lines": leaderboard(variant=variant, now=now, size=PREVIEW_SIZE),
            "mine": mine.get(variant),
        }
        for variant in RATED_VARIANTS
    ]
    return render(
        request,
        "games/leaderboard.html",
        {"boards": boards, "tabs": _tabs(None), "rules": BOARD_RULES},
    )


@require_safe
def leaderboard_variant(request: HttpRequest, variant: str) -> HttpResponse:
    """One family's top 100, best first, and the viewer's place (shown even below the 100) or
    why he has none: two queries."""
    if variant not in RATED_VARIANTS:
        raise Http404("No such game")
    now = timezone.now()
    mine = (
        viewer_standing(user=request.user, variant=variant, now=now)
        if request.user.is_authenticated
        else None
    )
    return render(
        request,
        "games/leaderboard.html",
        {
            "variant": variant,
            "title": variant_title(variant),
            "lines": leaderboard(variant=variant, now=now),
            "mine": mine,
            "tabs": _tabs(variant),
            "rules": BOARD_RULES,
        },
    )
