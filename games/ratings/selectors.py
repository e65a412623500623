"""Reading ratings: a player's, many players' at once (lobby, table, history), leaderboards, places
and the points of rating charts. Each answers in a fixed number of queries (most in one), whatever
the number of players, matches and rating changes.

A *place* on a leaderboard is one more than the number of players on it with a higher rating, so
equal ratings share a place (1, 2, 2, 4), on the board and on a profile alike. Only players whose
account is active stand on a board: a closed account has no profile to link to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone

from games.engine import GAME_VARIANTS
from games.models import VARIANT_CHOICES, Rating, RatingChange
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
_TITLES = dict(VARIANT_CHOICES)

#: Why a rating has no place on its leaderboard: fewer than ``LEADERBOARD_MIN_GAMES`` rated
#: matches, still provisional, or no rated match in the last ``LEADERBOARD_DAYS`` days.
Unranked = Literal["games", "provisional", "inactive"]


def variant_title(variant: str) -> str:
    """A family's name for people ("Hokm, four players"), in the active language."""
    return str(_TITLES.get(variant, variant))


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

    @property
    def title(self) -> str:
        return variant_title(self.variant)

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
    """The ratings in ``variant`` of many players at once (one query, none without a player),
    new players included."""
    ids = {uid for uid in user_ids if uid is not None}
    if not ids or variant not in GAME_VARIANTS:
        return {}
    rows = {r.user_id: r for r in Rating.objects.filter(variant=variant, user_id__in=ids)}
    return {uid: RatingShown.of(rows.get(uid), variant) for uid in ids}


def ratings_by_variant(
    *, pairs: Iterable[tuple[int | None, str]]
) -> dict[tuple[int, str], RatingShown]:
    """Ratings for (user id, variant) pairs across variants, in one query (the lobby's list), none
    without a player."""
    wanted = {(uid, v) for uid, v in pairs if uid is not None and v in GAME_VARIANTS}
    if not wanted:
        return {}
    query = Q()
    for variant in {v for _, v in wanted}:
        query |= Q(variant=variant, user_id__in=[uid for uid, v in wanted if v == variant])
    rows = {(r.user_id, r.variant): r for r in Rating.objects.filter(query)}
    return {key: RatingShown.of(rows.get(key), key[1]) for key in wanted}


# Leaderboards and places.


@dataclass(frozen=True, slots=True)
class BoardRules:
    """Who stands on a leaderboard, as the pages say it."""

    min_games: int = LEADERBOARD_MIN_GAMES
    days: int = LEADERBOARD_DAYS
    size: int = LEADERBOARD_SIZE


BOARD_RULES = BoardRules()


def _since(now: datetime | None) -> datetime:
    return (now or timezone.now()) - timedelta(days=LEADERBOARD_DAYS)


def _eligible(since: datetime) -> Q:
    """The rating rows that may stand on their family's leaderboard."""
    return Q(
        games__gte=LEADERBOARD_MIN_GAMES,
        sigma__lt=PROVISIONAL_SIGMA,
        last_played_at__gte=since,
        user__is_active=True,
    )


def unranked_reason(row: Rating, *, now: datetime | None = None) -> Unranked | None:
    """Why a rating row has no place on its leaderboard, None when it has one. Too few matches
    is named first: it is what a new player needs to hear, and playing them settles a
    provisional rating as well."""
    if row.games < LEADERBOARD_MIN_GAMES:
        return "games"
    if is_provisional(row.sigma):
        return "provisional"
    if row.last_played_at is None or row.last_played_at < _since(now):
        return "inactive"
    return None


def _with_places(rows: Any, *, now: datetime | None) -> Any:
    """``rows`` (a Rating queryset) with ``place``: the row's place on its leaderboard, None
    when it is not on it.

    The count of the players above runs in the same query, only for rows on a board (the CASE
    skips the others), over the ``(variant, -rating)`` index from the top down to the row: the
    lower the place, the longer it takes (about 30 ms for the last of 14,000 players on a board,
    on PostgreSQL).
    """
    since = _since(now)
    above = (
        Rating.objects.filter(_eligible(since), variant=OuterRef("variant"))
        .filter(rating__gt=OuterRef("rating"))
        .order_by()
        .values("variant")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return rows.annotate(
        place=Case(
            When(_eligible(since), then=Coalesce(Subquery(above), Value(0)) + 1),
            default=None,
            output_field=IntegerField(),
        )
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one family, and where it stands: his place on the leaderboard, or
    why he has none."""

    rating: RatingShown
    place: int | None
    unranked: Unranked | None

    @property
    def variant(self) -> str:
        return self.rating.variant

    @property
    def title(self) -> str:
        return self.rating.title


def _standing(row: Any, *, now: datetime) -> Standing:
    return Standing(
        rating=RatingShown.of(row, row.variant),
        place=row.place,
        unranked=None if row.place is not None else unranked_reason(row, now=now),
    )


def player_ratings(*, user: Any, now: datetime | None = None) -> list[Standing]:
    """A player's standings in the families he has played rated, in the order of
    ``RATED_VARIANTS``: one query whatever the number of families and players."""
    now = now or timezone.now()
    rows = _with_places(Rating.objects.filter(user=user, games__gt=0), now=now)
    standings = {row.variant: _standing(row, now=now) for row in rows}
    return [standings[v] for v in RATED_VARIANTS if v in standings]


def viewer_standing(*, user: Any, variant: str, now: datetime | None = None) -> Standing | None:
    """The viewer's standing in one family, None before his first rated match in it: one
    query."""
    now = now or timezone.now()
    rows = _with_places(Rating.objects.filter(user=user, variant=variant, games__gt=0), now=now)
    row = rows.first()
    return _standing(row, now=now) if row is not None else None


@dataclass(frozen=True, slots=True)
class BoardLine:
    place: int
    user_id: int
    username: str
    name: str
    rating: int
    games: int
    wins: int


def leaderboard(
    *, variant: str, now: datetime | None = None, size: int = LEADERBOARD_SIZE
) -> list[BoardLine]:
    """The top ``size`` of ``variant``: players with enough rated matches, active in the last
    ``LEADERBOARD_DAYS`` days, best first; equal ratings share a place. One query, down the
    ``(variant, -rating)`` index."""
    rows = (
        Rating.objects.filter(_eligible(_since(now)), variant=variant)
        .select_related("user")
        .only("rating", "games", "wins", "user__username", "user__display_name")
        .order_by("-rating", "user_id")[:size]
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
                wins=row.wins,
            )
        )
    return lines


# Charts.


@dataclass(frozen=True, slots=True)
class ChartPoint:
    at: datetime
    rating: int


#: How many of a player's latest rating changes a family's chart shows.
CHART_CHANGES = 300


def rating_charts(
    *, user: Any, variants: Iterable[str], limit: int = CHART_CHANGES
) -> dict[str, list[ChartPoint]]:
    """A player's rating after each change in each of ``variants``, oldest first, with the
    starting rating before the first: the latest ``limit`` changes of each family, in one query
    (none without a family) whatever the number of families and changes."""
    wanted = [v for v in dict.fromkeys(variants) if v in GAME_VARIANTS]
    if not wanted:
        return {}
    latest = Window(RowNumber(), partition_by=[F("variant")], order_by=F("id").desc())
    rows = (
        RatingChange.objects.filter(user=user, variant__in=wanted)
        .annotate(latest=latest)
        .filter(latest__lte=limit)
        .order_by("variant", "id")
        .values_list("variant", "created_at", "rating_before", "rating_after")
    )
    charts: dict[str, list[ChartPoint]] = {}
    for variant, at, before, after in rows:
        points = charts.get(variant)
        if points is None:
            points = charts[variant] = [ChartPoint(at=at, rating=before)]
        points.append(ChartPoint(at=at, rating=after))
    return charts


# What matches did to ratings.


@dataclass(frozen=True, slots=True)
class RatingMove:
    """What a rated match did to one player's rating: before, after, and the change."""

    before: int
    after: int
    #: The rating after the match is provisional.
    provisional: bool
    #: The rating before the match was provisional (the plates show it, "1500?").
    provisional_before: bool = False

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def text(self) -> str:
        """The rating after, "1549?" while provisional."""
        return f"{self.after}?" if self.provisional else str(self.after)

    @property
    def before_text(self) -> str:
        """The rating before, "1500?" while it was provisional."""
        return f"{self.before}?" if self.provisional_before else str(self.before)

    @property
    def delta_text(self) -> str:
        """The change as people write it: ``+14``, ``−3`` (a real minus sign), ``±0``."""
        delta = self.delta
        return f"+{delta}" if delta > 0 else f"\u2212{-delta}" if delta < 0 else "\u00b10"


def rating_moves(*, match_ids: Iterable[int]) -> dict[int, dict[int, RatingMove]]:
    """The rating changes of matches by match and seat, as they stand (a match whose changes a
    void took back has none): one query, none without a match."""
    ids = set(match_ids)
    if not ids:
        return {}
    changes: dict[int, list[RatingChange]] = {}
    for change in RatingChange.objects.filter(match_id__in=ids).order_by("id"):
        changes.setdefault(change.match_id, []).append(change)
    return {
        match_id: {
            c.seat: RatingMove(
                before=c.rating_before,
                after=c.rating_after,
                provisional=is_provisional(c.sigma_after),
                provisional_before=is_provisional(c.sigma_before),
            )
            for c in rows
            if c.kind == RatingChange.Kind.MATCH
        }
        for match_id, rows in changes.items()
        # The latest change says how the match stands: a void takes it back, a restore gives
        # it again.
        if rows[-1].kind != RatingChange.Kind.VOID
    }
