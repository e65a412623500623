"""Settings come from the environment: each variable selects what it should, and production
settings refuse to start unsafe and pass Django's deployment checks.

Settings are read once per process, so whole-settings cases run in a subprocess with a controlled
environment; the parsing helpers are tested in-process.
"""

import json
import os
import secrets
import socket
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from channels_redis.core import RedisChannelLayer
from django.core.exceptions import ImproperlyConfigured

from hokm_site.environment import (
    REDIS_CHANNEL_CAPACITY,
    admin_url_prefix,
    channel_layers_config,
    env_bool,
    env_list,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Everything settings.py reads, so the caller's own environment (CI exports DATABASE_URL and
# REDIS_URL) cannot leak into a case that means to test the defaults.
SETTINGS_VARIABLES = (
    "ADMIN_URL",
    "CACHE_URL",
    "DEFAULT_FROM_EMAIL",
    "EMAIL_FILE_PATH",
    "EMAIL_HOST",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_HOST_USER",
    "EMAIL_PORT",
    "EMAIL_TIMEOUT",
    "EMAIL_USE_SSL",
    "EMAIL_USE_TLS",
    "HOKM_AUTOPLAY",
    "HOKM_BOT_DELAY_SECONDS",
    "HOKM_BOT_PROCESSES",
    "HOKM_NEXT_HAND_DELAY_SECONDS",
    "HOKM_SOCKET_MAX_FRAME_BYTES",
    "HOKM_SOCKET_RATE_BURST",
    "HOKM_SOCKET_RATE_CLOSE_AFTER",
    "HOKM_SOCKET_RATE_PER_SECOND",
    "TRUSTED_PROXY_COUNT",
    "ALLOWED_HOSTS",
    "BEHIND_HTTPS_PROXY",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_CONN_MAX_AGE",
    "DATABASE_POOL_SIZE",
    "DATABASE_URL",
    "DEBUG",
    "DJANGO_LOG_LEVEL",
    "DJANGO_SETTINGS_MODULE",
    "LOG_LEVEL",
    "REDIS_CHANNEL_LAYER",
    "REDIS_URL",
    "SECRET_KEY",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_HSTS_SECONDS",
    "SECURE_SSL_REDIRECT",
)

PRINT_SETTINGS = """
import json
from django.conf import settings
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "DATABASE": {k: str(v) for k, v in settings.DATABASES["default"].items()
                 if k in ("ENGINE", "NAME", "HOST", "PORT", "USER", "CONN_MAX_AGE",
                          "CONN_HEALTH_CHECKS")},
    "POOL": settings.DATABASES["default"].get("OPTIONS", {}).get("pool"),
    "CHANNEL_LAYERS": settings.CHANNEL_LAYERS,
    "ADMIN_URL": settings.ADMIN_URL,
    "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
    "SECURE_SSL_REDIRECT": settings.SECURE_SSL_REDIRECT,
}))
"""


def production_secret_key() -> str:
    """A random 60-character key, as `check --deploy` wants (long, varied, no insecure prefix)."""
    alphabet = string.ascii_letters + string.digits + "!@#%^&*(-_=+)"
    return "".join(secrets.choice(alphabet) for _ in range(60))


def run_in_project(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """Run a Python command in the project root with only the given settings variables set."""
    environ = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    environ.update(DJANGO_SETTINGS_MODULE="hokm_site.settings", **env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=PROJECT_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_with(**env: str) -> dict[str, Any]:
    result = run_in_project(["-c", PRINT_SETTINGS], **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_defaults_are_for_development() -> None:
    settings = settings_with()
    assert settings["DEBUG"] is True
    assert "localhost" in settings["ALLOWED_HOSTS"]
    assert "127.0.0.1" in settings["ALLOWED_HOSTS"]
    assert settings["DATABASE"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings["DATABASE"]["NAME"] == str(PROJECT_ROOT / "db.sqlite3")
    assert settings["CHANNEL_LAYERS"]["default"]["BACKEND"] == (
        "hokm_site.channel_layers.InMemoryChannelLayer"
    )
    assert settings["ADMIN_URL"] == "admin/"
    assert settings["SESSION_COOKIE_SECURE"] is False


def test_database_url_selects_postgresql_with_a_connection_pool() -> None:
    settings = settings_with(DATABASE_URL="postgres://hokm@db.example:6543/hokm")
    database = settings["DATABASE"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["PORT"], database["NAME"]) == ("db.example", "6543", "hokm")
    # Django's docs: persistent connections should be disabled under ASGI; the pool instead.
    assert database["CONN_MAX_AGE"] == "0"
    assert settings["POOL"] == {"min_size": 1, "max_size": 10, "timeout": 3}
    # The pool checks a connection before handing it out (Django passes this on to it).
    assert database["CONN_HEALTH_CHECKS"] == "True"


def test_the_pool_size_can_be_set_and_the_pool_turned_off_for_persistent_connections() -> None:
    sized = settings_with(DATABASE_URL="postgres://hokm@db.example/hokm", DATABASE_POOL_SIZE="25")
    assert sized["POOL"]["max_size"] == 25
    kept = settings_with(
        DATABASE_URL="postgres://hokm@db.example/hokm",
        DATABASE_POOL_SIZE="0",
        DATABASE_CONN_MAX_AGE="60",
    )
    assert kept["POOL"] is None
    assert kept["DATABASE"]["CONN_MAX_AGE"] == "60"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_CONN_MAX_AGE": "60"}, "DATABASE_POOL_SIZE=0"),
        ({"DATABASE_POOL_SIZE": "-1"}, "DATABASE_POOL_SIZE must be 0"),
        ({"DATABASE_POOL_SIZE": "many"}, "is not an integer"),
    ],
)
def test_contradictory_or_bad_pool_settings_stop_the_start(env, message) -> None:
    result = run_in_project(
        ["-c", PRINT_SETTINGS], DATABASE_URL="postgres://hokm@db.example/hokm", **env
    )
    assert result.returncode != 0
    assert message in result.stderr


def test_redis_url_selects_the_pub_sub_layer_with_redis_py_8_fixes() -> None:
    url = "redis://cache.example:6380/2"
    layer = settings_with(REDIS_URL=url)["CHANNEL_LAYERS"]["default"]
    # The default by measurement (docs/performance.md, "Channel layer").
    assert layer["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert layer["CONFIG"]["hosts"] == [
        {
            "address": url,
            "socket_timeout": None,
            "socket_keepalive": True,
            # Read back as JSON from the settings process: the option numbers come as strings.
            "socket_keepalive_options": {
                str(socket.TCP_KEEPIDLE): 30,
                str(socket.TCP_KEEPINTVL): 10,
                str(socket.TCP_KEEPCNT): 3,
            },
            "max_connections": 1000,
        }
    ]
    assert layer["CONFIG"]["prefix"] == "hokm.2"  # apart from a site on another database number


def test_redis_channel_layer_picks_the_core_layer_or_refuses_an_unknown_one() -> None:
    url = "redis://cache.example:6380/2"
    layer = settings_with(REDIS_URL=url, REDIS_CHANNEL_LAYER="core")["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert layer["CONFIG"]["capacity"] == REDIS_CHANNEL_CAPACITY > 100
    assert layer["CONFIG"]["hosts"][0]["address"] == url
    assert layer["CONFIG"]["hosts"][0]["socket_timeout"] is None
    assert (
        settings_with(REDIS_URL="redis://h:6379", REDIS_CHANNEL_LAYER="pubsub")["CHANNEL_LAYERS"][
            "default"
        ]["CONFIG"]["prefix"]
        == "hokm.0"
    )
    result = run_in_project(["manage.py", "check"], REDIS_URL=url, REDIS_CHANNEL_LAYER="kafka")
    assert result.returncode != 0
    assert "REDIS_CHANNEL_LAYER must be one of core, pubsub, not 'kafka'" in result.stderr


def test_channels_redis_passes_host_options_to_the_connection_pool() -> None:
    """channels-redis 4.3 hands every key but "address" to ConnectionPool.from_url; check that
    the pool really gets them, or redis-py 8's defaults (5 s timeout, 100 sockets) come back."""
    config = channel_layers_config("redis://127.0.0.1:6379/0", "core")["default"]["CONFIG"]
    layer = RedisChannelLayer(**config)
    pool = layer.create_pool(0)
    assert pool.max_connections == 1000
    assert pool.connection_kwargs["socket_timeout"] is None
    assert pool.connection_kwargs["socket_keepalive"] is True
    assert pool.connection_kwargs["socket_keepalive_options"][socket.TCP_KEEPIDLE] == 30
    assert layer.capacity == REDIS_CHANNEL_CAPACITY


def test_debug_off_without_secret_key_refuses_to_start() -> None:
    result = run_in_project(["manage.py", "check"], DEBUG="0", ALLOWED_HOSTS="example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_debug_off_without_allowed_hosts_refuses_to_start() -> None:
    result = run_in_project(["manage.py", "check"], DEBUG="0", SECRET_KEY=production_secret_key())
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set when DEBUG is off" in result.stderr


def test_production_settings_pass_check_deploy() -> None:
    result = run_in_project(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        DEBUG="0",
        SECRET_KEY=production_secret_key(),
        ALLOWED_HOSTS="example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_turn_on_secure_cookies_and_https_redirect() -> None:
    settings = settings_with(
        DEBUG="0", SECRET_KEY=production_secret_key(), ALLOWED_HOSTS="example.com"
    )
    assert settings["DEBUG"] is False
    assert settings["ALLOWED_HOSTS"] == ["example.com"]
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["SECURE_SSL_REDIRECT"] is True


def test_admin_url_comes_from_the_environment() -> None:
    assert settings_with(ADMIN_URL="/back-office")["ADMIN_URL"] == "back-office/"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("Yes", True), ("on", True), ("0", False), ("False", False)],
)
def test_env_bool_reads_common_spellings(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("HOKM_TEST_FLAG", raw)
    assert env_bool("HOKM_TEST_FLAG", not expected) is expected


def test_env_bool_refuses_what_it_cannot_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOKM_TEST_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured):
        env_bool("HOKM_TEST_FLAG", True)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOKM_TEST_LIST", " a.example, b.example ,,")
    assert env_list("HOKM_TEST_LIST", ["default"]) == ["a.example", "b.example"]
    monkeypatch.delenv("HOKM_TEST_LIST")
    assert env_list("HOKM_TEST_LIST", ["default"]) == ["default"]


def test_admin_url_must_not_be_empty() -> None:
    with pytest.raises(ImproperlyConfigured):
        admin_url_prefix("/")
