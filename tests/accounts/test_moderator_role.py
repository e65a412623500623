"""Moderators work in the admin without superuser powers; the admin asks staff for 2FA."""

from __future__ import annotations

import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import (
    TOTP,
    format_hotp_value,
    generate_totp_secret,
    hotp_value,
)
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.roles import MODERATORS_GROUP, is_moderator
from tests.accounts.players import PASSWORD, client_for, make_player

pytestmark = pytest.mark.django_db

GAMES_MODELS = (
    "table",
    "seat",
    "match",
    "matchseat",
    "hand",
    "trick",
    "cardplay",
    "chatmessage",
    "matchevent",
    "matchconnection",
)


def make_moderator(username: str = "mina") -> User:
    moderator = make_player(username, is_staff=True)
    moderator.groups.add(Group.objects.get(name=MODERATORS_GROUP))
    return moderator


def change_form_data(user: User, **changes: object) -> dict[str, object]:
    """The user change form as the admin would post it, with ``changes`` on top."""
    data: dict[str, object] = {
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "display_name": user.display_name,
        "is_active": "on",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
    }
    data.update(changes)
    return data


def test_moderators_group_has_exactly_its_permissions() -> None:
    group = Group.objects.get(name=MODERATORS_GROUP)

    granted = set(group.permissions.values_list("content_type__app_label", "codename"))

    expected = {("games", f"view_{model}") for model in GAMES_MODELS}
    expected |= {("accounts", "view_user"), ("accounts", "change_user")}
    assert granted == expected


def test_is_moderator_means_the_group_or_a_superuser() -> None:
    assert is_moderator(make_moderator())
    assert is_moderator(make_player("sara", is_superuser=True))
    assert not is_moderator(make_player("roya"))
    assert not is_moderator(make_player("nima", is_staff=True))


def test_admin_lives_at_the_admin_url_setting() -> None:
    assert reverse("admin:index") == "/" + settings.ADMIN_URL


@pytest.mark.parametrize(
    "url_name", ["admin:index", "admin:games_match_changelist", "admin:accounts_user_changelist"]
)
def test_admin_turns_players_away(url_name: str) -> None:
    response = client_for(make_player()).get(reverse(url_name))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_admin_sends_visitors_to_the_site_login() -> None:
    """The admin's login is allauth's, the one that asks for the second factor."""
    response = Client().get(reverse("admin:login"), {"next": reverse("admin:index")})

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_admin_login_refuses_a_logged_in_player() -> None:
    assert client_for(make_player()).get(reverse("admin:login")).status_code == 403


def test_moderator_sees_the_game_history() -> None:
    client = client_for(make_moderator())

    assert client.get(reverse("admin:index")).status_code == 200
    assert client.get(reverse("admin:games_match_changelist")).status_code == 200
    assert client.get(reverse("admin:games_table_changelist")).status_code == 200


def test_moderator_can_neither_add_nor_delete_users() -> None:
    client = client_for(make_moderator())
    roya = make_player("roya")

    assert client.get(reverse("admin:accounts_user_add")).status_code == 403
    assert (
        client.post(
            reverse("admin:accounts_user_delete", args=[roya.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert User.objects.filter(pk=roya.pk).exists()


def test_moderator_cannot_change_groups() -> None:
    client = client_for(make_moderator())
    group = Group.objects.get(name=MODERATORS_GROUP)

    assert client.get(reverse("admin:auth_group_changelist")).status_code == 403
    response = client.post(
        reverse("admin:auth_group_change", args=[group.pk]),
        {"name": group.name, "permissions": list(Permission.objects.values_list("pk", flat=True))},
    )

    assert response.status_code == 403
    assert group.permissions.count() == 12


def test_moderator_cannot_raise_himself() -> None:
    moderator = make_moderator()
    client = client_for(moderator)
    everything = list(Permission.objects.values_list("pk", flat=True))

    page = client.get(reverse("admin:accounts_user_change", args=[moderator.pk]))
    response = client.post(
        reverse("admin:accounts_user_change", args=[moderator.pk]),
        change_form_data(
            moderator,
            display_name="Mina",
            is_staff="on",
            is_superuser="on",
            groups=list(Group.objects.values_list("pk", flat=True)),
            user_permissions=everything,
        ),
    )

    assert page.status_code == 200
    assert 'name="is_superuser"' not in page.content.decode()
    assert response.status_code == 302
    moderator.refresh_from_db()
    assert moderator.display_name == "Mina"
    assert moderator.is_staff
    assert not moderator.is_superuser
    assert moderator.user_permissions.count() == 0
    assert list(moderator.groups.values_list("name", flat=True)) == [MODERATORS_GROUP]


def test_moderator_cannot_make_a_player_staff() -> None:
    client = client_for(make_moderator())
    roya = make_player("roya")

    response = client.post(
        reverse("admin:accounts_user_change", args=[roya.pk]),
        change_form_data(roya, is_staff="on", is_superuser="on"),
    )

    assert response.status_code == 302
    roya.refresh_from_db()
    assert not roya.is_staff
    assert not roya.is_superuser


def test_moderator_can_deactivate_a_player() -> None:
    client = client_for(make_moderator())
    roya = make_player("roya")

    data = change_form_data(roya)
    del data["is_active"]
    response = client.post(reverse("admin:accounts_user_change", args=[roya.pk]), data)

    assert response.status_code == 302
    roya.refresh_from_db()
    assert not roya.is_active


def test_moderator_cannot_change_other_staff_or_their_passwords() -> None:
    client = client_for(make_moderator())
    boss = make_player("sara", is_staff=True, is_superuser=True)

    response = client.post(
        reverse("admin:auth_user_password_change", args=[boss.pk]),
        {"password1": "a-new-long-password", "password2": "a-new-long-password"},
    )
    change = client.post(
        reverse("admin:accounts_user_change", args=[boss.pk]),
        change_form_data(boss, is_active=""),
    )

    assert response.status_code == 403
    assert change.status_code == 403
    boss.refresh_from_db()
    assert boss.check_password(PASSWORD)
    assert boss.is_active


def test_superuser_grants_staff_superuser_and_groups() -> None:
    client = client_for(make_player("sara", is_staff=True, is_superuser=True))
    roya = make_player("roya")
    group = Group.objects.get(name=MODERATORS_GROUP)

    response = client.post(
        reverse("admin:accounts_user_change", args=[roya.pk]),
        change_form_data(roya, is_staff="on", is_superuser="on", groups=[group.pk]),
    )

    assert response.status_code == 302
    roya.refresh_from_db()
    assert roya.is_staff
    assert roya.is_superuser
    assert list(roya.groups.all()) == [group]


def test_two_factor_pages_render_for_a_player() -> None:
    client = client_for(make_player())

    index = client.get(reverse("mfa_index"))
    asks_password = client.get(reverse("mfa_activate_totp"))
    confirm = client.get(asks_password["Location"])
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})
    activate = client.get(reverse("mfa_activate_totp"))

    assert index.status_code == 200
    assert asks_password.status_code == 302
    assert asks_password["Location"].startswith(reverse("account_reauthenticate"))
    assert confirm.status_code == 200
    assert activate.status_code == 200
    assert "Hokm online" in activate.content.decode()
    assert "data:image/svg+xml;base64," in activate.content.decode()
    assert Authenticator.objects.count() == 0


def test_settings_page_links_to_two_factor() -> None:
    html = client_for(make_player()).get(reverse("accounts:settings")).content.decode()

    assert f'href="{reverse("mfa_index")}"' in html


def test_login_asks_an_authenticator_user_for_the_code() -> None:
    roya = make_player()
    secret = generate_totp_secret()
    TOTP.activate(roya, secret)
    client = Client()

    response = client.post(reverse("account_login"), {"login": "roya", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == reverse("mfa_authenticate")
    assert "_auth_user_id" not in client.session

    code = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
    response = client.post(reverse("mfa_authenticate"), {"code": code})

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(roya.pk)
