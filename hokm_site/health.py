"""``/healthz/``: can this server process reach what it needs? For a load balancer or a monitor.

It answers 200 with ``{"status": "ok", ...}`` when the database answers a query and a message
sent through the channel layer (Redis in production) comes back, and 503 with the part that
failed otherwise, so a proxy can take a process out of rotation and a monitor can say which
service is down. Each check has a deadline: a service that hangs fails the check instead of
hanging the probe. What went wrong goes to the log, not to the caller.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

#: Seconds each check may take before it counts as failed.
CHECK_SECONDS = 3.0


def _database_query() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def database_check() -> None:
    """The database answers a query (raises if not)."""
    await asyncio.wait_for(sync_to_async(_database_query)(), CHECK_SECONDS)


async def channel_layer_check() -> None:
    """A message sent to a new channel of the layer comes back (raises if not)."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = await layer.new_channel()
    await asyncio.wait_for(layer.send(channel, {"type": "health.check"}), CHECK_SECONDS)
    message = await asyncio.wait_for(layer.receive(channel), CHECK_SECONDS)
    if message.get("type") != "health.check":
        raise RuntimeError(f"the channel layer gave back {message!r}")


CHECKS = {"database": database_check, "channel_layer": channel_layer_check}


@require_safe
@never_cache
async def healthz(request: HttpRequest) -> JsonResponse:
    # Side by side, so a probe takes at most one deadline, not one per check.
    outcomes = await asyncio.gather(*(check() for check in CHECKS.values()), return_exceptions=True)
    results = {}
    for name, outcome in zip(CHECKS, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            logger.error("health check %s failed", name, exc_info=outcome)
            results[name] = "unavailable"
        else:
            results[name] = "ok"
    healthy = all(result == "ok" for result in results.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": results},
        status=200 if healthy else 503,
    )
