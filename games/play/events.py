"""Real-time events of a match, broadcast after the transaction that made them commits.

An event says what happened in public terms only: the kind of change, the match version it
produced, the seat, a card once it is played, a trick's winner, the trump once called, a hand's
result. It never carries a card that is still hidden (R8.3); each consumer renders its own seat's
view with ``games.engine.view`` when it receives one.
"""

from __future__ import annotations

import logging
from typing import Any

from games.models import MatchEvent
from lib.realtime import send_on_commit

logger = logging.getLogger(__name__)

#: The channel-layer message type: consumers handle it in ``match_event``.
MESSAGE_TYPE = "match.event"


def match_group_name(match_id: int) -> str:
    """The channel-layer group that every connection watching a match joins."""
    return f"match.{match_id}"


def match_event_message(*, version: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The one message shape of every match event: type, kind, version and data."""
    return {"type": MESSAGE_TYPE, "kind": kind, "version": version, "data": data}


#: How many versions back a reconnecting client is sent the events it missed; further back it
#: gets the whole state only (R8.2). A hand of four players is about 60 versions.
EVENTS_REPLAY_MAX = 200


def match_event_on_commit(*, match_id: int, version: int, kind: str, data: dict[str, Any]) -> None:
    """Store the event with its version and send it to the match's group once the current
    transaction commits.

    The row is written in the caller's transaction, so the log has exactly the changes that
    committed, one per version (reconnecting clients read it: :func:`match_events_since`).

    Nothing is sent if the transaction rolls back, so a client never sees a change that did not
    happen. The send is ``robust``: when the channel layer is down the change has already been
    committed, and failing the request would only make the player retry an action that was taken;
    clients resynchronise from the version instead.
    """
    MatchEvent.objects.create(match_id=match_id, version=version, kind=kind, data=data)
    message = match_event_message(version=version, kind=kind, data=data)
    send_on_commit(match_group_name(match_id), message)


def match_events_since(*, match_id: int, since: int, until: int) -> list[dict[str, Any]] | None:
    """The public events of versions ``since + 1`` to ``until``, oldest first, as clients get
    them (``{"version", "kind", **data}``); None when they cannot all be given (too far back, or
    versions missing from the log), and the client needs the whole state instead."""
    if since >= until:
        return []
    if since < 0 or until - since > EVENTS_REPLAY_MAX:
        return None
    rows = list(
        MatchEvent.objects.filter(match_id=match_id, version__gt=since, version__lte=until)
        .order_by("version")
        .values_list("version", "kind", "data")
    )
    if [version for version, _, _ in rows] != list(range(since + 1, until + 1)):
        return None
    return [event_public(version=v, kind=k, data=d) for v, k, d in rows]


def event_public(*, version: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """One event as a client sees it in a list of events."""
    return {"version": version, "kind": kind, **data}
