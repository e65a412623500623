"""Reads for the history pages: a player's matches, filtered and paginated, a match's summary, and
the file name of its record.

Every read here costs a fixed number of queries, whatever the number of matches, hands and
filters: "My games" reads the signed-in player's ``MatchSeat`` rows (index ``(user, -match)``)
with their match joined, filters them with ``EXISTS`` subqueries, and loads the seats of one page
of matches in one more query (the courts of its Court Piece matches in one more, R9.7, and the
rating changes of its rated matches in one more); a Hokm summary reads the hands' stored results
(``tricks_won``, ``winner_side``, ``points``, ``kot``, ``hakem_kot``), never the tricks or the
cards. A Court Piece summary replays its deals through the engine (R9.8's streak is nowhere
stored) and shows of the deal in play only what the engine's spectator view shows (R9.15.1).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    When,
)
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from games.engine import (
    GAME_VARIANTS,
    CourtPieceDeal,
    DealSummary,
    Suit,
    court_piece_view,
    get_variant,
)
from games.history.court_piece import (
    COURT_KINDS,
    DealKind,
    Setting,
    court_piece_settings,
    deal_kind,
    deal_kind_name,
)
from games.models import Hand, Match, MatchSeat
from games.play.access import match_public_q
from games.play.rendering import SuitFace, seat_name, suit_face
from games.play.selectors import court_piece_state_build
from games.ratings.selectors import RatingMove, rating_moves

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

#: Matches per page of "My games".
HISTORY_PAGE_SIZE = 20

#: Variants played by two teams of partners (R1.4, R9.1.1): seat s is on side s % 2. In the others
#: each seat is a side of its own, and every other player is an opponent.
PARTNERSHIP_VARIANTS = [name for name, rules in GAME_VARIANTS.items() if rules.partnerships]

Result = Literal["won", "lost"]
Computers = Literal["with", "without"]


@dataclass(frozen=True, slots=True)
class HistoryFilters:
    """What "My games" is narrowed to; every field left as None does not narrow it."""

    variant: str | None = None
    #: Won or lost: matches still being played or abandoned are neither.
    result: Result | None = None
    #: A username: that player sat on the viewer's side.
    partner: str | None = None
    #: A username: that player sat on another side.
    opponent: str | None = None
    #: With at least one computer player, or with none.
    computers: Computers | None = None
    #: First and last day (inclusive, in the site's time zone) the match was created.
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None


@dataclass(frozen=True, slots=True)
class Player:
    """A seat of a match as the history pages show it."""

    seat: int
    name: str
    #: None for a computer player, an imported seat, a deleted account or an inactive one.
    username: str | None
    computer: bool
    you: bool
    #: A rated match's change of this player's rating, in "My games".
    rating: RatingMove | None = None


@dataclass(frozen=True, slots=True)
class CourtTally:
    """Court Piece: how many deals of one scoring kind a side made in a match (R9.7, R9.8.2)."""

    kind: DealKind
    name: str
    count: int
    #: Made by the viewer's side; else made against it.
    yours: bool


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One match of "My games", seen from the viewer's seat."""

    match: Match
    partners: list[Player]
    opponents: list[Player]
    #: Points per side (courts in Court Piece, R9.7), the viewer's side first.
    scores: list[int]
    result: Result | None
    playing: bool
    court_piece: bool = False
    #: Court Piece: the deals that scored courts, the viewer's side's first.
    courts: tuple[CourtTally, ...] = ()
    #: The viewer's side (R1.4) and seat.
    side: int = 0
    seat: int = 0
    #: A rated match's change of the viewer's rating, as it stands (none once voided).
    rating: RatingMove | None = None

    @property
    def rated(self) -> bool:
        return self.match.rated

    @property
    def groups(self) -> list[tuple[str, list[Player]]]:
        """Partners then opponents, leaving out partners where there are none."""
        groups = [("partners", self.partners), ("opponents", self.opponents)]
        return [(kind, players) for kind, players in groups if players]


@dataclass(frozen=True, slots=True)
class HistoryPage:
    rows: list[HistoryRow]
    page: Page[WithAnnotations[MatchSeat, _MySide]]


def _my_side() -> Case:
    """The viewer's side, from the viewer's own ``MatchSeat`` row (R1.4)."""
    return Case(
        When(match__variant__in=PARTNERSHIP_VARIANTS, then=F("index") % 2),
        default=F("index"),
        output_field=IntegerField(),
    )


def _user_named(username: str) -> Subquery:
    """The id of the user called ``username`` in any letter case (the exact spelling first).

    Not correlated with the outer query, so the database looks the name up once, not per match.
    """
    users = get_user_model().objects.filter(username__iexact=username)
    exact_first = Case(When(username=username, then=0), default=1, output_field=IntegerField())
    return Subquery(users.order_by(exact_first, "pk").values("pk")[:1])


# What the querysets below annotate their seats with, for the type checker.
class _Parity(TypedDict):
    parity: int


class _MySide(TypedDict):
    my_side: int


class _Username(TypedDict):
    username: str | None


def _named_elsewhere(username: str) -> QuerySet[WithAnnotations[MatchSeat, _Parity]]:
    """The seats of the outer row's match held by ``username``, other than the outer row's."""
    return (
        MatchSeat.objects.filter(match_id=OuterRef("match_id"), user_id=_user_named(username))
        .exclude(index=OuterRef("index"))
        .annotate(parity=F("index") % 2)
    )


def _with_partner(username: str) -> Q:
    same_team = _named_elsewhere(username).filter(parity=OuterRef("index") % 2)
    return Q(match__variant__in=PARTNERSHIP_VARIANTS) & Q(Exists(same_team))


def _against(username: str) -> Q:
    other_team = _named_elsewhere(username).exclude(parity=OuterRef("index") % 2)
    teams = Q(match__variant__in=PARTNERSHIP_VARIANTS)
    return (teams & Q(Exists(other_team))) | (~teams & Q(Exists(_named_elsewhere(username))))


def _day_start(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def history_seats(
    *, user: Any, filters: HistoryFilters
) -> QuerySet[WithAnnotations[MatchSeat, _MySide]]:
    """The seats ``user`` held as a person, one per match, narrowed by ``filters``; each row has
    its match joined and ``my_side`` annotated.

    Newest first by match number: matches are numbered as they are created, and the index
    ``(user, -match)`` hands the rows over in that order.
    """
    seats = (
        MatchSeat.objects.filter(user=user)
        .select_related("match")
        .annotate(my_side=_my_side())
        .order_by("-match_id")
    )
    if filters.variant:
        seats = seats.filter(match__variant=filters.variant)
    if filters.result is not None:
        finished = Q(
            match__status=Match.Status.FINISHED,
            match__winner_side__isnull=False,
            match__voided=False,
        )
        won = Q(match__winner_side=F("my_side"))
        seats = seats.filter(finished & (won if filters.result == "won" else ~won))
    if filters.partner:
        seats = seats.filter(_with_partner(filters.partner))
    if filters.opponent:
        seats = seats.filter(_against(filters.opponent))
    if filters.computers is not None:
        computer = Exists(
            MatchSeat.objects.filter(match_id=OuterRef("match_id"), computer_level__isnull=False)
        )
        seats = seats.filter(computer if filters.computers == "with" else ~computer)
    if filters.date_from is not None:
        seats = seats.filter(match__created_at__gte=_day_start(filters.date_from))
    # The last day a date can be (9999-12-31) has no next day: it leaves the end open.
    if filters.date_to is not None and filters.date_to < datetime.date.max:
        next_day = filters.date_to + datetime.timedelta(days=1)
        seats = seats.filter(match__created_at__lt=_day_start(next_day))
    return seats


def _seats_with_usernames() -> QuerySet[WithAnnotations[MatchSeat, _Username]]:
    # An inactive account has no profile (404) and nothing to report: its name gets no link.
    username = Case(When(user__is_active=True, then=F("user__username")), default=None)
    return MatchSeat.objects.annotate(username=username).order_by("index")


def _player(seat: WithAnnotations[MatchSeat, _Username], *, viewer_id: int | None) -> Player:
    return Player(
        seat=seat.index,
        name=seat_name(seat),
        username=seat.username,
        computer=seat.computer_level is not None,
        you=viewer_id is not None and seat.user_id == viewer_id,
    )


def history_page(
    *,
    user: Any,
    filters: HistoryFilters,
    page_number: int | str | None = 1,
    per_page: int = HISTORY_PAGE_SIZE,
) -> HistoryPage:
    """One page of ``user``'s matches: three queries (the count, the page, the page's seats),
    one more when the page has a Court Piece match (its courts), and one more when it has a rated
    match (the rating changes).

    A page number that is not a number gives the first page, one out of range the last.
    """
    seats = history_seats(user=user, filters=filters)
    return _history_page_of(seats, viewer_id=user.pk, page_number=page_number, per_page=per_page)


def player_public_history(
    *,
    player: Any,
    viewer: Any,
    page_number: int | str | None = 1,
    per_page: int = HISTORY_PAGE_SIZE,
) -> HistoryPage:
    """One page of ``player``'s matches that anyone may see, signed out too: over, at a public
    table (``games.play.access.match_public``), seen from his seat, newest first; ``viewer``'s own
    seat among the others is marked as his. The queries of :func:`history_page`.

    A private table's match, an imported one and one still being played are left out: on the page
    others see, they would tell what the access rules keep from them.
    """
    seats = history_seats(user=player, filters=HistoryFilters()).filter(match_public_q("match__"))
    viewer_id = viewer.pk if getattr(viewer, "is_authenticated", False) else None
    return _history_page_of(seats, viewer_id=viewer_id, page_number=page_number, per_page=per_page)


def _history_page_of(
    seats: QuerySet[WithAnnotations[MatchSeat, _MySide]],
    *,
    viewer_id: int | None,
    page_number: int | str | None,
    per_page: int,
) -> HistoryPage:
    seats = seats.prefetch_related(Prefetch("match__seats", queryset=_seats_with_usernames()))
    page = Paginator(seats, per_page).get_page(page_number)
    rows = [_history_row(seat, viewer_id=viewer_id) for seat in page.object_list]
    return HistoryPage(rows=_with_ratings(_with_courts(rows)), page=page)


def _with_ratings(rows: list[HistoryRow]) -> list[HistoryRow]:
    """The rows with their rated matches' rating changes: one query, and none when the page has
    no rated match that finished."""
    rated = [
        row.match.pk
        for row in rows
        if row.match.rated and row.match.status == Match.Status.FINISHED and not row.match.voided
    ]
    if not rated:
        return rows
    moves = rating_moves(match_ids=rated)

    def rated_players(players: list[Player], seats: dict[int, RatingMove]) -> list[Player]:
        return [replace(p, rating=seats.get(p.seat)) for p in players]

    return [
        replace(
            row,
            rating=seats.get(row.seat),
            partners=rated_players(row.partners, seats),
            opponents=rated_players(row.opponents, seats),
        )
        if (seats := moves.get(row.match.pk))
        else row
        for row in rows
    ]


def _with_courts(rows: list[HistoryRow]) -> list[HistoryRow]:
    """The rows with the courts of their Court Piece matches: one query, and none when the page
    has no Court Piece match."""
    sides = {row.match.pk: row.side for row in rows if row.court_piece}
    if not sides:
        return rows
    groups = (
        Hand.objects.filter(match_id__in=sides, status=Hand.Status.FINISHED)
        .filter(Q(outcome__in=["court", "52-court"]) | Q(streak_court=True))
        .values_list("match_id", "outcome", "goon", "streak_court", "winner_side")
        .annotate(deals=Count("pk"))
        .order_by()
    )
    tallies: dict[int, dict[tuple[DealKind, bool], int]] = {}
    for match_id, outcome, goon, streak_court, winner, deals in groups:
        kind = deal_kind(outcome=outcome, goon=goon, streak_court=streak_court)
        if kind is None:
            continue
        key = (kind, winner == sides[match_id])
        counts = tallies.setdefault(match_id, {})
        counts[key] = counts.get(key, 0) + deals
    return [
        replace(row, courts=_tallies(tallies.get(row.match.pk, {}))) if row.court_piece else row
        for row in rows
    ]


def _tallies(counts: dict[tuple[DealKind, bool], int]) -> tuple[CourtTally, ...]:
    return tuple(
        CourtTally(kind=kind, name=deal_kind_name(kind), count=counts[kind, yours], yours=yours)
        for yours in (True, False)
        for kind in COURT_KINDS
        if counts.get((kind, yours))
    )


def _history_row(mine: WithAnnotations[MatchSeat, _MySide], *, viewer_id: int | None) -> HistoryRow:
    match = mine.match
    variant = get_variant(match.variant)
    side = mine.my_side
    # The seats prefetched by history_page, with their usernames.
    seats = cast("QuerySet[WithAnnotations[MatchSeat, _Username]]", match.seats.all())
    others = [_player(s, viewer_id=viewer_id) for s in seats if s.index != mine.index]
    scores = list(match.scores) or [0] * variant.sides
    result: Result | None = None
    # A voided match stays listed but has no result (a moderator took it out of the statistics).
    if match.status == Match.Status.FINISHED and match.winner_side is not None and not match.voided:
        result = "won" if match.winner_side == side else "lost"
    return HistoryRow(
        match=match,
        partners=[p for p in others if variant.side_of(p.seat) == side],
        opponents=[p for p in others if variant.side_of(p.seat) != side],
        scores=[scores[side], *(points for s, points in enumerate(scores) if s != side)],
        result=result,
        playing=match.status == Match.Status.PLAYING,
        court_piece=variant.family == "court-piece",
        side=side,
        seat=mine.index,
    )


def history_co_players(*, user: Any, recent: int = 200) -> list[str]:
    """Usernames of the people ``user`` played with or against in his last ``recent`` matches,
    for the filter's suggestions: one query, its work bounded by ``recent`` whatever the length
    of his history."""
    recent_matches = (
        MatchSeat.objects.filter(user=user).order_by("-match_id").values("match_id")[:recent]
    )
    return list(
        MatchSeat.objects.filter(match_id__in=Subquery(recent_matches), user__isnull=False)
        .exclude(user=user)
        .values_list("user__username", flat=True)
        .distinct()
        .order_by("user__username")
    )


# The summary of one match.


@dataclass(frozen=True, slots=True)
class Side:
    index: int
    #: "Team A" and "Team B" where partners play together (R1.4), else the player's name.
    label: str
    players: list[Player]
    score: int
    winner: bool
    yours: bool

    @property
    def names(self) -> str:
        return " & ".join(p.name for p in self.players)


@dataclass(frozen=True, slots=True)
class HandLine:
    """One hand of the running table: who called, what, how it ended and the score after it."""

    number: int  # 1-based, as people count hands and as replay links (#h3) do
    hakem: Player
    trump: SuitFace | None
    #: Tricks per side so far, in the order of ``MatchSummary.sides``.
    tricks: list[int]
    finished: bool
    winner: Side | None
    points: int | None
    kot: bool
    hakem_kot: bool
    #: Points per side after this hand, in the order of ``MatchSummary.sides``.
    scores_after: list[int]

    @property
    def anchor(self) -> str:
        return f"h{self.number}"


@dataclass(frozen=True, slots=True)
class DealLine:
    """One Court Piece deal of the running table (R9): who dealt and called, the trump, how it
    ended, the courts it scored and the streak after it."""

    number: int  # 1-based, as the replay links (#h3) count
    dealer: Player
    caller: Player
    #: None while trump is not public: before the call, or hidden and not yet revealed (R9.14).
    trump: SuitFace | None
    #: Under hidden trump (R9.14): how the indicator came face up, or that it has not.
    hidden: str
    #: Tricks per side so far, collected ones under Double Sir (R9.12.5), in the order of
    #: ``MatchSummary.sides``.
    tricks: list[int]
    finished: bool
    winner: Side | None
    kind: DealKind | None
    kind_name: str
    courts: int | None  # R9.7 plus R9.8.2
    #: R9.8: the side holding the streak after this deal and its count; None when cleared.
    streak_side: Side | None
    streak_count: int
    #: Courts per side after this deal, in the order of ``MatchSummary.sides``.
    scores_after: list[int]

    @property
    def anchor(self) -> str:
        return f"h{self.number}"


@dataclass(frozen=True, slots=True)
class MatchSummary:
    match: Match
    players: list[Player]
    #: The viewer's side first, as players read "us - them"; otherwise in seat order.
    sides: list[Side]
    hands: list[HandLine]
    winner: Side | None
    team_play: bool
    viewer_seat: int | None
    #: Court Piece (R9): its deals instead of ``hands``, and its table settings (R9.11).
    court_piece: bool = False
    deals: list[DealLine] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)


_TEAM_LABELS = (_("Team A"), _("Team B"))

#: What the running table reads of each hand: its stored result, never its deck or its plays.
_HAND_FIELDS = (
    "number",
    "hakem",
    "trump",
    "status",
    "tricks_won",
    "winner_side",
    "points",
    "kot",
    "hakem_kot",
)


def match_summary_build(*, match: Match, viewer: Any) -> MatchSummary:
    """Players by side, the final score and every hand's stored result: two queries (the seats
    and the hands), whatever the number of hands."""
    variant = get_variant(match.variant)
    viewer_id = viewer.pk if getattr(viewer, "is_authenticated", False) else None
    players = [_player(s, viewer_id=viewer_id) for s in _seats_with_usernames().filter(match=match)]
    viewer_seat = next((p.seat for p in players if p.you), None)
    viewer_side = variant.side_of(viewer_seat) if viewer_seat is not None else None
    scores = list(match.scores) or [0] * variant.sides
    order = sorted(range(variant.sides), key=lambda side: side != viewer_side)
    sides = [
        Side(
            index=side,
            label=str(_TEAM_LABELS[side]) if variant.partnerships else players[side].name,
            players=[p for p in players if variant.side_of(p.seat) == side],
            score=scores[side],
            winner=match.winner_side == side,
            yours=side == viewer_side,
        )
        for side in order
    ]
    by_index = {side.index: side for side in sides}
    if variant.family == "court-piece":
        return MatchSummary(
            match=match,
            players=players,
            sides=sides,
            hands=[],
            winner=by_index.get(match.winner_side) if match.winner_side is not None else None,
            team_play=True,
            viewer_seat=viewer_seat,
            court_piece=True,
            deals=_deal_lines(match=match, players=players, sides=sides),
            settings=court_piece_settings(match),
        )
    hands = Hand.objects.filter(match=match).order_by("number").only(*_HAND_FIELDS)
    running = [0] * variant.sides
    lines = []
    for hand in hands:
        tricks = [0] * variant.sides
        for seat, count in enumerate(hand.tricks_won or []):
            tricks[variant.side_of(seat)] += count
        winner_side = hand.winner_side if hand.status == Hand.Status.FINISHED else None
        finished = winner_side is not None
        if winner_side is not None:
            running[winner_side] += hand.points or 0
        lines.append(
            HandLine(
                number=hand.number + 1,
                hakem=players[hand.hakem],
                trump=suit_face(Suit(hand.trump)) if hand.trump else None,
                tricks=[tricks[side] for side in order],
                finished=finished,
                winner=by_index[winner_side] if winner_side is not None else None,
                points=hand.points if finished else None,
                kot=finished and hand.kot,
                hakem_kot=finished and hand.hakem_kot,
                scores_after=[running[side] for side in order],
            )
        )
    return MatchSummary(
        match=match,
        players=players,
        sides=sides,
        hands=lines,
        winner=by_index.get(match.winner_side) if match.winner_side is not None else None,
        team_play=variant.partnerships,
        viewer_seat=viewer_seat,
    )


def _deal_lines(*, match: Match, players: list[Player], sides: list[Side]) -> list[DealLine]:
    """Every deal of a Court Piece match, replayed by the engine: two queries (the deals and
    their plays). The deal in play shows only what a spectator's view of it shows (R9.15.1)."""
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    if not hands:
        return []
    state = court_piece_state_build(match=match, hands=hands)
    by_index = {side.index: side for side in sides}
    order = [side.index for side in sides]
    lines = []
    for number, hand in enumerate(hands):
        summary = state.summaries[number] if number < len(state.summaries) else None
        if summary is not None:
            lines.append(_finished_deal_line(number, hand, summary, players, by_index, order))
        else:
            lines.append(_deal_in_play_line(number, state.deal, state.scores, players, order=order))
    return lines


def _finished_deal_line(
    number: int,
    hand: Hand,
    summary: DealSummary,
    players: list[Player],
    by_index: dict[int, Side],
    order: list[int],
) -> DealLine:
    result = summary.result
    kind = deal_kind(
        outcome=result.outcome.value, goon=result.goon, streak_court=summary.streak_court
    )
    assert kind is not None  # a finished deal
    streak = summary.streak
    return DealLine(
        number=number + 1,
        dealer=players[summary.dealer],
        caller=players[summary.caller],
        # A finished deal's trump is history, hidden or not (R9.15.1).
        trump=suit_face(Suit(hand.trump)) if hand.trump else None,
        hidden=_hidden_note(hand.indicator, hand.reveal, players, caller=summary.caller, over=True),
        tricks=[result.side_tricks[side] for side in order],
        finished=True,
        winner=by_index[result.winner],
        kind=kind,
        kind_name=deal_kind_name(kind),
        courts=summary.courts,
        streak_side=by_index[streak.side] if streak.side is not None else None,
        streak_count=streak.count,
        scores_after=[summary.scores[side] for side in order],
    )


def _deal_in_play_line(
    number: int,
    deal: CourtPieceDeal,
    scores: tuple[int, int],
    players: list[Player],
    *,
    order: list[int],
) -> DealLine:
    # Of a deal in play, only what every spectator sees: no hidden trump, no indicator.
    shown = court_piece_view(deal, None)
    indicator = shown["indicator"]
    hidden = ""
    if indicator is not None and indicator["laid"]:
        hidden = _hidden_note(
            indicator["card"], indicator["reveal"], players, caller=deal.caller, over=False
        )
    return DealLine(
        number=number + 1,
        dealer=players[deal.dealer],
        caller=players[deal.caller],
        trump=suit_face(Suit(shown["trump"])) if shown["trump"] else None,
        hidden=hidden,
        tricks=[shown["side_tricks"][side] for side in order],
        finished=False,
        winner=None,
        kind=None,
        kind_name="",
        courts=None,
        streak_side=None,
        streak_count=0,
        scores_after=[scores[side] for side in order],
    )


def _hidden_note(
    indicator: str | None,
    reveal: dict[str, int] | None,
    players: list[Player],
    *,
    caller: int,
    over: bool,
) -> str:
    """How the indicator of hidden trump came face up (R9.14.2): who revealed it at which trick
    (counted from 1, R9); empty when trump was called aloud."""
    if indicator is None and reveal is None and over:
        return ""
    if reveal is None:
        # R9.14.5: a deal whose indicator never came face up was played without trumps.
        return str(_("never revealed: no trumps")) if over else str(_("hidden, face down"))
    values = {"name": players[reveal["seat"]].name, "trick": reveal["trick"] + 1}
    if reveal["seat"] == caller:
        return str(_("revealed by the caller %(name)s at trick %(trick)s") % values)
    return str(_("asked for by %(name)s at trick %(trick)s") % values)


# The record's file name.


def record_file_names(*, match: Match, players: Sequence[str]) -> tuple[str, str]:
    """The file name of a match's record: an ASCII one, and one that keeps names in any script.

    ``hokm-hokm4-2025-03-01-ali-sara-reza-mina-match12.json``: the variant, the day the match
    began, the players in seat order and the match number. A name with no ASCII letter (a Persian
    name) is left out of the ASCII name and kept in the other, which browsers prefer
    (``filename*``, RFC 6266).
    """
    day = timezone.localdate(match.created_at).isoformat()

    def file_name(names: list[str]) -> str:
        people = "-".join(name for name in names if name)[:80].strip("-")
        parts = ["hokm", match.variant, day, people, f"match{match.pk}"]
        return "-".join(part for part in parts if part) + ".json"

    ascii_name = file_name([slugify(name) for name in players])
    unicode_name = file_name([slugify(name, allow_unicode=True) for name in players])
    return ascii_name, unicode_name
