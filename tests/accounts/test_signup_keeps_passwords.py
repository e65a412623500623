"""Issue 22: a refused sign-up gives back the passwords typed, unless the refusal is about them.

allauth's password inputs never show a value again (``render_value=False``): a newcomer refused
for a username taken had to type both passwords anew.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from tests.accounts.players import PASSWORD, make_player, sign_up

pytestmark = pytest.mark.django_db


def password_values(html: str) -> dict[str, str]:
    """Each password input's name and the value it comes back with ("" for none)."""
    inputs = re.findall(r'<input type="password"[^>]*>', html)
    assert len(inputs) == 2
    values = {}
    for tag in inputs:
        (name,) = re.findall(r'name="(password\d)"', tag)
        value = re.findall(r'value="([^"]*)"', tag)
        values[name] = value[0] if value else ""
    return values


def test_a_username_taken_keeps_both_passwords():
    make_player("sara_k")

    response = sign_up(Client(), email="another@example.com")

    assert response.status_code == 200
    assert "username" in response.context["form"].errors
    assert password_values(response.content.decode()) == {
        "password1": PASSWORD,
        "password2": PASSWORD,
    }


def test_a_missing_email_keeps_both_passwords():
    response = sign_up(Client(), email="")

    assert password_values(response.content.decode()) == {
        "password1": PASSWORD,
        "password2": PASSWORD,
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"password2": "something-else-entirely"},  # not the same twice
        {"password1": "short", "password2": "short"},  # too short
        {"password1": "password123", "password2": "password123"},  # too common
    ],
)
def test_a_refusal_about_the_passwords_clears_them(fields):
    response = sign_up(Client(), **fields)

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "password1" in errors or "password2" in errors
    assert password_values(response.content.decode()) == {"password1": "", "password2": ""}
    assert not User.objects.filter(username="sara_k").exists()


def test_the_empty_sign_up_page_shows_no_password():
    html = Client().get("/accounts/signup/").content.decode()

    assert password_values(html) == {"password1": "", "password2": ""}
