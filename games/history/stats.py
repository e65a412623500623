"""A player's statistics for the public profile, aggregated in the database.

Every count is over the matches a user sat in as a person that were played to the end on this
site: matches still being played, abandoned ones, imported game records (``Match.imported``)
and matches a moderator voided (``Match.voided``) are left out. Each group of statistics is one
aggregating query whatever the number of matches and hands, so :func:`player_stats` makes four
queries for a player with no match or with ten thousand, and reads a bounded number of rows.

A *side* is a team in the four-player games, Hokm's and Court Piece (seats s and s + 2, R1.4,
R9.1.1), and a single seat otherwise (``Variant.side_of``); ``Match.winner_side`` and
``Hand.winner_side`` name sides. A Court Piece deal is a hand here: its caller is its Hakem (the
one who calls trump, R9.3), and its courts (R9.7, R9.8.2) are counted apart from Hokm's Kots.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import TYPE_CHECKING, TypedDict

from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    Max,
    Q,
    QuerySet,
    When,
)
from django.db.models.functions import Mod

from accounts.models import User
from games.engine import GAME_VARIANTS
from games.models import Hand, Match, MatchSeat

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

#: Variants played in two teams of partners (R1.4, R9.1.1). In the others every seat is a side of
#: its own.
_PARTNERSHIP_VARIANTS = [name for name, rules in GAME_VARIANTS.items() if rules.partnerships]
#: Partners sit opposite (R1.4): seat s and seat s + players / 2.
_PARTNER_OFFSETS = {name: GAME_VARIANTS[name].players // 2 for name in _PARTNERSHIP_VARIANTS}

#: How many of a player's latest matches the results chart shows.
CHART_MATCHES = 50


@dataclass(frozen=True, slots=True)
class Ratio:
    """``part`` out of ``whole``, with the share as a whole percentage."""

    part: int
    whole: int

    @property
    def percent(self) -> int | None:
        """The share rounded to a whole percent; None when there is nothing to share (no 0/0)."""
        return round(100 * self.part / self.whole) if self.whole else None


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """Finished matches a user played, and how many of them their side won."""

    played: int
    won: int

    @property
    def lost(self) -> int:
        return self.played - self.won

    @property
    def won_percent(self) -> int | None:
        """Share of the matches played that were won, rounded; None before the first match."""
        return Ratio(self.won, self.played).percent


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The hands of a user's finished matches, from his side's point of view.

    A *Kot* is a hand whose winning side took the first 7 tricks (R5.2, R5.3.1); a *Hakem Kot* is
    a Kot taken against the Hakem's side, and is counted among the Kots as well.
    """

    played: int = 0
    won: int = 0
    kots_made: int = 0
    hakem_kots_made: int = 0
    kots_suffered: int = 0
    hakem_kots_suffered: int = 0
    as_hakem: int = 0
    won_as_hakem: int = 0
    #: Court Piece (R9): its deals, and those of them that scored courts for his side and
    #: against it (court, goon court, 52-court, seven in a row: R9.7, R9.8.2).
    deals: int = 0
    courts_made: int = 0
    courts_suffered: int = 0

    @property
    def won_ratio(self) -> Ratio:
        return Ratio(self.won, self.played)

    @property
    def hakem_ratio(self) -> Ratio:
        """Hands he called trump in that his side won, out of the hands he called trump in."""
        return Ratio(self.won_as_hakem, self.as_hakem)


@dataclass(frozen=True, slots=True)
class Partner:
    """The person a user played most finished four-player matches with as partners."""

    user: User
    played: int
    won: int

    @property
    def won_percent(self) -> int | None:
        return Ratio(self.won, self.played).percent


@dataclass(frozen=True, slots=True)
class ChartResult:
    """One match on the results chart: whether his side won and when it ended."""

    won: bool
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """Everything the public profile shows about a player's games."""

    record: PlayerRecord
    hands: HandRecord
    partner: Partner | None
    #: His latest matches (at most :data:`CHART_MATCHES`), oldest first.
    recent: tuple[ChartResult, ...]

    @property
    def chart(self) -> ResultsChart | None:
        return results_chart(self.recent)


def _seat_side() -> Case:
    """The side of a MatchSeat's seat, as ``Variant.side_of`` gives it, in SQL."""
    return Case(
        When(match__variant__in=_PARTNERSHIP_VARIANTS, then=Mod(F("index"), 2)),
        default=F("index"),
        output_field=IntegerField(),
    )


class _Side(TypedDict):
    side: int


def finished_seats(*, user: User) -> QuerySet[WithAnnotations[MatchSeat, _Side]]:
    """The seats ``user`` played in matches finished on this site, each with its ``side``; a
    match a moderator voided counts for nothing."""
    return MatchSeat.objects.filter(
        user=user, match__status=Match.Status.FINISHED, match__imported=False, match__voided=False
    ).annotate(side=_seat_side())


def player_record(*, user: User) -> PlayerRecord:
    """Count the finished matches ``user`` sat in and those their side won, in one query.

    A person sits in at most one seat of a table (``games.lobby.services.table_join_seat``), so
    seats and matches are counted alike.
    """
    totals = finished_seats(user=user).aggregate(
        played=Count("pk"),
        won=Count("pk", filter=Q(side=F("match__winner_side"))),
    )
    return PlayerRecord(played=totals["played"], won=totals["won"])


def hand_record(*, user: User) -> HandRecord:
    """Hands, Kots and Hakem hands of ``user``'s finished matches, in one query.

    The database counts the hands by everything a statistic depends on (variant, his seat, the
    Hakem, the winning side, the Kot flags, the points: a Court Piece deal's courts): at most a few
    hundred groups whatever the number of
    hands, and the sides are worked out here with the engine's own ``Variant.side_of``. On
    PostgreSQL with 100,000 hands this took a third less time than one conditional count per
    statistic (``Count(filter=Q(...))``), which evaluates every condition on every joined row.
    """
    groups = (
        finished_seats(user=user)
        .filter(match__hands__status=Hand.Status.FINISHED)
        .values_list(
            "match__variant",
            "index",
            "match__hands__hakem",
            "match__hands__winner_side",
            "match__hands__kot",
            "match__hands__hakem_kot",
            "match__hands__points",
        )
        .annotate(hands=Count("pk"))
        .order_by()
    )
    totals: Counter[str] = Counter()
    for variant, seat, hakem, winner, kot, hakem_kot, points, hands in groups:
        rules = GAME_VARIANTS[variant]
        side = rules.side_of(seat)
        won = winner == side
        if rules.family == "court-piece":
            totals["deals"] += hands
            if points:  # a deal's courts, the seven-in-a-row court included (R9.7, R9.8.2)
                totals["courts_made" if won else "courts_suffered"] += hands
        totals["played"] += hands
        if won:
            totals["won"] += hands
        if kot:
            # Every Kot is made by one side and suffered by all the others (R5.2, R5.3.1).
            totals["kots_made" if won else "kots_suffered"] += hands
        if hakem_kot and won:
            totals["hakem_kots_made"] += hands
        if hakem_kot and rules.side_of(hakem) == side:
            totals["hakem_kots_suffered"] += hands
        if hakem == seat:
            totals["as_hakem"] += hands
            if won:
                totals["won_as_hakem"] += hands
    return HandRecord(**totals)


def favourite_partner(*, user: User, include_private: bool = False) -> Partner | None:
    """The person who sat opposite ``user`` in most finished four-player matches, in one query.

    Computer players are not people and are left out. Ties go to the partner with more wins
    together, then to the one he played with most recently. Matches at private tables count only
    with ``include_private`` (the player's own view): on the page others see, they would tell
    who plays with whom behind closed doors.
    """
    # Not ~Q(...is_private=True): a negated condition on a many-valued relation becomes a
    # subquery that would drop every partner who ever sat at a private table.
    shown = (
        Q()
        if include_private
        else Q(match_seats__match__table__isnull=True)
        | Q(match_seats__match__table__is_private=False)
    )
    # The seat opposite his partner's seat ``match_seats`` in the same match (R1.4).
    opposite = Case(
        *(
            When(
                match_seats__match__variant=name,
                then=Mod(F("match_seats__index") + offset, 2 * offset),
            )
            for name, offset in _PARTNER_OFFSETS.items()
        ),
        output_field=IntegerField(),
    )
    # One filter() call, so the partner's seat, its match and the user's seat are joined once and
    # the annotations below count over exactly those rows.
    best = (
        User.objects.filter(
            shown,
            match_seats__match__variant__in=_PARTNERSHIP_VARIANTS,
            match_seats__match__status=Match.Status.FINISHED,
            match_seats__match__imported=False,
            match_seats__match__voided=False,
            match_seats__match__seats__user=user,
            match_seats__match__seats__index=opposite,
        )
        .exclude(pk=user.pk)
        .annotate(
            played=Count("match_seats"),
            # Two sides in every partnership variant: seats s and s + 2 are side s % 2.
            won=Count(
                "match_seats",
                filter=Q(match_seats__match__winner_side=Mod(F("match_seats__index"), 2)),
            ),
            latest=Max("match_seats__match"),
        )
        .order_by("-played", "-won", "-latest")
        .first()
    )
    if best is None:
        return None
    return Partner(user=best, played=best.played, won=best.won)


def recent_results(*, user: User, limit: int = CHART_MATCHES) -> tuple[ChartResult, ...]:
    """``user``'s latest ``limit`` finished matches, oldest first, in one query.

    Latest by id, that is by when they started: the ``MatchSeat (user, -match)`` index gives them
    in that order without a sort.
    """
    rows = (
        finished_seats(user=user)
        .order_by("-match")
        .values_list("side", "match__winner_side", "match__finished_at")[:limit]
    )
    return tuple(
        ChartResult(won=side == winner, finished_at=finished_at)
        for side, winner, finished_at in reversed(rows)
    )


def player_stats(*, user: User, include_private: bool = False) -> PlayerStats:
    """Everything the profile shows about ``user``'s play: four queries. ``include_private``:
    his partners at private tables count too (his own view of his page)."""
    return PlayerStats(
        record=player_record(user=user),
        hands=hand_record(user=user),
        partner=favourite_partner(user=user, include_private=include_private),
        recent=recent_results(user=user),
    )


def net_results(results: Sequence[ChartResult]) -> list[int]:
    """Matches won minus matches lost after each match, starting from 0 before the first."""
    net = [0]
    for result in results:
        net.append(net[-1] + (1 if result.won else -1))
    return net


def signed(value: int) -> str:
    """``+3``, ``0``, ``−2`` (with a real minus sign): a net result as people write it."""
    return f"+{value}" if value > 0 else f"\u2212{-value}" if value < 0 else "0"


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """A point of the chart: ``x`` in percent of the width, ``y`` in pixels from the top."""

    x: str
    y: str
    net: int
    won: bool
    finished_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ChartRule:
    """A horizontal rule across the chart at a net result, with its label."""

    y: str
    label: str
    zero: bool


@dataclass(frozen=True, slots=True)
class ResultsChart:
    """The geometry of the results chart: a line of the net result, one point per match.

    The chart is drawn with its ``x`` coordinates in percent and ``y`` in pixels, without a
    ``viewBox``, so it stretches to any width while its text and dots keep their size. Numbers
    are written here (``"12.50%"``) so that no locale's decimal comma reaches the SVG.
    """

    height: int
    origin: ChartPoint
    points: tuple[ChartPoint, ...]
    rules: tuple[ChartRule, ...]
    radius: str
    won: int
    lost: int
    first_at: datetime | None
    last_at: datetime | None

    @property
    def count(self) -> int:
        return len(self.points)

    @property
    def net(self) -> str:
        """The net result after the last match, signed."""
        return signed(self.points[-1].net)

    @property
    def signed_points(self) -> list[tuple[ChartPoint, str]]:
        """Each point with its net result written for people."""
        return [(point, signed(point.net)) for point in self.points]

    @property
    def segments(self) -> list[tuple[ChartPoint, ChartPoint]]:
        """The line, as one segment from each point to the next (SVG has no percent polyline)."""
        return list(pairwise((self.origin, *self.points)))


#: Pixels: the chart's height, and the room above and below the line for the rules' labels.
CHART_HEIGHT = 168
_CHART_PAD = 12
#: Percent of the width kept clear at each end, so the first and last dots are whole.
_CHART_INSET = 2.0


def results_chart(results: Sequence[ChartResult]) -> ResultsChart | None:
    """Lay out the chart of ``results`` (oldest first); None when there is no match to draw."""
    if not results:
        return None
    net = net_results(results)
    high, low = max(net), min(net)
    span = high - low  # at least 1: the first match moves the line off 0
    plot = CHART_HEIGHT - 2 * _CHART_PAD
    steps = len(results)

    def point(i: int) -> tuple[str, str]:
        x = _CHART_INSET + (100 - 2 * _CHART_INSET) * i / steps
        y = _CHART_PAD + plot * (high - net[i]) / span
        return f"{x:.2f}%", f"{y:.1f}"

    def rule(value: int) -> ChartRule:
        y = _CHART_PAD + plot * (high - value) / span
        return ChartRule(y=f"{y:.1f}", label=signed(value), zero=value == 0)

    origin_x, origin_y = point(0)
    points = tuple(
        ChartPoint(*point(i), net=net[i], won=result.won, finished_at=result.finished_at)
        for i, result in enumerate(results, start=1)
    )
    won = sum(result.won for result in results)
    return ResultsChart(
        height=CHART_HEIGHT,
        origin=ChartPoint(x=origin_x, y=origin_y, net=0, won=False),
        points=points,
        rules=tuple(rule(value) for value in sorted({high, 0, low}, reverse=True)),
        # Smaller dots when many share the width of a phone.
        radius="4" if steps <= 20 else "3",
        won=won,
        lost=steps - won,
        first_at=results[0].finished_at,
        last_at=results[-1].finished_at,
    )
