"""Staff see tokens in the admin and revoke them; nobody makes one there."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from accounts.tokens import token_create, user_for_token
from tests.accounts.players import make_player

pytestmark = pytest.mark.django_db


def test_staff_revoke_tokens_in_the_admin(admin_client: Client) -> None:
    roya = make_player("roya")
    token, raw = token_create(user=roya, name="bot")

    listing = admin_client.get(reverse("admin:accounts_apitoken_changelist"))
    assert listing.status_code == 200
    assert token.prefix in listing.content.decode()
    assert raw not in listing.content.decode()
    assert token.key_hash not in listing.content.decode()

    response = admin_client.post(
        reverse("admin:accounts_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )

    assert response.status_code == 302
    assert user_for_token(raw) is None
    assert ApiToken.objects.get().revoked_at is not None


def test_tokens_are_not_made_in_the_admin(admin_client: Client) -> None:
    assert admin_client.get(reverse("admin:accounts_apitoken_add")).status_code == 403


def test_the_admin_index_has_no_two_sections_of_the_same_name(admin_client: Client) -> None:
    """Ours and django-allauth's e-mail addresses were both "Accounts" in the admin."""
    import re

    html = admin_client.get("/admin/").content.decode()
    captions = re.findall(r"<caption>\s*<a [^>]*>([^<]+)</a>", html)
    # Moderation is an app of its own since the layout issue (19): two sections, not one.
    assert {"Players", "Moderation"} <= set(captions)
    assert len(captions) == len(set(captions)), captions
