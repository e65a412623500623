"""Text written for others (table names, usernames and display names, chat lines) may hold no bidi
control and no invisible character (accounts.invisible_characters): "\\u202eeman live" would show
as "evil name". Each way in refuses it, says why and stores nothing; Persian with its zero-width
non-joiner (the half-space of "می‌روم") stays allowed."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from accounts.invisible_characters import (
    INVISIBLE_CHARACTERS,
    INVISIBLE_CHARACTERS_MESSAGE,
    has_invisible_character,
    validate_no_invisible_characters,
)
from accounts.models import User
from accounts.tokens import token_create
from games.lobby.services import TableError
from games.models import ChatMessage, Match, Seat, Table
from games.play.chat import ChatError, chat_post
from games.play.rendering import render_chat_error
from tests.accounts.players import client_for, make_player, sign_up
from tests.games.factories import UserFactory, api_match_start, open_table, table_form_data
from tests.live.match_sockets import connect, make_match

pytestmark = pytest.mark.django_db

MESSAGE = (
    "This text contains invisible characters, such as text-direction marks or zero-width "
    "spaces. Please remove them."
)
PERSIAN_MESSAGE = "این متن نویسه‌های نامرئی دارد"
#: RIGHT-TO-LEFT OVERRIDE, LEFT-TO-RIGHT ISOLATE, RIGHT-TO-LEFT MARK.
SPOOFS = ["\u202eeman live\u202c", "\u2066table\u2069 name", "table\u200f name"]
#: "Friends' table, I'm going": "می‌روم" holds a zero-width non-joiner (U+200C).
PERSIAN_WITH_ZWNJ = "میز دوستان می\u200cروم"


# -- the validator -------------------------------------------------------------------------------


@given(
    before=st.text(max_size=20),
    refused=st.sampled_from(sorted(INVISIBLE_CHARACTERS)),
    after=st.text(max_size=20),
)
def test_any_text_with_a_refused_character_is_refused(before, refused, after):
    text = before + refused + after
    assert has_invisible_character(text)
    with pytest.raises(ValidationError) as refusal:
        validate_no_invisible_characters(text)
    assert refusal.value.code == "invisible_characters"


@given(
    st.text(
        alphabet=st.one_of(
            st.characters(exclude_characters=INVISIBLE_CHARACTERS),
            st.sampled_from("\u200c میزدوستان"),  # ZWNJ among Persian letters, often
        ),
        max_size=40,
    )
)
def test_text_without_a_refused_character_is_not_refused(text):
    assert not has_invisible_character(text)
    validate_no_invisible_characters(text)


def test_the_zero_width_non_joiner_is_allowed_and_the_other_zero_width_characters_are_not():
    assert "\u200c" not in INVISIBLE_CHARACTERS
    assert {"\u200b", "\u200d", "\ufeff", "\u2060", "\u200e", "\u200f", "\u061c"} <= (
        INVISIBLE_CHARACTERS
    )


def test_the_message_is_in_persian_too():
    with translation.override("fa"):
        assert str(INVISIBLE_CHARACTERS_MESSAGE).startswith(PERSIAN_MESSAGE)


# -- table names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SPOOFS)
def test_the_table_form_refuses_a_name_with_bidi_controls_and_creates_nothing(name):
    client = client_for(UserFactory())

    response = client.post(reverse("games:table_create"), table_form_data(name=name))

    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [MESSAGE]
    assert Table.objects.count() == 0 and Seat.objects.count() == 0


def test_the_table_form_says_why_in_persian():
    client = client_for(UserFactory())

    response = client.post(
        reverse("games:table_create"), table_form_data(name=SPOOFS[0]), HTTP_ACCEPT_LANGUAGE="fa"
    )

    assert PERSIAN_MESSAGE in response.content.decode()
    assert Table.objects.count() == 0


@pytest.mark.parametrize("name", SPOOFS)
def test_table_create_refuses_a_name_with_bidi_controls_and_creates_nothing(name):
    with pytest.raises(TableError) as refusal:
        open_table(UserFactory(), name=name)

    assert refusal.value.message == MESSAGE
    assert Table.objects.count() == 0 and Seat.objects.count() == 0


def test_a_persian_table_name_with_a_zero_width_non_joiner_is_accepted():
    client = client_for(UserFactory())

    response = client.post(reverse("games:table_create"), table_form_data(name=PERSIAN_WITH_ZWNJ))

    table = Table.objects.get()
    assert response.status_code == 302
    assert table.name == PERSIAN_WITH_ZWNJ


def test_an_older_display_name_with_bidi_controls_still_names_default_tables():
    """Only the name typed is checked: a display name stored before the check does not keep
    its player from opening a table, nor from a match through the API."""
    user = make_player("lale", display_name="\u202eeman live")

    assert open_table(user, name="").name == "\u202eeman live's table"
    _, raw = token_create(user=user, name="bot")
    response = api_match_start(raw, {"variant": "hokm2", "name": SPOOFS[0]})
    assert response.status_code == 201, response.json()
    assert Match.objects.filter(pk=response.json()["match"]).exists()


# -- usernames and display names -----------------------------------------------------------------


@pytest.mark.parametrize("username", ["\u202eayor", "ro\u2066ya\u2069", "roya\u200f"])
def test_sign_up_refuses_a_username_with_bidi_controls(username):
    response = sign_up(Client(), username=username, email="roya@example.com")

    assert response.status_code == 200
    # Usernames are ASCII only (accounts.usernames): that rule refuses them and says so.
    assert response.context["form"].errors["username"] == [
        "Use only English letters, digits, underscores (_) and hyphens (-)."
    ]
    assert not User.objects.exists()


@pytest.mark.parametrize("username", ["\u202eayor", "ro\u2066ya\u2069", "roya\u200f"])
def test_a_forced_rename_refuses_a_username_with_bidi_controls(renamed, username):
    client = client_for(renamed)

    response = client.post(reverse("moderation:rename"), {"username": username})

    assert response.status_code == 400
    assert "Use only English letters" in response.content.decode()
    assert User.objects.get(pk=renamed.pk).username == "rude_name"


@pytest.mark.parametrize("name", SPOOFS)
def test_settings_refuse_a_display_name_with_bidi_controls(name):
    roya = make_player("roya", display_name="Roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:settings"), {"display_name": name})

    assert response.status_code == 400
    assert response.context["display_name_form"].errors["display_name"] == [MESSAGE]
    roya.refresh_from_db()
    assert roya.display_name == "Roya"


def test_a_persian_display_name_with_a_zero_width_non_joiner_is_accepted():
    roya = make_player("roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:settings"), {"display_name": "رویا می\u200cروم"})

    assert response.status_code == 302
    roya.refresh_from_db()
    assert roya.display_name == "رویا می\u200cروم"


# -- chat ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", SPOOFS)
def test_chat_refuses_a_line_with_bidi_controls_and_stores_nothing(text):
    match, users = make_match("hokm2")

    with pytest.raises(ChatError) as refusal:
        chat_post(match=match, user=users[0], seat=0, text=text)

    assert refusal.value.code == "chat_invisible_characters"
    assert refusal.value.message == MESSAGE
    assert ChatMessage.objects.count() == 0


def test_a_persian_chat_line_with_a_zero_width_non_joiner_is_stored_as_written():
    match, users = make_match("hokm2")

    message = chat_post(match=match, user=users[0], seat=0, text=PERSIAN_WITH_ZWNJ)

    assert ChatMessage.objects.get().text == message.text == PERSIAN_WITH_ZWNJ


def test_a_chat_line_may_hold_an_emoji_joined_by_a_zero_width_joiner_but_a_name_may_not():
    """A family emoji is three people joined by U+200D: fine in chat, where it makes no
    look-alike, and refused in a table name, where it could."""
    match, users = make_match("hokm2")
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 gg"

    assert chat_post(match=match, user=users[0], seat=0, text=family).text == family
    assert has_invisible_character(family)


def test_the_chat_panel_says_why_in_either_language():
    assert MESSAGE in render_chat_error("chat_invisible_characters")
    with translation.override("fa"):
        assert PERSIAN_MESSAGE in render_chat_error("chat_invisible_characters")


@pytest.mark.django_db(transaction=True)
async def test_a_socket_gets_the_refusal_and_nothing_is_stored():
    match, users = await database_sync_to_async(make_match)("hokm2")
    client = await connect(users[0], match.pk)
    await client.send_to(text_data=json.dumps({"type": "chat", "text": SPOOFS[0]}))

    while (frame := json.loads(await client.receive_from(timeout=5)))["type"] != "error":
        assert frame["type"] != "chat"
    assert frame["data"]["code"] == "chat_invisible_characters"
    assert frame["data"]["message"] == MESSAGE
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    await client.disconnect()
