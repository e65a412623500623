"""PostgreSQL restarts in the middle of matches (issue 8).

The cluster is the test's own (``initdb`` in a temporary directory, run as ``postgres``, on a free
port), never the machine's shared one; its database is migrated and given players by
``tests/faults/ledger.py`` in a process of its own. One daphne process with the worker thread
serves the matches on it, with the run's channel layer. The cluster is stopped (``pg_ctl stop -m
fast``: open transactions roll back, every connection is cut) while clients hold moves ready,
stays down while they try them, and is started again.

What a client sees (measured): a move tried during the outage waits up to
``DATABASE_POOL_WAIT_SECONDS`` for a connection from the pool, then gets an ``error`` frame
``server_error`` (the consumer catches the database's error), or is applied if the database came
back meanwhile; a socket whose consumer was rendering a broadcast when the connection was cut
closes with 1011; handshakes are refused with HTTP 500 while the database is away (the token
cannot be checked). The pool checks every connection before handing it out and reconnects once
the server is back, so the consumers and the worker carry on by themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import Any

from hokm_site.environment import DATABASE_POOL_WAIT_SECONDS as POOL_WAIT_SECONDS
from tests.faults.clients import Gate, SeatClient
from tests.faults.ledger import assert_exactly_once, computer_moves_at
from tests.faults.scenario import (
    VARIANTS,
    Window,
    hold_mid_match,
    matches_start,
    moves_sent_in,
    play_through,
)
from tests.live_server import ROOT

#: Long enough for clients to try moves, and the worker its steps, while the database is away.
#: Several times what a thread waits for a pooled connection: a consumer handles its messages one
#: at a time, so a held move can wait behind that socket's own database calls (a presence change
#: rendered when another socket closed), each of which waits that long in the process's one
#: database thread before it fails. A CI run (2 cores, other tests beside) once saw every move of
#: a 5 s outage wait that way and be applied after it, with no error frame to show.
OUTAGE_SECONDS = 2.0 + 3 * POOL_WAIT_SECONDS


def ledger(database_url: str, *args: str) -> Any:
    """Run ``tests/faults/ledger.py`` on the private cluster; its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.faults.ledger", *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_postgres_restarted_mid_match_loses_no_move_and_play_resumes_R8_2(
    private_postgres, daphnes
):
    private_postgres.create_database("hokm_faults")
    database_url = private_postgres.url("hokm_faults")
    # The server starts while its database is migrated (it only needs it for requests).
    (server,) = daphnes({"DATABASE_URL": database_url}, wait=False)
    players = ledger(database_url, "prepare", str(len(VARIANTS)))
    server.wait_ready()
    matches = matches_start(server.url, [player["token"] for player in players])
    gate = Gate()
    clients = [
        SeatClient(server=server.url, token=player["token"], match_id=match, gate=gate)
        for player, match in zip(players, matches, strict=True)
    ]
    outage: list[float] = []
    back_at: list[datetime] = []

    async def postgres_down_and_up() -> None:
        await hold_mid_match(clients, gate, waiting=2)
        await asyncio.to_thread(private_postgres.stop, "fast")
        outage.append(time.monotonic())
        gate.release()  # the held moves go out while the database is away
        await asyncio.sleep(OUTAGE_SECONDS)
        back_at.append(datetime.now(UTC))
        await asyncio.to_thread(private_postgres.start)
        outage.append(time.monotonic())

    play_through(clients, postgres_down_and_up)

    records = ledger(database_url, "record", *(f"{match}:0" for match in matches))
    for client, record in zip(clients, records, strict=True):
        assert_exactly_once(client.log, record)
        # The worker went on by itself: the computer players finished the match.
        assert [at for at in computer_moves_at(record) if at > back_at[0]], record["match"]
    window = Window(*outage)
    tried = moves_sent_in(clients, window)
    assert tried, "no move was tried during the outage"
    for client, sent in tried:
        # Nothing can be stored while the database is away: no ack came before it was back.
        # A move got an error, or lost its connection and was sent again once reconnected, or
        # waited in the process's database thread (each call waits up to POOL_WAIT_SECONDS for
        # a connection, one after another) until the database was back, and was applied then:
        # each is stored exactly once either way (``assert_exactly_once`` above).
        answers = [at for seq, _, at in client.log.acks if seq == sent.client_seq]
        assert answers and min(answers) > window.end, (client.describe(), sent)
    errors = [
        code
        for client in clients
        for code, _, at in client.log.refusals
        if at in window and code == "server_error"
    ]
    assert errors, (
        "no move was answered with an error frame during the outage",
        [(client.describe(), sent, client.log.refusals) for client, sent in tried],
        window,
    )
