"""A rematch: the players of a finished match sit down together again in one click each.

The first player who asks opens a table with the finished match's settings (variant, target,
turn clock, privacy, spectators, computer players) and takes the seat he had; the match keeps
that table (``Match.rematch_table``), and every other player of the match is offered to join it,
in his own seat where it is free. The table then starts as any table does: by itself when every
seat is taken, or by the player who opened it when it fills empty seats with computer players.

Only the players of the match may join through it, so a private table's rematch needs no new
invitation; anyone else comes in as to any table.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.lobby.services import TableError, table_create, table_join_seat
from games.models import Match, MatchSeat, Seat, Table
from games.play.events import match_group_name
from lib.realtime import send_on_commit


def rematch_possible(*, match: Match, seats: list[MatchSeat], seat: int | None) -> bool:
    """Whether ``seat``'s player may have a rematch of ``match`` once it is over: he played it
    at a table with at least one other person (against the computer alone it is "Play again")."""
    if seat is None or match.table_id is None or match.imported:
        return False
    return any(s.user_id is not None for s in seats if s.index != seat)


def rematch_offer(*, match: Match, seats: list[MatchSeat], seat: int | None) -> str | None:
    """What the end of ``match`` offers ``seat``'s player: ``"ask"`` (nobody asked yet),
    ``"join"`` (a rematch table was opened), or None (not over, or no rematch possible)."""
    if match.status != Match.Status.FINISHED or not rematch_possible(
        match=match, seats=seats, seat=seat
    ):
        return None
    return "join" if match.rematch_table_id is not None else "ask"


def match_rematch(*, match: Match | int, user: User) -> Table:
    """Open the rematch table of ``match`` for ``user``, or sit him at the one open already.

    Refused (``TableError``) unless the match is over and ``user`` played in it. Returns the
    table; when his seat was the last one free, its match has started (``Table.status``).
    """
    match_id = match.pk if isinstance(match, Match) else match
    with transaction.atomic(durable=True):
        # The finished match's row, locked: two players asking at once open one table, not two.
        locked = Match.objects.select_for_update().get(pk=match_id)
        seats = list(MatchSeat.objects.filter(match=locked))
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise TableError(_("Only the players of this match can ask for a rematch."))
        if locked.status != Match.Status.FINISHED or locked.table_id is None:
            raise TableError(_("A rematch can be asked for once the match is over."))
        if not rematch_possible(match=locked, seats=seats, seat=mine.index):
            raise TableError(_("Against the computer alone, choose Play again."))
        table = locked.rematch_table
        if table is not None and table.status != Table.Status.CLOSED and _seated(table, user):
            return table  # asked twice: the same table (or its match, once started)
        if table is None or table.status == Table.Status.CLOSED:
            # The first to ask, or everyone left the last rematch table: a new one.
            table = _open(locked, user=user, seat_index=mine.index)
            locked.rematch_table = table
            locked.save(update_fields=["rematch_table"])
            _offer_on_commit(locked.pk)
        elif table.status == Table.Status.PLAYING:
            raise TableError(_("The rematch has already started without you."))
        else:
            table_join_seat(table=table, user=user, seat_index=_free_seat(table, mine.index))
            table.refresh_from_db(fields=["status"])
    return table


def _open(match: Match, *, user: User, seat_index: int) -> Table:
    old = match.table
    assert old is not None, "match_rematch refuses a match without a table"
    table = table_create(
        user=user,
        name="",
        default_name=old.name,  # checked when it was typed
        variant=match.variant,
        target=match.target,
        turn_clock_seconds=old.turn_clock_seconds,
        is_private=old.is_private,
        allow_spectators=old.allow_spectators,
        fill_with_computer=old.fill_with_computer,
        computer_level=old.computer_level,
        partner_draw=match.partner_draw,
        options=match.options or None,
        max_deals=match.max_deals,
        # Rated again, without the old range: the same players, who were all let in before.
        rated=old.rated,
    )
    if seat_index != 0:  # the creator sits at seat 0: back to the seat he had
        table_join_seat(table=table, user=user, seat_index=seat_index)
    return table


def _seated(table: Table, user: User) -> bool:
    return Seat.objects.filter(table=table, user=user).exists()


def _free_seat(table: Table, preferred: int) -> int:
    """His seat of the match when it is free, else the first free one."""
    free = list(
        Seat.objects.filter(table=table, user__isnull=True, computer_level__isnull=True)
        .order_by("index")
        .values_list("index", flat=True)
    )
    if not free:
        raise TableError(_("Every seat of the rematch is taken."))
    return preferred if preferred in free else free[0]


def _offer_on_commit(match_id: int) -> None:
    """Show the other players the rematch on offer: their tables are drawn again from the
    database (the ``match.presence`` handler), where the match now names its rematch table."""
    send_on_commit(match_group_name(match_id), {"type": "match.presence"})
