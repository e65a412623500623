"""The in-memory channel layer, safe to send to from any thread (development and tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from channels.layers import InMemoryChannelLayer as ChannelsInMemoryChannelLayer


class InMemoryChannelLayer(ChannelsInMemoryChannelLayer):
    """channels' in-memory layer, with sends from other threads handed to the receiving loop.

    The layer keeps an asyncio queue per channel, which only the event loop waiting on it may
    touch. Code outside the server's loop and its ``sync_to_async`` threads (the computer players'
    scheduler thread, games.play.autoplay) sends through ``async_to_sync``, which runs the send on a
    loop of its own: the message lands in the queue but the consumer waiting on it is not woken,
    so it arrives only when the server's loop next wakes up (daphne's housekeeping, once a second).
    Such sends run on the loop that receives instead.
    """

    _receiving_loop: asyncio.AbstractEventLoop | None = None

    async def receive(self, channel: str) -> dict[str, Any]:
        self._receiving_loop = asyncio.get_running_loop()
        return await super().receive(channel)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self._on_receiving_loop(super().send(channel, message))

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self._on_receiving_loop(super().group_send(group, message))

    async def _on_receiving_loop(self, coroutine: Coroutine[Any, Any, None]) -> None:
        loop = self._receiving_loop
        if loop is None or not loop.is_running() or loop is asyncio.get_running_loop():
            await coroutine
            return
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))
