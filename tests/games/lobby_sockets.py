"""The lobby's and a table page's sockets in process, for the tests that open them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.routing import URLRouter
from django.contrib.auth.models import AnonymousUser
from django.urls import path

from games.lobby.consumers import LobbyConsumer, TableConsumer

ROUTES = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
]


def application(*, user: Any = None, session: dict[str, Any] | None = None) -> Callable:
    """The consumers behind the URL router, with the user and session that the real stack's
    AuthMiddlewareStack would put in the scope."""
    router = URLRouter(ROUTES)

    async def app(scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        scope = {**scope, "user": user or AnonymousUser(), "session": session or {}}
        await router(scope, receive, send)

    return app
