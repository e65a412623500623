"""A player's statistics for the public profile, aggregated in the database.

Every count is over the matches a user sat in as a person that were played to the end on this
site: matches still being played, abandoned ones, imported game records (``Match.imported``)
and matches a moderator voided (``Match.voided``) are left out. His matches are read once
(``_played``: his seats, then those matches by key) and each group of statistics takes at most one
query more, so :func:`player_stats` makes five queries for a player with no match or with ten
thousand, each reading only his rows.

A *side* is a team in the four-player games, Hokm's and Court Piece (seats s and s + 2, R1.4,
R9.1.1), and a single seat otherwise (``Variant.side_of``); ``Match.winner_side`` and
``Hand.winner_side`` name sides. A Court Piece deal is a hand here: its caller is its Hakem (the
one who calls trump, R9.3), and its courts (R9.7, R9.8.2) are counted apart from Hokm's Kots.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from django.core.cache import cache
from django.db.models import Count

from accounts.models import User
from games.engine import GAME_VARIANTS
from games.models import Hand, Match, MatchSeat, Table
from lib import lookups  # noqa: F401 - registers ``__any``

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


@dataclass(frozen=True, slots=True)
class _Played:
    """One finished match ``user`` played, as the statistics read it."""

    match_id: int
    variant: str
    seat: int
    winner_side: int | None
    table_id: int | None

    @property
    def side(self) -> int:
        return GAME_VARIANTS[self.variant].side_of(self.seat)

    @property
    def won(self) -> bool:
        return self.winner_side == self.side


def _played(user: User) -> list[_Played]:
    """The finished matches ``user`` played, newest first, in two queries that each read only
    his rows: his seats on the ``MatchSeat (user, -match)`` index, then those matches by primary
    key. One join of his seats to ``games_match`` let PostgreSQL read the whole match table
    instead (it cannot tell a player's number of seats from the table's statistics): with
    100,000 matches that cost a player of 2,000 matches 20 to 50 ms a query (docs/performance.md).
    """
    seats = dict(MatchSeat.objects.filter(user=user).values_list("match_id", "index"))
    if not seats:
        return []
    rows = (
        Match.objects.filter(
            # One array parameter, not one per match (lib.lookups).
            pk__any=list(seats),
            status=Match.Status.FINISHED,
            imported=False,
            voided=False,
        )
        .order_by("-pk")
        # No dates: reading 2,000 of them cost more than the rest (the chart reads its own).
        .values_list("pk", "variant", "winner_side", "table_id")
    )
    return [
        _Played(
            match_id=pk,
            variant=variant,
            seat=seats[pk],
            winner_side=winner,
            table_id=table_id,
        )
        for pk, variant, winner, table_id in rows
    ]


def player_record(*, user: User, played: Sequence[_Played] | None = None) -> PlayerRecord:
    """Count the finished matches ``user`` sat in and those their side won.

    A person sits in at most one seat of a table (``games.lobby.services.table_join_seat``), so
    seats and matches are counted alike.
    """
    played = _played(user) if played is None else played
    return PlayerRecord(played=len(played), won=sum(match.won for match in played))


def hand_record(*, user: User, played: Sequence[_Played] | None = None) -> HandRecord:
    """Hands, Kots and Hakem hands of ``user``'s finished matches, in one query (after
    :func:`_played`).

    The database counts the hands by everything a statistic depends on (the match, for its
    variant and his seat; the Hakem, the winning side, the Kot flags, the points: a Court Piece
    deal's courts), on the ``Hand (match, number)`` index for his matches only, and the sides are
    worked out here with the engine's own ``Variant.side_of``.
    """
    played = _played(user) if played is None else played
    if not played:
        return HandRecord()
    by_match = {match.match_id: match for match in played}
    groups = (
        Hand.objects.filter(match__id__any=list(by_match), status=Hand.Status.FINISHED)
        .values_list("match_id", "hakem", "winner_side", "kot", "hakem_kot", "points")
        .annotate(hands=Count("pk"))
        .order_by()
    )
    totals: Counter[str] = Counter()
    for match_id, hakem, winner, kot, hakem_kot, points, hands in groups:
        match = by_match[match_id]
        rules = GAME_VARIANTS[match.variant]
        seat = match.seat
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


def favourite_partner(
    *, user: User, include_private: bool = False, played: Sequence[_Played] | None = None
) -> Partner | None:
    """The person who sat opposite ``user`` in most finished four-player matches.

    Computer players are not people and are left out. Ties go to the partner with more wins
    together, then to the one he played with most recently. Matches at private tables count only
    with ``include_private`` (the player's own view): on the page others see, they would tell
    who plays with whom behind closed doors.
    """
    played = _played(user) if played is None else played
    return _partner_of(_partner_tally(user=user, include_private=include_private, played=played))


def _partner_tally(
    *, user: User, include_private: bool, played: Sequence[_Played]
) -> tuple[int, int, int] | None:
    """The favourite partner's id, matches together and wins together, or None: a query for the
    private tables among his partnership matches (others' view only), one for the seats opposite
    his."""
    # The seat opposite his in each of his partnership matches (R1.4).
    opposite = {
        match.match_id: (
            match,
            (match.seat + _PARTNER_OFFSETS[match.variant]) % (2 * _PARTNER_OFFSETS[match.variant]),
        )
        for match in played
        if match.variant in _PARTNER_OFFSETS
    }
    if opposite and not include_private:
        # The private ones among their tables, by key (a join or a subquery made PostgreSQL read
        # every table of the site).
        private = set(
            Table.objects.filter(
                pk__any=sorted({m.table_id for m, _ in opposite.values() if m.table_id}),
                is_private=True,
            ).values_list("pk", flat=True)
        )
        opposite = {k: v for k, v in opposite.items() if v[0].table_id not in private}
    if not opposite:
        return None
    tally: dict[int, list[int]] = {}  # partner id -> [played, won, latest match]
    for match_id, index, partner_id in (
        MatchSeat.objects.filter(match__id__any=list(opposite), user__isnull=False)
        .exclude(user=user)
        .values_list("match_id", "index", "user_id")
    ):
        match, wanted = opposite[match_id]
        if index != wanted:
            continue
        counts = tally.setdefault(partner_id, [0, 0, 0])
        counts[0] += 1
        counts[1] += int(match.won)
        counts[2] = max(counts[2], match_id)
    if not tally:
        return None
    best_id, (count, won, _latest) = max(tally.items(), key=lambda item: tuple(item[1]))
    return best_id, count, won


def _partner_of(tally: tuple[int, int, int] | None) -> Partner | None:
    """The partner of a tally, read afresh (his name may have changed since it was counted)."""
    if tally is None:
        return None
    partner_id, count, won = tally
    partner = User.objects.filter(pk=partner_id).first()
    return Partner(user=partner, played=count, won=won) if partner is not None else None


def recent_results(
    *, user: User, limit: int = CHART_MATCHES, played: Sequence[_Played] | None = None
) -> tuple[ChartResult, ...]:
    """``user``'s latest ``limit`` finished matches, oldest first: one query for their dates.

    Latest by id, that is by when they started.
    """
    played = _played(user) if played is None else played
    latest = played[:limit]
    if not latest:
        return ()
    when = dict(
        Match.objects.filter(pk__any=[m.match_id for m in latest]).values_list("pk", "finished_at")
    )
    return tuple(
        ChartResult(won=match.won, finished_at=when.get(match.match_id))
        for match in reversed(latest)
    )


def player_stats(*, user: User, include_private: bool = False) -> PlayerStats:
    """Everything the profile shows about ``user``'s play. ``include_private``: his partners at
    private tables count too (his own view of his page).

    His matches are read each time (two queries); what they add up to in hands and partners is
    kept in the cache under the exact set of matches counted (:func:`_stats_key`), so it is
    counted again only when that set changes (a match finished, a void) and is never stale: a
    player of 2,000 matches has 17,000 hands to read (docs/performance.md). At most seven
    queries, two when nothing has changed since the last view.
    """
    played = _played(user)
    key = _stats_key(user=user, played=played, include_private=include_private)
    cached = cache.get(key)
    if cached is None:
        cached = (
            hand_record(user=user, played=played),
            _partner_tally(user=user, include_private=include_private, played=played),
        )
        cache.set(key, cached, STATS_CACHE_SECONDS)
    hands, tally = cached
    return PlayerStats(
        record=player_record(user=user, played=played),
        hands=hands,
        partner=_partner_of(tally),
        recent=recent_results(user=user, played=played),
    )


#: How long counted statistics stay in the cache unread. Their key changes with the matches
#: counted, so this only frees the memory of players who stopped coming by.
STATS_CACHE_SECONDS = 7 * 24 * 3600


def _stats_key(*, user: User, played: Sequence[_Played], include_private: bool) -> str:
    """The cache key of the statistics of exactly these matches, his seat in each: any match
    finished or voided since makes another key. Hands of a finished match never change."""
    digest = hashlib.sha256(
        ",".join(f"{m.match_id}:{m.seat}" for m in played).encode("ascii")
    ).hexdigest()
    return f"player-stats:1:{user.pk}:{int(include_private)}:{digest}"


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
