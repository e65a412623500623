"""Live updates of the lobby and of a table's page before its match, as htmx fragments.

Both consumers only listen: the browser's htmx WebSocket extension swaps each fragment in by its
id (out of band). The services of ``games.tables`` tell the groups *that* something changed after
their commit; the consumers re-render what their own viewer may see with the selectors, in the
viewer's language, and never write. A (re)connecting page gets the current fragment at once, so
a change made while its socket was down is not missed.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.socket_sessions import SessionBoundSocket
from games.models import Table
from games.socket_limits import SocketLimits
from games.tables import (
    INVITED_SESSION_KEY,
    LOBBY_GROUP,
    lobby_tables,
    table_can_view,
    table_group_name,
    table_view,
)

#: Close code for a table that does not exist or that this person may not see (private).
CLOSE_NOT_FOUND = 4404
#: Close code for a suspended or banned player's socket.
CLOSE_FORBIDDEN = 4403


def scope_language(scope: dict[str, Any]) -> str:
    """The language a page was rendered in: the language cookie, else Accept-Language, as
    ``LocaleMiddleware`` decides for HTTP requests."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    headers = dict(scope.get("headers") or [])
    if b"accept-language" in headers:
        request.META["HTTP_ACCEPT_LANGUAGE"] = headers[b"accept-language"].decode("latin-1")
    return translation.get_language_from_request(request)


def scope_site_url(scope: dict[str, Any]) -> str:
    """``scheme://host`` of the page that opened the socket, for absolute links (invites).

    That is the handshake's ``Origin``, which a browser always sends (and which the origin check
    of ``hokm_site.websocket_security`` held against ``ALLOWED_HOSTS``). The socket's own scheme
    is not: behind a proxy that ends TLS (docs/operations.md) daphne sees ``ws`` for a page
    served over https, and the invite link would turn into an http one on the first update.
    """
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin", b"").decode("latin-1").rstrip("/")
    if origin.startswith(("https://", "http://")):
        return origin
    host = headers.get(b"host", b"").decode("latin-1")
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    return f"{scheme}://{host}" if host else ""


class _UserSocket(SocketLimits, SessionBoundSocket, AsyncWebsocketConsumer):
    """A page socket of a signed-in user listens on his own group too: a suspension or ban
    closes it at once (``user_blocked``), and a blocked player cannot open one. It only listens:
    what a client sends is ignored, within the caps of ``games.socket_limits``; signing out
    closes it (``accounts.socket_sessions``)."""

    user_group: str | None = None

    async def refuse_if_blocked(self) -> bool:
        """Accept and close at once (code 4403) a socket of a blocked player; True if so."""
        if not await database_sync_to_async(_blocked)(self.scope.get("user")):
            return False
        # Accept first so that the close code reaches the browser (a refused handshake has none).
        await self.accept()
        await self.close(code=CLOSE_FORBIDDEN)
        return True

    async def join_user_group(self) -> None:
        user = self.scope.get("user")
        if getattr(user, "is_authenticated", False):
            from accounts.enforcement import user_group_name

            self.user_group = user_group_name(user.pk)
            await self.channel_layer.group_add(self.user_group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.user_group is not None:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def user_blocked(self, event: dict[str, Any]) -> None:
        """The player was suspended or banned (``accounts.enforcement.sanction_enforce``)."""
        await self.close(code=CLOSE_FORBIDDEN)


def _blocked(user: Any) -> bool:
    from accounts.sanctions import blocked

    return getattr(user, "is_authenticated", False) and blocked(user=user) is not None


class LobbyConsumer(_UserSocket):
    """``ws/lobby/``: the list of open public tables, re-sent whenever one changes."""

    async def connect(self) -> None:
        self.language = scope_language(self.scope)
        if await self.refuse_if_blocked():
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()
        await self.send_tables()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The lobby only listens; whatever a client sends is ignored."""

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_tables()

    async def send_tables(self) -> None:
        await self.send(text_data=await self._render())

    @database_sync_to_async
    def _render(self) -> str:
        with translation.override(self.language):
            return render_to_string(
                "games/_lobby_tables.html", {"tables": lobby_tables(), "oob": True}
            )


class TableConsumer(_UserSocket):
    """``ws/table/<id>/``: the seats of one table for this viewer, re-sent on every join or
    leave; once the match starts, a fragment that takes the page to the match."""

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = table_group_name(self.table_id)
        self.language = scope_language(self.scope)
        self.site_url = scope_site_url(self.scope)
        if await self.refuse_if_blocked():
            return
        if not await self._may_view():
            # Accept first so that the close code reaches the browser (a refused handshake
            # carries none); htmx does not reconnect after a 4xxx close.
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_user_group()
        await self.accept()
        await self.send_seats()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await super().disconnect(code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Seats are taken and left through the page's forms; the socket only listens."""

    async def table_changed(self, event: dict[str, Any]) -> None:
        await self.send_seats()

    async def send_seats(self) -> None:
        html = await self._render()
        if html:
            await self.send(text_data=html)

    @database_sync_to_async
    def _may_view(self) -> bool:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        session = self.scope.get("session")
        invited = session.get(INVITED_SESSION_KEY, []) if session is not None else []
        return table_can_view(table=table, user=self.scope.get("user"), invited_table_ids=invited)

    @database_sync_to_async
    def _render(self) -> str:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return ""
        view = table_view(table=table, viewer=self.scope.get("user"))
        with translation.override(self.language):
            return render_to_string(
                "games/_table_seats.html",
                {"view": view, "site_url": self.site_url, "oob": True},
            )
