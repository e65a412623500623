"""Issue 22: the link in the confirmation email confirms as it opens (ACCOUNT_CONFIRM_EMAIL_ON_GET),
with no second click on a Confirm button; a link that cannot confirm says how to go on."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.emails import link_in
from tests.accounts.players import PASSWORD, sign_up

pytestmark = pytest.mark.django_db


def test_the_setting_is_on():
    assert settings.ACCOUNT_CONFIRM_EMAIL_ON_GET is True


def test_opening_the_link_confirms_and_signs_in_the_browser_that_signed_up():
    client = Client()
    sign_up(client)
    user = User.objects.get(username="sara_k")

    response = client.get(link_in(mail.outbox[0]))

    assert response.status_code == 302
    assert response["Location"] == settings.LOGIN_REDIRECT_URL
    assert EmailAddress.objects.get(user=user).verified
    assert int(client.session["_auth_user_id"]) == user.pk


def test_the_link_opened_in_another_browser_confirms_then_asks_for_the_password():
    sign_up(Client())
    other = Client()

    response = other.get(link_in(mail.outbox[0]))

    assert response["Location"] == reverse("account_login")
    assert EmailAddress.objects.get(email="sara@example.com").verified
    assert "_auth_user_id" not in other.session
    signed_in = other.post(reverse("account_login"), {"login": "sara_k", "password": PASSWORD})
    assert signed_in["Location"] == settings.LOGIN_REDIRECT_URL


def test_a_link_used_already_says_to_sign_in_rather_than_invalid():
    sign_up(Client())
    link = link_in(mail.outbox[0])
    Client().get(link)  # a mail program's preview, or a first click

    response = Client().get(link)

    html = response.content.decode()
    assert response.status_code == 200
    assert "This link was used already or has expired." in html
    assert f'<a href="{reverse("account_login")}">Sign in</a>' in html
    assert "invalid" not in html.split("</header>", 1)[1]


def test_a_mistyped_link_shows_the_same_page():
    response = Client().get(reverse("account_confirm_email", args=["not-a-key"]))

    assert response.status_code == 200
    assert "This link was used already or has expired." in response.content.decode()


def test_confirming_by_post_still_works():
    client = Client()
    sign_up(client)

    response = client.post(link_in(mail.outbox[0]))

    assert response["Location"] == settings.LOGIN_REDIRECT_URL
    assert EmailAddress.objects.get(email="sara@example.com").verified
