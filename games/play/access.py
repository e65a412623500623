"""Who may see a stored match, and how much of it (R8.3), for history, replays and records.

One rule for every page and socket that shows a match, live or after the fact: a player of the
match may always see it; once it is over, a public table's match is anyone's to see, signed out
too, whether or not its table let spectators in, as a finished lichess game is (issue 22); while
it is played, anyone else where its table lets spectators in (a private table's only with its
invite link opened in this browser). An imported match is only its importer's, however it ended:
importing a record shares it with nobody. A match whose table was deleted is only its players'.
A private table's match stays private once over. Staff see all.
A hand is shown face up once it is over, to everyone who may see the match, players included;
of the hand in play only the cards played are public (R8.3: "finished hands become fully
visible in history and replay"). The record, which holds the hand in play, waits for the end of
the match.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q

from games.lobby.selectors import table_can_view
from games.lobby.services import INVITED_SESSION_KEY
from games.models import Match, MatchSeat


def match_viewable(*, match: Match, user: Any, invited_table_ids: Iterable[int] = ()) -> bool:
    """Whether ``user`` (possibly anonymous) may see ``match`` in history and replays."""
    signed_in = getattr(user, "is_authenticated", False)
    if signed_in and (user.is_staff or _seated(match, user)):
        return True
    if match.imported:
        return signed_in and match.imported_by_id == user.pk
    table = match.table
    if table is None:
        # Every match played here has a table; one without is a table deleted since (by staff),
        # whose privacy is unknown: its players only.
        return False
    if match_public(match):
        return True
    return table.allow_spectators and table_can_view(
        table=table, user=user if signed_in else None, invited_table_ids=invited_table_ids
    )


def match_viewable_in(request: Any, match: Match) -> bool:
    """:func:`match_viewable` for the person making ``request``, with the invite links opened
    in his browser (its session)."""
    return match_viewable(
        match=match,
        user=request.user,
        invited_table_ids=request.session.get(INVITED_SESSION_KEY, []),
    )


def match_public(match: Match) -> bool:
    """Whether anyone, signed out too, may see ``match``, its history, replay and record: it is
    over (finished or abandoned) and was played at a public table (not imported, its table not
    deleted). Such a match may be shared by its link; the pages offer to."""
    table = match.table
    return (
        match_revealed(match) and not match.imported and table is not None and not table.is_private
    )


def match_public_q(prefix: str = "") -> Q:
    """:func:`match_public` as a filter, for lists of matches: ``prefix`` is the path from the
    rows filtered to their match (``"match__"`` from its seats, ``""`` for matches)."""
    return ~Q(**{f"{prefix}status": Match.Status.PLAYING}) & Q(
        **{
            f"{prefix}imported": False,
            f"{prefix}table__isnull": False,
            f"{prefix}table__is_private": False,
        }
    )


def match_chat_readable(*, match: Match, user: Any, seat: int | None) -> bool:
    """Whether the viewer at ``seat`` (None: not seated) may read the table chat of a match he may
    see: its players and staff always; anyone else only where its table let spectators in, who
    read it as it was written. The chat of a table that refused spectators was its players' own:
    the match may be public once over (:func:`match_public`), its chat stays theirs."""
    if seat is not None or (getattr(user, "is_authenticated", False) and user.is_staff):
        return True
    return match.table is not None and match.table.allow_spectators


def match_existence_secret(match: Match) -> bool:
    """Whether someone who may not see ``match`` should not learn it exists either (404, not
    403): its table is private, or it was imported, or its table is gone. Only a public table's
    match, listed in the lobby, is no secret."""
    return match.imported or match.table is None or match.table.is_private


def match_revealed(match: Match) -> bool:
    """Whether every hand of the match may be shown face up, the last one too: once it is no
    longer being played (before that, only its finished hands:
    ``games.history.replay.replay_build``)."""
    return match.status != Match.Status.PLAYING


def _seated(match: Match, user: Any) -> bool:
    return MatchSeat.objects.filter(match=match, user=user).exists()
