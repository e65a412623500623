"""Reading settings from the environment.

Settings come from environment variables with development defaults (twelve-factor style), so the
same code runs on a laptop, in CI and in production. These helpers refuse values they cannot parse
instead of guessing: a typo in ``DEBUG`` must not silently switch a production site into debug mode.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

# Each Redis channel holds at most this many undelivered messages; channels-redis's default of 100
# drops messages silently under bursts (measured, see STACK-NOTES.md), and a lost move or event
# would desynchronise a table.
REDIS_CHANNEL_CAPACITY = 1500

# redis-py 8 defaults every connection to socket_timeout=5, which collides with channels-redis's
# own 5 s blocking read (TimeoutError after 5 s of silence), and caps a pool at 100 connections
# (MaxConnectionsError under load). channels-redis passes every key of a host dict except
# "address" to redis.asyncio.ConnectionPool.from_url, so both can be set here.
REDIS_CONNECTION_OPTIONS: dict[str, Any] = {"socket_timeout": None, "max_connections": 1000}


def env_bool(name: str, default: bool) -> bool:
    """Read a yes/no variable; unset means ``default``, anything unrecognised is an error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no.")


def env_int(name: str, default: int) -> int:
    """Read an integer variable; unset or empty means ``default``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated variable; unset means ``default``, blanks are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_config(database_url: str | None, *, base_dir: Path) -> dict[str, Any]:
    """The ``default`` database from ``DATABASE_URL``, or SQLite in the project root.

    Persistent connections stay off (CONN_MAX_AGE=0) by default: Django's documentation says they
    should be disabled under ASGI, where every request runs in a thread of its own and idle
    connections would pile up. ``DATABASE_CONN_MAX_AGE`` overrides it; health checks are on so a
    reused connection that the server dropped is replaced rather than failing a request.
    """
    url = database_url or f"sqlite:///{base_dir / 'db.sqlite3'}"
    config = dj_database_url.parse(url)
    if config["ENGINE"] != "django.db.backends.sqlite3":
        config["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 0)
        config["CONN_HEALTH_CHECKS"] = True
    return config


def channel_layers_config(redis_url: str | None) -> dict[str, Any]:
    """The ``CHANNEL_LAYERS`` setting: Redis when ``REDIS_URL`` is set, else in-memory.

    The in-memory layer only reaches consumers in the same process and scans every channel on
    each send: fine for development and tests, never for production.
    """
    if not redis_url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [{"address": redis_url, **REDIS_CONNECTION_OPTIONS}],
                "capacity": REDIS_CHANNEL_CAPACITY,
            },
        }
    }


def admin_url_prefix(raw: str) -> str:
    """Normalise ``ADMIN_URL`` to the ``"path/"`` form that ``django.urls.path`` expects."""
    prefix = raw.strip().strip("/")
    if not prefix:
        raise ImproperlyConfigured("ADMIN_URL must not be empty: the admin would shadow '/'.")
    return f"{prefix}/"
