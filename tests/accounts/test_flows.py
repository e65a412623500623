"""The account flows, all django-allauth's: sign-up with a confirmed email, login by username or
email, logout, password change and reset, and the failed-login rate limit."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.accounts.emails import link_in
from tests.accounts.players import PASSWORD, client_for, make_player, sign_up

pytestmark = pytest.mark.django_db

LOBBY = "/lobby/"


def log_in(client: Client, login: str, password: str = PASSWORD) -> object:
    return client.post(reverse("account_login"), {"login": login, "password": password})


def test_sign_up_sends_a_confirmation_email_and_confirming_logs_the_player_in() -> None:
    client = Client()
    response = sign_up(client)

    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    user = User.objects.get(username="sara_k")
    assert user.email == "sara@example.com"
    assert not EmailAddress.objects.get(user=user).verified
    assert "_auth_user_id" not in client.session
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["sara@example.com"]
    assert message.subject.startswith("[Hokm online] ")
    assert message.body.startswith("Hello from Hokm online!")

    # The link confirms as it opens (ACCOUNT_CONFIRM_EMAIL_ON_GET): no second click (issue 22).
    response = client.get(link_in(message))

    assert EmailAddress.objects.get(user=user).verified
    assert response.status_code == 302
    assert response["Location"] == LOBBY
    assert int(client.session["_auth_user_id"]) == user.pk


def test_an_unconfirmed_player_cannot_log_in_until_the_link_is_followed() -> None:
    sign_up(Client())
    confirm_url = link_in(mail.outbox[0])

    client = Client()
    response = log_in(client, "sara_k")
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session

    # The link opened on another device confirms the address, then the password lets them in.
    other_device = Client()
    response = other_device.post(confirm_url)
    assert response.status_code == 302
    assert response["Location"] == reverse("account_login")
    assert "_auth_user_id" not in other_device.session
    response = log_in(other_device, "sara_k")
    assert response.status_code == 302
    assert response["Location"] == LOBBY


def test_sign_up_needs_the_password_twice_and_an_email() -> None:
    response = sign_up(Client(), password2="something-else-entirely", email="")

    assert response.status_code == 200
    form = response.context["form"]
    assert "email" in form.errors
    assert "password2" in form.errors
    assert not User.objects.filter(username="sara_k").exists()


def test_a_username_is_taken_in_any_letter_case() -> None:
    make_player("Sara_K")

    response = sign_up(Client(), username="sara_k")

    assert response.status_code == 200
    assert "username" in response.context["form"].errors


@pytest.mark.parametrize("username", ["Sara_K", "sara_k", "SARA_K"])
def test_a_username_another_player_goes_by_as_display_name_is_refused(username: str) -> None:
    """At a table only display names show: a newcomer named "sara_k" would pass for the player
    who chose the display name "Sara_K"."""
    make_player("roya", display_name="Sara_K")

    response = sign_up(Client(), username=username)

    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        "Another player goes by that name. Choose another one."
    ]
    assert not User.objects.filter(username__iexact="sara_k").exists()


def test_a_username_a_display_name_looks_like_is_refused() -> None:
    make_player("roya", display_name="\u0405ara_K")  # a Cyrillic DZE for the "S"

    response = sign_up(Client(), username="sara_k")

    assert "username" in response.context["form"].errors
    assert not User.objects.filter(username__iexact="sara_k").exists()


def test_login_by_username_goes_to_the_lobby(player: User) -> None:
    client = Client()
    response = log_in(client, "roya")

    assert response.status_code == 302
    assert response["Location"] == LOBBY
    assert int(client.session["_auth_user_id"]) == player.pk


def test_login_by_email_goes_to_the_lobby(player: User) -> None:
    client = Client()
    response = log_in(client, "roya@example.com")

    assert response.status_code == 302
    assert response["Location"] == LOBBY
    assert int(client.session["_auth_user_id"]) == player.pk


def test_wrong_password_is_refused(player: User) -> None:
    client = Client()
    response = log_in(client, "roya", "not-the-password")

    assert response.status_code == 200
    assert response.context["form"].errors
    assert "_auth_user_id" not in client.session


def test_logout_by_post_from_the_header(player: User) -> None:
    client = client_for(player)
    home = client.get("/").content.decode()
    assert f'action="{reverse("account_logout")}"' in home

    response = client.post(reverse("account_logout"))

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "_auth_user_id" not in client.session


def test_password_change(player: User) -> None:
    client = client_for(player)
    new_password = "a-new-hakem-calls-hearts"

    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": new_password, "password2": new_password},
    )

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(new_password)


def test_password_reset_sends_a_link_that_sets_a_new_password(player: User) -> None:
    client = Client()
    response = client.post(reverse("account_reset_password"), {"email": "roya@example.com"})

    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["roya@example.com"]
    # The link redirects once to a URL without the key in it, then shows the form.
    page = client.get(link_in(mail.outbox[0]), follow=True)
    assert page.status_code == 200
    new_password = "seven-tricks-and-a-kot"
    response = client.post(
        page.redirect_chain[-1][0], {"password1": new_password, "password2": new_password}
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(new_password)


def failed_logins_allowed_per_account() -> int:
    """The per-account ("key") count of ACCOUNT_RATE_LIMITS["login_failed"], e.g. "5/5m/key"."""
    for limit in settings.ACCOUNT_RATE_LIMITS["login_failed"].split(","):
        amount, _, key = limit.split("/")
        if key == "key":
            return int(amount)
    raise AssertionError("login_failed has no per-account limit")


def test_failed_logins_are_rate_limited(player: User) -> None:
    allowed = failed_logins_allowed_per_account()
    client = Client()
    for _ in range(allowed):
        response = log_in(client, "roya", "guess")
        assert response.status_code == 200
        assert "Too many failed login attempts" not in response.content.decode()

    # Even the right password is refused now, so guessing on is pointless.
    response = log_in(client, "roya")

    assert response.status_code == 200
    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_rate_limit_is_per_account(player: User) -> None:
    make_player("hamid")
    client = Client()
    for _ in range(failed_logins_allowed_per_account()):
        log_in(client, "roya", "guess")

    response = log_in(client, "hamid")

    assert response.status_code == 302
    assert response["Location"] == LOBBY


def test_a_short_password_is_refused_in_the_language_of_the_page() -> None:
    # Django 5.2's "at least %d characters" has no Persian in Django's own catalogue; the
    # project's locale/fa carries it (accounts.forms.PASSWORD_TOO_SHORT keeps it there).
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    response = sign_up(client, password1="kq7#z", password2="kq7#z")

    assert response.status_code == 200
    page = response.content.decode()
    assert "این گذرواژه خیلی کوتاه است" in page
    assert "This password is too short" not in page
    assert not User.objects.filter(username="sara_k").exists()
