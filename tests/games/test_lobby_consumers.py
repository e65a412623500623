"""Live fragments of the lobby and of a table's page, over the in-memory channel layer."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path, reverse

from games.lobby import consumers as lobby_consumers
from games.lobby.consumers import (
    CLOSE_NOT_FOUND,
    LOBBY_SEND_SECONDS,
    LobbyConsumer,
    TableConsumer,
    scope_language,
    scope_site_url,
)
from games.lobby.services import INVITED_SESSION_KEY, table_join_seat, table_leave_seat, table_start
from tests.games.factories import UserFactory, open_table
from tests.games.lobby_sockets import application

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


db = database_sync_to_async


async def connected(path: str, **kwargs: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application(**kwargs), path)
    accepted, _ = await communicator.connect()
    assert accepted
    return communicator


# -- the lobby -----------------------------------------------------------------------------------


async def test_the_lobby_sends_its_tables_on_connect_as_an_out_of_band_swap():
    await db(open_table)(name="Early birds")

    lobby = await connected("/ws/lobby/")
    fragment = await lobby.receive_from()

    assert fragment.lstrip().startswith('<div id="lobby-tables"')
    assert 'hx-swap-oob="true"' in fragment
    assert "Early birds" in fragment
    await lobby.disconnect()


async def test_the_lobby_gets_a_fragment_when_a_table_is_created_and_joined():
    lobby = await connected("/ws/lobby/")
    assert "No open tables" in await lobby.receive_from()

    table = await db(open_table)(name="Friday night")
    created = await lobby.receive_from()
    await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)
    joined = await lobby.receive_from()

    assert "Friday night" in created and "1/4" in created
    assert "2/4" in joined
    await lobby.disconnect()


async def test_private_tables_never_reach_the_lobby():
    lobby = await connected("/ws/lobby/")
    await lobby.receive_from()

    table = await db(open_table)(name="Secret game", is_private=True)
    await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)

    assert await lobby.receive_nothing(timeout=0.3)
    await lobby.disconnect()


async def test_a_table_that_starts_leaves_the_lobby():
    table = await db(open_table)(name="Two of us", variant="hokm2")
    lobby = await connected("/ws/lobby/")
    assert "Two of us" in await lobby.receive_from()

    await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)

    assert "Two of us" not in await lobby.receive_from()
    await lobby.disconnect()


def _count_list_reads(monkeypatch) -> list[int]:
    reads: list[int] = []
    real = lobby_consumers.lobby_tables

    def counted(**kwargs: Any) -> Any:
        reads.append(1)
        return real(**kwargs)

    monkeypatch.setattr(lobby_consumers, "lobby_tables", counted)
    return reads


async def test_the_lobby_sockets_of_a_process_share_one_list_per_change(monkeypatch):
    """Each change reaches every lobby socket; each read and rendered the whole list (up to 100
    tables) for itself. The sockets of one process now share one render per change and
    language."""
    table = await db(open_table)(name="Shared table")
    sockets = [await connected("/ws/lobby/") for _ in range(5)]
    for lobby in sockets:
        assert "1/4" in await lobby.receive_from()
    await asyncio.sleep(LOBBY_SEND_SECONDS)  # past the pace: the change is sent at once
    reads = _count_list_reads(monkeypatch)

    await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)

    for lobby in sockets:
        assert "2/4" in await lobby.receive_from()
        assert await lobby.receive_nothing(timeout=0.2)
        await lobby.disconnect()
    assert len(reads) == 1


async def test_a_burst_of_seat_changes_sends_each_lobby_socket_a_few_lists_not_one_per_change(
    monkeypatch,
):
    """A player sitting down and standing up in a loop made every lobby socket send one list
    per change. A socket now sends at most one list per LOBBY_SEND_SECONDS, the last one after
    the burst, showing how it left the table."""
    table = await db(open_table)(name="Busy table")
    sockets = [await connected("/ws/lobby/") for _ in range(3)]
    for lobby in sockets:
        assert "1/4" in await lobby.receive_from()
    reads = _count_list_reads(monkeypatch)
    guest = await db(UserFactory)()

    def burst() -> None:
        for _ in range(10):
            table_join_seat(table=table, user=guest, seat_index=1)
            table_leave_seat(table=table, user=guest)
        table_join_seat(table=table, user=guest, seat_index=2)

    started = time.monotonic()
    await db(burst)()
    lasted = time.monotonic() - started

    most = int(lasted / LOBBY_SEND_SECONDS) + 2  # the windows the burst spans, and the last
    for lobby in sockets:
        lists = [await lobby.receive_from(timeout=2 * LOBBY_SEND_SECONDS + 1)]
        while not await lobby.receive_nothing(timeout=LOBBY_SEND_SECONDS + 0.3):
            lists.append(await lobby.receive_from())
        assert len(lists) <= most < 21, (len(lists), lasted)
        assert "2/4" in lists[-1]  # the guest sits in seat 3 at the end
        await lobby.disconnect()
    assert len(reads) <= len(sockets) * most


async def test_a_lobby_socket_connecting_reads_the_list_afresh():
    """The renders the sockets share are only of changes this process heard: a socket that
    connects reads the list itself, as its process may have had no lobby socket to hear the
    changes before it."""
    first = await connected("/ws/lobby/")
    assert "No open tables" in await first.receive_from()
    await first.disconnect()
    await db(open_table)(name="Made while nobody listened")

    second = await connected("/ws/lobby/")

    assert "Made while nobody listened" in await second.receive_from()
    await second.disconnect()


# -- a table's page ------------------------------------------------------------------------------


async def test_the_table_page_gets_the_seats_on_every_join_and_leave():
    creator = await db(UserFactory)(display_name="Shirin")
    table = await db(open_table)(creator)
    page = await connected(f"/ws/table/{table.pk}/", user=creator)
    first = await page.receive_from()
    guest = await db(UserFactory)(display_name="Dara")

    await db(table_join_seat)(table=table, user=guest, seat_index=2)
    joined = await page.receive_from()
    await db(table_join_seat)(table=table, user=guest, seat_index=3)
    moved = await page.receive_from()

    assert first.lstrip().startswith('<div id="table-seats"')
    assert 'hx-swap-oob="true"' in first
    assert "Shirin" in first and "Dara" not in first
    assert "Dara" in joined and "2 of 4 seated" in joined
    assert "Dara" in moved
    # Rendered for the viewer: the creator's own seat has the Leave button.
    assert "Leave" in joined
    # No request, no CSRF field: htmx sends the token from base.html's hx-headers.
    assert "csrfmiddlewaretoken" not in joined
    await page.disconnect()


async def test_the_table_page_is_sent_to_the_match_when_it_starts():
    creator = await db(UserFactory)()
    table = await db(open_table)(creator, fill_with_computer=True)
    watcher = await connected(f"/ws/table/{table.pk}/")
    await watcher.receive_from()

    match = await db(table_start)(table=table, user=creator)
    fragment = await watcher.receive_from()

    assert f'data-redirect="{reverse("games:match", args=[match.pk])}"' in fragment
    assert 'id="table-seats"' in fragment
    await watcher.disconnect()


async def test_the_last_join_sends_everyone_to_the_match():
    table = await db(open_table)(variant="hokm2")
    watcher = await connected(f"/ws/table/{table.pk}/")
    await watcher.receive_from()

    match = await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)

    assert f'data-redirect="/match/{match.pk}/"' in await watcher.receive_from()
    await watcher.disconnect()


async def test_a_page_opened_after_the_start_is_sent_to_the_match_at_once():
    table = await db(open_table)(variant="hokm2")
    match = await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)

    late = await connected(f"/ws/table/{table.pk}/")

    assert f'data-redirect="/match/{match.pk}/"' in await late.receive_from()
    await late.disconnect()


async def test_a_private_table_is_closed_to_sockets_without_its_invite():
    table = await db(open_table)(is_private=True)

    stranger = await connected(f"/ws/table/{table.pk}/", user=await db(UserFactory)())

    assert await stranger.receive_output() == {"type": "websocket.close", "code": CLOSE_NOT_FOUND}

    invited = await connected(f"/ws/table/{table.pk}/", session={INVITED_SESSION_KEY: [table.pk]})
    assert 'id="table-seats"' in await invited.receive_from()
    await invited.disconnect()


async def test_an_unknown_table_closes_the_socket():
    page = await connected("/ws/table/999999/")

    assert await page.receive_output() == {"type": "websocket.close", "code": CLOSE_NOT_FOUND}


async def test_the_consumers_ignore_what_clients_send():
    lobby = await connected("/ws/lobby/")
    await lobby.receive_from()

    await lobby.send_to(text_data='{"type": "anything"}')

    assert await lobby.receive_nothing(timeout=0.2)
    await lobby.disconnect()


# -- the scope -----------------------------------------------------------------------------------


def test_the_language_comes_from_the_cookie_then_the_header():
    assert scope_language({"cookies": {"django_language": "fa"}, "headers": []}) == "fa"
    assert scope_language({"headers": [(b"accept-language", b"fa-IR,fa;q=0.9")]}) == "fa"
    assert scope_language({"headers": []}) == "en"


def test_the_site_url_comes_from_the_host_and_scheme():
    scope = {"scheme": "wss", "headers": [(b"host", b"hokm.example")]}

    assert scope_site_url(scope) == "https://hokm.example"
    assert scope_site_url({"scheme": "ws", "headers": []}) == ""


def test_the_project_routes_reach_these_consumers():
    from games.routing import websocket_urlpatterns

    routes = {str(pattern.pattern): pattern.callback for pattern in websocket_urlpatterns}
    assert routes["ws/lobby/"].consumer_class is LobbyConsumer
    assert routes["ws/table/<int:table_id>/"].consumer_class is TableConsumer


# -- a started table without spectators ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_a_strangers_table_socket_does_not_send_him_to_a_match_he_may_not_watch(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    table = await db(open_table)(variant="hokm2", allow_spectators=False)
    stranger = await db(UserFactory)()
    router = URLRouter([path("ws/table/<int:table_id>/", TableConsumer.as_asgi())])

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await router({**scope, "user": stranger, "session": {}}, receive, send)

    watcher = WebsocketCommunicator(app, f"/ws/table/{table.pk}/")
    assert (await watcher.connect())[0]
    await watcher.receive_from()

    match = await db(table_join_seat)(table=table, user=await db(UserFactory)(), seat_index=1)
    fragment = await watcher.receive_from()

    assert "data-redirect" not in fragment
    assert f"/match/{match.pk}/" not in fragment
    assert "This table does not allow spectators." in fragment
    await watcher.disconnect()


# -- the invite link over the socket ---------------------------------------------------------------


def test_the_invite_link_sent_over_the_socket_keeps_the_pages_https_behind_a_proxy():
    # nginx ends TLS and daphne runs without --proxy-headers (docs/operations.md): the socket's
    # scheme is ws, while the page, and its Origin, are https.
    scope = {
        "scheme": "ws",
        "headers": [(b"host", b"hokm.example"), (b"origin", b"https://hokm.example")],
    }

    assert scope_site_url(scope) == "https://hokm.example"
    # Without an Origin (no browser), the host and the socket's scheme still do.
    assert scope_site_url({"scheme": "wss", "headers": [(b"host", b"hokm.example")]}) == (
        "https://hokm.example"
    )
    assert scope_site_url({"scheme": "ws", "headers": [(b"origin", b"null")]}) == ""
