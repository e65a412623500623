"""The configured channel layer really carries messages: in-memory by default, Redis when
REDIS_URL is set (as in CI), so live play is tested over the same transport production uses."""

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator

import pytest
from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings

from hokm_site.environment import pubsub_prefix
from tests.conftest import redis_url_for_worker

# Longer than any legitimate delivery here, short enough that a lost message fails fast.
DELIVERY_TIMEOUT = 5.0

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="REDIS_URL is not set: no Redis layer configured"
)


@pytest.fixture
async def layer() -> AsyncIterator[BaseChannelLayer]:
    channel_layer = get_channel_layer()
    assert channel_layer is not None, "CHANNEL_LAYERS has no default layer"
    yield channel_layer
    # Redis pools belong to this test's event loop, which closes after the test.
    if isinstance(channel_layer, RedisChannelLayer):
        await channel_layer.close_pools()


async def test_message_sent_to_a_channel_is_received(layer: BaseChannelLayer) -> None:
    channel = await layer.new_channel()
    message = {"type": "table.event", "version": 7, "data": {"card": "AS"}}

    await layer.send(channel, message)

    assert await asyncio.wait_for(layer.receive(channel), DELIVERY_TIMEOUT) == message


async def test_group_send_reaches_every_member(layer: BaseChannelLayer) -> None:
    group = "table-roundtrip-test"
    members = [await layer.new_channel() for _ in range(4)]
    for channel in members:
        await layer.group_add(group, channel)
    try:
        await layer.group_send(group, {"type": "table.event", "version": 1})
        received = [
            await asyncio.wait_for(layer.receive(channel), DELIVERY_TIMEOUT) for channel in members
        ]
    finally:
        for channel in members:
            await layer.group_discard(group, channel)

    assert received == [{"type": "table.event", "version": 1}] * 4


@needs_redis
async def test_redis_url_configures_the_redis_layer(layer: BaseChannelLayer) -> None:
    # pub/sub unless REDIS_CHANNEL_LAYER says core (the default by measurement, docs/performance.md)
    kind = os.environ.get("REDIS_CHANNEL_LAYER") or "pubsub"
    expected = RedisChannelLayer if kind == "core" else RedisPubSubChannelLayer
    assert isinstance(layer, expected)


@needs_redis
async def test_redis_receive_survives_more_than_five_idle_seconds(
    layer: BaseChannelLayer,
) -> None:
    """With redis-py 8's default socket_timeout of 5 s, a receive that waits through a quiet
    table longer than that raises TimeoutError; settings turn the socket timeout off."""
    channel = await layer.new_channel()
    receiving = asyncio.create_task(layer.receive(channel))

    await asyncio.sleep(6)
    # Had the socket timed out, awaiting the task below re-raises that error.
    await layer.send(channel, {"type": "table.event", "version": 2})

    assert await asyncio.wait_for(receiving, DELIVERY_TIMEOUT) == {
        "type": "table.event",
        "version": 2,
    }


async def test_a_send_from_a_plain_thread_wakes_the_receiver(layer: BaseChannelLayer) -> None:
    """The computer players' thread sends with ``async_to_sync``, on an event loop of its own: the
    consumer waiting on the server's loop gets the message at once, not when that loop next wakes
    for some other reason (daphne: up to a second later)."""
    group = "table-thread-test"
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    receiving = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.05)  # the receiver is waiting on its queue
    sender = threading.Thread(
        target=async_to_sync(layer.group_send), args=(group, {"type": "table.event"})
    )
    started = time.monotonic()
    sender.start()
    try:
        # Waiting on the task, not the thread: joining would wake this loop by itself.
        done, _ = await asyncio.wait({receiving}, timeout=DELIVERY_TIMEOUT)
        waited = time.monotonic() - started
    finally:
        await asyncio.to_thread(sender.join)  # the send finishes on this loop: never block it
        receiving.cancel()
        await layer.group_discard(group, channel)
    assert done and receiving.result() == {"type": "table.event"}
    assert waited < 0.5, f"the receiver slept {waited:.2f} s after the message was sent"


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/0", 0, "redis://127.0.0.1:6379/0"),
        ("redis://127.0.0.1:6379/0", 1, "redis://127.0.0.1:6379/1"),
        ("redis://:secret@localhost:6379", 2, "redis://:secret@localhost:6379/2"),
        (
            "redis://127.0.0.1:6379/4?socket_timeout=3",
            1,
            "redis://127.0.0.1:6379/5?socket_timeout=3",
        ),
    ],
)
def test_each_test_worker_gets_a_redis_database_of_its_own(url, worker, expected) -> None:
    assert redis_url_for_worker(url, worker) == expected


@needs_redis
def test_this_worker_uses_its_own_redis_database_and_pub_sub_names() -> None:
    """Under pytest-xdist the two workers' events must never meet (tests/conftest.py): the layer
    this process uses and the servers its tests start (they read REDIS_URL) name the worker's
    Redis database, and the pub/sub layer's channel names carry its number. Without xdist the
    one process keeps the run's own database."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    url = os.environ["REDIS_URL"]
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]

    if worker.startswith("gw"):
        assert url == redis_url_for_worker(os.environ["HOKM_TESTS_REDIS_URL"], int(worker[2:]))
    else:
        assert "HOKM_TESTS_REDIS_URL" not in os.environ  # nothing was moved
    assert config["hosts"][0]["address"] == url
    if "prefix" in config:  # the pub/sub layer
        assert config["prefix"] == pubsub_prefix(url)
