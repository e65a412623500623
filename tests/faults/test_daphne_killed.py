"""A daphne process killed with SIGKILL in the middle of matches, then started again (issue 8).

Two daphne processes share the run's database and a Redis channel layer of the test's own, as
production runs several: A runs the worker thread (computer moves, next deals), B serves sockets
only (``HOKM_AUTOPLAY=worker``). Programs play four matches, one of each variant, two of them
connected to A. A is killed while moves are on their way to it and started again on its port:
every acknowledged move is in the database exactly once, A's clients reconnect with the
reference client's backoff and catch up from the version they saw (R8.2), the computer players
move again once A's worker is back, and every match is played to its end.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from tests.faults.clients import Gate
from tests.faults.ledger import (
    assert_exactly_once,
    computer_moves_at,
    match_record,
)
from tests.faults.scenario import clients_across, hold_mid_match, play_through

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_daphne_killed_mid_match_loses_no_acknowledged_move_R8_2(
    run_database, private_redis, daphnes
):
    layer = {"DATABASE_URL": run_database, "REDIS_URL": private_redis.url()}
    a, b = daphnes(layer, {**layer, "HOKM_AUTOPLAY": "worker"})
    gate = Gate()
    clients, matches = clients_across([a.url, b.url], gate)
    on_a = clients[0::2]
    down: list[datetime] = []  # when A was killed, when it was back

    async def kill_and_restart() -> None:
        await hold_mid_match(clients, gate, waiting=2)
        # The held moves go out, and A dies while they travel: some are taken and some not,
        # and the answers of those taken are lost with it.
        gate.release()
        await asyncio.sleep(0.005)
        await asyncio.to_thread(a.kill)
        down.append(datetime.now(UTC))
        await asyncio.sleep(0.5)
        await asyncio.to_thread(a.launch)
        down.append(datetime.now(UTC))  # no step can be taken before this: A is starting
        await asyncio.to_thread(a.wait_ready)

    play_through(clients, kill_and_restart)

    records = [match_record(client.match_id, 0) for client in clients]
    for client, record in zip(clients, records, strict=True):
        assert_exactly_once(client.log, record)
    for client in on_a:
        # Cut off by the kill, back with the version it had seen, caught up from the log (R8.2).
        assert client.log.connects >= 2, client.describe()
        assert client.log.resyncs, client.describe()
        assert all(missed is not None for _, missed in client.log.resyncs), client.log.resyncs
    # A's worker thread died with it: no computer moved until A was started again, and the
    # moves that finished every match were the new process's.
    killed, restarted = down
    for record in records:
        moves = computer_moves_at(record)
        assert not [at for at in moves if killed < at < restarted], record["match"]
        assert [at for at in moves if at > restarted], record["match"]
    assert a.starts == 2 and "Traceback" not in b.log(), b.log()[-3000:]
