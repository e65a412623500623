"""The Redis of the channel layer goes down in the middle of matches and comes back (issue 8).

The Redis is the test's own (a redis-server on a free port, nothing on disk), never the machine's
shared one. Two daphne processes use it, A with the worker thread and B without, on the run's
database. Redis is killed while clients hold moves ready, stays down while they try them, and
is started again on its port, empty: every group membership is gone with it.

What a client sees (measured): every match socket closes with 1011 as soon as its consumer next
waits on the channel layer, and new handshakes are refused with HTTP 500 until Redis is back. A
move tried during the outage is taken if it reaches a consumer before that (the database is up:
the move is stored and its ``ack`` is true, only its broadcast fails), else it fails with its
connection and the client sends it again, with the same ``client_seq``, once reconnected. No
``error`` frame is sent: there is no socket left to send it on. The computer players keep moving
meanwhile (their broadcasts fail and are logged); the clients catch up from the event log when
they are back (R8.2).
"""

from __future__ import annotations

import asyncio
import signal
import time

import pytest
import websockets

from games.models import MatchConnection
from tests.faults.clients import Gate
from tests.faults.ledger import assert_exactly_once, match_record, players_create
from tests.faults.scenario import (
    Window,
    clients_across,
    hold_mid_match,
    matches_start,
    moves_sent_in,
    play_through,
)

pytestmark = pytest.mark.django_db(transaction=True)

#: Long enough for clients to try moves and reconnections while Redis is away.
OUTAGE_SECONDS = 2.0


def test_redis_restarted_mid_match_loses_no_move_and_play_resumes_R8_2(
    run_database, private_redis, daphnes
):
    layer = {"DATABASE_URL": run_database, "REDIS_URL": private_redis.url()}
    a, b = daphnes(layer, {**layer, "HOKM_AUTOPLAY": "worker"})
    gate = Gate()
    clients, matches = clients_across([a.url, b.url], gate)
    outage: list[float] = []

    async def redis_down_and_up() -> None:
        await hold_mid_match(clients, gate, waiting=2)
        await asyncio.to_thread(private_redis.stop, signal.SIGKILL)
        outage.append(time.monotonic())
        gate.release()  # the held moves go out while Redis is away
        await asyncio.sleep(OUTAGE_SECONDS)
        await asyncio.to_thread(private_redis.start)
        outage.append(time.monotonic())

    play_through(clients, redis_down_and_up)

    records = {client.match_id: match_record(client.match_id, 0) for client in clients}
    for client in clients:
        assert_exactly_once(client.log, records[client.match_id])
    window = Window(*outage)
    tried = moves_sent_in(clients, window)
    assert tried, "no move was tried during the outage"
    for client, sent in tried:
        # Each is stored once. A consumer still alive took it (the database is up) and its ack
        # is true; or it failed with its connection and was sent again once reconnected.
        stored = [a["client_seq"] for a in records[client.match_id]["actions"]]
        assert sent.client_seq in stored, (client.describe(), sent)
        answers = [at for seq, _, at in client.log.acks if seq == sent.client_seq]
        assert answers, (client.describe(), sent)
        assert min(answers) in window or sent.client_seq in client.log.resent, client.describe()
    for client in clients:
        # Cut off with 1011, refused while Redis was away, back with the version it had seen.
        assert 1011 in client.log.closes, client.describe()
        assert client.log.resyncs and all(missed is not None for _, missed in client.log.resyncs)
    failures = [failure for client in clients for failure in client.log.connect_failures]
    assert failures and all("HTTP 500" in failure for failure in failures), failures


def test_a_socket_cut_off_by_the_outage_leaves_no_presence_behind_R8_2(
    run_database, private_redis, daphnes
):
    """When Redis goes, the server closes the sockets (1011); once their players have gone,
    nobody may show as connected: a clock would run for someone who is not there (R8.1, R8.2)."""
    layer = {"DATABASE_URL": run_database, "REDIS_URL": private_redis.url()}
    (server,) = daphnes({**layer, "HOKM_AUTOPLAY": "off"})
    (player,) = players_create(1)
    (match,) = matches_start(server.url, [player["token"]])

    async def cut_off() -> int | None:
        address = server.url.replace("http://", "ws://") + f"/ws/api/match/{match}/"
        headers = {"Authorization": f"Bearer {player['token']}"}
        async with websockets.connect(address, additional_headers=headers) as socket:
            await socket.recv()  # the state: the socket is open and counted
            await asyncio.to_thread(private_redis.stop, signal.SIGKILL)
            with pytest.raises(websockets.ConnectionClosed):
                async with asyncio.timeout(10):
                    while True:
                        await socket.recv()
            return socket.close_code

    assert asyncio.run(cut_off()) == 1011
    private_redis.start()
    time.sleep(0.5)  # what a consumer does when it goes is done by now
    assert not MatchConnection.objects.filter(match_id=match).exists()
