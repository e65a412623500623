"""WebSocket consumers of a live match: thin adapters between sockets and services.

``MatchJsonConsumer`` (``ws/api/match/<id>/``) speaks the JSON protocol of docs/protocol.md to
programs; ``MatchHtmlConsumer`` (``ws/match/<id>/``) sends the htmx page the same state rendered
as HTML fragments. Both render every message from the engine's per-seat view of the match, so
what a socket receives is exactly what its seat may see (R8.3), and both hand every action to
``games.play.services.match_client_action``, which applies it at most once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.restrictions import blocked
from accounts.socket_sessions import SessionBoundSocket, user_group_name
from games.engine import GameState, IllegalActionError, face_down_tricks, game_view
from games.lobby.consumers import scope_language
from games.lobby.services import INVITED_SESSION_KEY
from games.models import ChatMessage, Match, MatchSeat
from games.play.access import match_chat_readable, match_existence_secret, match_viewable
from games.play.autoplay import autoplay_kick
from games.play.chat import ChatError, chat_payload, chat_post, chat_recent
from games.play.ending import match_ending_read, render_match_ending
from games.play.events import match_group_name
from games.play.loads import Loaded, load_for_event, loaded_in_memory, local_matches
from games.play.loads import load as _load
from games.play.presence import (
    HEARTBEAT_SECONDS,
    Presence,
    connection_close,
    connection_open,
    connections_seen,
    presence_of,
)
from games.play.protocol import (
    ActionMessage,
    ChatRequest,
    ClientSeedMessage,
    PingMessage,
    ProtocolError,
    ResignMessage,
    ResyncMessage,
    SeatMessage,
    parse_client_message,
    server_message,
)
from games.play.rendering import (
    flash_text,
    render_chat_error,
    render_chat_log,
    render_chat_message,
    render_flash,
    render_table,
    seat_name,
)
from games.play.services import (
    ClientActionResult,
    ClientSeedError,
    StaleVersionError,
    match_client_action,
    match_client_seed,
    match_clock,
    match_clock_resume,
    match_resign,
    match_seat_back,
    match_seat_leave,
)
from games.play.socket_limits import SocketLimits

logger = logging.getLogger(__name__)

#: Seconds a channel-layer call may take when a socket closes or the version watch sends: a layer
#: that hangs must not hold them up.
LAYER_SECONDS = 2.0

#: Threads that apply the moves of this process's sockets. The rest of the sockets' database
#: work runs in channels' one database thread, one call after another; a move is mostly waits
#: for PostgreSQL (about ten round trips), so moves of different tables apply side by side here,
#: each thread with its own pooled connection (``DATABASE_POOL_SIZE`` must leave room for them).
#: Moves of one table still apply one at a time: the service locks the match's row. Moves of one
#: socket apply in the order sent, whatever the number of threads: channels hands a consumer its
#: messages one after another, and ``receive`` awaits each move (applied or refused, answered)
#: before the next frame is read. Never start a task for a move: a move without ``version`` would
#: then overtake the one sent before it (tests/e2e/test_socket_order.py, docs/protocol.md).
ACTION_THREADS = 4
_action_threads = ThreadPoolExecutor(max_workers=ACTION_THREADS, thread_name_prefix="hokm-moves")

# Close codes (4000-4999 are the application's own).
CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403

#: The language of the JSON protocol's words (error messages, computer players' names).
PROTOCOL_LANGUAGE = "en"

#: What the page says when a resignation is refused (``ResignRefusedError``), in its language.
_RESIGN_FLASH = {
    "resign_not_allowed": _(
        "A person plays on your side: you cannot resign for both of you. "
        "Leave the match instead, and the computer plays your seat."
    ),
}


class _MatchConsumer(SocketLimits, SessionBoundSocket, AsyncWebsocketConsumer, ABC):
    """What both renderings share: access, the group, actions; the size and rate caps of
    ``games.play.socket_limits``, and the end of the sign-in of ``accounts.socket_sessions``."""

    match_id: int
    seat: int | None
    #: Whether this socket may read the table chat (not a spectator of a table refusing them).
    chat_readable: bool = True
    last_version: int
    #: The socket's version and the stored one when the version watch first saw it behind.
    behind_from: tuple[int, int] | None = None

    #: Set once the socket's end has been undone (``_leave``).
    left: bool = False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # A consumer that dies of an exception (the channel layer or the database went away
            # while it handled a message) never gets ``websocket.disconnect``: without this its
            # heartbeat would keep its presence row fresh, and its player would show as
            # connected, his clock running, for as long as the process lives.
            await self._leave(crashed=True)

    async def _leave(self, *, crashed: bool = False) -> None:
        """Undo what ``connect`` did, once: the heartbeat, the version watch, the presence row,
        the groups; then tell the table if who is there changed. Each step is tried on its own,
        so that one service being away (Redis, the database) does not stop the others; what is
        left behind expires (presence rows after ``ALIVE_SECONDS``, group membership with the
        layer's expiry)."""
        if not hasattr(self, "seat") or self.left:
            return
        self.left = True
        local_matches.discard(self.match_id)
        _heartbeat.remove(self)
        _version_watch.remove(self)
        changed = False
        try:
            changed = await database_sync_to_async(_connection_close)(
                self.match_id, self.seat, self.channel_name
            )
        except Exception:
            logger.exception("match %s: presence of a closed socket not removed", self.match_id)
        groups = [match_group_name(self.match_id), getattr(self, "user_group", None)]
        if crashed:  # channels leaves ``self.groups`` itself on a normal disconnect only
            groups += self.groups
        for group in filter(None, groups):
            try:
                await asyncio.wait_for(
                    self.channel_layer.group_discard(group, self.channel_name), LAYER_SECONDS
                )
            except Exception:
                logger.warning("match %s: socket not taken out of %s", self.match_id, group)
        if changed:
            try:
                await asyncio.wait_for(
                    self.channel_layer.group_send(
                        match_group_name(self.match_id), {"type": "match.presence"}
                    ),
                    LAYER_SECONDS,
                )
            except Exception:
                logger.warning("match %s: presence change not sent", self.match_id)

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.last_version = -1
        await self.accept()
        if await self.refuse_if_blocked():
            return
        session = self.scope.get("session")
        invited = session.get(INVITED_SESSION_KEY, []) if session is not None else []
        access = await database_sync_to_async(_access)(
            self.match_id, self.scope.get("user"), invited
        )
        if isinstance(access, str):
            code = CLOSE_NOT_FOUND if access == "not_found" else CLOSE_FORBIDDEN
            await self.send_error(access, _ACCESS_MESSAGES[access])
            await self.close(code=code)
            return
        self.seat, self.chat_readable = access
        local_matches.add(self.match_id)  # taken out in ``_leave``, however the socket ends
        await self.channel_layer.group_add(match_group_name(self.match_id), self.channel_name)
        self.user_group = user_socket_group(self.scope)
        if self.user_group is not None:
            # A suspension or ban reaches this socket there and closes it (``user_blocked``).
            await self.channel_layer.group_add(self.user_group, self.channel_name)
        changed = await database_sync_to_async(_connection_open)(
            self.match_id, self.seat, self.scope.get("user"), self.channel_name
        )
        _heartbeat.add(self)
        _version_watch.add(self)
        # A reconnecting client names the last version it saw (?since=12): it gets the events
        # it missed with the state (R8.2).
        await self.send_state(force=True, since=_since(self.scope))
        await self.send_chat_history()
        if changed:
            await self.channel_layer.group_send(
                match_group_name(self.match_id), {"type": "match.presence"}
            )

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Within the caps of ``SocketLimits``; a binary frame is refused by the parser.
        message = None
        try:
            message = parse_client_message(text_data, seat=self.seat)
            if isinstance(message, PingMessage):
                await self.send_json_message("pong", {})
            elif isinstance(message, ResyncMessage):
                await self.send_state(force=True, since=message.since)
            elif isinstance(message, SeatMessage):
                await self.seat_change(message)
            elif isinstance(message, ResignMessage):
                await self.resign()
            elif isinstance(message, ClientSeedMessage):
                await self.client_seed(message)
            elif isinstance(message, ActionMessage):
                await self.take_action(message)
            elif isinstance(message, ChatRequest):
                await self.chat(message)
        except ProtocolError as error:
            await self.send_error(error.code, error.message, client_seq=error.client_seq)
        except Exception:  # never a traceback to a client; the log keeps it
            logger.exception("match %s: message refused", self.match_id)
            # An action keeps its id, so that its client knows which one to send again.
            await self.send_error(
                "server_error",
                "the server could not take that message",
                client_seq=getattr(message, "client_seq", None),
            )

    async def take_action(self, message: ActionMessage) -> None:
        user = self.scope.get("user")
        try:
            result: ClientActionResult = await database_sync_to_async(
                match_client_action, thread_sensitive=False, executor=_action_threads
            )(
                match=self.match_id,
                seat=self.seat,
                action=message.action,
                client_seq=message.client_seq,
                user=user if getattr(user, "is_authenticated", False) else None,
                expected_version=message.version,
            )
        except StaleVersionError:
            await self.send_error(
                "stale_version",
                "the table changed before your move arrived: look again and choose",
                client_seq=message.client_seq,
            )
            await self.send_state(force=True)
            return
        except IllegalActionError as error:
            await self.send_error(error.code, error.message, client_seq=message.client_seq)
            return
        await self.send_ack(message.client_seq, result.version, applied=result.applied)

    async def seat_change(self, message: SeatMessage) -> None:
        """ "I'm back" or "leave the match to a computer player" (R8.1)."""
        service = match_seat_back if message.back else match_seat_leave
        try:
            await database_sync_to_async(service)(match=self.match_id, seat=self.seat)
        except IllegalActionError as error:
            await self.send_error(error.code, error.message)
        # The new state reaches every socket of the match as an event.

    async def client_seed(self, message: ClientSeedMessage) -> None:
        """The seat's seed for the next shuffle (R8.4): ``client_seed_ok`` with the commitment it
        went to, or an error (``stale_commit``, ``bad_seed``)."""
        assert self.seat is not None  # the parser refuses it from spectators
        try:
            await database_sync_to_async(match_client_seed)(
                match=self.match_id, seat=self.seat, commit=message.commit, seed=message.seed
            )
        except ClientSeedError as error:
            await self.send_error(error.code, str(error))
            return
        await self.send_json_message("client_seed_ok", {"commit": message.commit})

    async def resign(self) -> None:
        """The player's side loses the match at once (R8); refused, with its reason, when the
        match is over or a person plays on his side."""
        try:
            await database_sync_to_async(match_resign)(match=self.match_id, seat=self.seat)
        except IllegalActionError as error:
            await self.send_error(error.code, error.message)
        # The finished match reaches every socket of the match as an event.

    async def refuse_if_blocked(self) -> bool:
        """Close a socket of a suspended or banned player at once, saying why; True if closed."""
        message = await database_sync_to_async(blocked_text)(
            self.scope.get("user"), getattr(self, "language", None)
        )
        if message is None:
            return False
        await self.send_error("blocked", message)
        await self.close(code=CLOSE_FORBIDDEN)
        return True

    async def user_blocked(self, event: dict[str, Any]) -> None:
        """The player was suspended or banned: tell him why and until when, then close
        (channel-layer handler; ``moderation.enforcement.sanction_enforce`` sends it)."""
        await self.refuse_if_blocked()

    async def match_presence(self, event: dict[str, Any]) -> None:
        """Someone connected or went: show who is there (channel-layer handler)."""
        await self.render_presence()

    async def chat(self, message: ChatRequest) -> None:
        def post() -> None:
            # The refusal of a muted player is in this socket's language.
            with translation.override(getattr(self, "language", None)):
                chat_post(
                    match=self.match_id,
                    user=self.scope.get("user"),
                    seat=self.seat,
                    text=message.text,
                    phrase=message.phrase,
                )

        try:
            await database_sync_to_async(post)()
        except ChatError as error:
            await self.send_chat_error(error.code, error.message)
        # The message itself comes back to every socket of the match, this one included, as a
        # ``match.chat`` event once stored.

    async def match_chat(self, event: dict[str, Any]) -> None:
        """A chat message was stored: show it (channel-layer handler)."""
        if not self.chat_readable:
            return
        message = await database_sync_to_async(_chat_load)(event["id"])
        if message is not None:
            await self.render_chat(message)

    async def send_chat_history(self) -> None:
        if not self.chat_readable:
            await self.render_chat_history([])
            return
        messages = await database_sync_to_async(chat_recent)(match=self.match_id)
        await self.render_chat_history(messages)

    async def send_chat_error(self, code: str, message: str) -> None:
        await self.send_error(code, message)

    async def match_event(self, event: dict[str, Any]) -> None:
        """A committed change of the match: send this seat's new state (channel-layer handler)."""
        if event["version"] <= self.last_version:
            return  # a newer state was sent already: events that come in a burst coalesce
        await self.send_state(event=event, since=self.last_version)

    async def match_stale(self, event: dict[str, Any]) -> None:
        """The version watch found this socket behind the stored match (channel-layer handler):
        an event was lost, so send the state with the events missed, as a resync does (R8.2)."""
        await self.send_state(since=self.last_version)

    def behind(self, stored: int) -> bool:
        """Whether this socket is behind the ``stored`` version at two looks of the watch in a
        row, with neither version moving in between: a quiet table whose event never came. A
        socket merely slow on a busy table (its events still coming) is left to catch up."""
        if stored <= self.last_version:
            self.behind_from = None
            return False
        if self.behind_from == (self.last_version, stored):
            self.behind_from = None
            return True
        self.behind_from = (self.last_version, stored)
        return False

    async def send_state(
        self,
        *,
        event: dict[str, Any] | None = None,
        force: bool = False,
        since: int | None = None,
    ) -> None:
        """Send this seat's state; with ``since``, also the events after that version, when the
        log still has them all (else ``events`` is None: the state alone is the resync)."""
        if event is None:
            loaded = await database_sync_to_async(_load)(self.match_id, since)
        else:
            # Usually in memory already: no trip through the process's database thread.
            loaded = loaded_in_memory(self.match_id, since, event["version"])
            if loaded is None:
                loaded = await database_sync_to_async(load_for_event)(
                    self.match_id, since, event["version"]
                )
        if not force and loaded.match.version <= self.last_version:
            return
        self.last_version = loaded.match.version
        await self.render_state(loaded, event)

    async def send_json_message(self, kind: str, data: dict[str, Any]) -> None:
        message = server_message(kind, version=max(self.last_version, 0), data=data)
        await self.send(text_data=_json(message))

    async def render_presence(self) -> None:
        await self.send_state(force=True)

    # Each rendering decides how state, acknowledgements and errors look.
    @abstractmethod
    async def render_state(self, loaded: Loaded, event: dict[str, Any] | None) -> None: ...

    @abstractmethod
    async def send_ack(self, client_seq: int, version: int, *, applied: bool) -> None: ...

    @abstractmethod
    async def render_chat(self, message) -> None: ...

    @abstractmethod
    async def render_chat_history(self, messages) -> None: ...

    @abstractmethod
    async def send_error(
        self, code: str, message: str, *, client_seq: int | None = None
    ) -> None: ...


#: How often, in seconds, each server process compares the versions its match sockets have sent
#: with the stored ones.
VERSION_WATCH_SECONDS = 2.0


class _SocketsTask(ABC):
    """A task of this server process over all its open match sockets: started with the first
    socket, stopped with the last, looking at them every ``period()`` seconds."""

    def __init__(self) -> None:
        self._sockets: dict[int, weakref.WeakSet[_MatchConsumer]] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, consumer: _MatchConsumer) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and self._task.get_loop() is not loop:
            # Another event loop's (tests run one per test; a server has one): start afresh.
            with contextlib.suppress(RuntimeError):  # that loop may be closed already
                self._task.cancel()
            self._task = None
            self._sockets.clear()
        self._sockets.setdefault(consumer.match_id, weakref.WeakSet()).add(consumer)
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())

    def remove(self, consumer: _MatchConsumer) -> None:
        sockets = self._sockets.get(consumer.match_id)
        if sockets is not None:
            sockets.discard(consumer)
            if not sockets:
                del self._sockets[consumer.match_id]
        if not self._sockets and self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.period())
            watched = {match_id: list(s) for match_id, s in self._sockets.items() if s}
            if watched:
                await self.look(watched)

    @abstractmethod
    def period(self) -> float: ...

    @abstractmethod
    async def look(self, watched: dict[int, list[_MatchConsumer]]) -> None: ...


class _Heartbeat(_SocketsTask):
    """Keeps the presence rows of this process's sockets fresh: one ``UPDATE`` for all of them
    every ``HEARTBEAT_SECONDS``. A beat per socket made 40 database calls a second at 800 idle
    sockets, enough to saturate the process's database thread (docs/performance.md)."""

    def period(self) -> float:
        return HEARTBEAT_SECONDS

    async def look(self, watched: dict[int, list[_MatchConsumer]]) -> None:
        names = [consumer.channel_name for sockets in watched.values() for consumer in sockets]
        try:
            await database_sync_to_async(connections_seen)(channel_names=names)
        except Exception:  # the next beat tries again; presence only lags
            logger.warning("the heartbeat of %d sockets was not stored", len(names))


_heartbeat = _Heartbeat()


class _VersionWatch(_SocketsTask):
    """Catches up the sockets of this process that missed an event.

    Events go through the channel layer after the commit, and the send is robust: if the layer is
    down at that moment (a Redis restart) the change is stored but its event is lost, and on a
    quiet table nothing else would come to show it: every player would wait for a move that was
    already made. So every ``VERSION_WATCH_SECONDS`` one query reads the stored versions of the
    matches this process has sockets for, and a socket behind at two looks in a row is sent a
    ``match.stale`` message on its own channel, so that it catches up between its other messages,
    in order. One query per process, whatever the number of sockets.
    """

    def period(self) -> float:
        return VERSION_WATCH_SECONDS

    async def look(self, watched: dict[int, list[_MatchConsumer]]) -> None:
        try:
            versions = await database_sync_to_async(_versions)(list(watched))
        except Exception:  # the database is away: the next look tries again
            logger.warning("the version watch could not read the versions")
            return
        for match_id, stored in versions.items():
            for consumer in watched[match_id]:
                if not consumer.behind(stored):
                    continue
                try:
                    await asyncio.wait_for(
                        consumer.channel_layer.send(consumer.channel_name, {"type": "match.stale"}),
                        LAYER_SECONDS,
                    )
                except Exception:  # the layer is away: the socket is behind at later looks
                    logger.warning("match %s: a socket behind was not told", match_id)


_version_watch = _VersionWatch()


def _versions(match_ids: list[int]) -> dict[int, int]:
    return dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "version"))


class MatchJsonConsumer(_MatchConsumer):
    """The JSON protocol for programs (docs/protocol.md)."""

    async def render_state(self, loaded: Loaded, event: dict[str, Any] | None) -> None:
        data = match_payload(
            loaded.match, loaded.seats, loaded.state, self.seat, presence=loaded.presence
        )
        data["events"] = events_shown(loaded.events, loaded.state)
        if event is None:
            await self.send_json_message("state", data)
        else:
            data["event"] = {"kind": event["kind"], **event["data"]}
            await self.send_json_message("event", data)

    async def render_presence(self) -> None:
        loaded = await database_sync_to_async(_load)(self.match_id, None)
        await self.send_json_message("presence", loaded.presence.json(loaded.seats))

    async def send_ack(self, client_seq: int, version: int, *, applied: bool) -> None:
        await self.send_json_message("ack", {"client_seq": client_seq, "applied": applied})

    async def render_chat(self, message) -> None:
        await self.send_json_message("chat", chat_payload(message))

    async def render_chat_history(self, messages) -> None:
        await self.send_json_message(
            "chat_history", {"messages": [chat_payload(m) for m in messages]}
        )

    async def send_error(self, code: str, message: str, *, client_seq: int | None = None) -> None:
        await self.send_json_message(
            "error", {"code": code, "message": message, "client_seq": client_seq}
        )


class MatchHtmlConsumer(_MatchConsumer):
    """The htmx page: every state is the whole table as an out-of-band HTML fragment, in the
    language the page was rendered in."""

    async def connect(self) -> None:
        self.language = scope_language(self.scope)
        await super().connect()

    async def render_state(self, loaded: Loaded, event: dict[str, Any] | None) -> None:
        with translation.override(self.language):
            html = render_table(
                match=loaded.match,
                seats=loaded.seats,
                state=loaded.state,
                seat=self.seat,
                presence=loaded.presence,
            )
        match = loaded.match
        if match.status != Match.Status.PLAYING and match.ended_by:
            # The table is drawn from the engine's state, which a resignation or abandonment
            # leaves mid-hand: the page's own element says how the match ended.
            ending = await database_sync_to_async(match_ending_read)(
                match=match, seat=self.seat, seats=loaded.seats
            )
            with translation.override(self.language):
                html += render_match_ending(ending=ending, oob=True)
        await self.send(text_data=html)

    async def send_ack(self, client_seq: int, version: int, *, applied: bool) -> None:
        return  # the page learns the outcome from the state that follows

    async def render_chat(self, message) -> None:
        with translation.override(self.language):
            html = render_chat_message(message, seat=self.seat)
        await self.send(text_data=html)

    async def render_chat_history(self, messages) -> None:
        with translation.override(self.language):
            html = render_chat_log(messages, seat=self.seat)
        await self.send(text_data=html)

    async def send_chat_error(self, code: str, message: str) -> None:
        from django.template.loader import render_to_string

        with translation.override(self.language):
            html: str
            if code == "muted":  # the server's words: they say until when and why
                html = render_to_string(
                    "games/_chat_error.html", {"chat_error": message, "oob": True}
                )
            else:
                html = render_chat_error(code)
        await self.send(text_data=html)

    async def send_error(self, code: str, message: str, *, client_seq: int | None = None) -> None:
        with translation.override(self.language):
            text = _RESIGN_FLASH.get(code)
            html = render_flash(str(text) if text is not None else flash_text(code, message))
        await self.send(text_data=html)


def user_socket_group(scope: dict[str, Any]) -> str | None:
    """The channel-layer group of the signed-in user of a socket (None for a visitor)."""
    user = scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user_group_name(user.pk)


def blocked_text(user: Any, language: str | None) -> str | None:
    """Why and until when ``user`` is kept out, in ``language``; None if he is not."""
    if not getattr(user, "is_authenticated", False):
        return None
    restriction = blocked(user=user)
    if restriction is None:
        return None
    with translation.override(language):
        return restriction.message()


_ACCESS_MESSAGES = {
    "not_found": "there is no such match",
    "forbidden": "this table does not allow spectators",
    "login_required": "sign in to watch or play this match",
}


def _access(
    match_id: int, user: Any, invited_table_ids: list[int]
) -> tuple[int | None, bool] | str:
    """The seat of ``user`` at the match (None for a spectator) and whether he may read its chat
    (a table that refused spectators kept its chat to its players, also once its match is over
    and public: ``games.play.access.match_chat_readable``), or why the socket is refused.

    Spectators need what ``games.play.access.match_viewable`` asks: a table that allows them (a
    private table's match also its invite link opened in this browser), the importer of an imported
    match.
    """
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None:
        return "not_found"
    signed_in = getattr(user, "is_authenticated", False)
    if signed_in:
        seat = (
            MatchSeat.objects.filter(match=match, user=user).values_list("index", flat=True).first()
        )
        if seat is not None:
            return seat, True
    if not match_viewable(match=match, user=user, invited_table_ids=invited_table_ids):
        if not signed_in:
            return "login_required"
        # As the page says (games.play.views.match_page): a private or imported match is not
        # found by someone who may not see it, so the socket does not tell him it exists.
        if match_existence_secret(match):
            return "not_found"
        return "forbidden"
    return None, match_chat_readable(match=match, user=user, seat=None)


def _connection_open(match_id: int, seat: int | None, user: Any, channel_name: str) -> bool:
    """Store the socket; a player connecting restarts a clock stopped while nobody was there and
    wakes the worker (a match whose computer players were waiting, after a restart, goes on).
    Returns whether what the table shows of who is there changed: a seat connected, or the
    number of spectators."""
    before = presence_of(match_id=match_id)
    connection_open(match_id=match_id, seat=seat, user=user, channel_name=channel_name)
    if seat is not None:
        match_clock_resume(match=match_id)
    autoplay_kick(match_id)
    return presence_of(match_id=match_id) != before


def _connection_close(match_id: int, seat: int | None, channel_name: str) -> bool:
    before = presence_of(match_id=match_id)
    connection_close(channel_name=channel_name)
    return presence_of(match_id=match_id) != before


def _since(scope: dict[str, Any]) -> int | None:
    """The ``since`` version a reconnecting client puts in the socket's address, if any."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    values = query.get("since") or []
    value = values[0] if values else ""
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


def _chat_load(message_id: int) -> ChatMessage | None:
    return ChatMessage.objects.filter(pk=message_id).first()


def match_payload(
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    seat: int | None,
    *,
    presence: Presence | None = None,
) -> dict[str, Any]:
    """The JSON state of a match for one seat (None: a spectator), from the engine's view, with
    the running turn clock and who is there."""
    presence = presence or Presence(seats=frozenset(), spectators=0)
    # Programs read the computer players' names in English, whoever opened the table: one
    # stable name per level and seat, as the protocol's other words are English.
    with translation.override(PROTOCOL_LANGUAGE):
        names = [seat_name(s) for s in seats]
    return {
        "match": match.pk,
        "status": match.status,
        # How a match over ended when its score did not end it: "resign" or "abandon" (R8).
        "ended_by": match.ended_by or None,
        "resigned_seat": match.resigned_seat,
        "match_winner": match.winner_side,
        "rated": match.rated,
        "seat": seat,
        "players": [
            {
                "seat": s.index,
                "name": name,
                "computer": s.computer_level is not None,
                "status": s.status,
                "presence": presence.of(s),
            }
            for s, name in zip(seats, names, strict=True)
        ],
        "spectators": presence.spectators,
        "clock": match_clock(match=match, state=state, seats=seats),
        # The next shuffle's commitment while it waits for its deal (R8.4): a seat answers
        # with ``client_seed``; never its server seed (games/play/fairness.py).
        "next_commit": (match.next_fair or {}).get("commit"),
        "view": game_view(state, seat),
    }


def events_shown(
    events: list[dict[str, Any]] | None, state: GameState
) -> list[dict[str, Any]] | None:
    """The logged events as a client may read them now: a card played to a trick that lies
    face down in the Double Sir pile is not named again (R9.15.1); the rest as logged."""
    hidden = face_down_tricks(state)
    if not events or not hidden:
        return events
    return [
        {key: value for key, value in event.items() if key != "card"} | {"card": None}
        if event.get("kind") == "play_card" and (event.get("hand"), event.get("trick")) in hidden
        else event
        for event in events
    ]


def _json(message: dict[str, Any]) -> str:
    return json.dumps(message, cls=DjangoJSONEncoder, ensure_ascii=False)
