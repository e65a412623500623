"""What every socket guards against: frames over the size cap, floods (games/play/socket_limits.py),
handshakes from another site, people who may not play or watch, and sign-ins that ended
(accounts/socket_sessions.py). The sign-in tests go through the project's whole ASGI stack
(hokm_site/asgi.py) with real session cookies.

Covered elsewhere and not repeated: a message over the protocol's 4096 bytes and other malformed
ones (tests/live/test_match_consumers.py, BAD_FRAMES), the default flood closing with 4429 (same
file), a signed-in user who is not seated at a table without spectators (same file), spectators'
chat, leave and back (tests/live/test_chat.py, tests/live/test_presence.py), a suspension or ban
closing every socket (tests/moderation/test_enforcement_sockets.py), a bearer token deciding the
user (tests/accounts/test_channels_auth.py), many malformed frames at once (test_fuzz_frames.py).
"""

from __future__ import annotations

import json
import logging
from http.cookies import SimpleCookie
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.socket_sessions import CLOSE_SIGNED_OUT
from accounts.tokens import token_create, token_revoke
from games.models import Match
from games.play.consumers import CLOSE_FORBIDDEN, CLOSE_NOT_FOUND
from games.play.socket_limits import CLOSE_TOO_LARGE, CLOSE_TOO_MANY, TokenBucket
from tests.accounts.emails import link_in
from tests.accounts.players import PASSWORD, client_for, make_player
from tests.games.factories import UserFactory, open_table
from tests.games.lobby_sockets import application as lobby_application
from tests.live.match_sockets import APP, make_match, until_closed

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
OWN_ORIGIN = "http://localhost"


async def next_json(communicator: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    while True:
        frame = json.loads(await communicator.receive_from(timeout=5))
        if frame["type"] == kind:
            return frame


async def pong(communicator: WebsocketCommunicator) -> None:
    """The socket is open and answers."""
    await communicator.send_to(text_data='{"type": "ping"}')
    assert (await next_json(communicator, "pong"))["data"] == {}


async def match_socket(user: Any, match_id: int, *, api: bool = True) -> WebsocketCommunicator:
    """A match socket with ``user`` in its scope, past its first state and chat history."""
    communicator = WebsocketCommunicator(APP, f"/ws/{'api/' if api else ''}match/{match_id}/")
    communicator.scope["user"] = user
    assert (await communicator.connect())[0]
    while True:
        frame = await communicator.receive_from(timeout=5)
        if '"chat_history"' in frame or 'id="chat-log"' in frame:
            return communicator


# -- the size cap --------------------------------------------------------------------------------


OVERSIZED = {
    "ascii text": {"text_data": "x" * (16 * 1024 + 1)},
    # Fewer characters than the cap, more bytes once UTF-8.
    "Persian text": {"text_data": "ح" * (9 * 1024)},
    "binary": {"bytes_data": b"\x00" * (16 * 1024 + 1)},
}


@pytest.mark.parametrize("frame", OVERSIZED.values(), ids=OVERSIZED.keys())
@pytest.mark.parametrize("api", [True, False], ids=["json", "html"])
async def test_a_frame_over_the_cap_gets_an_error_then_closes_with_4413(api, frame):
    match, users = await db(make_match)("hokm2")
    client = await match_socket(users[0], match.pk, api=api)

    await client.send_to(**frame)

    code, frames = await until_closed(client)
    assert code == CLOSE_TOO_LARGE
    reason = frames[-1]  # after any presence or state frame already on its way
    if api:
        assert json.loads(reason)["data"]["code"] == "too_large"
    else:
        assert 'id="flash"' in reason
    assert "at most 16384 bytes" in reason
    assert (await db(Match.objects.get)(pk=match.pk)).version == 0


async def test_a_frame_at_the_cap_is_read_and_the_cap_is_a_setting(settings):
    match, users = await db(make_match)("hokm2")
    client = await match_socket(users[0], match.pk)

    # Within the socket's cap, over the protocol's: refused, the socket stays (docs/protocol.md).
    await client.send_to(text_data="x" * (16 * 1024))
    assert (await next_json(client, "error"))["data"]["code"] == "too_large"
    await pong(client)

    settings.HOKM_SOCKET_MAX_FRAME_BYTES = 100
    await client.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * 100}))
    code, _ = await until_closed(client)
    assert code == CLOSE_TOO_LARGE


@pytest.mark.parametrize("api", [True, False], ids=["json", "html"])
async def test_a_binary_frame_gets_an_error_frame_and_the_socket_stays(api):
    match, users = await db(make_match)("hokm2")
    client = await match_socket(users[0], match.pk, api=api)

    await client.send_to(bytes_data=b'{"type": "ping"}')

    if api:
        frame = await next_json(client, "error")
        assert frame["data"]["code"] == "binary_frame"
    else:
        assert 'id="flash"' in await client.receive_from(timeout=5)
    if api:
        await pong(client)
    await client.disconnect()


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/table/{table}/"])
async def test_listening_sockets_ignore_frames_within_the_caps_and_close_past_them(path, settings):
    table = await db(open_table)()
    path = path.format(table=table.pk)

    # These sockets only send their page's fragment, on connect and whenever the lobby or the
    # table changes, which other tests' last changes may still do now (on a busy machine the
    # layer delivers them late): what they hear is a fragment of the same kind or nothing.
    page = WebsocketCommunicator(lobby_application(), path)
    assert (await page.connect())[0]
    fragment = (await page.receive_from(timeout=5))[:40]
    await page.send_to(text_data='{"type": "anything"}')
    await page.send_to(bytes_data=b"\x00\x01")
    heard = []
    while not await page.receive_nothing(timeout=0.3):
        heard.append(await page.receive_output())
    assert all(output.get("text", "")[:40] == fragment for output in heard), heard
    await page.send_to(text_data="x" * (16 * 1024 + 1))
    code, frames = await until_closed(page)
    assert code == CLOSE_TOO_LARGE
    assert all(frame[:40] == fragment for frame in frames)

    settings.HOKM_SOCKET_RATE_BURST = 5
    settings.HOKM_SOCKET_RATE_CLOSE_AFTER = 3
    page = WebsocketCommunicator(lobby_application(), path)
    assert (await page.connect())[0]
    await page.receive_from(timeout=5)
    for _ in range(20):
        await page.send_to(text_data="{}")
    code, frames = await until_closed(page)
    assert code == CLOSE_TOO_MANY
    assert all(frame[:40] == fragment for frame in frames)


# -- the rate cap --------------------------------------------------------------------------------


async def test_the_rate_cap_comes_from_the_settings(settings):
    settings.HOKM_SOCKET_RATE_BURST = 3
    settings.HOKM_SOCKET_RATE_PER_SECOND = 1
    settings.HOKM_SOCKET_RATE_CLOSE_AFTER = 2
    match, users = await db(make_match)("hokm2")
    client = await match_socket(users[0], match.pk)

    for _ in range(6):
        await client.send_to(text_data='{"type": "ping"}')

    code, frames = await until_closed(client)
    kinds = [
        (f["type"], f["data"].get("code"))
        for f in map(json.loads, frames)
        if f["type"] != "presence"
    ]
    assert kinds == [("pong", None)] * 3 + [("error", "rate_limited")]
    assert code == CLOSE_TOO_MANY


def test_the_bucket_gives_a_burst_then_the_refill():
    bucket = TokenBucket(burst=3, per_second=2)
    start = bucket.refilled
    assert [bucket.take(start) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(start + 0.5)  # one token back after half a second at 2 a second
    assert not bucket.take(start + 0.5)
    assert bucket.refused == 2


def test_the_bucket_forgives_a_client_who_waits_but_not_one_who_keeps_on():
    waits = TokenBucket(burst=4, per_second=1)
    now = waits.refilled
    for _ in range(10):
        waits.take(now)
    assert waits.refused == 6
    now += 4  # full again
    assert waits.take(now) and waits.refused == 0

    # Twice the refill rate, steadily: every other message refused, and it never catches up.
    steady = TokenBucket(burst=4, per_second=1)
    now = steady.refilled
    for step in range(200):
        steady.take(now + step / 2)
    assert steady.refused >= 95


async def test_frames_sent_after_a_refusal_are_dropped_unread(caplog):
    user = await db(UserFactory)()
    private, _ = await db(make_match)("hokm2", spectators=False)
    for match_id, code, reason in (
        (999_999, CLOSE_NOT_FOUND, "not_found"),
        (private.pk, CLOSE_FORBIDDEN, "forbidden"),
    ):
        client = WebsocketCommunicator(APP, f"/ws/api/match/{match_id}/")
        client.scope["user"] = user
        assert (await client.connect())[0]
        for _ in range(3):
            await client.send_to(text_data='{"type": "action", "client_seq": 1, "action": {}}')
        closing, frames = await until_closed(client)
        assert closing == code
        assert [json.loads(f)["data"]["code"] for f in frames] == [reason]
        assert await client.receive_nothing(timeout=0.2)
        await client.disconnect()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_private_match_is_not_found_by_a_stranger_as_on_its_page():
    """A public table that refuses spectators says so (forbidden); a private table's match is
    not found, so a stranger's socket learns no more than its page (games.play.views)."""
    stranger = await db(UserFactory)()
    match, _ = await db(make_match)("hokm2", spectators=False)

    def make_private() -> None:
        match.table.is_private = True
        match.table.save(update_fields=["is_private"])

    await db(make_private)()
    client = WebsocketCommunicator(APP, f"/ws/api/match/{match.pk}/")
    client.scope["user"] = stranger
    assert (await client.connect())[0]
    closing, frames = await until_closed(client)
    assert closing == CLOSE_NOT_FOUND
    assert [json.loads(f)["data"]["code"] for f in frames] == ["not_found"]
    await client.disconnect()


# -- who may open a socket -----------------------------------------------------------------------


def project_application() -> Any:
    """The site's whole ASGI application. Imported here, not at the top: the import starts the
    worker thread unless HOKM_AUTOPLAY says otherwise, which tests/conftest.py does per test."""
    assert django_settings.HOKM_AUTOPLAY == "off"
    from hokm_site.asgi import application

    return application


async def handshake(
    path: str, *, origin: str | None = OWN_ORIGIN, headers: list[tuple[bytes, bytes]] = ()
) -> tuple[WebsocketCommunicator, bool]:
    sent = [(b"host", b"localhost"), *headers]
    if origin is not None:
        sent.append((b"origin", origin.encode()))
    communicator = WebsocketCommunicator(project_application(), path, headers=sent)
    accepted, _ = await communicator.connect()
    return communicator, accepted


async def program_handshake(match_id: int, secret: str) -> tuple[WebsocketCommunicator, bool]:
    """A program's socket on a match: signed in by its API token, with no ``Origin`` (programs
    send none)."""
    return await handshake(
        f"/ws/api/match/{match_id}/",
        origin=None,
        headers=[(b"authorization", f"Bearer {secret}".encode())],
    )


def session_of(user: User) -> tuple[Client, tuple[bytes, bytes]]:
    """A signed-in browser: its test client, and its session cookie as a handshake header."""
    client = client_for(user)
    return client, cookie_of(client)


def cookie_of(client: Client) -> tuple[bytes, bytes]:
    cookie = SimpleCookie()
    name = django_settings.SESSION_COOKIE_NAME
    cookie[name] = client.cookies[name].value
    return (b"cookie", cookie.output(header="", sep="; ").strip().encode())


async def test_a_handshake_from_another_site_is_refused():
    match, users = await db(make_match)("hokm2")
    _, cookie = await db(session_of)(users[0])
    paths = [
        f"/ws/api/match/{match.pk}/",
        f"/ws/match/{match.pk}/",
        "/ws/lobby/",
        f"/ws/table/{match.table_id}/",
    ]
    for path in paths:
        for origin in ("http://evil.example", "null", "http://localhost.evil.example", None):
            _, accepted = await handshake(path, origin=origin, headers=[cookie])
            assert not accepted, (path, origin)
        socket, accepted = await handshake(path, headers=[cookie])
        assert accepted, path
        await socket.disconnect()


async def test_a_program_with_a_token_needs_no_origin():
    match, users = await db(make_match)("hokm2")
    _, secret = await db(token_create)(user=users[1], name="bot")
    socket, accepted = await program_handshake(match.pk, secret)
    assert accepted
    assert (await next_json(socket, "state"))["data"]["seat"] == 1
    await socket.disconnect()


@pytest.mark.parametrize("api", [True, False], ids=["json", "html"])
async def test_an_anonymous_socket_is_refused_where_spectators_are_not_allowed(api):
    match, _ = await db(make_match)("hokm2", spectators=False)
    socket, accepted = await handshake(f"/ws/{'api/' if api else ''}match/{match.pk}/")
    assert accepted  # so that the close code reaches the client
    code, frames = await until_closed(socket)
    assert code == CLOSE_FORBIDDEN
    if api:
        assert json.loads(frames[0])["data"]["code"] == "login_required"
    else:
        assert "Sign in to watch or play this match." in frames[0]


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "not seated"])
async def test_who_is_not_seated_watches_but_every_action_is_refused(signed_in):
    match, _ = await db(make_match)("hokm2")
    user = await db(UserFactory)() if signed_in else None
    headers = [(await db(session_of)(user))[1]] if signed_in else []
    socket, accepted = await handshake(f"/ws/api/match/{match.pk}/", headers=headers)
    assert accepted
    state = await next_json(socket, "state")
    assert state["data"]["seat"] is None and "hand" not in state["data"]["view"]["hand"]
    actions = [
        {"type": "action", "client_seq": 1, "action": {"type": "call_trump", "suit": "S"}},
        {
            "type": "action",
            "client_seq": 2,
            "action": {"type": "call_trump", "suit": "S", "seat": 0},
        },
        {"type": "chat", "text": "hi"},
        {"type": "leave"},
    ]
    for action in actions:
        await socket.send_to(text_data=json.dumps(action))
        assert (await next_json(socket, "error"))["data"]["code"] == "not_seated"
    assert (await db(Match.objects.get)(pk=match.pk)).version == 0
    await socket.disconnect()


async def test_the_table_page_socket_of_a_private_table_is_refused_without_the_invite():
    owner = await db(UserFactory)()
    table = await db(open_table)(owner, is_private=True)
    outsider = await db(UserFactory)()
    _, cookie = await db(session_of)(outsider)
    socket, accepted = await handshake(f"/ws/table/{table.pk}/", headers=[cookie])
    assert accepted
    assert await until_closed(socket) == (CLOSE_NOT_FOUND, [])


# -- sockets end with the sign-in ----------------------------------------------------------------


async def open_all(match_id: int, table_id: int, cookie: tuple[bytes, bytes]) -> dict[str, Any]:
    """A browser's sockets: the match's JSON and HTML sockets, the lobby and the table page."""
    sockets = {}
    for name, path in (
        ("json", f"/ws/api/match/{match_id}/"),
        ("html", f"/ws/match/{match_id}/"),
        ("lobby", "/ws/lobby/"),
        ("table", f"/ws/table/{table_id}/"),
    ):
        socket, accepted = await handshake(path, headers=[cookie])
        assert accepted, name
        await socket.receive_from(timeout=5)
        sockets[name] = socket
    return sockets


async def drain(socket: WebsocketCommunicator) -> None:
    while not await socket.receive_nothing(timeout=0.1):
        await socket.receive_output()


async def assert_signed_out(sockets: dict[str, Any], reason: str) -> None:
    for name, socket in sockets.items():
        code, frames = await until_closed(socket)
        assert code == CLOSE_SIGNED_OUT, name
        errors = [f for f in frames if "signed_out" in f or 'id="flash"' in f]
        if name == "json":
            (frame,) = [json.loads(f) for f in errors]
            assert frame["data"]["code"] == "signed_out"
            assert frame["data"]["message"] == reason
        elif name == "html":
            assert reason in errors[-1]
        else:
            assert errors == []  # the listening pages have no error frame: the code says it


async def assert_open(sockets: dict[str, Any]) -> None:
    for name, socket in sockets.items():
        if name == "json":
            await drain(socket)
            await pong(socket)
        else:
            # A listening socket only hears (the lobby may hear of the sockets that closed,
            # later on a busy machine): it is open if none of what it gets is a close.
            outputs = []
            while not await socket.receive_nothing(timeout=0.3):
                outputs.append(await socket.receive_output())
            assert all(output["type"] != "websocket.close" for output in outputs), name
        await socket.disconnect()


def seated_player() -> tuple[User, Match, int]:
    """A player with a password, seated in a running match, and an open table he sits at."""
    user = make_player("roya")
    match, users = make_match("hokm2")
    match.seats.filter(index=0).update(user=user, name=user.username)  # seat 0 becomes his
    table = open_table(user)  # its creator sits at it
    return user, match, table.pk


async def test_signing_out_closes_the_sockets_of_that_session_only():
    user, match, table_id = await db(seated_player)()
    browser, cookie = await db(session_of)(user)
    _, other_cookie = await db(session_of)(user)
    _, secret = await db(token_create)(user=user, name="bot")
    signed_out = await open_all(match.pk, table_id, cookie)
    other_browser = await open_all(match.pk, table_id, other_cookie)
    program, accepted = await program_handshake(match.pk, secret)
    assert accepted

    response = await db(browser.post)(reverse("account_logout"))

    assert response.status_code == 302
    await assert_signed_out(signed_out, "You signed out in this browser. Sign in again to go on.")
    await assert_open(other_browser)
    await assert_open({"json": program})


async def test_a_password_change_closes_every_socket_of_his_sessions_not_his_programs():
    user, match, table_id = await db(seated_player)()
    browser, cookie = await db(session_of)(user)
    _, other_cookie = await db(session_of)(user)
    _, secret = await db(token_create)(user=user, name="bot")
    own = await open_all(match.pk, table_id, cookie)
    other = await open_all(match.pk, table_id, other_cookie)
    program, _ = await program_handshake(match.pk, secret)
    new = "a-new-hakem-calls-hearts"

    response = await db(browser.post)(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": new, "password2": new},
    )

    assert response.status_code == 302
    # The browser that changed it stays signed in, under a new session key: its sockets close too
    # (accounts/socket_sessions.py says why), and reopen with the page.
    for sockets in (other, own):
        await assert_signed_out(sockets, "Your password was changed. Reload the page to go on.")
    await assert_open({"json": program})
    # Reopened with the browser's new session, the socket is his seat's again.
    socket, accepted = await handshake(f"/ws/api/match/{match.pk}/", headers=[cookie_of(browser)])
    assert accepted
    assert (await next_json(socket, "state"))["data"]["seat"] == 0
    await socket.disconnect()


async def test_a_password_reset_closes_every_socket_of_his_sessions():
    user, match, table_id = await db(seated_player)()
    _, cookie = await db(session_of)(user)
    sockets = await open_all(match.pk, table_id, cookie)
    stranger = Client()

    def reset() -> int:
        stranger.post(reverse("account_reset_password"), {"email": user.email})
        page = stranger.get(link_in(mail.outbox[-1]), follow=True)
        new = "seven-tricks-and-a-kot"
        return stranger.post(
            page.redirect_chain[-1][0], {"password1": new, "password2": new}
        ).status_code

    assert await db(reset)() == 302
    await assert_signed_out(sockets, "Your password was changed. Reload the page to go on.")


async def test_a_password_changed_by_the_admin_or_manage_py_closes_his_session_sockets():
    """Not only allauth's pages: the admin's form and ``changepassword`` end in ``set_password``
    and ``save``, and Django ends his sessions then, so their sockets close too."""
    user, match, table_id = await db(seated_player)()
    _, cookie = await db(session_of)(user)
    _, secret = await db(token_create)(user=user, name="bot")
    sockets = await open_all(match.pk, table_id, cookie)
    program, _ = await program_handshake(match.pk, secret)

    def change() -> None:
        fresh = User.objects.get(pk=user.pk)
        fresh.set_password("changed-by-a-moderator")
        fresh.save()

    await db(change)()

    await assert_signed_out(sockets, "Your password was changed. Reload the page to go on.")
    await assert_open({"json": program})


async def test_other_saves_of_a_player_leave_his_sockets_open():
    user, match, table_id = await db(seated_player)()
    _, cookie = await db(session_of)(user)
    sockets = await open_all(match.pk, table_id, cookie)

    def rename() -> None:
        fresh = User.objects.get(pk=user.pk)
        fresh.display_name = "Roya the Hakem"
        fresh.save()

    await db(rename)()

    await assert_open(sockets)


async def test_revoking_a_token_closes_the_sockets_of_that_token_only():
    user, match, table_id = await db(seated_player)()
    _, cookie = await db(session_of)(user)
    revoked, revoked_secret = await db(token_create)(user=user, name="old bot")
    _, kept_secret = await db(token_create)(user=user, name="new bot")
    browser = await open_all(match.pk, table_id, cookie)
    programs = {}
    for name, secret in (("revoked", revoked_secret), ("kept", kept_secret)):
        socket, accepted = await program_handshake(match.pk, secret)
        assert accepted
        assert (await next_json(socket, "state"))["data"]["seat"] == 0
        programs[name] = socket

    await db(token_revoke)(token_id=revoked.pk, user=user)

    await assert_signed_out(
        {"json": programs["revoked"]},
        "This API token was revoked. Connect again with a token in force.",
    )
    await assert_open({"json": programs["kept"]})
    await assert_open(browser)
    # Reconnecting with the revoked token gives no seat: at most a visitor's view of the table.
    socket, accepted = await program_handshake(match.pk, revoked_secret)
    assert accepted
    assert (await next_json(socket, "state"))["data"]["seat"] is None
    await socket.disconnect()


async def test_revoking_a_token_in_the_admin_closes_its_sockets():
    user, match, _ = await db(seated_player)()
    token, secret = await db(token_create)(user=user, name="bot")
    program, accepted = await program_handshake(match.pk, secret)
    assert accepted
    assert (await next_json(program, "state"))["data"]["seat"] == 0

    def revoke_in_the_admin() -> int:
        staff = client_for(User.objects.create_superuser("boss", "boss@example.com", "x-y-z-1"))
        return staff.post(
            reverse("admin:accounts_apitoken_changelist"),
            {"action": "revoke", "_selected_action": [token.pk]},
        ).status_code

    assert await db(revoke_in_the_admin)() == 302
    await assert_signed_out(
        {"json": program}, "This API token was revoked. Connect again with a token in force."
    )


async def test_a_password_disabled_by_the_admin_closes_his_session_sockets():
    user, match, table_id = await db(seated_player)()
    _, cookie = await db(session_of)(user)
    sockets = await open_all(match.pk, table_id, cookie)

    def disable() -> None:
        fresh = User.objects.get(pk=user.pk)
        fresh.set_unusable_password()
        fresh.save()

    await db(disable)()

    await assert_signed_out(sockets, "Your password was changed. Reload the page to go on.")
