"""TokenAuthMiddleware: a bearer token on the WebSocket handshake decides the user; without one
the session's user stays; a bad token never falls back to the session."""

from __future__ import annotations

from http.cookies import SimpleCookie

import pytest
from asgiref.sync import sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.channels_auth import TokenAuthMiddleware, bearer_token
from accounts.models import User
from accounts.tokens import token_create, token_revoke
from tests.accounts.players import client_for, make_player

pytestmark = pytest.mark.django_db(transaction=True)


class WhoAmIConsumer(AsyncJsonWebsocketConsumer):
    """Says who the scope's user is and how they were authenticated."""

    async def connect(self) -> None:
        await self.accept()
        user = self.scope["user"]
        await self.send_json(
            {
                "username": user.username if user.is_authenticated else None,
                "auth_method": self.scope.get("auth_method"),
            }
        )


# As hokm_site/asgi.py wires it: the token middleware inside the session's.
application = AuthMiddlewareStack(TokenAuthMiddleware(WhoAmIConsumer.as_asgi()))


async def who_am_i(headers: list[tuple[bytes, bytes]]) -> dict[str, str | None]:
    communicator = WebsocketCommunicator(application, "/ws/api/match/1/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    answer = await communicator.receive_json_from()
    await communicator.disconnect()
    return answer


def session_cookie_of(user: User) -> tuple[bytes, bytes]:
    client = client_for(user)
    cookie = SimpleCookie()
    cookie[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return (b"cookie", cookie.output(header="", sep="; ").strip().encode())


def bearer(raw: str) -> tuple[bytes, bytes]:
    return (b"authorization", f"Bearer {raw}".encode())


async def test_a_bearer_token_authenticates_its_user() -> None:
    roya = await sync_to_async(make_player)("roya")
    _, raw = await sync_to_async(token_create)(user=roya, name="bot")

    answer = await who_am_i([bearer(raw)])

    assert answer == {"username": "roya", "auth_method": "token"}


async def test_the_token_wins_over_a_session_of_someone_else() -> None:
    roya = await sync_to_async(make_player)("roya")
    hamid = await sync_to_async(make_player)("hamid")
    _, raw = await sync_to_async(token_create)(user=roya, name="bot")
    cookie = await sync_to_async(session_cookie_of)(hamid)

    answer = await who_am_i([cookie, bearer(raw)])

    assert answer == {"username": "roya", "auth_method": "token"}


async def test_without_a_token_the_session_user_stays() -> None:
    hamid = await sync_to_async(make_player)("hamid")
    cookie = await sync_to_async(session_cookie_of)(hamid)

    answer = await who_am_i([cookie])

    assert answer == {"username": "hamid", "auth_method": "session"}


@pytest.mark.parametrize("raw", ["hokm_wrong", "", "not-even-a-token"])
async def test_an_invalid_token_is_anonymous_even_with_a_session(raw: str) -> None:
    hamid = await sync_to_async(make_player)("hamid")
    cookie = await sync_to_async(session_cookie_of)(hamid)

    answer = await who_am_i([cookie, bearer(raw)])

    assert answer == {"username": None, "auth_method": "token"}


async def test_a_revoked_token_is_anonymous() -> None:
    roya = await sync_to_async(make_player)("roya")
    token, raw = await sync_to_async(token_create)(user=roya, name="bot")
    await sync_to_async(token_revoke)(token_id=token.pk, user=roya)

    answer = await who_am_i([bearer(raw)])

    assert answer == {"username": None, "auth_method": "token"}


async def test_a_token_of_an_inactive_user_is_anonymous() -> None:
    roya = await sync_to_async(make_player)("roya", is_active=False)
    _, raw = await sync_to_async(token_create)(user=roya, name="bot")

    answer = await who_am_i([bearer(raw)])

    assert answer == {"username": None, "auth_method": "token"}


async def test_other_authorization_schemes_leave_the_session_alone() -> None:
    """A browser may repeat Basic credentials of a password-protected staging site."""
    hamid = await sync_to_async(make_player)("hamid")
    cookie = await sync_to_async(session_cookie_of)(hamid)

    answer = await who_am_i([cookie, (b"authorization", b"Basic c3RhZ2luZzpzZWNyZXQ=")])

    assert answer == {"username": "hamid", "auth_method": "session"}


def test_bearer_token_reads_the_header() -> None:
    assert bearer_token([(b"authorization", b"Bearer hokm_abc")]) == "hokm_abc"
    assert bearer_token([(b"Authorization", b"bearer   hokm_abc ")]) == "hokm_abc"
    assert bearer_token([(b"authorization", b"Bearer")]) == ""
    assert bearer_token([(b"authorization", b"Basic eDp5")]) is None
    assert bearer_token([(b"origin", b"http://localhost")]) is None
