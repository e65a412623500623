"""The bare Channels baseline: a consumer that relays a move to a group of four, and nothing else.

No database, no authentication, no rendering: each text frame a socket sends goes to the
channel-layer group of its table (``relay/<table>/``) and every socket of that group, the sender's
included, gets it back as it was. It is served by daphne like the site, on the layer that
``BENCH_LAYER`` names (:mod:`bench.load.layers`), so what separates its figures from the
application's is the application's own work::

    BENCH_LAYER=pubsub REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python -m daphne -p 8100 bench.load.relay_app:application
"""

from __future__ import annotations

import os
from typing import Any

import django
from django.conf import settings

from bench.load.layers import layer_config

if not settings.configured:
    settings.configure(
        CHANNEL_LAYERS={
            "default": layer_config(
                os.environ.get("BENCH_LAYER", "pubsub"), os.environ["REDIS_URL"]
            )
        },
        INSTALLED_APPS=[],
        USE_TZ=True,
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class RelayConsumer(AsyncWebsocketConsumer):
    """Joins the group of its table; relays every frame it gets to the whole group."""

    async def connect(self) -> None:
        self.group = f"relay.{self.scope['url_route']['kwargs']['table']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is not None:
            message = {"type": "relay.move", "text": text_data}
            await self.channel_layer.group_send(self.group, message)

    async def relay_move(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


def application_for(consumer: type[RelayConsumer]) -> ProtocolTypeRouter:
    """The ASGI application serving ``consumer`` at ``relay/<table>/`` (the floor's too)."""
    return ProtocolTypeRouter(
        {"websocket": URLRouter([path("relay/<int:table>/", consumer.as_asgi())])}
    )


application = application_for(RelayConsumer)
