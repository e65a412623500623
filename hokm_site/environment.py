"""Reading settings from the environment.

Settings come from environment variables with development defaults (twelve-factor style), so the
same code runs on a laptop, in CI and in production. These helpers refuse values they cannot parse
instead of guessing: a typo in ``DEBUG`` must not silently switch a production site into debug mode.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Mapping
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
# "address" to redis.asyncio.ConnectionPool.from_url, so both can be set here. With no timeout, a
# connection whose peer vanished without a word (a host gone, a cable cut: no reset ever comes)
# would wait forever; TCP keepalive lets the kernel find it dead and the read fail, within about
# a minute with these probes (the kernel's defaults wait over two hours).
_KEEPALIVE_PROBES = {
    name: value
    for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3))
    if hasattr(socket, name)  # Linux has all three; other systems name some differently
}
REDIS_CONNECTION_OPTIONS: dict[str, Any] = {
    "socket_timeout": None,
    "socket_keepalive": True,
    "socket_keepalive_options": {getattr(socket, n): v for n, v in _KEEPALIVE_PROBES.items()},
    "max_connections": 1000,
}


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Read a yes/no variable; unset means ``default``, anything unrecognised is an error."""
    raw = environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no.")


def env_int(name: str, default: int, environ: Mapping[str, str] = os.environ) -> int:
    """Read an integer variable; unset or empty means ``default``."""
    raw = environ.get(name, "").strip()
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


#: The largest number of PostgreSQL connections a process's pool opens (``DATABASE_POOL_SIZE``):
#: its sockets' database thread, the worker's thread and the HTTP requests in flight.
DATABASE_POOL_SIZE = 10
#: How long a thread waits for a pooled connection before its request or message fails.
DATABASE_POOL_WAIT_SECONDS = 3


def database_config(database_url: str | None, *, base_dir: Path) -> dj_database_url.DBConfig:
    """The ``default`` database from ``DATABASE_URL``, or SQLite in the project root.

    PostgreSQL connections come from Django's connection pool (psycopg-pool), up to
    ``DATABASE_POOL_SIZE`` per process: under ASGI every request runs in a thread of its own, so
    persistent connections (``CONN_MAX_AGE``) would pile up, one per thread, as Django's
    documentation warns; without either, every socket message and request paid for a new
    connection (7.6 ms here, docs/performance.md). Health checks are on: a pooled connection the
    server dropped is replaced before use rather than failing a request. ``DATABASE_POOL_SIZE=0``
    turns the pool off, and then ``DATABASE_CONN_MAX_AGE`` keeps connections (0 closes them after
    each request, Django's default).
    """
    url = database_url or f"sqlite:///{base_dir / 'db.sqlite3'}"
    config = dj_database_url.parse(url)
    if config["ENGINE"] != "django.db.backends.sqlite3":
        pool_size = env_int("DATABASE_POOL_SIZE", DATABASE_POOL_SIZE)
        conn_max_age = env_int("DATABASE_CONN_MAX_AGE", 0)
        if pool_size < 0:
            raise ImproperlyConfigured("DATABASE_POOL_SIZE must be 0 (no pool) or more.")
        if pool_size and conn_max_age:
            raise ImproperlyConfigured(
                "DATABASE_CONN_MAX_AGE keeps connections without the pool: "
                "set DATABASE_POOL_SIZE=0 to use it."
            )
        config["CONN_MAX_AGE"] = conn_max_age
        config["CONN_HEALTH_CHECKS"] = True
        if pool_size:
            # One connection stays open; a busy moment may borrow up to the size. A thread that
            # gets none waits DATABASE_POOL_WAIT_SECONDS, then fails as a refused connection
            # would: while the database is away the pool keeps trying to reconnect, and a blip
            # shorter than the wait delays a move instead of failing it.
            config.setdefault("OPTIONS", {})["pool"] = {
                "min_size": 1,
                "max_size": pool_size,
                "timeout": DATABASE_POOL_WAIT_SECONDS,
            }
        # A server that does not answer fails a connection in 10 s instead of holding a request,
        # a socket's message or the worker for as long as the kernel's TCP timeout (minutes).
        # A ``connect_timeout`` in the URL's query wins.
        config.setdefault("OPTIONS", {}).setdefault("connect_timeout", 10)
    else:
        # SQLite ignores SELECT ... FOR UPDATE. Write transactions that take the database lock
        # when they begin keep the services' "lock the match, read, validate, write" atomic
        # (two moves for one seat at once: one waits, then sees the other's), and the timeout
        # lets the waiting one queue instead of failing with "database is locked".
        config.setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
        # Tests get a database file, not Django's shared in-memory one: its table-level locks
        # fail at once instead of waiting, and server processes started by browser tests
        # could not open it.
        # One file per test process, so runs side by side never share a database.
        test_file = Path(tempfile.gettempdir()) / f"hokm-test-{os.getpid()}.sqlite3"
        config["TEST"] = {"NAME": str(test_file)}
    return config


#: The channels-redis layers ``REDIS_CHANNEL_LAYER`` chooses from (docs/performance.md, "Channel
#: layer", has the measurements).
REDIS_CHANNEL_LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
#: Redis pub/sub channels are shared by every database number of a server: the site's own names,
#: ``hokm.<database number>``, so that two sites on one server, each on its own database number,
#: stay apart as they do on the core layer.
REDIS_PUBSUB_PREFIX = "hokm"


def pubsub_prefix(redis_url: str) -> str:
    """The pub/sub layer's prefix for the Redis database ``redis_url`` names (0 if none)."""
    from redis.connection import parse_url

    return f"{REDIS_PUBSUB_PREFIX}.{parse_url(redis_url).get('db', 0)}"


def channel_layers_config(redis_url: str | None, kind: str = "pubsub") -> dict[str, Any]:
    """The ``CHANNEL_LAYERS`` setting: Redis when ``REDIS_URL`` is set, else in-memory.

    The in-memory layer only reaches consumers in the same process and scans every channel on
    each send: fine for development and tests, never for production. It is channels' own, made
    safe to send to from the computer players' thread (hokm_site/channel_layers.py). With Redis,
    ``kind`` picks channels-redis's pub/sub layer (pushed to the subscribed processes; it relays
    twice as many moves a second here, and the site carries more too: the default, chosen by the
    measurements of docs/performance.md) or its core layer (messages kept in Redis per channel,
    up to a capacity).
    """
    if not redis_url:
        return {"default": {"BACKEND": "hokm_site.channel_layers.InMemoryChannelLayer"}}
    if kind not in REDIS_CHANNEL_LAYERS:
        raise ImproperlyConfigured(
            f"REDIS_CHANNEL_LAYER must be one of {', '.join(REDIS_CHANNEL_LAYERS)}, not {kind!r}."
        )
    host = {"address": redis_url, **REDIS_CONNECTION_OPTIONS}
    if kind == "pubsub":
        config: dict[str, Any] = {"hosts": [host], "prefix": pubsub_prefix(redis_url)}
    else:
        config = {"hosts": [host], "capacity": REDIS_CHANNEL_CAPACITY}
    return {"default": {"BACKEND": REDIS_CHANNEL_LAYERS[kind], "CONFIG": config}}


def admin_url_prefix(raw: str) -> str:
    """Normalise ``ADMIN_URL`` to the ``"path/"`` form that ``django.urls.path`` expects."""
    prefix = raw.strip().strip("/")
    if not prefix:
        raise ImproperlyConfigured("ADMIN_URL must not be empty: the admin would shadow '/'.")
    return f"{prefix}/"


def email_config(environ: Mapping[str, str]) -> dict[str, Any]:
    """Email settings: SMTP when ``EMAIL_HOST`` is set, else files in ``EMAIL_FILE_PATH`` when that
    is set, else the console.

    The console backend prints each message (confirmation links, password resets) to the server's
    output, which is what development wants; browser tests against a server in another process
    read the confirmation links from files instead. ``EMAIL_USE_TLS`` (STARTTLS, port 587, the
    default) and ``EMAIL_USE_SSL`` (implicit TLS, port 465) exclude each other, as in Django.
    """
    sender = environ.get("DEFAULT_FROM_EMAIL", "").strip() or "Hokm online <noreply@localhost>"
    host = environ.get("EMAIL_HOST", "").strip()
    use_ssl = env_bool("EMAIL_USE_SSL", False, environ)
    use_tls = env_bool("EMAIL_USE_TLS", not use_ssl, environ)
    if use_tls and use_ssl:
        raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be on.")
    file_path = environ.get("EMAIL_FILE_PATH", "").strip()
    if host:
        backend = "django.core.mail.backends.smtp.EmailBackend"
    elif file_path:
        backend = "django.core.mail.backends.filebased.EmailBackend"
    else:
        backend = "django.core.mail.backends.console.EmailBackend"
    return {
        "EMAIL_BACKEND": backend,
        "EMAIL_FILE_PATH": file_path or None,
        "EMAIL_HOST": host or "localhost",
        "EMAIL_PORT": env_int("EMAIL_PORT", 465 if use_ssl else 587, environ),
        "EMAIL_HOST_USER": environ.get("EMAIL_HOST_USER", ""),
        "EMAIL_HOST_PASSWORD": environ.get("EMAIL_HOST_PASSWORD", ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
        # Sign-up waits on the SMTP server: a hung server must not hold a request for minutes.
        "EMAIL_TIMEOUT": env_int("EMAIL_TIMEOUT", 10, environ),
        "DEFAULT_FROM_EMAIL": sender,
        "SERVER_EMAIL": sender,
    }


def cache_config(cache_url: str | None) -> dict[str, Any]:
    """The ``CACHES`` setting: Redis when ``CACHE_URL`` is set, else this process's memory.

    Login rate limits count failures in the cache. The in-memory cache is per process, so with
    several server processes each keeps its own count and an attacker gets the limit once per
    process: set ``CACHE_URL`` (a Redis database of its own) as soon as more than one process
    serves the site. It is separate from ``REDIS_URL`` because clearing the cache flushes its
    whole database, which must not take the channel layer's messages with it.
    """
    if not cache_url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    if not cache_url.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(f"CACHE_URL={cache_url!r} is not a redis:// URL.")
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": cache_url,
            "KEY_PREFIX": "hokm",
        }
    }
