"""Personal API tokens: made and revoked on the settings page, the secret shown once and stored
only as its SHA-256, and ``user_for_token`` finding the user a program acts for."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import (
    LAST_USED_RESOLUTION,
    MAX_ACTIVE_TOKENS,
    token_create,
    token_revoke,
    user_for_token,
)
from tests.accounts.players import client_for, make_player

pytestmark = pytest.mark.django_db


def test_token_create_returns_the_secret_and_stores_only_its_hash() -> None:
    roya = make_player("roya")

    token, raw = token_create(user=roya, name="  my   bot ")

    assert raw.startswith("hokm_")
    assert len(raw) == len("hokm_") + 43
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.name == "my bot"
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert stored.prefix == raw[5:13]
    assert raw not in {stored.key_hash, stored.prefix, stored.name}
    assert stored.revoked_at is None
    assert stored.last_used_at is None


def test_tokens_are_different_every_time() -> None:
    roya = make_player("roya")

    secrets = {token_create(user=roya, name=f"bot {i}")[1] for i in range(5)}

    assert len(secrets) == 5


def test_token_create_needs_a_name_and_has_a_limit() -> None:
    roya = make_player("roya")
    with pytest.raises(ValidationError):
        token_create(user=roya, name="   ")
    for i in range(MAX_ACTIVE_TOKENS):
        token_create(user=roya, name=f"bot {i}")

    with pytest.raises(ValidationError):
        token_create(user=roya, name="one too many")
    # A revoked token frees its place.
    token_revoke(token_id=ApiToken.objects.filter(user=roya).first().pk, user=roya)
    token_create(user=roya, name="in its place")


def test_user_for_token_finds_the_owner() -> None:
    roya = make_player("roya")
    _, raw = token_create(user=roya, name="bot")

    assert user_for_token(raw) == roya


@pytest.mark.parametrize(
    "raw", ["", "hokm_", "hokm_not-a-token", "Bearer hokm_x", "x" * 500, "hokm_" + "a" * 200]
)
def test_user_for_token_refuses_what_is_not_a_token(raw: str) -> None:
    roya = make_player("roya")
    token_create(user=roya, name="bot")

    assert user_for_token(raw) is None


def test_a_revoked_token_finds_nobody() -> None:
    roya = make_player("roya")
    token, raw = token_create(user=roya, name="bot")

    revoked = token_revoke(token_id=token.pk, user=roya)

    assert revoked.revoked_at is not None
    assert user_for_token(raw) is None
    # Revoking again changes nothing.
    assert token_revoke(token_id=token.pk, user=roya).revoked_at == revoked.revoked_at


def test_a_token_of_an_inactive_user_finds_nobody() -> None:
    roya = make_player("roya")
    _, raw = token_create(user=roya, name="bot")
    roya.is_active = False
    roya.save()

    assert user_for_token(raw) is None


def test_nobody_revokes_another_players_token() -> None:
    roya = make_player("roya")
    hamid = make_player("hamid")
    token, raw = token_create(user=roya, name="bot")

    with pytest.raises(ApiToken.DoesNotExist):
        token_revoke(token_id=token.pk, user=hamid)
    assert user_for_token(raw) == roya


def test_last_used_is_written_at_most_once_a_minute() -> None:
    roya = make_player("roya")
    token, raw = token_create(user=roya, name="bot")

    user_for_token(raw)
    token.refresh_from_db()
    first_use = token.last_used_at
    assert first_use is not None

    user_for_token(raw)
    token.refresh_from_db()
    assert token.last_used_at == first_use

    long_ago = timezone.now() - LAST_USED_RESOLUTION - timedelta(seconds=1)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=long_ago)
    user_for_token(raw)
    token.refresh_from_db()
    assert token.last_used_at > long_ago


def test_settings_page_creates_a_token_and_shows_the_secret_once() -> None:
    roya = make_player("roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:token_create"), {"name": "laptop bot"})

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    (raw,) = re.findall(r"hokm_[A-Za-z0-9_-]{43}", html)
    assert user_for_token(raw) == roya
    assert "laptop bot" in html
    # Never again: the page lists the token by its prefix only.
    later = client.get(reverse("accounts:settings")).content.decode()
    assert raw not in later
    assert f"hokm_{raw[5:13]}…" in later
    assert "laptop bot" in later


def test_settings_page_refuses_a_token_without_a_name() -> None:
    roya = make_player("roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:token_create"), {"name": " "})

    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_settings_page_revokes_a_token() -> None:
    roya = make_player("roya")
    token, raw = token_create(user=roya, name="laptop bot")
    client = client_for(roya)

    response = client.post(reverse("accounts:token_revoke", args=[token.pk]))

    assert response.status_code == 302
    assert user_for_token(raw) is None
    page = client.get(reverse("accounts:settings"))
    assert "The token “<bdi>laptop bot</bdi>” is revoked." in page.content.decode()
    assert list(page.context["tokens"]) == []


def test_the_revoked_tokens_name_is_isolated_and_escaped() -> None:
    roya = make_player("roya")
    token, _ = token_create(user=roya, name="ربات <b>شب</b>")
    client = client_for(roya)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    client.post(reverse("accounts:token_revoke", args=[token.pk]))
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "<bdi>ربات &lt;b&gt;شب&lt;/b&gt;</bdi>" in page
    assert "<b>شب" not in page


def test_settings_page_does_not_revoke_another_players_token() -> None:
    roya = make_player("roya")
    token, raw = token_create(user=roya, name="bot")
    client = client_for(make_player("hamid"))

    response = client.post(reverse("accounts:token_revoke", args=[token.pk]))

    assert response.status_code == 404
    assert user_for_token(raw) == roya


def test_token_forms_need_post_login_and_csrf() -> None:
    roya = make_player("roya")
    token, _ = token_create(user=roya, name="bot")
    revoke_url = reverse("accounts:token_revoke", args=[token.pk])

    assert Client().post(reverse("accounts:token_create"), {"name": "x"}).status_code == 302
    assert Client().post(revoke_url).status_code == 302
    client = Client(enforce_csrf_checks=True)
    client.force_login(roya)
    assert client.get(revoke_url).status_code == 405
    assert client.post(reverse("accounts:token_create"), {"name": "x"}).status_code == 403
    assert client.post(revoke_url).status_code == 403
    assert ApiToken.objects.get().revoked_at is None


def test_opening_the_token_address_shows_the_settings_page() -> None:
    # After a token is made the address bar shows the form's URL (the page is rendered, not
    # redirected): opening it again, from history or a new tab, leads to the tokens, not to an
    # empty 405 page.
    roya = make_player("roya")
    client = client_for(roya)

    response = client.get(reverse("accounts:token_create"))

    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:settings") + "#tokens"
    assert not ApiToken.objects.exists()
