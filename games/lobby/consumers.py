"""Live updates of the lobby and of a table's page before its match, as htmx fragments.

Both consumers only listen: the browser's htmx WebSocket extension swaps each fragment in by its
id (out of band). The services of ``games.lobby.services`` tell the groups *that* something changed
after their commit; the consumers re-render what their own viewer may see with the selectors, in the
viewer's language, and never write. A (re)connecting page gets the current fragment at once, so
a change made while its socket was down is not missed.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any
from weakref import WeakKeyDictionary

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.restrictions import blocked
from accounts.socket_sessions import SessionBoundSocket, user_group_name
from games.lobby.selectors import lobby_tables, table_can_view, table_view
from games.lobby.services import INVITED_SESSION_KEY, LOBBY_GROUP, table_group_name
from games.models import Table
from games.play.socket_limits import SocketLimits

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
    what a client sends is ignored, within the caps of ``games.play.socket_limits``; signing out
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
        if user is not None and getattr(user, "is_authenticated", False):
            self.user_group = user_group_name(user.pk)
            await self.channel_layer.group_add(self.user_group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.user_group is not None:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def user_blocked(self, event: dict[str, Any]) -> None:
        """The player was suspended or banned (``moderation.enforcement.sanction_enforce``)."""
        await self.close(code=CLOSE_FORBIDDEN)


def _blocked(user: Any) -> bool:
    return getattr(user, "is_authenticated", False) and blocked(user=user) is not None


#: A lobby socket sends its list at most this often. Each seat change at a public table tells
#: every lobby socket; without a pace, a player sitting down and standing up in a loop made each
#: of them read and render the whole list once per change.
LOBBY_SEND_SECONDS = 0.5


class _LobbyRenders:
    """What the lobby sockets of one server process (one event loop) share: the latest render
    of the list per language, with the loop time it started, and the loop time of the latest
    change any of them heard. A change reaches every lobby socket of the process at once; they
    then need one render per language between them, not one each."""

    def __init__(self) -> None:
        self.changed_at = -math.inf
        self.renders: dict[str, tuple[float, asyncio.Future[str]]] = {}
        # The ids of the changes heard lately: the first socket to hear one marks the time.
        self.heard: deque[str] = deque(maxlen=256)

    def change_heard(self, change: str | None, now: float) -> None:
        if change is not None and change in self.heard:
            return
        if change is not None:
            self.heard.append(change)
        self.changed_at = now


_lobby_renders: WeakKeyDictionary[asyncio.AbstractEventLoop, _LobbyRenders] = WeakKeyDictionary()


def _renders_here() -> _LobbyRenders:
    return _lobby_renders.setdefault(asyncio.get_running_loop(), _LobbyRenders())


@database_sync_to_async
def _lobby_list_render(language: str) -> str:
    with translation.override(language):
        return render_to_string("games/_lobby_tables.html", {"tables": lobby_tables(), "oob": True})


class LobbyConsumer(_UserSocket):
    """``ws/lobby/``: the list of open public tables, re-sent when one changes, at most every
    ``LOBBY_SEND_SECONDS``: the first change after a quiet spell at once, the changes that follow
    it within that time in one list sent when it is over."""

    _sent_started_at = -math.inf  # when the render last sent began (loop time)
    _later: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        self.language = scope_language(self.scope)
        if await self.refuse_if_blocked():
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()
        # Always read afresh: the process may have had no lobby socket to hear the last changes.
        started_at = asyncio.get_running_loop().time()
        await self._send(started_at, await _lobby_list_render(self.language))

    async def disconnect(self, code: int) -> None:
        if self._later is not None:
            self._later.cancel()
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The lobby only listens; whatever a client sends is ignored."""

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        now = asyncio.get_running_loop().time()
        _renders_here().change_heard(event.get("change"), now)
        if self._later is not None:
            return  # the list already planned is read after this change
        wait = self._sent_started_at + LOBBY_SEND_SECONDS - now
        if wait <= 0:
            await self.send_tables()
        else:
            self._later = asyncio.ensure_future(self._send_tables_in(wait))

    async def _send_tables_in(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._later = None
        await self.send_tables()

    async def send_tables(self) -> None:
        """Send the list as it is now: a render of this process begun since the latest change
        if there is one, else a new one that the other sockets can share."""
        shared = _renders_here()
        entry = shared.renders.get(self.language)
        failed = (
            entry is not None
            and entry[1].done()
            and (entry[1].cancelled() or entry[1].exception() is not None)
        )
        if entry is None or entry[0] < shared.changed_at or failed:
            entry = (
                asyncio.get_running_loop().time(),
                asyncio.ensure_future(_lobby_list_render(self.language)),
            )
            shared.renders[self.language] = entry
        started_at, render = entry
        await self._send(started_at, await asyncio.shield(render))

    async def _send(self, started_at: float, html: str) -> None:
        # A render that began before the one last sent holds an older list (it can finish
        # later, the planned send and a change's send running side by side): drop it.
        if started_at < self._sent_started_at:
            return
        self._sent_started_at = started_at
        await self.send(text_data=html)


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
