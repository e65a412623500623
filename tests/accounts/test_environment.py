"""Account settings from the environment: email by console or SMTP, the rate-limit cache."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from hokm_site.environment import cache_config, email_config


def test_email_goes_to_the_console_by_default() -> None:
    config = email_config({})

    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert config["DEFAULT_FROM_EMAIL"] == "Hokm online <noreply@localhost>"


def test_email_file_path_writes_email_to_files() -> None:
    config = email_config({"EMAIL_FILE_PATH": "/tmp/hokm-mail"})

    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert config["EMAIL_FILE_PATH"] == "/tmp/hokm-mail"
    # A real server wins: files are for tests and development.
    config = email_config({"EMAIL_FILE_PATH": "/tmp/hokm-mail", "EMAIL_HOST": "smtp.example.com"})
    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"


def test_email_host_selects_smtp_with_starttls() -> None:
    config = email_config(
        {
            "EMAIL_HOST": "smtp.example.com",
            "EMAIL_HOST_USER": "hokm",
            "EMAIL_HOST_PASSWORD": "secret",
            "DEFAULT_FROM_EMAIL": "Hokm <hokm@example.com>",
        }
    )

    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (config["EMAIL_HOST"], config["EMAIL_PORT"]) == ("smtp.example.com", 587)
    assert (config["EMAIL_HOST_USER"], config["EMAIL_HOST_PASSWORD"]) == ("hokm", "secret")
    assert config["EMAIL_USE_TLS"] is True
    assert config["EMAIL_USE_SSL"] is False
    assert config["DEFAULT_FROM_EMAIL"] == config["SERVER_EMAIL"] == "Hokm <hokm@example.com>"
    assert config["EMAIL_TIMEOUT"] == 10


def test_email_over_implicit_tls() -> None:
    config = email_config({"EMAIL_HOST": "smtp.example.com", "EMAIL_USE_SSL": "1"})

    assert config["EMAIL_PORT"] == 465
    assert (config["EMAIL_USE_TLS"], config["EMAIL_USE_SSL"]) == (False, True)


def test_email_port_and_plain_smtp() -> None:
    config = email_config({"EMAIL_HOST": "mail", "EMAIL_PORT": "25", "EMAIL_USE_TLS": "0"})

    assert config["EMAIL_PORT"] == 25
    assert config["EMAIL_USE_TLS"] is False


def test_email_tls_and_ssl_together_are_refused() -> None:
    with pytest.raises(ImproperlyConfigured):
        email_config({"EMAIL_HOST": "mail", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"})


def test_cache_is_in_memory_by_default() -> None:
    assert cache_config(None)["default"]["BACKEND"] == (
        "django.core.cache.backends.locmem.LocMemCache"
    )


def test_cache_url_selects_redis() -> None:
    cache = cache_config("redis://127.0.0.1:6379/1")["default"]

    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/1"


def test_cache_url_must_be_redis() -> None:
    with pytest.raises(ImproperlyConfigured):
        cache_config("memcached://127.0.0.1:11211")


def test_account_settings_are_as_documented() -> None:
    assert settings.ACCOUNT_EMAIL_VERIFICATION == "mandatory"
    assert {"username", "email"} == settings.ACCOUNT_LOGIN_METHODS
    assert settings.LOGIN_REDIRECT_URL == "/lobby/"
    assert "login_failed" in settings.ACCOUNT_RATE_LIMITS
