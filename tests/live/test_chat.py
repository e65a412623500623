"""The table chat: quick phrases and free text over both sockets, escaped, rate-limited, stored
with the match and shown on join and in the admin."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils import timezone

from games.models import ChatMessage
from games.play.chat import ChatError, chat_post, chat_recent
from tests.games.factories import UserFactory
from tests.live.match_sockets import (
    connect,
    frame_of_type,
    join_html,
    join_json,
    make_match,
    receive_html,
)

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOAD = '<script>alert("x")</script> & سلام'


async def test_a_message_reaches_every_seat_and_spectators_escaped_in_html_exact_in_json():
    match, users = await database_sync_to_async(make_match)("hokm4")
    watcher = await database_sync_to_async(UserFactory)()
    json_clients = [(await join_json(u, match.pk))[0] for u in users]
    spectator, history = await join_json(watcher, match.pk)
    assert history["data"] == {"messages": []}
    html_player, _ = await join_html(users[1], match.pk)
    html_spectator, _ = await join_html(watcher, match.pk)

    await json_clients[0].send_to(text_data=json.dumps({"type": "chat", "text": PAYLOAD}))
    for client in [*json_clients, spectator]:
        frame = await frame_of_type(client, "chat")
        data = frame["data"]
        assert data["text"] == PAYLOAD and data["phrase"] is None
        assert data["seat"] == 0 and data["name"] == users[0].username
        assert {"id", "at"} <= data.keys()
    for client in (html_player, html_spectator):
        html = await receive_html(client, "chat-line")
        assert '<div id="chat-log" hx-swap-oob="beforeend">' in html
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; سلام" in html
        assert "<script>" not in html
        assert f'<bdi class="chat-line__name">{users[0].username}</bdi>' in html
    stored = await database_sync_to_async(lambda: list(ChatMessage.objects.all()))()
    assert [(m.match_id, m.seat, m.user_id, m.text) for m in stored] == [
        (match.pk, 0, users[0].pk, PAYLOAD)
    ]
    for client in [*json_clients, spectator, html_player, html_spectator]:
        await client.disconnect()


async def test_a_quick_phrase_is_english_with_its_code_in_json_and_translated_in_html():
    match, users = await database_sync_to_async(make_match)("hokm2")
    player, _ = await join_json(users[0], match.pk)
    page = await connect(users[1], match.pk, api=False)
    await player.send_to(text_data=json.dumps({"type": "chat", "phrase": "good_game"}))
    frame = await frame_of_type(player, "chat")
    assert frame["data"]["text"] == "Good game" and frame["data"]["phrase"] == "good_game"
    html = await receive_html(page, "chat-line")
    assert "Good game" in html and "is-phrase" in html
    stored = await database_sync_to_async(ChatMessage.objects.get)()
    assert (stored.text, stored.phrase) == ("Good game", "good_game")
    # The htmx form's flat shape, with the other key empty, is taken too.
    await player.send_to(text_data=json.dumps({"type": "chat", "phrase": "thanks", "text": ""}))
    assert (await frame_of_type(player, "chat"))["data"]["phrase"] == "thanks"
    await player.disconnect()
    await page.disconnect()


def test_a_phrase_renders_in_persian_for_a_persian_page():
    from django.utils import translation

    from games.play.rendering import render_chat_message

    match, users = make_match("hokm2")
    message = chat_post(match=match, user=users[0], seat=0, phrase="hello")
    with translation.override("fa"):
        html = render_chat_message(message, seat=1)
    assert "سلام!" in html and "Hello!" not in html


async def test_the_last_30_messages_are_sent_on_join_oldest_first():
    match, users = await database_sync_to_async(make_match)("hokm2")

    def fill():
        now = timezone.now()
        ChatMessage.objects.bulk_create(
            ChatMessage(
                match=match,
                seat=i % 2,
                user=users[i % 2],
                name=users[i % 2].username,
                text=f"message {i} <b>",
                created_at=now - timedelta(minutes=40 - i),
            )
            for i in range(35)
        )

    await database_sync_to_async(fill)()
    client, history = await join_json(users[0], match.pk)
    texts = [m["text"] for m in history["data"]["messages"]]
    assert texts == [f"message {i} <b>" for i in range(5, 35)]
    html_client, html = await join_html(users[1], match.pk)
    assert '<ol id="chat-log"' in html and 'hx-swap-oob="true"' in html
    assert html.count("chat-line") >= 30 and "message 5 &lt;b&gt;" in html
    assert "message 4 " not in html
    assert html.index("message 5 ") < html.index("message 34 ")
    await client.disconnect()
    await html_client.disconnect()


def test_chat_recent_is_one_query(django_assert_num_queries):
    match, users = make_match("hokm2")
    for text in ("a", "b", "c"):
        ChatMessage.objects.create(match=match, seat=0, user=users[0], name="x", text=text)
    with django_assert_num_queries(1):
        assert [m.text for m in chat_recent(match=match.pk, limit=2)] == ["b", "c"]


async def test_the_sixth_message_in_ten_seconds_is_refused_and_not_stored():
    match, users = await database_sync_to_async(make_match)("hokm2")
    client, _ = await join_json(users[0], match.pk)
    for i in range(5):
        await client.send_to(text_data=json.dumps({"type": "chat", "text": f"m{i}"}))
        assert (await frame_of_type(client, "chat"))["data"]["text"] == f"m{i}"
    await client.send_to(text_data=json.dumps({"type": "chat", "text": "one too many"}))
    error = await frame_of_type(client, "error")
    assert error["data"]["code"] == "chat_rate_limited"
    assert await database_sync_to_async(ChatMessage.objects.count)() == 5
    assert not await database_sync_to_async(
        ChatMessage.objects.filter(text="one too many").exists
    )()
    await client.disconnect()


def test_thirty_messages_in_five_minutes_is_the_longer_limit():
    match, users = make_match("hokm2")
    now = timezone.now()
    ChatMessage.objects.bulk_create(
        ChatMessage(
            match=match,
            seat=0,
            user=users[0],
            name="x",
            text="t",
            created_at=now - timedelta(seconds=30 + 8 * i),
        )
        for i in range(30)
    )
    with pytest.raises(ChatError) as refused:
        chat_post(match=match, user=users[0], seat=0, text="hi")
    assert refused.value.code == "chat_rate_limited"
    # The other player has his own allowance.
    assert chat_post(match=match, user=users[1], seat=1, text="hi").text == "hi"


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "chat", "text": "   "}, "chat_empty"),
        ({"type": "chat", "text": "\x00\x07\n"}, "chat_empty"),
        ({"type": "chat", "text": "x" * 201}, "chat_too_long"),
        ({"type": "chat", "phrase": "insult"}, "unknown_phrase"),
        ({"type": "chat"}, "bad_message"),
        ({"type": "chat", "text": 5}, "bad_message"),
        ({"type": "chat", "text": "hi", "phrase": "hello"}, "bad_message"),
    ],
)
async def test_bad_chat_messages_are_refused_and_not_stored(message, code):
    match, users = await database_sync_to_async(make_match)("hokm2")
    client, _ = await join_json(users[0], match.pk)
    await client.send_to(text_data=json.dumps(message))
    assert (await frame_of_type(client, "error"))["data"]["code"] == code
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    await client.disconnect()


async def test_refusals_show_in_the_chat_panel_of_the_htmx_page():
    match, users = await database_sync_to_async(make_match)("hokm2")
    client, _ = await join_html(users[0], match.pk)
    await client.send_to(text_data=json.dumps({"type": "chat", "text": "x" * 201}))
    html = await receive_html(client, 'id="chat-error"')
    assert "is-shown" in html and "200" in html
    await client.disconnect()


def test_text_is_cleaned_of_control_characters_and_stripped():
    match, users = make_match("hokm2")
    message = chat_post(match=match, user=users[0], seat=0, text="  a\tb\nc\x00d\u200cه  ")
    assert message.text == "a b cd\u200cه"


async def test_spectators_read_but_cannot_write():
    match, users = await database_sync_to_async(make_match)("hokm2")
    watcher = await database_sync_to_async(UserFactory)()
    client, _ = await join_json(watcher, match.pk)
    await client.send_to(text_data=json.dumps({"type": "chat", "text": "hello"}))
    assert (await frame_of_type(client, "error"))["data"]["code"] == "not_seated"
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    with pytest.raises(ChatError) as refused:
        await database_sync_to_async(chat_post)(match=match, user=watcher, seat=0, text="hi")
    assert refused.value.code == "not_seated"  # not the user of that seat
    await client.disconnect()


def test_the_match_page_has_the_chat_panel_players_write_spectators_read(client):
    match, users = make_match("hokm2")
    chat_post(match=match, user=users[0], seat=0, text="<i>hi</i>")
    client.force_login(users[0])
    page = client.get(f"/match/{match.pk}/").content.decode()
    assert 'id="chat-log"' in page and "&lt;i&gt;hi&lt;/i&gt;" in page and "<i>hi</i>" not in page
    assert 'name="phrase" value="hello"' in page and 'name="text"' in page
    table_start = page.index('id="table"')
    assert page.index('id="chat-log"') > table_start  # beside #table, not inside it
    client.force_login(UserFactory())
    page = client.get(f"/match/{match.pk}/").content.decode()
    assert 'id="chat-log"' in page and 'name="text"' not in page


def test_stored_messages_are_readable_in_the_admin(client):
    match, users = make_match("hokm2")
    chat_post(match=match, user=users[0], seat=0, text="<b>rude</b> words")
    admin = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(admin)
    changelist = reverse("admin:games_chatmessage_changelist")
    response = client.get(changelist)
    assert response.status_code == 200
    page = response.content.decode()
    assert "&lt;b&gt;rude&lt;/b&gt; words" in page and "<b>rude</b>" not in page
    found = client.get(changelist, {"q": "rude"})
    assert "&lt;b&gt;rude&lt;/b&gt; words" in found.content.decode()
    assert client.get(reverse("admin:games_chatmessage_add")).status_code == 403
