"""A match's sockets in process, for the live tests: the project's socket routes, a match of
people to open them on, and readers of the frames each socket gets (docs/protocol.md)."""

from __future__ import annotations

import json
import re

from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from games.models import Match, Table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec, match_create
from games.routing import websocket_urlpatterns
from tests.engine.helpers import seat_may_see
from tests.games.factories import UserFactory

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
APP = URLRouter(websocket_urlpatterns)
#: Seconds a test waits for a consumer to finish closing (it removes the socket's row and tells
#: the others) before asserting what that did; the default second is short on a busy machine.
CLOSE_WAIT = 10


def make_match(variant: str, *, target: int = 1, seed: int = 5, spectators: bool = True):
    players = {"hokm4": 4, "hokm3": 3, "hokm2": 2, "hokm2-draw": 2}[variant]
    users = [UserFactory() for _ in range(players)]
    table = Table.objects.create(
        name="t", variant=variant, target=target, allow_spectators=spectators
    )
    match = match_create(
        variant=variant,
        target=target,
        seed=seed,
        table=table,
        seats=[SeatSpec(name=u.username, user=u) for u in users],
    )
    return match, users


async def connect(
    user, match_id: int, *, api: bool = True, query: str = ""
) -> WebsocketCommunicator:
    """A socket of ``user`` to the match; ``query`` as a reconnecting page puts it."""
    path = f"/ws/{'api/' if api else ''}match/{match_id}/" + (f"?{query}" if query else "")
    communicator = WebsocketCommunicator(APP, path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive(communicator: WebsocketCommunicator) -> dict:
    """The next frame but the chat history each socket gets after its first state and the
    presence frames sent as players connect (they have their own tests: tests/live/test_chat.py,
    tests/live/test_presence.py)."""
    while True:
        frame = json.loads(await communicator.receive_from(timeout=5))
        if frame["type"] not in ("chat_history", "presence"):
            return frame


async def frame_of_type(communicator: WebsocketCommunicator, kind: str) -> dict:
    """The next JSON frame of ``kind``, skipping the frames of other types in between."""
    while True:
        frame = json.loads(await communicator.receive_from(timeout=5))
        if frame["type"] == kind:
            return frame


async def receive_html(communicator: WebsocketCommunicator, needle: str) -> str:
    """The next HTML fragment holding ``needle``."""
    while True:
        frame = await communicator.receive_from(timeout=5)
        if needle in frame:
            return frame


async def table_html(communicator: WebsocketCommunicator) -> str:
    """The next live table fragment of the page's socket."""
    return await receive_html(communicator, 'id="table"')


async def until_closed(communicator: WebsocketCommunicator) -> tuple[int, list[str]]:
    """The close code of any socket, and the text frames sent before it."""
    frames = []
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output["code"], frames
        frames.append(output.get("text") or "")


async def join_json(user, match_id):
    """The JSON socket of ``user``, past its first state; and the chat history it got."""
    client = await connect(user, match_id)
    assert (await frame_of_type(client, "state"))["type"] == "state"
    history = await frame_of_type(client, "chat_history")
    return client, history


async def join_html(user, match_id):
    """The page's socket of ``user``, past its first table; and the chat log it got."""
    client = await connect(user, match_id, api=False)
    await receive_html(client, 'id="table"')
    history = await receive_html(client, 'id="chat-log"')
    return client, history


def allowed_cards(match_id: int, seat: int | None) -> set[str]:
    """R8.3 at this moment: own cards, cards played, own discards, own stock card in the draw."""
    return seat_may_see(match_state_build(match=Match.objects.get(pk=match_id)).hand, seat)


async def until_version(communicator, version: int) -> list[dict]:
    frames = []
    while True:
        frame = await receive(communicator)
        frames.append(frame)
        if frame["type"] in ("state", "event") and frame["version"] >= version:
            return frames


async def check_frames(frames, match_id, seat):
    allowed = await database_sync_to_async(allowed_cards)(match_id, seat)
    for frame in frames:
        frame = json.loads(json.dumps(frame))
        view = frame["data"].get("view")
        if view is not None:
            # The first-Hakem flips come from their own shuffle and are public (R2.2, R2.6).
            draw = view.pop("draw")
            stored = await database_sync_to_async(
                lambda: Match.objects.get(pk=match_id).hakem_draw
            )()
            assert draw == stored
        shown = set(CARD.findall(json.dumps(frame)))
        assert shown <= allowed, (seat, shown - allowed)
