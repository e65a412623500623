"""Telling open sockets of a change, once the transaction that made it has committed."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def send_on_commit(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to the channel-layer ``group`` once the current transaction commits.

    Nothing is sent if it rolls back, so no socket hears of a change that did not happen. The send
    is ``robust``: the change is committed, and a broken channel layer must not turn it into an
    error (the player would retry an action that was taken); it is logged, and sockets
    resynchronise from the versions they hold when they next hear from the server.
    """
    _on_commit("group_send", group, message)


def channel_send_on_commit(channel_name: str, message: dict[str, Any]) -> None:
    """:func:`send_on_commit` to one socket's channel instead of a group (a player's lobby page
    that his seek was paired or ended, ``games.lobby.seeks``)."""
    _on_commit("send", channel_name, message)


def _on_commit(method: str, target: str, message: dict[str, Any]) -> None:
    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            logger.warning("no channel layer: %s not told of %s", target, message.get("type"))
            return
        async_to_sync(getattr(layer, method))(target, message)

    transaction.on_commit(send, robust=True)
