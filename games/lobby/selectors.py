"""Reads of tables before their match: the lobby's list, a table's page, invitations, and a
player's tables and matches in progress. The services beside them (``games.lobby.services``)
write; the consumers re-render their fragments from these after each change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils.text import capfirst
from django.utils.translation import pgettext

from games.engine import get_variant
from games.models import ComputerLevel, Match, MatchEvent, MatchSeat, Seat, Table
from games.play.presence import players_connected
from games.ratings.selectors import RatingShown, ratings_by_variant, ratings_for

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User


#: The lobby lists at most this many tables, newest first.
LOBBY_LIMIT = 100
#: An open table where nobody has taken or left a seat for this long is closed by the worker
#: (``games.lobby.services.tables_idle_close``): its players have mostly gone, and the lobby would
#: otherwise list it for good, for the next player to sit down and wait in vain.
TABLE_IDLE_SECONDS = 60 * 60


def player_name(user: User) -> str:
    """The name a person plays under: the display name, else the username."""
    return user.display_name or user.get_username()


def computer_player_name(*, level: str, index: int) -> str:
    """A computer player's one name, on every page, in the records and in the JSON protocol: its
    level and its seat, counted from 1 ("Medium bot 3").

    The seat number is always there, not only when two computers of one level meet: a page that
    names one seat (a lobby list, an export) then gives the same name as the table, and three
    "Medium bot" at one table can be told apart.
    """
    name = pgettext("a computer player's name: its level and seat number", "%(level)s bot %(seat)s")
    return name % {"level": capfirst(ComputerLevel(level).label), "seat": index + 1}


#: Where each seat is drawn around the table, by its place counted from the viewer's seat in play
#: order (R1.3: play goes anticlockwise, so the next seat is on the viewer's right).
_POSITIONS = {
    2: ("bottom", "top"),
    3: ("bottom", "top-right", "top-left"),
    4: ("bottom", "right", "top", "left"),
}


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as a page shows it."""

    index: int
    name: str
    user_id: int | None
    computer_level: str | None
    #: "A" (seats 0 and 2) or "B" (seats 1 and 3) with partnerships (R1.4), else "".
    team: str
    position: str
    is_viewer: bool
    #: A person's rating in the table's variant ("1500?" before his first rated match).
    rating: RatingShown | None = None

    @property
    def number(self) -> int:
        """The seat's number as shown: counted from 1."""
        return self.index + 1

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and self.computer_level is None


@dataclass(frozen=True, slots=True)
class TableView:
    """A table before (or just as) its match starts, from one viewer's point of view."""

    table: Table
    seats: tuple[SeatView, ...]
    viewer_id: int | None
    #: The table's latest match once it started, else None.
    match_id: int | None = None

    @property
    def taken(self) -> int:
        return sum(not seat.is_empty for seat in self.seats)

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def viewer_seat(self) -> SeatView | None:
        return next((seat for seat in self.seats if seat.is_viewer), None)

    @property
    def is_open(self) -> bool:
        return self.table.status == Table.Status.OPEN

    @property
    def has_teams(self) -> bool:
        return any(seat.team for seat in self.seats)

    @property
    def idle_minutes(self) -> int:
        """After how many minutes without a seat change an open table closes."""
        return TABLE_IDLE_SECONDS // 60

    @property
    def can_start(self) -> bool:
        """The viewer opened this table, sits at it and may start it now with computer players."""
        return (
            self.is_open
            and self.table.fill_with_computer
            and self.viewer_seat is not None
            and self.table.created_by_id == self.viewer_id
        )

    @property
    def sends_to_match(self) -> bool:
        """The match has started and the viewer may go and see it: as one of its players, or
        as a spectator where the table lets spectators in. Anyone else would only be turned
        away there."""
        return self.match_id is not None and (
            self.viewer_seat is not None or self.table.allow_spectators
        )

    @property
    def shows_invite(self) -> bool:
        """A seated player of a private table gets its invite link to pass on."""
        return self.table.is_private and self.viewer_seat is not None and self.is_open


def table_view(
    *,
    table: Table,
    viewer: User | AnonymousUser | None,
    seats: Iterable[Seat] | None = None,
    ratings: Mapping[int, RatingShown] | None = None,
) -> TableView:
    """A table and its seats for ``viewer`` (None or an anonymous user: nobody seated).

    ``seats`` are the table's seats when already loaded (with their users); otherwise one query.
    ``ratings`` are the seated people's ratings in the table's variant by user id when already
    read; otherwise one query, none when nobody sits there. With a viewer seated, the seats are
    drawn turned so that the viewer's is at the bottom.
    """
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    if seats is None:
        seats = Seat.objects.filter(table=table).select_related("user").order_by("index")
    seats = sorted(seats, key=lambda seat: seat.index)
    if ratings is None:
        ratings = ratings_for(user_ids=[seat.user_id for seat in seats], variant=table.variant)
    rules = get_variant(table.variant)
    count = len(seats)
    positions = _POSITIONS.get(count, tuple(f"place-{i}" for i in range(count)))
    turn = next((seat.index for seat in seats if viewer_id and seat.user_id == viewer_id), 0)
    views = tuple(
        SeatView(
            index=seat.index,
            name=_seat_name(seat),
            user_id=seat.user_id,
            computer_level=seat.computer_level,
            team=("A" if seat.index % 2 == 0 else "B") if rules.partnerships else "",
            position=positions[(seat.index - turn) % count],
            is_viewer=viewer_id is not None and seat.user_id == viewer_id,
            rating=ratings.get(seat.user_id) if seat.user_id is not None else None,
        )
        for seat in seats
    )
    # An open table has no match yet: the lobby's tables cost no query here.
    match_id = None if table.status == Table.Status.OPEN else table_current_match_id(table=table)
    return TableView(table=table, seats=views, viewer_id=viewer_id, match_id=match_id)


def _seat_name(seat: Seat) -> str:
    if seat.user is not None:
        return player_name(seat.user)
    if seat.computer_level is not None:
        return computer_player_name(level=seat.computer_level, index=seat.index)
    return ""


def lobby_tables(*, limit: int = LOBBY_LIMIT) -> list[TableView]:
    """Open public tables, newest first, each with its seats, their users and the users' ratings
    in the table's variant: three queries (two when nobody sits at any of them)."""
    tables = list(
        Table.objects.filter(status=Table.Status.OPEN, is_private=False)
        .order_by("-created_at", "-pk")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
        )[:limit]
    )
    pairs = [(seat.user_id, table.variant) for table in tables for seat in table.seats.all()]
    by_variant: dict[str, dict[int, RatingShown]] = {}
    for (user_id, variant), rating in ratings_by_variant(pairs=pairs).items():
        by_variant.setdefault(variant, {})[user_id] = rating
    return [
        table_view(
            table=table,
            viewer=None,
            seats=table.seats.all(),
            ratings=by_variant.get(table.variant, {}),
        )
        for table in tables
    ]


#: What an invite code can look like (``games.models.new_invite_code``: URL-safe base64).
_INVITE_CODE = re.compile(rf"[A-Za-z0-9_-]{{1,{Table._meta.get_field('invite_code').max_length}}}")


def table_for_invite(code: str) -> Table | None:
    """The table a private invite link leads to, or None for an unknown code.

    A code that no invite link can hold is not looked up: PostgreSQL refuses a text with NUL
    (``/invite/%00/``) with an error instead of finding nothing.
    """
    if not _INVITE_CODE.fullmatch(code):
        return None
    return Table.objects.filter(invite_code=code).first()


def table_can_view(
    *, table: Table, user: User | AnonymousUser | None, invited_table_ids: Iterable[int]
) -> bool:
    """Whether a person may see a table: any public table; a private one only with its invite
    link (``invited_table_ids``: tables whose link this browser opened), as its creator, or
    when seated at it."""
    if not table.is_private or table.pk in set(invited_table_ids):
        return True
    if user is None or not user.is_authenticated:
        return False
    return (
        table.created_by_id == user.pk
        or Seat.objects.filter(table=table, user=user).exists()
        or MatchSeat.objects.filter(match__table=table, user=user).exists()
    )


def table_current_match_id(*, table: Table) -> int | None:
    """The table's latest match, once one started."""
    return Match.objects.filter(table=table).order_by("-pk").values_list("pk", flat=True).first()


def user_matches_in_progress(*, user: User | AnonymousUser, limit: int = 20) -> list[Match]:
    """Matches being played with ``user`` and other people in their seats, newest first, with
    their seats: two queries. His matches against the computer alone are
    :func:`user_computer_matches_unfinished`'s."""
    if not user.is_authenticated:
        return []
    return list(
        Match.objects.filter(
            Exists(_other_people(user)), status=Match.Status.PLAYING, seats__user=user
        )
        .distinct()
        .order_by("-pk")
        .prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.order_by("index")))[:limit]
    )


def user_computer_matches_unfinished(*, user: User | AnonymousUser, limit: int = 20) -> list[Match]:
    """The matches against the computer ``user`` has not finished, to resume (R8.2): being
    played, with no person in them but him. The last changed first, each with its seats and
    ``changed_at``, when it last changed (the worker ends it as abandoned a while after that):
    two queries."""
    if not user.is_authenticated:
        return []
    latest = MatchEvent.objects.filter(match=OuterRef("pk"), version=OuterRef("version"))
    return list(
        Match.objects.filter(status=Match.Status.PLAYING, seats__user=user)
        .exclude(Exists(_other_people(user)))
        .annotate(changed_at=Coalesce(Subquery(latest.values("created_at")[:1]), "created_at"))
        .distinct()
        .order_by("-changed_at", "-pk")
        .prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.order_by("index")))[:limit]
    )


def _other_people(user: User) -> QuerySet[MatchSeat]:
    """The seats of the outer match taken by people other than ``user`` (a deleted account's seat
    included: a person played it)."""
    return MatchSeat.objects.filter(match=OuterRef("pk"), computer_level__isnull=True).exclude(
        user=user
    )


@dataclass(frozen=True)
class WaitingTable:
    """One of a player's open tables, as the lobby lists it: how many seats are taken."""

    table: Table
    taken: int
    players: int


def user_open_tables(*, user: User | AnonymousUser, limit: int = 20) -> list[WaitingTable]:
    """The open tables ``user`` sits at, newest first, private ones included: one query. The
    lobby lists them so that a player who went elsewhere finds his table again (a private
    table is in no other list)."""
    if not user.is_authenticated:
        return []
    taken = Q(seats__user__isnull=False) | Q(seats__computer_level__isnull=False)
    tables = (
        Table.objects.filter(
            pk__in=Seat.objects.filter(user=user).values("table"), status=Table.Status.OPEN
        )
        .annotate(taken=Count("seats", filter=taken))
        .order_by("-pk")[:limit]
    )
    return [
        WaitingTable(table=table, taken=table.taken, players=get_variant(table.variant).players)
        for table in tables
    ]


def matches_to_watch(*, limit: int = 20) -> list[Match]:
    """Matches being played now at public tables that allow spectators, newest first, with
    their seats: two queries.

    Being played means a player of the match is connected. A match everyone has left stays
    unfinished, to be resumed (R8.2), but there is nothing to watch: left in this list, such
    matches would crowd out the live ones within days.
    """
    return list(
        Match.objects.filter(
            Exists(players_connected().filter(match=OuterRef("pk"))),
            status=Match.Status.PLAYING,
            table__is_private=False,
            table__allow_spectators=True,
        )
        .order_by("-pk")
        .prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.order_by("index")))[:limit]
    )
