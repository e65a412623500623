"""WebSocket authentication by personal API token (``Authorization: Bearer hokm_...``).

Wrap the routes inside the session middleware, so that it runs after the session's user is known::

    AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))

A handshake with a bearer token is authenticated by the token alone: a valid token sets
``scope["user"]`` to its user, ``scope["auth_method"]`` to ``"token"`` and ``scope["api_token_id"]``
to the token's id; an invalid, revoked or
unknown token, or a token of an inactive user, sets an ``AnonymousUser``, never the session's user,
so a program with a bad token fails plainly instead of acting as whoever is logged in in that
browser. Without a bearer token the session's user stays (``auth_method`` is ``"session"``).
Other schemes (a browser may repeat ``Basic`` credentials of a password-protected staging site)
are not tokens and are left alone.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.contrib.auth.models import AnonymousUser

from accounts.tokens import bearer_credentials, token_in_force


def bearer_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None when there is none.

    A bearer header with nothing after the scheme gives ``""``: present, and invalid.
    """
    for name, value in headers:
        if name.lower() != b"authorization":
            continue
        credentials = bearer_credentials(value.decode("latin-1"))
        if credentials is not None:
            return credentials
    return None


class TokenAuthMiddleware(BaseMiddleware):
    """Sets ``scope["user"]`` from a bearer token when the handshake carries one."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope)
        raw = bearer_token(scope.get("headers", []))
        if raw is None:
            scope.setdefault("auth_method", "session")
        else:
            token = await database_sync_to_async(token_in_force)(raw) if raw else None
            scope["user"] = token.user if token is not None else AnonymousUser()
            scope["auth_method"] = "token"
            # Names the socket's group, so revoking the token closes it (accounts.socket_sessions).
            scope["api_token_id"] = token.pk if token is not None else None
        return await self.inner(scope, receive, send)
