"""The channel layers the benchmark compares, configured as the site configures its own.

``core`` is exactly what ``hokm_site.environment.channel_layers_config`` gives production with
``REDIS_CHANNEL_LAYER=core`` (``channels_redis.core.RedisChannelLayer`` with its capacity and the
redis-py 8 connection fixes). ``pubsub`` (production's default) is
``channels_redis.pubsub.RedisPubSubChannelLayer`` with the same connection options and a prefix
of its own: another program on the same Redis never hears the benchmark's messages.
"""

from __future__ import annotations

from typing import Any

from hokm_site.environment import REDIS_CONNECTION_OPTIONS, channel_layers_config

LAYERS = ("core", "pubsub")
PUBSUB_PREFIX = "hokm-bench-load"


def layer_config(kind: str, redis_url: str) -> dict[str, Any]:
    """The ``CHANNEL_LAYERS["default"]`` entry of ``kind`` (``core`` or ``pubsub``)."""
    if kind == "core":
        return channel_layers_config(redis_url, "core")["default"]
    if kind == "pubsub":
        return {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": redis_url, **REDIS_CONNECTION_OPTIONS}],
                "prefix": PUBSUB_PREFIX,
            },
        }
    raise ValueError(f"unknown channel layer {kind!r}: one of {', '.join(LAYERS)}")
