"""Who is at a match: the open sockets of each seat, and what the table shows of each player.

Every socket of a match has a :class:`~games.models.MatchConnection` row from connect to
disconnect, refreshed every ``HEARTBEAT_SECONDS`` by its server process; the rows of a process
that died stop counting after ``ALIVE_SECONDS``. Rows are shared by every server process through
the database, so presence is right with any number of Daphne processes.

What the table shows of a person (R8.2): ``connected``, ``away`` (the clock ran out and the
computer plays for him, R8.1), or ``gone`` (no open socket, or he left the match to a computer
player). Computer players show as ``computer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from games.models import MatchConnection, MatchSeat

#: A server process refreshes its sockets' rows this often while they are open.
HEARTBEAT_SECONDS = 20
#: A row not refreshed for this long belongs to a dead process: it no longer counts.
ALIVE_SECONDS = 60
#: The worker deletes rows this old.
SWEEP_SECONDS = 600


@dataclass(frozen=True, slots=True)
class Presence:
    """The connected seats of a match and how many spectators watch it."""

    seats: frozenset[int]
    spectators: int

    def of(self, seat: MatchSeat) -> str:
        """``computer``, ``connected``, ``away`` or ``gone`` for one seat of the match."""
        if seat.computer_level is not None:
            return "computer"
        if seat.status == MatchSeat.Status.LEFT:
            return "gone"
        if seat.status == MatchSeat.Status.AWAY:
            return "away"
        return "connected" if seat.index in self.seats else "gone"

    def json(self, seats: list[MatchSeat]) -> dict[str, Any]:
        return {
            "seats": [{"seat": s.index, "presence": self.of(s)} for s in seats],
            "spectators": self.spectators,
        }


def _alive_since(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=ALIVE_SECONDS)


def presence_of(*, match_id: int, now: datetime | None = None) -> Presence:
    """Who is connected to a match now (one query)."""
    rows = MatchConnection.objects.filter(
        match_id=match_id, seen_at__gte=_alive_since(now)
    ).values_list("seat", "user_id")
    seats: set[int] = set()
    spectators: set[Any] = set()
    for seat, user_id in rows:
        if seat is None:
            # One person with two tabs is one spectator; anonymous sockets count one each.
            spectators.add(user_id if user_id is not None else object())
        else:
            seats.add(seat)
    return Presence(seats=frozenset(seats), spectators=len(spectators))


def humans_connected(*, match_id: int, now: datetime | None = None) -> bool:
    """Whether any player of the match (not a spectator) has a live socket."""
    return players_connected(now=now).filter(match_id=match_id).exists()


def players_connected(*, now: datetime | None = None) -> QuerySet[MatchConnection]:
    """The live sockets of players (not spectators), of every match: filter by match, or use as
    ``Exists(players_connected().filter(match=OuterRef("pk")))``."""
    return MatchConnection.objects.filter(seat__isnull=False, seen_at__gte=_alive_since(now))


def connection_open(*, match_id: int, seat: int | None, user: Any, channel_name: str) -> None:
    """A socket joined the match."""
    now = timezone.now()
    MatchConnection.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "match_id": match_id,
            "seat": seat,
            "user": user if getattr(user, "is_authenticated", False) else None,
            "connected_at": now,
            "seen_at": now,
        },
    )


def connection_seen(*, channel_name: str) -> None:
    """The socket is still open."""
    connections_seen(channel_names=[channel_name])


#: Channel names per ``UPDATE`` of :func:`connections_seen`: well under SQLite's limit on the
#: parameters of one statement.
_SEEN_BATCH = 500


def connections_seen(*, channel_names: list[str]) -> None:
    """These sockets are still open (the heartbeat of their server process, one statement for
    every ``_SEEN_BATCH`` of them)."""
    now = timezone.now()
    for start in range(0, len(channel_names), _SEEN_BATCH):
        batch = channel_names[start : start + _SEEN_BATCH]
        MatchConnection.objects.filter(channel_name__in=batch).update(seen_at=now)


def connection_close(*, channel_name: str) -> None:
    """The socket closed."""
    MatchConnection.objects.filter(channel_name=channel_name).delete()


def connections_sweep(*, now: datetime | None = None) -> int:
    """Delete the rows of sockets whose server went away without closing them."""
    old = (now or timezone.now()) - timedelta(seconds=SWEEP_SECONDS)
    deleted, _ = MatchConnection.objects.filter(seen_at__lt=old).delete()
    return deleted
