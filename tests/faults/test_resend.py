"""Every action sent one to five times, at once and after a reconnection: each applied exactly once
(issue 8, docs/protocol.md "Client to server").

``tests/live/test_match_consumers.py`` checks a re-send one after the other on one socket (a trump
call sent three times, each time after the previous answer). This covers the rest, end to end:
every action of whole matches (trump calls, discards, keep-or-throw turns and cards), its copies
sent at once, over the player's socket on one daphne process and a second socket of his on
another (two consumers in two processes racing for the match's row lock), and every third
action sent again after the player dropped his connection before its answer came.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.models import Hand
from tests.faults.clients import Duplicates, SeatClient
from tests.faults.ledger import assert_exactly_once, match_record, players_create
from tests.faults.scenario import matches_start, play_through

pytestmark = pytest.mark.django_db(transaction=True)

#: These clients send up to ten copies of a move in an instant, far past a person's pace and the
#: socket's rate cap (games/play/socket_limits.py), which is not what is tested here.
NO_RATE_CAP = {"HOKM_SOCKET_RATE_BURST": "1000", "HOKM_SOCKET_RATE_PER_SECOND": "1000"}


def match_with_hakem_at_seat_0(server: str, token: str, variant: str) -> int:
    """A match whose first Hakem (drawn at random, R2) is the token's player; the matches
    started before it are left unplayed (no clock runs: nothing happens in them)."""
    for _ in range(30):
        (match,) = matches_start(server, [token], variants=[variant])
        if Hand.objects.get(match_id=match, number=0).hakem == 0:
            return match
    raise AssertionError("no draw made the player Hakem in 30 matches")


async def no_fault() -> None:
    """Nothing breaks here but the clients' own connections."""


def test_every_action_sent_one_to_five_times_is_applied_exactly_once(
    run_database, private_redis, daphnes
):
    layer = {"DATABASE_URL": run_database, "REDIS_URL": private_redis.url(), **NO_RATE_CAP}
    a, b = daphnes(layer, {**layer, "HOKM_AUTOPLAY": "worker"})
    hakem_player, drawing_player = players_create(2)
    # Every kind of action: a trump call, cards (Hokm2, its player is the first Hakem), the
    # discards and the keep-or-throw turns of the draw (hokm2-draw: both players have them).
    players = [hakem_player, drawing_player]
    matches = [
        match_with_hakem_at_seat_0(a.url, hakem_player["token"], "hokm2"),
        *matches_start(a.url, [drawing_player["token"]], variants=["hokm2-draw"]),
    ]
    clients = [
        SeatClient(
            server=a.url,
            token=player["token"],
            match_id=match,
            duplicates=Duplicates(rng=random.Random(index), twin_server=b.url),
        )
        for index, (player, match) in enumerate(zip(players, matches, strict=True))
    ]

    play_through(clients, no_fault)

    kinds: Counter[str] = Counter()
    answers = Counter()
    for client in clients:
        log = client.log
        assert_exactly_once(log, match_record(client.match_id, 0))
        for seq, sent in log.sent.items():
            kinds[sent.action["type"]] += 1
            applied = log.applied(seq)
            # One copy was applied, every other one answered "applied before" (or lost with
            # the connection the client dropped).
            assert applied.count(True) <= 1, (client.describe(), seq, applied)
            if seq in log.dropped:
                assert seq in log.resent, (client.describe(), seq)
                answers["dropped, applied before: false"] += applied.count(True) == 0
                continue
            assert len(applied) == sent.sends, (client.describe(), seq, applied, sent.sends)
            assert applied.count(True) == 1, (client.describe(), seq, applied)
            answers["copies"] += sent.sends
            answers["answered applied: false"] += applied.count(False)
    assert set(kinds) == {"call_trump", "discard", "keep_or_throw", "play_card"}, kinds
    # The copies were there: on average three per action, at once, half of them on the twin.
    assert answers["answered applied: false"] > answers["copies"] / 2, answers
    # A drop lost the answer of a copy the server had applied: the re-send found it applied.
    assert answers["dropped, applied before: false"] >= 1, answers
