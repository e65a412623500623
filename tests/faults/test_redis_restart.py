"""The Redis of the channel layer goes down in the middle of matches and comes back (issue 8).

The Redis is the test's own (a redis-server on a free port, nothing on disk), never the machine's
shared one. Two daphne processes use it, A with the worker thread and B without, on the run's
database. Redis is killed while clients hold moves ready, stays down while they try them, and
is started again on its port, empty. Each test runs on both channels-redis layers the site
offers (``REDIS_CHANNEL_LAYER``), whichever the run's default is, as they fail differently.

What a client sees (measured):

- **core** (``RedisChannelLayer``): every match socket closes with 1011 as soon as its consumer
  next waits on the channel layer, and new handshakes are refused with HTTP 500 until Redis is
  back; every group membership is gone with Redis, and the reconnecting sockets join again.
- **pubsub** (``RedisPubSubChannelLayer``, the default): sockets stay open; the layer reconnects
  and subscribes again to the groups and channels of its sockets by itself. Events published
  while Redis was away are lost, and the version watch (games/play/consumers.py) sends the sockets
  left behind what they missed.

On both, a move tried during the outage is taken if it reaches a consumer (the database is up:
the move is stored and its ``ack`` is true, only its broadcast fails), else it fails with its
connection and the client sends it again, with the same ``client_seq``, once reconnected. No
``error`` frame is sent. The computer players keep moving meanwhile (their broadcasts fail and are
logged); the clients catch up from the event log (R8.2).
"""

from __future__ import annotations

import asyncio
import json
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
#: A move a live consumer takes is answered well within this, even on a busy CI machine.
ANSWER_SECONDS = 1.0


LAYERS = ["core", "pubsub"]


@pytest.mark.parametrize("layer_kind", LAYERS)
def test_redis_restarted_mid_match_loses_no_move_and_play_resumes_R8_2(
    layer_kind, run_database, private_redis, daphnes
):
    layer = {
        "DATABASE_URL": run_database,
        "REDIS_URL": private_redis.url(),
        "REDIS_CHANNEL_LAYER": layer_kind,
    }
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
        # Each is stored once. A consumer still alive took it at once (the database is up) and
        # its ack is true; or it failed with its connection and was sent again once reconnected.
        # "At once", not "before Redis was back": a move sent in the outage's last milliseconds
        # is answered just after it (a CI run saw one sent 4 ms before the end, answered 8 ms
        # after).
        stored = [a["client_seq"] for a in records[client.match_id]["actions"]]
        assert sent.client_seq in stored, (client.describe(), sent)
        answers = [at for seq, _, at in client.log.acks if seq == sent.client_seq]
        assert answers, (client.describe(), sent)
        answered_at_once = min(answers) - sent.first_sent_at < ANSWER_SECONDS
        assert answered_at_once or sent.client_seq in client.log.resent, client.describe()
    failures = [failure for client in clients for failure in client.log.connect_failures]
    assert all("HTTP 500" in failure for failure in failures), failures
    if layer_kind == "core":
        for client in clients:
            # Cut off with 1011, refused while Redis was away, back with the version it had seen.
            assert 1011 in client.log.closes, client.describe()
            resyncs = client.log.resyncs
            assert resyncs and all(missed is not None for _, missed in resyncs)
        assert failures
    else:
        # Nobody was cut off: the layer reconnected under the sockets, and what they missed
        # reached them without a new connection (the matches finished all the same, above).
        for client in clients:
            assert 1011 not in client.log.closes, client.describe()


def test_a_socket_cut_off_by_the_outage_leaves_no_presence_behind_R8_2(
    run_database, private_redis, daphnes
):
    """On the core layer, when Redis goes, the server closes the sockets (1011); once their
    players have gone, nobody may show as connected: a clock would run for someone who is not
    there (R8.1, R8.2)."""
    layer = {
        "DATABASE_URL": run_database,
        "REDIS_URL": private_redis.url(),
        "REDIS_CHANNEL_LAYER": "core",
    }
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


def test_on_pubsub_a_socket_outlives_the_outage_and_hears_its_match_again_R8_2(
    run_database, private_redis, daphnes
):
    """On the pub/sub layer the socket stays open through the outage, still counted as there
    (its player did not go), and once Redis is back the match's messages reach it again: the
    layer subscribed again to the match's group without the socket doing anything."""
    layer = {
        "DATABASE_URL": run_database,
        "REDIS_URL": private_redis.url(),
        "REDIS_CHANNEL_LAYER": "pubsub",
    }
    (server,) = daphnes({**layer, "HOKM_AUTOPLAY": "off"})
    (player,) = players_create(1)
    (match,) = matches_start(server.url, [player["token"]])

    async def through_the_outage() -> dict:
        address = server.url.replace("http://", "ws://") + f"/ws/api/match/{match}/"
        headers = {"Authorization": f"Bearer {player['token']}"}
        async with websockets.connect(address, additional_headers=headers) as socket:
            # The state, the chat history, then the presence frame of its own arrival: the
            # consumer's connect is over (a connect cut short by the outage fails with it).
            while json.loads(await socket.recv())["type"] != "presence":
                pass
            await asyncio.to_thread(private_redis.stop, signal.SIGKILL)
            await asyncio.sleep(OUTAGE_SECONDS)
            await asyncio.to_thread(private_redis.start)
            # A chat line goes to the match's group: this socket hears it once the layer has
            # subscribed again. Sent again until then (one sent too early is published to no
            # one), every 2 s to stay within the chat's rate limit (5 in 10 s); the first that
            # comes back ends the wait.
            async with asyncio.timeout(30):
                while True:
                    await socket.send(json.dumps({"type": "chat", "text": "still here?"}))
                    try:
                        async with asyncio.timeout(2):
                            while True:
                                frame = json.loads(await socket.recv())
                                if frame["type"] == "chat":
                                    return frame
                    except TimeoutError:
                        continue

    frame = asyncio.run(through_the_outage())
    assert frame["data"]["text"] == "still here?"
