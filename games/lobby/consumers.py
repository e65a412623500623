"""Live updates of the lobby and of a table's page before its match, as htmx fragments.

Both consumers only listen: the browser's htmx WebSocket extension swaps each fragment in by its
id (out of band). The services of ``games.lobby.services`` tell the groups *that* something changed
after their commit; the consumers re-render what their own viewer may see with the selectors, in the
viewer's language, and never write. A (re)connecting page gets the current fragment at once, so
a change made while its socket was down is not missed.

The lobby's socket is also its player's place in the seek pool ("Play rated now",
``games.lobby.seeks``, docs/pairing.md): the page's forms send ``{"type": "seek", "variant": ...,
"clock": ...}`` and ``{"type": "seek_cancel"}``, and the socket answers with the seek panel, out of
band. The seek lives as long as the socket: it ends when the socket closes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import deque
from typing import Any
from weakref import WeakKeyDictionary

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy

from accounts.restrictions import blocked
from accounts.socket_sessions import SessionBoundSocket, user_group_name
from games.lobby.rendering import lobby_tables_html
from games.lobby.seeks import (
    SEEK_HEARTBEAT_SECONDS,
    WINDOW_BASE,
    WINDOW_MAX,
    WINDOW_PER_SECOND,
    SeekError,
    seek_cancel,
    seek_create,
    seek_of,
    seeks_end_for_channel,
    seeks_seen,
)
from games.lobby.selectors import lobby_tables, table_can_view, table_view
from games.lobby.services import INVITED_SESSION_KEY, LOBBY_GROUP, TURN_CLOCKS, table_group_name
from games.models import VARIANT_CHOICES, Table
from games.play.socket_limits import SocketLimits

logger = logging.getLogger(__name__)

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
        return lobby_tables_html(tables=lobby_tables(), oob=True)


#: The seek the panel offers first: the four-player game with the middle clock.
DEFAULT_SEEK = ("hokm4", 30)
#: Why a seek ended other than by this socket's own cancel, as the panel says it.
SEEK_ENDED_NOTES = {
    "replaced": gettext_lazy("You are now looking for players from another page."),
    "cancelled": gettext_lazy("Your seek was cancelled from another page."),
    "barred": gettext_lazy("Your seek ended: you may not play now."),
    "lost": gettext_lazy("Your seek was lost on the way. Press the button to look again."),
}


def seek_message(text: str | None) -> dict[str, Any] | None:
    """A page's seek or cancel (a JSON object of type ``seek`` or ``seek_cancel``), else None:
    the lobby ignores everything else a client sends, as it did before it had forms."""
    # Most frames a lobby gets are not seeks: not parsed at all.
    if not text or '"seek' not in text:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: JSON nested a thousand levels deep
        return None
    if not isinstance(message, dict) or message.get("type") not in ("seek", "seek_cancel"):
        return None
    return message


def _whole(value: Any) -> int | None:
    """A form's number (htmx sends text) or a JSON one; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 6:
        return int(value)
    return None


def _seek_panel_render(language: str, state: str, **context: Any) -> str:
    """The seek panel in ``state``: ``idle`` (the form), ``waiting`` (``seek``), ``paired``
    (``match_id``) or ``signin``; with an ``error`` or a ``note``."""
    variant, clock = context.pop("choice", DEFAULT_SEEK)
    match_id = context.pop("match_id", None)
    with translation.override(language):
        return render_to_string(
            "games/_seek_panel.html",
            {
                "oob": True,
                "seek_state": state,
                "variants": VARIANT_CHOICES,
                "clocks": TURN_CLOCKS,
                "chosen_variant": variant,
                "chosen_clock": clock,
                "window_base": WINDOW_BASE,
                "window_per_second": WINDOW_PER_SECOND,
                "window_max": WINDOW_MAX,
                "match_url": reverse("games:match", args=[match_id]) if match_id else "",
                **context,
            },
        )


class LobbyConsumer(_UserSocket):
    """``ws/lobby/``: the list of open public tables, re-sent when one changes, at most every
    ``LOBBY_SEND_SECONDS``: the first change after a quiet spell at once, the changes that follow
    it within that time in one list sent when it is over.

    For a signed-in player, the seek panel too: its form on connect, then its answers to his seek
    and cancel, and the page sent to the match once the pool seats him (``seek.paired``).
    """

    _sent_started_at = -math.inf  # when the render last sent began (loop time)
    _later: asyncio.Task[None] | None = None
    _seeking = False  # this socket made a seek, which may still be in the pool
    _heartbeat: asyncio.Task[None] | None = None
    _choice = DEFAULT_SEEK  # the game and clock last asked for, offered again

    async def connect(self) -> None:
        self.language = scope_language(self.scope)
        if await self.refuse_if_blocked():
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()
        # Always read afresh: the process may have had no lobby socket to hear the last changes.
        started_at = asyncio.get_running_loop().time()
        html = await _lobby_list_render(self.language)
        if self._signed_in():
            # In the same frame: a (re)connected socket has no seek, whatever the page showed.
            html += await database_sync_to_async(_seek_panel_render)(
                self.language, "idle", user=self.scope["user"]
            )
        await self._send(started_at, html)

    async def disconnect(self, code: int) -> None:
        if self._later is not None:
            self._later.cancel()
        self._heartbeat_stop()
        if self._seeking:
            # A seek ends when its player leaves the lobby.
            await database_sync_to_async(seeks_end_for_channel)(channel_name=self.channel_name)
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A seek or its cancel, answered with the seek panel; anything else is ignored."""
        message = seek_message(text_data)
        if message is None:
            return
        if not self._signed_in():
            await self._send_panel(
                "signin", error=gettext_lazy("Sign in to play rated matches against people.")
            )
            return
        if message["type"] == "seek_cancel":
            await self._seek_cancel()
        else:
            await self._seek(message)

    def _signed_in(self) -> bool:
        return bool(getattr(self.scope.get("user"), "is_authenticated", False))

    async def _seek(self, message: dict[str, Any]) -> None:
        variant = message.get("variant")
        clock = _whole(message.get("clock"))
        self._choice = (
            variant if isinstance(variant, str) and len(variant) <= 32 else DEFAULT_SEEK[0],
            clock if clock is not None else DEFAULT_SEEK[1],
        )
        self._seeking = True
        # The sealed first shuffles the panel showed, and the page's seed (R8.4): text or nothing.
        seal = {
            name: value
            for name, key in (("commit", "shuffle_commit"), ("client_seed", "client_seed"))
            if isinstance(value := message.get(key), str)
        }
        html, waiting = await database_sync_to_async(self._seek_answer)(variant, clock, seal)
        if waiting:
            self._heartbeat_stop()
            self._heartbeat = asyncio.ensure_future(self._beat())
        if html:
            await self.send(text_data=html)

    def _seek_answer(
        self, variant: Any, clock: int | None, seal: dict[str, str]
    ) -> tuple[str, bool]:
        """Make the seek, in the player's language: the panel to send ("" when he was seated at
        once: the ``seek.paired`` message that follows takes the page to the match), and whether
        he waits."""
        user = self.scope["user"]
        with translation.override(self.language):
            try:
                match = seek_create(
                    user=user,
                    variant=variant if isinstance(variant, str) else "",
                    clock_seconds=clock if clock is not None else 0,
                    channel_name=self.channel_name,
                    **seal,
                )
            except SeekError as error:
                panel = _seek_panel_render(
                    self.language, "idle", choice=self._choice, error=error.message, user=user
                )
                return panel, False
            if match is not None:
                return "", False
            seek = seek_of(user=user, channel_name=self.channel_name)  # its game's title, too
            if seek is None:  # seated or ended meanwhile: its message is on the way
                return "", False
            return _seek_panel_render(self.language, "waiting", seek=seek), True

    async def _seek_cancel(self) -> None:
        self._heartbeat_stop()
        had = await database_sync_to_async(seek_cancel)(
            user=self.scope["user"], channel_name=self.channel_name
        )
        note = gettext_lazy("You stopped looking for players.") if had else ""
        await self._send_panel("idle", choice=self._choice, note=note)

    async def seek_paired(self, event: dict[str, Any]) -> None:
        """The pool seated this socket's player (``games.lobby.seeks``): to the match."""
        self._heartbeat_stop()
        await self._send_panel("paired", match_id=int(event["match_id"]))

    async def seek_ended(self, event: dict[str, Any]) -> None:
        """This socket's seek ended elsewhere: replaced, cancelled from another page, the player
        barred from play, or lost with a server."""
        self._heartbeat_stop()
        note = SEEK_ENDED_NOTES.get(event.get("reason", ""), "")
        await self._send_panel("idle", choice=self._choice, note=note)

    async def _send_panel(self, state: str, **context: Any) -> None:
        html = await database_sync_to_async(_seek_panel_render)(
            self.language, state, user=self.scope.get("user"), **context
        )
        await self.send(text_data=html)

    def _heartbeat_stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None

    async def _beat(self) -> None:
        """Keep the seek's ``seen_at`` fresh while it waits: a seek not refreshed for
        ``SEEK_ALIVE_SECONDS`` is taken for one whose server went away."""
        while True:
            await asyncio.sleep(SEEK_HEARTBEAT_SECONDS)
            try:
                await database_sync_to_async(seeks_seen)(channel_names=[self.channel_name])
            except Exception:  # the next beat tries again; the seek is dropped only after a minute
                logger.warning("the heartbeat of a seek was not stored")

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
