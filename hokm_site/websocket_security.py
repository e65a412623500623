"""Who may open a WebSocket: pages of our own origin, or programs with a token."""

from __future__ import annotations

from typing import Any

from channels.security.websocket import AllowedHostsOriginValidator

from accounts.channels_auth import bearer_token


class OriginOrTokenValidator:
    """Let a handshake through when it carries a bearer token, else check its Origin.

    The Origin check stops other sites' pages from opening sockets with a visitor's session
    cookie. A page cannot put an ``Authorization`` header on a WebSocket handshake, so a handshake
    with a bearer token comes from a program, which authenticates by that token alone (an invalid
    one gives no user at all, see ``accounts.channels_auth``).
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.checked = AllowedHostsOriginValidator(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and bearer_token(scope.get("headers", [])) is not None:
            return await self.inner(scope, receive, send)
        return await self.checked(scope, receive, send)
