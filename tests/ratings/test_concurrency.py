"""Ratings under concurrent writes, on PostgreSQL's row locks (docs/ratings.md, "Exactly once, and
rebuildable"): matches sharing players that finish at once each change every player's rating, one
after the other; a match finished twice at once is rated once; a rebuild running meanwhile writes
no rating back older than it is. The rebuild's check agrees with what they left."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections

from games.engine import get_variant
from games.models import Match, Rating, RatingChange
from games.ratings import services
from games.ratings.services import ratings_rebuild
from tests.games.factories import UserFactory
from tests.ratings.matches import finished_match_rate, finished_match_store, rebuild_check

pytestmark = pytest.mark.django_db(transaction=True)

WORKERS = 6


@pytest.fixture(autouse=True)
def _postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite runs one writer at a time")


def in_threads(jobs: list[Callable[[], Any]], workers: int = WORKERS) -> list[Any]:
    """Run ``jobs`` on ``workers`` threads, the first ``workers`` of them starting together; each
    thread's connection is closed after each job. Returns the results in the order of ``jobs``,
    and raises the first error of a job."""
    start = threading.Barrier(min(workers, len(jobs)))

    def run(index: int, job: Callable[[], Any]) -> Any:
        if index < start.parties:
            start.wait(timeout=10)
        try:
            return job()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, index, job) for index, job in enumerate(jobs)]
        return [future.result(timeout=120) for future in futures]


@pytest.fixture
def slow_rating(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """The model's update takes 20 ms, with the players' ratings locked: long enough for the
    other threads to come up against those locks. Counts the most transactions rating at once."""
    real_rate = services.rate
    inside = Counter()
    guard = threading.Lock()

    def rate(*args: Any) -> Any:
        with guard:
            inside["now"] += 1
            inside["most"] = max(inside["most"], inside["now"])
        time.sleep(0.02)
        with guard:
            inside["now"] -= 1
        return real_rate(*args)

    monkeypatch.setattr(services, "rate", rate)
    return inside


def matches_store(rng: random.Random, players: list, count: int) -> list[Match]:
    """``count`` finished, not yet rated matches of hokm2, hokm3 and hokm4 among ``players``."""
    matches = []
    for _ in range(count):
        variant = rng.choice(["hokm2", "hokm3", "hokm4"])
        rules = get_variant(variant)
        winner = rng.randrange(rules.sides)
        scores = [7 if side == winner else rng.randint(0, 6) for side in range(rules.sides)]
        seated = rng.sample(players, rules.players)
        matches.append(finished_match_store(variant, seated, winner_side=winner, scores=scores)[0])
    return matches


def games_played(matches: list[Match]) -> Counter:
    """How many of ``matches`` each player played, by (user id, variant)."""
    return Counter((seat.user_id, match.variant) for match in matches for seat in match.seats.all())


def games_stored() -> Counter:
    return Counter({(r.user_id, r.variant): r.games for r in Rating.objects.all()})


def test_matches_sharing_players_finish_at_once_and_no_update_is_lost(slow_rating):
    players = [UserFactory() for _ in range(10)]
    matches = matches_store(random.Random(31), players, 48)

    rated = in_threads([lambda m=m: finished_match_rate(m) for m in matches])

    assert all(rated)  # every match rated by its own finish
    assert slow_rating["most"] >= 2  # finishes of matches without a common player overlapped
    assert games_stored() == games_played(matches)
    assert RatingChange.objects.count() == sum(games_played(matches).values())
    report = rebuild_check()
    assert f"{len(matches)} rating events replayed;" in report
    assert "0 differing; 0 stored changes differing." in report


def test_a_match_finished_twice_at_once_is_rated_once(slow_rating):
    players = [UserFactory() for _ in range(4)]
    match = matches_store(random.Random(32), players, 1)[0]

    first, second = in_threads([lambda: finished_match_rate(match)] * 2, workers=2)

    assert sorted([len(first), len(second)]) == [0, get_variant(match.variant).players]
    assert RatingChange.objects.filter(match=match).count() == len(first) + len(second)
    assert set(Rating.objects.values_list("games", flat=True)) == {1}
    assert "0 differing; 0 stored changes differing." in rebuild_check()


def test_a_rebuild_while_matches_finish_writes_no_rating_back_older(monkeypatch):
    """Between reading the history and writing the ratings, the rebuild waits 0.2 s: a match
    finishing then must wait for it (the ratings it would write are locked), or the rebuild
    would write the rating of before that match over the one after it."""
    players = [UserFactory() for _ in range(8)]
    rng = random.Random(33)
    first = matches_store(rng, players, 8)
    for match in first:
        finished_match_rate(match)  # every player has a rating row to lock
    assert Rating.objects.filter(user__in=players).values("user").distinct().count() == 8
    later = matches_store(rng, players, 30)
    real_replay = services._replay

    def slow_replay(*args: Any) -> Any:
        replayed = real_replay(*args)
        time.sleep(0.2)
        return replayed

    monkeypatch.setattr(services, "_replay", slow_replay)
    rebuilds = [lambda: ratings_rebuild(write=True) for _ in range(4)]
    finishes = [lambda m=m: finished_match_rate(m) for m in later]
    jobs = list(itertools.chain(*itertools.zip_longest(rebuilds, finishes[:4])))
    jobs = [job for job in jobs if job is not None] + finishes[4:]

    results = in_threads(jobs)

    assert all(r for r in results if isinstance(r, list))
    assert games_stored() == games_played(first + later)
    monkeypatch.undo()
    assert "0 differing; 0 stored changes differing." in rebuild_check()
