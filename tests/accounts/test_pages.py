"""allauth's pages use the site's layout: header with the menu, our stylesheet, our form markup,
in English and right to left in Persian."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.players import client_for, make_player, sign_up

pytestmark = pytest.mark.django_db

ENTRANCE_PAGES = [
    "account_signup",
    "account_login",
    "account_reset_password",
    "account_reset_password_done",
    "account_email_verification_sent",
]
MANAGE_PAGES = ["account_change_password", "account_email", "accounts:settings"]


def assert_site_layout(html: str) -> None:
    assert 'class="site-header"' in html
    assert "/static/css/site.css" in html
    assert "/static/accounts/accounts.css" in html
    # allauth's own bare layout has a "Menu:" list; ours does not.
    assert "Menu:" not in html


@pytest.mark.parametrize("name", ENTRANCE_PAGES)
def test_entrance_pages_use_the_site_layout(name: str) -> None:
    response = Client().get(reverse(name))

    assert response.status_code == 200
    html = response.content.decode()
    assert_site_layout(html)
    assert "account-entrance" in html
    assert "· Hokm online</title>" in html


@pytest.mark.parametrize("name", ["account_signup", "account_login"])
def test_entrance_pages_in_persian(name: str) -> None:
    html = Client().get(reverse(name), HTTP_ACCEPT_LANGUAGE="fa").content.decode()

    assert 'dir="rtl"' in html
    assert_site_layout(html)
    assert "ورود" in html  # allauth's own Persian catalog: "Sign In"


def test_sign_up_page_has_every_field_labelled() -> None:
    html = Client().get(reverse("account_signup")).content.decode()

    for field in ("username", "email", "password1", "password2"):
        assert f'<label for="id_{field}"' in html
        assert f'name="{field}"' in html
    assert 'class="account-form"' in html
    assert 'class="button"' in html


def test_sign_up_errors_are_shown_by_their_fields() -> None:
    response = Client().post(
        reverse("account_signup"),
        {"username": "ab", "email": "nope", "password1": "x", "password2": "y"},
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="errorlist') >= 3
    assert "field-invalid" in html


@pytest.mark.parametrize("name", MANAGE_PAGES)
def test_manage_pages_use_the_site_layout_with_account_tabs(name: str) -> None:
    client = client_for(make_player())

    response = client.get(reverse(name))

    assert response.status_code == 200
    html = response.content.decode()
    assert_site_layout(html)
    assert 'class="account-tabs"' in html
    assert 'aria-current="page"' in html


def test_email_confirmation_page_uses_the_site_layout() -> None:
    """The link confirms as it opens (tests/accounts/test_email_confirm_get.py); the page is
    what a link used already or mistyped shows."""
    sign_up(Client())
    (path,) = re.findall(r"https?://testserver(/\S+)", mail.outbox[0].body)
    Client().get(path)

    for language in ("en", "fa"):
        html = Client().get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert_site_layout(html)
        assert f'<a href="{reverse("account_login")}">' in html.split("</header>", 1)[1]
    assert User.objects.filter(username="sara_k").exists()


def test_header_offers_sign_in_and_sign_up_to_visitors() -> None:
    html = Client().get("/").content.decode()

    assert f'href="{reverse("account_login")}"' in html
    assert f'href="{reverse("account_signup")}"' in html
    assert 'href="/lobby/"' in html
    assert reverse("account_logout") not in html


def test_header_offers_profile_and_sign_out_to_players() -> None:
    client = client_for(make_player("roya", display_name="Roya K."))

    html = client.get("/").content.decode()

    assert f'href="{reverse("games:profile", args=["roya"])}"' in html
    assert "Roya K." in html
    assert f'action="{reverse("account_logout")}"' in html
    assert f'href="{reverse("account_login")}"' not in html
