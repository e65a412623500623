"""What the sockets of a match send is read here, once per event and process where it can be.

Every socket of a match hears each of its events and renders its own seat's view of the match
(``games.play.consumers``). The rows behind those views are the same for all of them, so this module
reads them once per event and process (:class:`RecentLoads`), and the service that made the
event, which holds them already, hands them over on commit when this process has sockets for the
match (:func:`event_prime`): the sockets of the mover's process then send without reading the
database at all.

A :class:`Loaded` holds every card of the match; it never leaves the server. Each socket turns it
into its own seat's view (``games.engine.match_view``) before anything is sent (R8.3).
"""

from __future__ import annotations

import copy
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any

from games.engine import GameState
from games.models import Match, MatchSeat
from games.play.events import event_public, match_events_since
from games.play.presence import Presence, presence_of
from games.play.selectors import match_position


@dataclass(frozen=True, slots=True)
class Loaded:
    """What one message about a match is rendered from, read in one go."""

    match: Match
    seats: list[MatchSeat]
    state: GameState
    presence: Presence
    events: list[dict[str, Any]] | None  # since the version asked for; None if not all kept


#: How many times :func:`load` reads a match that keeps changing before it sends what it read.
LOAD_ATTEMPTS = 3

#: The key of a load for an event: (match id, version, the version the socket had).
LoadKey = tuple[int, int, int | None]


class RecentLoads:
    """The match states this process loaded for recent events, shared by its sockets.

    Every socket of a match hears each of its events, and each would read the same rows and
    rebuild the same engine state: four seats and the spectators, a dozen reads for one card.
    The first socket to handle an event keeps what it loaded here, under the event's version and
    the version its socket had (so the events listed since then are the same), and the others
    of this process take it. Entries are only used for a few seconds and only for events: what
    a version shows never changes, but presence and clocks may without a new version, so a
    connect, a resync or a presence change always reads afresh. Consumers only read what they
    take; nothing changes a ``Loaded`` after it is built.
    """

    def __init__(self, *, size: int = 512, seconds: float = 3.0) -> None:
        self._size = size
        self._seconds = seconds
        self._entries: OrderedDict[LoadKey, tuple[float, Loaded]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: LoadKey) -> Loaded | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or time.monotonic() - entry[0] > self._seconds:
                return None
            return entry[1]

    def put(self, key: LoadKey, loaded: Loaded) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic(), loaded)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


recent_loads = RecentLoads()


class LocalMatches:
    """The matches this process has open sockets for (consumers count them in and out), so that
    a service committing in a process without any (the worker) does not prepare loads for
    nobody."""

    def __init__(self) -> None:
        self._counts: Counter[int] = Counter()
        self._lock = threading.Lock()

    def add(self, match_id: int) -> None:
        with self._lock:
            self._counts[match_id] += 1

    def discard(self, match_id: int) -> None:
        with self._lock:
            self._counts[match_id] -= 1
            if self._counts[match_id] <= 0:
                del self._counts[match_id]
                primed_versions.pop(match_id, None)

    def __contains__(self, match_id: object) -> bool:
        with self._lock:
            return match_id in self._counts

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()
            primed_versions.clear()


local_matches = LocalMatches()

#: The newest version of each match handed over by :func:`event_prime` in this process. Read
#: and written whole under the GIL; its entries outlive their loads harmlessly (a version
#: whose load is gone is read from the database as before). Kept for the matches with sockets
#: here, so bounded by them: a match's entry goes when its last socket here closes.
primed_versions: dict[int, int] = {}


def loaded_in_memory(match_id: int, since: int | None, version: int) -> Loaded | None:
    """What to send for the event of ``version`` when this process has it without reading the
    database: handed over by the service (:func:`event_prime`) or loaded by another socket.
    Safe to call from the event loop: it takes no more than a lock held for a lookup."""
    primed = _primed_since(match_id, since, version)
    if primed is not None:
        return primed
    return recent_loads.get((match_id, version, since))


def load_for_event(match_id: int, since: int | None, version: int) -> Loaded:
    """What to send for the event of ``version``: from memory (:func:`loaded_in_memory`), else
    loaded and kept for the other sockets of this process."""
    cached = loaded_in_memory(match_id, since, version)
    if cached is not None:
        return cached
    loaded = load(match_id, since)
    # Kept under the version read, which may be newer than the event's: the socket that takes it
    # skips the events in between, as it would have had it read the rows itself.
    recent_loads.put((match_id, loaded.match.version, since), loaded)
    if loaded.match.version != version:
        recent_loads.put((match_id, version, since), loaded)
    return loaded


def _primed_since(match_id: int, since: int | None, version: int) -> Loaded | None:
    """The newest handed-over version of the match, with the events since ``since``, when every
    version in between was handed over too.

    A burst of changes then reaches a socket as one frame of the newest state listing every
    event it skipped, as when it reads the match after the burst; without this, each version
    would be sent in turn, a burst of frames for a burst of moves.
    """
    newest = primed_versions.get(match_id)
    if since is None or newest is None or not since < version <= newest:
        return None
    found = [recent_loads.get((match_id, v, v - 1)) for v in range(since + 1, newest + 1)]
    chain = [loaded for loaded in found if loaded is not None]
    if len(chain) < len(found):
        return None
    last = chain[-1]
    if len(chain) == 1:
        return last
    events = [event for loaded in chain for event in loaded.events or []]
    return Loaded(
        match=last.match, seats=last.seats, state=last.state, presence=last.presence, events=events
    )


def load(match_id: int, since: int | None) -> Loaded:
    """The match as stored now, with its presence and, with ``since``, the events after it."""
    # The match is read in several queries, and a change that commits in between would show in
    # the state under the older version (with its event missing from ``events``): read again
    # until the version holds still. A bounded number of times: a change is rarely that quick.
    # A position this process already holds for the version read is that version's by
    # construction (``games.play.selectors.match_position``), so only the seats are read besides.
    for _ in range(LOAD_ATTEMPTS):
        match = Match.objects.select_related("table").get(pk=match_id)
        seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
        state = match_position(match=match).state
        if Match.objects.filter(pk=match_id, version=match.version).exists():
            break
    events = (
        None
        if since is None
        else match_events_since(match_id=match_id, since=since, until=match.version)
    )
    return Loaded(
        match=match,
        seats=seats,
        state=state,
        presence=presence_of(match_id=match_id),
        events=events,
    )


def event_prime(
    *,
    match: Match,
    seats: list[MatchSeat],
    state: GameState,
    kind: str,
    data: dict[str, Any],
) -> None:
    """Keep what the sockets of this process need for the event the service just committed.

    Called on commit, before the event is sent, by the service that made it: ``match``, ``seats``
    and ``state`` are what it stored, at ``match.version``. Sockets that saw the version before
    (the usual case) then send without a read; any other socket loads as before. Only the
    presence is read, as sockets see it at the moment of the event. Copies are kept: the
    service's objects are its caller's.
    """
    if match.pk not in local_matches:
        return
    version = match.version
    loaded = Loaded(
        match=copy.copy(match),
        seats=[copy.copy(seat) for seat in seats],
        state=state,
        presence=presence_of(match_id=match.pk),
        events=[event_public(version=version, kind=kind, data=data)],
    )
    recent_loads.put((match.pk, version, version - 1), loaded)
    primed_versions[match.pk] = max(version, primed_versions.get(match.pk, -1))
