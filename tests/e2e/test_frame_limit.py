"""What a client is told when its frame is too large, through a real daphne (docs/protocol.md,
"Limits, and why a socket closes").

The application's own cap (``HOKM_SOCKET_MAX_FRAME_BYTES``, 16 KiB) answers ``too_large`` and
closes with 4413. Frames over daphne's ``--websocket-max-message-size`` (1 MiB) never reach the
application: daphne (autobahn, which fails a connection by dropping it) cuts the TCP connection
without a close frame, so the client sees an abnormal closure, 1006, not the 1009 a close frame
would carry. The in-process tests cannot show this (tests/live/test_socket_guards.py covers the
application's cap): only a real daphne has that limit.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from accounts.tokens import token_create
from games.play.socket_limits import CLOSE_TOO_LARGE
from tests.live.match_sockets import make_match

pytestmark = pytest.mark.django_db(transaction=True)

#: The close code a client reports when the connection ended without a close frame (RFC 6455).
ABNORMAL_CLOSURE = 1006


async def send_frame(url: str, token: str, payload: str) -> tuple[int | None, bool, list[dict]]:
    """Open the match socket, send ``payload`` as one text frame and read until the socket ends:
    the close code the client reports, whether a close frame came, and the JSON frames after the
    first state."""
    headers = {"Authorization": f"Bearer {token}"}
    async with websockets.connect(url, additional_headers=headers, max_size=None) as socket:
        while json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] != "chat_history":
            pass
        frames = []
        try:
            await socket.send(payload)
            while True:
                frames.append(json.loads(await asyncio.wait_for(socket.recv(), 10)))
        except ConnectionClosed:
            pass
        return socket.close_code, socket.protocol.close_rcvd is not None, frames


@pytest.fixture
def match_socket(live_server_url: str) -> tuple[str, str]:
    """A seated player's JSON socket address and token."""
    match, users = make_match("hokm2")
    token = token_create(user=users[0], name="frames")[1]
    url = live_server_url.replace("http://", "ws://") + f"/ws/api/match/{match.pk}/"
    return url, token


def test_a_frame_over_the_application_cap_gets_too_large_and_4413(match_socket):
    url, token = match_socket
    code, close_frame, frames = asyncio.run(send_frame(url, token, "x" * 20_000))
    assert (code, close_frame) == (CLOSE_TOO_LARGE, True)
    assert [frame["data"]["code"] for frame in frames if frame["type"] == "error"] == ["too_large"]


@pytest.mark.parametrize("size", [1_100_000, 5_000_000])
def test_a_frame_over_daphne_s_limit_drops_the_connection_without_a_close_frame(match_socket, size):
    url, token = match_socket
    code, close_frame, frames = asyncio.run(send_frame(url, token, "x" * size))
    assert (code, close_frame) == (ABNORMAL_CLOSURE, False)
    assert frames == []  # the application never saw the frame
