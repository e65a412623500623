"""Who may see a stored match, and how much of it (R8.3), for history, replays and records.

One rule for every page and socket that shows a match, live or after the fact: a player of the
match may always see it; anyone else where its table lets spectators in (a private table's only
with its invite link opened in this browser); an imported match only its importer; a match whose
table was deleted only its players. Staff see all.
A hand is shown face up once it is over, to everyone who may see the match, players included;
of the hand in play only the cards played are public (R8.3: "finished hands become fully
visible in history and replay"). The record, which holds the hand in play, waits for the end of
the match.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
