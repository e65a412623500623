"""Reading ratings: a player's, many players' at once (lobby, table, history), leaderboards, ranks
and the points of a rating chart. Each answers in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from games.engine import GAME_VARIANTS
from games.models import Rating, RatingChange
from games.ratings.model import (
    LEADERBOARD_DAYS,
    LEADERBOARD_MIN_GAMES,
    LEADERBOARD_SIZE,
    MU,
    PROVISIONAL_SIGMA,
    SIGMA,
    is_provisional,
    shown,
)

#: The families with a rating of their own: every variant the site plays.
RATED_VARIANTS: tuple[str, ...] = tuple(GAME_VARIANTS)


@dataclass(frozen=True, slots=True)
class RatingShown:
    """A rating as people see it: the number, "?" while provisional, and the matches behind it."""

    variant: str
    rating: int
    provisional: bool
    games: int = 0
    wins: int = 0
    last_played_at: datetime | None = None

    @property
    def text(self) -> str:
        return f"{self.rating}?" if self.provisional else str(self.rating)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def of(cls, row: Rating | None, variant: str) -> RatingShown:
        if row is None:
            return cls(variant=variant, rating=shown(MU, SIGMA), provisional=True)
        return cls(
            variant=variant,
            rating=row.rating,
            provisional=is_provisional(row.sigma),
            games=row.games,
            wins=row.wins,
            last_played_at=row.last_played_at,
        )


def rating_of(*, user: Any, variant: str) -> RatingShown:
    """One player's rating in ``variant``: a new player's "1500?" when he has none yet."""
    user_id = getattr(user, "pk", user)
    row = Rating.objects.filter(user_id=user_id, variant=variant).first()
    return RatingShown.of(row, variant)


def ratings_for(*, user_ids: Iterable[int | None], variant: str) -> dict[int, RatingShown]:
    """The ratings in ``variant`` of many players at once (one query), new players included."""
    ids = {uid for uid in user_ids if uid is not None}
    if not ids or variant not in GAME_VARIANTS:
        return {}
    rows = {r.user_id: r for r in Rating.objects.filter(variant=variant, user_id__in=ids)}
    return {uid: RatingShown.of(rows.get(uid), variant) for uid in ids}


def ratings_by_variant(
    *, pairs: Iterable[tuple[int | None, str]]
) -> dict[tuple[int, str], RatingShown]:
    """Ratings for (user id, variant) pairs across variants, in one query (the lobby's list)."""
    wanted = {(uid, v) for uid, v in pairs if uid is not None and v in GAME_VARIANTS}
    if not wanted:
        return {}
    query = Q()
    for variant in {v for _, v in wanted}:
        query |= Q(variant=variant, user_id__in=[uid for uid, v in wanted if v == variant])
    rows = {(r.user_id, r.variant): r for r in Rating.objects.filter(query)}
    return {key: RatingShown.of(rows.get(key), key[1]) for key in wanted}


def _board_filter(variant: str, now: datetime | None = None) -> Q:
    since = (now or timezone.now()) - timedelta(days=LEADERBOARD_DAYS)
    return Q(
        variant=variant,
        games__gte=LEADERBOARD_MIN_GAMES,
        sigma__lt=PROVISIONAL_SIGMA,
        last_played_at__gte=since,
    )


def on_leaderboard(row: Rating | None, *, now: datetime | None = None) -> bool:
    """Whether a rating row may stand on its family's leaderboard (played enough, lately)."""
    if row is None:
        return False
    since = (now or timezone.now()) - timedelta(days=LEADERBOARD_DAYS)
    return (
        row.games >= LEADERBOARD_MIN_GAMES
        and not is_provisional(row.sigma)
        and row.last_played_at is not None
        and row.last_played_at >= since
    )


def rank_of(row: Rating | None, *, now: datetime | None = None) -> int | None:
    """A rating's place on its family's leaderboard (1 is first), None when it is not on it.
    Equal ratings share a place."""
    if row is None or not on_leaderboard(row, now=now):
        return None
    return Rating.objects.filter(_board_filter(row.variant, now), rating__gt=row.rating).count() + 1


@dataclass(frozen=True, slots=True)
class BoardLine:
    place: int
    user_id: int
    username: str
    name: str
    rating: int
    games: int


def leaderboard(*, variant: str, now: datetime | None = None) -> list[BoardLine]:
    """The top ``LEADERBOARD_SIZE`` of ``variant``: players with enough rated matches, active in
    the last ``LEADERBOARD_DAYS`` days, best first; equal ratings share a place."""
    rows = (
        Rating.objects.filter(_board_filter(variant, now))
        .select_related("user")
        .order_by("-rating", "user_id")[:LEADERBOARD_SIZE]
    )
    lines: list[BoardLine] = []
    place = 0
    previous: int | None = None
    for position, row in enumerate(rows, start=1):
        if row.rating != previous:
            place, previous = position, row.rating
        lines.append(
            BoardLine(
                place=place,
                user_id=row.user_id,
                username=row.user.username,
                name=str(row.user),
                rating=row.rating,
                games=row.games,
            )
        )
    return lines


def player_ratings(
    *, user: Any, now: datetime | None = None
) -> list[tuple[RatingShown, int | None]]:
    """A player's ratings in the families he has played rated, with his place on each
    leaderboard (None when he is not on it); two queries whatever the number of families."""
    rows = {r.variant: r for r in Rating.objects.filter(user=user, games__gt=0)}
    places = _places(rows.values(), now=now)
    return [(RatingShown.of(rows[v], v), places.get(v)) for v in RATED_VARIANTS if v in rows]


def _places(rows: Iterable[Rating], *, now: datetime | None) -> dict[str, int]:
    """Places on the leaderboards of several families in one query (a conditional count each)."""
    from django.db.models import Count

    eligible = [row for row in rows if on_leaderboard(row, now=now)]
    if not eligible:
        return {}
    counts = Rating.objects.aggregate(
        **{
            f"above_{i}": Count(
                "pk", filter=_board_filter(row.variant, now) & Q(rating__gt=row.rating)
            )
            for i, row in enumerate(eligible)
        }
    )
    return {row.variant: counts[f"above_{i}"] + 1 for i, row in enumerate(eligible)}


@dataclass(frozen=True, slots=True)
class ChartPoint:
    at: datetime
    rating: int


def rating_chart(*, user: Any, variant: str, limit: int = 1000) -> list[ChartPoint]:
    """A player's rating after each change in ``variant``, oldest first, with the starting
    rating before the first: the latest ``limit`` changes (one query)."""
    rows = list(
        RatingChange.objects.filter(user=user, variant=variant)
        .order_by("-id")
        .values_list("created_at", "rating_before", "rating_after")[:limit]
    )
    rows.reverse()
    if not rows:
        return []
    points = [ChartPoint(at=rows[0][0], rating=rows[0][1])]
    points += [ChartPoint(at=at, rating=after) for at, _before, after in rows]
    return points


def match_rating_changes(*, match_id: int) -> dict[int, dict[str, Any]]:
    """A match's rating changes by seat, as it stands (taken back by a void: none), with the
    rating before and after and its change, for the end banner and the history."""
    changes = list(RatingChange.objects.filter(match_id=match_id).order_by("id"))
    if not changes or changes[-1].kind == RatingChange.Kind.VOID:
        return {}
    return {
        c.seat: {
            "before": c.rating_before,
            "after": c.rating_after,
            "delta": c.rating_after - c.rating_before,
            "provisional": is_provisional(c.sigma_after),
        }
        for c in changes
        if c.kind == RatingChange.Kind.MATCH
    }
