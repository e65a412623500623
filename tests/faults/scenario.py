"""What the fault tests share: matches against computer players started over HTTP, clients that
play them, and a fault struck at a chosen moment while they play."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tests.faults.clients import Gate, SeatClient, Sent, hokm_client, play_all

#: One match of each variant, so every kind of action (trump call, discard, keep or throw, card)
#: goes through the fault.
VARIANTS = ["hokm4", "hokm3", "hokm2", "hokm2-draw"]
#: Every match has reached this version before a fault: well into its first hand.
MID_MATCH_VERSION = 8
#: How long a run of matches may take, fault included, on a slow shared machine.
PLAY_TIMEOUT = 90.0


def matches_start(
    server: str, tokens: list[str], *, variants: list[str] = VARIANTS, target: int = 1
) -> list[int]:
    """One match against computer players per token, one of each of ``variants`` in turn
    (``POST /api/matches/``); the token's user has seat 0. A target of 1 point is one hand."""
    return [
        hokm_client.start_match(server, token, variants[i % len(variants)], target)["match"]
        for i, token in enumerate(tokens)
    ]


def clients_across(servers: list[str], gate: Gate) -> tuple[list[SeatClient], list[int]]:
    """One match of each variant started on the first server, and a client for each, the
    clients spread over ``servers`` in turn; returns the clients and their matches."""
    from tests.faults.ledger import players_create

    players = players_create(len(VARIANTS))
    matches = matches_start(servers[0], [player["token"] for player in players])
    clients = [
        SeatClient(
            server=servers[i % len(servers)], token=player["token"], match_id=match, gate=gate
        )
        for i, (player, match) in enumerate(zip(players, matches, strict=True))
    ]
    return clients, matches


async def hold_mid_match(clients: list[SeatClient], gate: Gate, *, waiting: int) -> int:
    """Wait until every match is under way, then hold the clients back at their turn until
    ``waiting`` of them have a move ready (or a few seconds have passed); returns how many.

    A client that gets under way first waits at its next turn for the others (a one-hand match
    of hokm2 is about 30 versions: on a loaded machine a fast one could end before a slow one
    began, and the fault would strike no match of it)."""
    gate.hold_from(MID_MATCH_VERSION)
    while min(client.version or 0 for client in clients) < MID_MATCH_VERSION:
        await asyncio.sleep(0.02)
    assert all(client.log.final_view is None for client in clients), "a match ended too soon"
    gate.hold()
    return await gate.until_waiting(waiting, timeout=10)


def play_through(clients: list[SeatClient], fault: Callable[[], Awaitable[None]]) -> None:
    """Play every match to its end while ``fault`` runs beside them, in an event loop of this
    test's own that is closed when they are done."""

    async def run() -> None:
        await asyncio.gather(play_all(clients, timeout=PLAY_TIMEOUT), fault())

    asyncio.run(run())


@dataclass(frozen=True)
class Window:
    """A stretch of time on the monotonic clock, from ``start`` to ``end``."""

    start: float
    end: float

    def __contains__(self, moment: float) -> bool:
        return self.start <= moment <= self.end


def moves_sent_in(clients: list[SeatClient], window: Window) -> list[tuple[SeatClient, Sent]]:
    """The actions first sent during ``window``, with their clients."""
    return [
        (client, sent)
        for client in clients
        for sent in client.log.sent.values()
        if sent.first_sent_at in window
    ]
