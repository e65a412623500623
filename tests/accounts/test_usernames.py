"""Usernames: 3 to 20 English letters, digits, _ and -, and nothing that passes for staff or the
site, however it is disguised. Display names may not pass for staff either."""

from __future__ import annotations

import pytest
from allauth.account.adapter import get_adapter
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.forms import DisplayNameForm
from accounts.models import User
from accounts.usernames import reserved_word_in
from tests.accounts.players import PASSWORD, make_player, sign_up

GOOD_USERNAMES = [
    "roya",
    "Sara_K",
    "hamid-reza",
    "abc",
    "a" * 20,
    "player1",
    "bob_42",
    # Ordinary words that contain a short reserved word, or a reserved word's letters.
    "modest",
    "model_t",
    "bottle",
    "carrot",
    "rooster",
    "abbott",
    "mustafa",
    "badminton",
]

DISGUISED_STAFF_NAMES = [
    "admin",
    "Admin",
    "ADMIN",
    "adm1n",
    "4dm1n",
    "admln",
    "a-d-m-i-n",
    "a_d_m_i_n",
    "the_admin",
    "TheAdmin",
    "admin42",
    "sysadmin",
    "administrator",
    "addmin",
    "moderator",
    "m0d3rat0r",
    "mod",
    "Mod",
    "the_mod",
    "TheMod",
    "mods",
    "mod42",
    "m-o-d",
    "staff",
    "st4ff",
    "s-t-a-f-f",
    "support",
    "supp0rt",
    "helpdesk",
    "system",
    "syst3m",
    "root",
    "r00t",
    "official",
    "0ff1c1al",
    "hokm",
    "h0km",
    "hokm_fan",
    "computer",
    "c0mputer",
    "bot",
    "b0t",
    "bot7",
    "chatbot",
    "the-bot",
    "robot",
    "superuser",
    "webmaster",
]

BAD_CHARACTERS = ["ab", "a" * 21, "roya!", "roya.k", "roya k", "roya@home", "رویا", "rоya"]


@pytest.mark.parametrize("username", GOOD_USERNAMES)
def test_good_usernames_pass(username: str) -> None:
    assert not reserved_word_in(username)
    assert get_adapter().clean_username(username, shallow=True) == username


@pytest.mark.parametrize("username", DISGUISED_STAFF_NAMES)
def test_staff_words_are_refused_also_disguised(username: str) -> None:
    assert reserved_word_in(username)
    with pytest.raises(ValidationError) as refused:
        get_adapter().clean_username(username, shallow=True)
    assert refused.value.error_list[0].code == "reserved"


@pytest.mark.parametrize("username", BAD_CHARACTERS)
def test_length_and_characters_are_checked(username: str) -> None:
    # The last one has a Cyrillic "о": look-alike letters could carry a staff word past the check.
    with pytest.raises(ValidationError):
        get_adapter().clean_username(username, shallow=True)


@pytest.mark.django_db
def test_sign_up_refuses_a_staff_name_and_says_why() -> None:
    response = sign_up(Client(), username="the_adm1n", email="x@example.com")

    assert response.status_code == 200
    assert response.context["form"].errors["username"] == [
        "This name is kept for staff and the site. Please choose another."
    ]
    assert not User.objects.filter(username="the_adm1n").exists()


@pytest.mark.django_db
def test_sign_up_form_tells_the_browser_the_rules() -> None:
    html = Client().get(reverse("account_signup")).content.decode()

    assert 'maxlength="20"' in html
    assert r'pattern="[A-Za-z0-9_\-]+"' in html
    assert "3 to 20 characters" in html


@pytest.mark.django_db
def test_staff_created_in_the_admin_keep_their_names() -> None:
    """The rules are for sign-up: an account staff made in the admin is not blocked by them."""
    admin = make_player("admin", is_staff=True, is_superuser=True)
    admin.full_clean()  # the model's own validator accepts the name

    client = Client()
    response = client.post(reverse("account_login"), {"login": "admin", "password": PASSWORD})

    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == admin.pk
    assert Client().get(reverse("games:profile", args=["admin"])).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "Site Admin",
        "m o d e r a t o r",
        "مدیر سایت",
        "ادمین",
        # Letters of other scripts and styles that look like the Latin ones.
        "\u0410dmin",  # Cyrillic capital A
        "\u0405upport",  # Cyrillic capital DZE, an S
        "Adm\u0456n",  # Cyrillic small Byelorussian-Ukrainian I
        "M\u03bfderat\u03bfr",  # Greek small omicron
        "\uff53\uff54\uff41\uff46\uff46",  # fullwidth "staff"
        "\U0001d41a\U0001d41d\U0001d426\U0001d422\U0001d427",  # mathematical bold "admin"
        "\u1d00\u1d05\u1d0d\u026a\u0274",  # small capitals "admin"
        # Arabic yeh and kaf, as an Arabic keyboard layout types them, for the Persian letters.
        "\u0627\u062f\u0645\u064a\u0646",  # ادمين
        "\u0645\u062f\u064a\u0631",  # مدير
        "\u067e\u0634\u062a\u064a\u0628\u0627\u0646",  # پشتيبان
        # What the Persian pages call, or called, the computer players ("Computer (hard, seat 2)").
        "رایانه",
        "رایانه (سخت، صندلی ۲)",
        "کامپیوتر",
        "ربات حکم",
    ],
)
def test_display_names_may_not_pass_for_staff(name: str) -> None:
    form = DisplayNameForm({"display_name": name}, instance=make_player())

    assert not form.is_valid()
    assert form.errors["display_name"][0].startswith("This name is kept for staff")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name", ["Roya Karimi", "رویا کریمی", "Mostafa", "Сергей Иванов", "Κώστας", "علي"]
)
def test_display_names_in_any_script(name: str) -> None:
    form = DisplayNameForm({"display_name": name}, instance=make_player())

    assert form.is_valid(), form.errors
    assert form.cleaned_data["display_name"] == name


@pytest.mark.django_db
def test_staff_may_use_a_staff_display_name() -> None:
    form = DisplayNameForm({"display_name": "Moderator"}, instance=make_player(is_staff=True))

    assert form.is_valid(), form.errors
