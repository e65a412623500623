"""Real-time events of a match, broadcast after the transaction that made them commits.

An event says what happened in public terms only: the kind of change, the match version it
produced, the seat, a card once it is played, a trick's winner, the trump once called, a hand's
result. It never carries a card that is still hidden (R8.3); each consumer renders its own seat's
view with ``games.engine.view`` when it receives one.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

#: The channel-layer message type: consumers handle it in ``match_event``.
MESSAGE_TYPE = "match.event"


def match_group_name(match_id: int) -> str:
    """The channel-layer group that every connection watching a match joins."""
    return f"match.{match_id}"


def match_event_message(*, version: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The one message shape of every match event: type, kind, version and data."""
    return {"type": MESSAGE_TYPE, "kind": kind, "version": version, "data": data}


def match_event_on_commit(*, match_id: int, version: int, kind: str, data: dict[str, Any]) -> None:
    """Send an event to the match's group once the current transaction commits.

    Nothing is sent if the transaction rolls back, so a client never sees a change that did not
    happen. The send is ``robust``: when the channel layer is down the change has already been
    committed, and failing the request would only make the player retry an action that was taken;
    clients resynchronise from the version instead.
    """
    message = match_event_message(version=version, kind=kind, data=data)
    group = match_group_name(match_id)

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            logger.warning("no channel layer: %s event of %s not sent", kind, group)
            return
        async_to_sync(layer.group_send)(group, message)

    transaction.on_commit(send, robust=True)
