"""A suspension or ban reaches the player's open sockets at once: each says why and until when,
then closes with 4403; his seat goes to a computer player and the others play on. A blocked
player cannot open a socket; a muted one's chat is refused with the reason over both renderings.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from games.lobby.consumers import CLOSE_FORBIDDEN
from games.models import MatchSeat
from games.play.selectors import match_state_build
from moderation.enforcement import sanction_enforce, sanction_until
from moderation.models import Sanction
from tests.accounts.players import sanction_in_force
from tests.games.factories import UserFactory, open_table
from tests.games.lobby_sockets import application
from tests.live.match_sockets import (
    APP,
    frame_of_type,
    join_html,
    join_json,
    make_match,
    receive_html,
    until_closed,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


def sanction_and_enforce(user, kind: str, **kwargs: Any) -> Sanction:
    """As ``moderation.services.sanction_apply`` does: write it, then enforce it."""
    row = sanction_in_force(user, kind, **kwargs)
    sanction_enforce(row)
    return row


async def still_open(communicator: WebsocketCommunicator) -> None:
    await communicator.send_to(text_data=json.dumps({"type": "ping"}))
    assert (await frame_of_type(communicator, "pong"))["type"] == "pong"


def _to_act(match_id: int) -> int:
    from games.models import Match

    return match_state_build(match=Match.objects.get(pk=match_id)).hand.to_act


async def test_a_ban_closes_the_players_sockets_at_once_and_the_computer_plays_his_seat(
    settings,
):
    settings.HOKM_AUTOPLAY = "inline"
    match, users = await db(make_match)("hokm4")
    seat = await db(_to_act)(match.pk)  # the banned player is the one to act
    banned = users[seat]
    clients = {user.pk: (await join_json(user, match.pk))[0] for user in users}
    page, _ = await join_html(banned, match.pk)
    lobby = WebsocketCommunicator(application(user=banned), "/ws/lobby/")
    assert (await lobby.connect())[0]
    await lobby.receive_from(timeout=5)

    ban = await db(sanction_and_enforce)(banned, Sanction.Kind.BAN, minutes=None, reason="Cheats")

    code, frames = await until_closed(clients[banned.pk])
    assert code == CLOSE_FORBIDDEN
    errors = [json.loads(f)["data"] for f in frames if json.loads(f)["type"] == "error"]
    assert errors == [
        {
            "code": "blocked",
            "message": "Your account is banned until further notice: Cheats",
            "client_seq": None,
        }
    ]
    code, frames = await until_closed(page)
    assert code == CLOSE_FORBIDDEN
    assert any("Your account is banned until further notice: Cheats" in f for f in frames)
    code, _ = await until_closed(lobby)
    assert code == CLOSE_FORBIDDEN
    assert ban.ends_at is None

    # His seat is the computer's, which has already moved for him; the others play on.
    row = await db(MatchSeat.objects.get)(match=match, index=seat)
    assert row.status == MatchSeat.Status.LEFT
    assert await db(_to_act)(match.pk) != seat
    for user in users:
        if user.pk != banned.pk:
            await still_open(clients[user.pk])
            await clients[user.pk].disconnect()


async def test_a_suspension_also_closes_a_table_page_socket():
    user = await db(UserFactory)()
    table = await db(open_table)(user)
    socket = WebsocketCommunicator(application(user=user), f"/ws/table/{table.pk}/")
    assert (await socket.connect())[0]
    await socket.receive_from(timeout=5)
    await db(sanction_and_enforce)(user, Sanction.Kind.SUSPEND, minutes=5)
    code, _ = await until_closed(socket)
    assert code == CLOSE_FORBIDDEN


async def test_a_blocked_player_cannot_open_a_socket():
    match, users = await db(make_match)("hokm2")
    suspension = await db(sanction_in_force)(
        users[0], Sanction.Kind.SUSPEND, minutes=45, reason="Abuse"
    )
    until = await db(sanction_until)(suspension)
    for api in (True, False):
        path = f"/ws/{'api/' if api else ''}match/{match.pk}/"
        socket = WebsocketCommunicator(APP, path)
        socket.scope["user"] = users[0]
        assert (await socket.connect())[0]  # accepted so that the close code reaches the client
        code, frames = await until_closed(socket)
        assert code == CLOSE_FORBIDDEN
        assert len(frames) == 1
        assert f"Your account is suspended until {until}: Abuse" in frames[0]
    for path in ("/ws/lobby/", f"/ws/table/{match.table_id}/"):
        socket = WebsocketCommunicator(application(user=users[0]), path)
        assert (await socket.connect())[0]
        code, frames = await until_closed(socket)
        assert (code, frames) == (CLOSE_FORBIDDEN, [])
    # The other player is not affected.
    other, _ = await join_json(users[1], match.pk)
    await still_open(other)
    await other.disconnect()


async def test_a_mute_or_a_warning_closes_nothing():
    match, users = await db(make_match)("hokm2")
    client, _ = await join_json(users[0], match.pk)
    await db(sanction_and_enforce)(users[0], Sanction.Kind.MUTE)
    await db(sanction_and_enforce)(users[0], Sanction.Kind.WARN, minutes=None)
    await still_open(client)
    seat = await db(MatchSeat.objects.get)(match=match, index=0)
    assert seat.status == MatchSeat.Status.PLAYING
    await client.disconnect()


async def test_a_muted_players_chat_is_refused_with_the_reason_and_the_end_on_both_sockets():
    match, users = await db(make_match)("hokm2")
    mute = await db(sanction_in_force)(users[0], Sanction.Kind.MUTE, minutes=20, reason="Insults")
    until = await db(sanction_until)(mute)
    api, _ = await join_json(users[0], match.pk)
    page, _ = await join_html(users[0], match.pk)
    await api.send_to(text_data=json.dumps({"type": "chat", "text": "you fool"}))
    error = (await frame_of_type(api, "error"))["data"]
    assert error["code"] == "muted"
    assert error["message"] == f"You are muted in the chat until {until}: Insults"
    await page.send_to(text_data=json.dumps({"type": "chat", "phrase": "hello"}))
    html = await receive_html(page, "chat-error")
    assert f"You are muted in the chat until {until}: Insults" in html
    # The mute ends: his message goes through.
    await db(Sanction.objects.filter(pk=mute.pk).update)(
        ends_at=timezone.now() - timedelta(seconds=1)
    )
    await api.send_to(text_data=json.dumps({"type": "chat", "text": "sorry"}))
    assert (await frame_of_type(api, "chat"))["data"]["text"] == "sorry"
    await api.disconnect()
    await page.disconnect()
