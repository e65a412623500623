"""What one client may send over one socket: a cap on the size of a frame and on the rate.

Every WebSocket consumer of the site takes these before it looks at a frame (docs/protocol.md,
"Limits"), so no client can make the server parse, store or answer more than a bounded amount:

- A frame over ``HOKM_SOCKET_MAX_FRAME_BYTES`` gets an error frame ``too_large`` and the socket
  closes with 4413. A frame a little over the protocol's own message size (``too_large`` from
  ``games.play.protocol``) is more likely a client's mistake and only gets the error; one this large
  is not a move, so the client is stopped. A frame over daphne's own
  ``--websocket-max-message-size`` (1 MiB by default) never reaches the application: daphne
  (autobahn) cuts the TCP connection without a close frame, and the client sees 1006, not 1009
  (tests/e2e/test_frame_limit.py).
- A token bucket per connection: ``HOKM_SOCKET_RATE_BURST`` messages at once, refilled at
  ``HOKM_SOCKET_RATE_PER_SECOND``. A message past it is not looked at and gets an error frame
  ``rate_limited``; once ``HOKM_SOCKET_RATE_CLOSE_AFTER`` messages have been refused since the
  bucket was last full, the socket closes with 4429: a client that keeps sending faster than the
  refill, even with pauses, is closed, one that bursts once and waits is not.

Close codes are the application's own (4000-4999): daphne (autobahn) refuses to send any other
code but 1000 from an application, so the standard 1009 cannot be used here.
Once a consumer has closed its socket, frames the client had already sent are dropped unread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

#: The socket sent a frame over ``HOKM_SOCKET_MAX_FRAME_BYTES``.
CLOSE_TOO_LARGE = 4413
#: The socket kept sending faster than ``HOKM_SOCKET_RATE_PER_SECOND``.
CLOSE_TOO_MANY = 4429


@dataclass(slots=True)
class TokenBucket:
    """``burst`` messages at once, refilled at ``per_second``; counts refusals since it was full."""

    burst: int
    per_second: float
    tokens: float = field(init=False)
    refilled: float = field(init=False)
    refused: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.tokens, self.refilled = float(self.burst), time.monotonic()

    def take(self, now: float | None = None) -> bool:
        """Take one token for a message; False (and one more refusal counted) if there is none."""
        now = time.monotonic() if now is None else now
        self.tokens = min(float(self.burst), self.tokens + (now - self.refilled) * self.per_second)
        self.refilled = now
        if self.tokens >= self.burst:
            self.refused = 0  # the client waited long enough for the bucket to fill: forgiven
        if self.tokens < 1:
            self.refused += 1
            return False
        self.tokens -= 1
        return True


def frame_too_large(text: str | None, data: bytes | None, limit: int) -> bool:
    """Whether a frame is over ``limit`` bytes as it came over the wire (text is UTF-8 there)."""
    if text is None:
        return len(data or b"") > limit
    # A character takes 1 to 4 bytes: most frames are decided without encoding them.
    if len(text) > limit:
        return True
    if len(text) * 4 <= limit:
        return False
    return len(text.encode("utf-8", "surrogatepass")) > limit


class SocketLimits:
    """Mixin for an ``AsyncWebsocketConsumer`` (put it before it among the bases): the caps above,
    checked in ``websocket_receive`` before ``receive`` is called.

    A consumer that has error frames overrides :meth:`send_error`; a socket that only listens
    (the lobby, a table page) has none, and the caps show only in its close codes.
    """

    socket_closed: bool = False
    _bucket: TokenBucket | None = None

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self.socket_closed:
            return  # sent before the client saw the close: nothing is done with it
        limit = settings.HOKM_SOCKET_MAX_FRAME_BYTES
        if frame_too_large(message.get("text"), message.get("bytes"), limit):
            await self.send_error("too_large", f"a frame may hold at most {limit} bytes")
            await self.close(code=CLOSE_TOO_LARGE)
            return
        if self._bucket is None:
            self._bucket = TokenBucket(
                burst=settings.HOKM_SOCKET_RATE_BURST,
                per_second=settings.HOKM_SOCKET_RATE_PER_SECOND,
            )
        if not self._bucket.take():
            if self._bucket.refused >= settings.HOKM_SOCKET_RATE_CLOSE_AFTER:
                await self.close(code=CLOSE_TOO_MANY)
            else:
                await self.send_error("rate_limited", "too many messages: slow down")
            return
        await super().websocket_receive(message)  # type: ignore[misc]

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.socket_closed = True
        await super().close(code=code, reason=reason)  # type: ignore[misc]

    async def send_error(self, code: str, message: str, *, client_seq: int | None = None) -> None:
        """Tell the client why its frame was refused: by default nothing (a listening socket)."""
