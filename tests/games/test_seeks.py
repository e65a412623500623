"""The seek pool ("Play rated now", games/lobby/seeks.py): who is seated with whom, from plain data
with a fake clock; the services that keep the pool in the database and start its matches; and the
lobby socket through which a page seeks, cancels and is sent to its match."""

from __future__ import annotations

import itertools
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection, connections
from django.utils import timezone

from accounts import restrictions
from games.lobby import seeks
from games.lobby.consumers import seek_message
from games.lobby.seeks import (
    CANDIDATES_MAX,
    ENDED_TYPE,
    PAIRED_TYPE,
    SEEK_ALIVE_SECONDS,
    WINDOW_BASE,
    WINDOW_MAX,
    WINDOW_PER_SECOND,
    Seeker,
    SeekError,
    balanced_seats,
    seek_cancel,
    seek_create,
    seek_groups,
    seek_of,
    seeks_end_for_channel,
    seeks_pair,
    seeks_seen,
    window,
)
from games.lobby.services import default_target
from games.models import Match, MatchSeat, Rating, Seek, Table
from games.play.autoplay import Worker
from games.play.services import SeatSpec, match_create
from games.play.socket_limits import CLOSE_TOO_LARGE
from lib import realtime
from moderation.models import Report, Sanction
from tests.accounts.players import sanction_in_force
from tests.games.factories import UserFactory
from tests.games.lobby_sockets import application

# -- the pairing rules, with a fake clock ----------------------------------------------------------


@dataclass
class FakePool:
    """Seeks made at given moments of a fake clock; ``at(seconds)`` is the pool as the pairing
    sees it that many seconds after the first."""

    asked: dict[int, tuple[int, float]] = field(default_factory=dict)  # id: (rating, asked at)
    previous: dict[int, frozenset[int]] = field(default_factory=dict)

    def ask(self, user_id: int, rating: int, *, at: float = 0.0) -> None:
        self.asked[user_id] = (rating, at)

    def at(self, now: float) -> list[Seeker]:
        return [
            Seeker(
                user_id=uid,
                rating=rating,
                waited=now - asked,
                previous=self.previous.get(uid, frozenset()),
            )
            for uid, (rating, asked) in self.asked.items()
            if asked <= now
        ]


def pair(seekers: list[Seeker], players: int = 2, **kwargs: Any) -> list[tuple[int, ...]]:
    return seek_groups(seekers, players=players, partnerships=players == 4, **kwargs)


def test_the_window_starts_at_its_base_and_widens_each_second_up_to_its_cap():
    assert (WINDOW_BASE, WINDOW_PER_SECOND, WINDOW_MAX) == (100, 10, 500)
    assert window(0) == 100
    assert window(0.9) == 109
    assert window(15) == 250
    assert window(40) == WINDOW_MAX
    assert window(3600) == WINDOW_MAX
    assert window(-5) == WINDOW_BASE  # a clock a little behind the seek's own never narrows it


def test_two_players_too_far_apart_are_seated_once_both_windows_reach_the_gap():
    pool = FakePool()
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1750, at=0)  # 250 apart: both windows reach it after 15 s

    assert pair(pool.at(0)) == []
    assert pair(pool.at(14)) == []
    assert pair(pool.at(15)) == [(1, 2)]


def test_a_newcomers_narrow_window_holds_back_a_group_until_it_widens():
    """Every member must accept every other: an old seeker's wide window is not enough."""
    pool = FakePool()
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1700, at=60)  # 200 from the first, who by then accepts 500

    assert pair(pool.at(60)) == []
    assert pair(pool.at(69)) == []
    assert pair(pool.at(70)) == [(1, 2)]


def test_the_oldest_seeker_is_seated_first_with_the_nearest_rating():
    pool = FakePool()
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1580, at=1)
    pool.ask(3, 1510, at=2)

    # The oldest is seated first, with the one nearest him; the second waits for another.
    assert pair(pool.at(2)) == [(1, 3)]


def test_among_groups_within_the_windows_the_one_with_the_smallest_spread_is_taken():
    pool = FakePool()
    pool.ask(1, 1500, at=0)
    for uid, rating in ((2, 1300), (3, 1420), (4, 1480), (5, 1700), (6, 1520)):
        pool.ask(uid, rating, at=0)

    # At 40 s everyone accepts everyone (500); of 1's groups of four, {1, 3, 4, 6} is the
    # tightest (100), and the rest wait.
    groups = pair(pool.at(40), players=4)

    assert len(groups) == 1
    assert set(groups[0]) == {1, 3, 4, 6}


def test_the_partners_are_the_split_whose_teams_add_up_most_evenly():
    players = [Seeker(1, 1800, 9), Seeker(2, 1700, 8), Seeker(3, 1500, 7), Seeker(4, 1400, 6)]

    seats = balanced_seats(players)

    # Seats 0 and 2 against 1 and 3: 1800 + 1400 against 1700 + 1500, 3200 each. Seating by the
    # order they came in (1 and 3 against 2 and 4) would have been 3300 against 3100.
    assert seats == (1, 2, 4, 3)
    rating = {s.user_id: s.rating for s in players}
    assert rating[seats[0]] + rating[seats[2]] == rating[seats[1]] + rating[seats[3]]


@pytest.mark.parametrize("ratings", list(itertools.permutations((2100, 1650, 1600, 1200))))
def test_of_the_three_splits_the_most_even_is_chosen_whatever_the_order(ratings):
    players = [Seeker(uid, r, 0) for uid, r in enumerate(ratings, start=1)]
    rating = {s.user_id: s.rating for s in players}

    seats = balanced_seats(players)

    gap = abs(rating[seats[0]] + rating[seats[2]] - rating[seats[1]] - rating[seats[3]])
    splits = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
    best = min(abs(sum(ratings[i] for i in a) - sum(ratings[i] for i in b)) for a, b in splits)
    assert gap == best == 50  # 2100 + 1200 against 1650 + 1600
    assert seats[0] == 1  # the first of the group (the longest waiting) keeps seat 0
    assert sorted(seats) == [1, 2, 3, 4]


def test_a_pool_of_four_player_games_seats_its_groups_with_balanced_partners():
    pool = FakePool()
    for uid, rating in enumerate((1800, 1700, 1500, 1400), start=1):
        pool.ask(uid, rating, at=0)

    assert pair(pool.at(0), players=4) == []  # 400 apart: not yet
    (seats,) = pair(pool.at(30), players=4)  # windows of 400

    assert seats == (1, 2, 4, 3)


def test_reported_players_are_never_seated_together():
    pool = FakePool()
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1500, at=1)
    pool.ask(3, 1560, at=2)
    reported = {frozenset((1, 2))}

    def blocked(a: int, b: int) -> bool:
        return frozenset((a, b)) in reported

    assert pair(pool.at(2), blocked=blocked) == [(1, 3)]
    # Alone with each other they wait, however long.
    alone = FakePool()
    alone.ask(1, 1500)
    alone.ask(2, 1500)
    assert pair(alone.at(3600), blocked=blocked) == []
    assert pair(alone.at(0)) == [(1, 2)]  # the same two without the report


def test_a_report_keeps_a_pair_apart_in_a_group_of_four_as_well():
    pool = FakePool()
    for uid in range(1, 6):
        pool.ask(uid, 1500, at=uid)

    (seats,) = pair(pool.at(10), players=4, blocked=lambda a, b: {a, b} == {1, 2})

    assert set(seats) == {1, 3, 4, 5}


def test_nobody_plays_the_same_people_twice_in_a_row_when_someone_else_waits():
    pool = FakePool(previous={1: frozenset({2}), 2: frozenset({1})})
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1500, at=1)  # the same rating: the best group, were it not a repeat
    pool.ask(3, 1590, at=2)

    assert pair(pool.at(2)) == [(1, 3)]


def test_the_same_people_again_when_nobody_else_waits():
    pool = FakePool(previous={1: frozenset({2}), 2: frozenset({1})})
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1500, at=1)

    assert pair(pool.at(1)) == [(1, 2)]


def test_a_repeat_waits_for_a_player_out_of_range_until_the_windows_are_at_their_widest():
    """Someone else waits, but too far away to be seated yet: the repeat waits while the windows
    widen, and goes ahead once waiting longer could not bring him in."""
    pool = FakePool(previous={1: frozenset({2}), 2: frozenset({1})})
    pool.ask(1, 1500, at=0)
    pool.ask(2, 1500, at=0)
    pool.ask(3, 2300, at=0)  # 800 away: never within reach

    assert pair(pool.at(39)) == []
    assert pair(pool.at(40)) == [(1, 2)]


def test_a_repeat_in_four_is_the_same_three_others_and_is_avoided_when_a_fifth_waits():
    last_match = {1, 2, 3, 4}
    previous = {uid: frozenset(last_match - {uid}) for uid in last_match}
    pool = FakePool(previous=previous)
    for uid in range(1, 6):
        pool.ask(uid, 1500, at=uid)

    (seats,) = pair(pool.at(10), players=4)

    assert 5 in seats  # three of the last match and the fifth: not the same people


def test_three_players_make_a_hokm3_group_and_the_fourth_waits():
    pool = FakePool()
    for uid, rating in ((1, 1500), (2, 1520), (3, 1480), (4, 1550)):
        pool.ask(uid, rating, at=uid)

    groups = pair(pool.at(5), players=3)

    # Oldest first; the tightest group of three holding him is 1, 2, 3 (a spread of 40).
    assert groups == [(1, 2, 3)]


def test_two_player_pools_seat_every_pair_they_can():
    pool = FakePool()
    for uid in range(1, 8):
        pool.ask(uid, 1500 + uid, at=uid)

    groups = pair(pool.at(10))

    assert groups == [(1, 2), (3, 4), (5, 6)]  # 7 waits for an eighth


def test_a_large_pool_is_paired_fully_and_quickly():
    """Each seeker's groups are made of his nearest CANDIDATES_MAX: 400 players of one rating
    are 100 tables in well under a second."""
    seekers = [Seeker(uid, 1500 + uid % 7, 30 - uid / 100) for uid in range(400)]

    started = time.perf_counter()
    groups = pair(seekers, players=4)
    lasted = time.perf_counter() - started

    assert CANDIDATES_MAX == 12
    assert len(groups) == 100
    assert sorted(uid for g in groups for uid in g) == list(range(400))
    assert lasted < 5, lasted


# -- the services ----------------------------------------------------------------------------------


@dataclass
class Heard:
    """What the services sent to lobby sockets (``channel_layer.send``), by channel."""

    messages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def of(self, channel: str) -> list[dict[str, Any]]:
        return [m for c, m in self.messages if c == channel]


@pytest.fixture
def heard(monkeypatch) -> Heard:
    record = Heard()
    layer = realtime.get_channel_layer()

    class Layer:
        """Records what is sent to one socket; what goes to groups goes on as before."""

        async def send(self, channel: str, message: dict[str, Any]) -> None:
            record.messages.append((channel, message))

        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            await layer.group_send(group, message)

    monkeypatch.setattr(realtime, "get_channel_layer", lambda: Layer())
    return record


def rated(user, variant: str, rating: int) -> None:
    """Give ``user`` a settled rating of ``rating`` in ``variant``."""
    Rating.objects.create(user=user, variant=variant, mu=25, sigma=2, rating=rating, games=30)


def seek(user, variant: str = "hokm4", clock: int = 30, channel: str | None = None) -> Match | None:
    return seek_create(
        user=user, variant=variant, clock_seconds=clock, channel_name=channel or f"ch.{user.pk}"
    )


def seeks_age(seconds: float) -> None:
    """Every seek in the pool was made ``seconds`` earlier; its socket was seen just now."""
    then = timezone.now() - timedelta(seconds=seconds)
    Seek.objects.update(created_at=then, seen_at=timezone.now())


@pytest.mark.django_db
def test_a_seek_waits_in_the_pool_with_the_players_rating_and_channel(heard):
    player = UserFactory()
    rated(player, "court-piece", 1640)

    assert seek(player, "court-piece", 60, channel="lobby.abc") is None

    row = Seek.objects.get(user=player)
    assert (row.variant, row.clock_seconds, row.rating, row.channel_name) == (
        "court-piece",
        60,
        1640,
        "lobby.abc",
    )
    view = seek_of(user=player)
    assert view is not None
    assert (view.rating, view.low, view.high, view.clock_seconds) == (1640, 1540, 1740, 60)
    assert str(view.title) == "Court Piece"
    assert seek_of(user=player, channel_name="lobby.other") is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("variant", "clock", "message"),
    [
        ("hokm5", 30, "Choose one of the games offered."),
        ("hokm4", 45, "Choose a turn clock of 15, 30 or 60 seconds."),
        ("hokm4", 0, "Choose a turn clock of 15, 30 or 60 seconds."),
    ],
)
def test_a_seek_for_a_game_or_clock_not_offered_is_refused(variant, clock, message):
    player = UserFactory()

    with pytest.raises(SeekError) as refused:
        seek(player, variant, clock)

    assert refused.value.message == message
    assert not Seek.objects.exists()


@pytest.mark.django_db
def test_a_player_kept_from_playing_may_not_seek():
    player = UserFactory()
    sanction_in_force(player, Sanction.Kind.PLAY_BAN, reason="Left 3 matches")

    with pytest.raises(SeekError) as refused:
        seek(player)

    assert refused.value.code == "play_banned"
    assert "Left 3 matches" in refused.value.message
    assert not Seek.objects.exists()


@pytest.mark.django_db
def test_a_player_in_a_clocked_match_being_played_may_not_seek_another():
    player, other = UserFactory(), UserFactory()
    match_create(
        variant="hokm2",
        target=7,
        seats=[SeatSpec(name="a", user=player), SeatSpec(name="b", user=other)],
        clock_seconds=30,
    )

    with pytest.raises(SeekError) as refused:
        seek(player)

    assert refused.value.code == "busy"
    assert not Seek.objects.exists()


@pytest.mark.django_db
def test_a_new_seek_replaces_the_old_one_and_tells_the_old_page(
    heard, django_capture_on_commit_callbacks
):
    player = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        seek(player, "hokm4", 30, channel="page.one")
        seek(player, "hokm2", 15, channel="page.two")

    row = Seek.objects.get(user=player)  # one seek per player
    assert (row.variant, row.clock_seconds, row.channel_name) == ("hokm2", 15, "page.two")
    assert heard.of("page.one") == [{"type": ENDED_TYPE, "reason": "replaced"}]
    assert heard.of("page.two") == []


@pytest.mark.django_db
def test_cancel_ends_the_seek_and_tells_only_another_page(
    heard, django_capture_on_commit_callbacks
):
    player = UserFactory()
    seek(player, channel="page.one")
    with django_capture_on_commit_callbacks(execute=True):
        assert seek_cancel(user=player, channel_name="page.one") is True
    assert not Seek.objects.exists()
    assert heard.messages == []
    assert seek_cancel(user=player) is False

    seek(player, channel="page.one")
    with django_capture_on_commit_callbacks(execute=True):
        assert seek_cancel(user=player, channel_name="page.two") is True
    assert heard.of("page.one") == [{"type": ENDED_TYPE, "reason": "cancelled"}]


@pytest.mark.django_db
def test_a_closed_socket_ends_its_own_seeks_only():
    first, second = UserFactory(), UserFactory()
    seek(first, channel="page.one")
    seek(second, channel="page.two")

    assert seeks_end_for_channel(channel_name="page.one") == 1

    assert list(Seek.objects.values_list("user", flat=True)) == [second.pk]


@pytest.mark.django_db
def test_the_seek_that_completes_a_group_starts_a_rated_match_with_balanced_partners(
    heard, django_capture_on_commit_callbacks
):
    players = [UserFactory(username=name) for name in ("ali", "sara", "reza", "mina")]
    for player, rating in zip(players, (1800, 1700, 1500, 1400), strict=True):
        rated(player, "hokm4", rating)
    for player in players[:3]:
        assert seek(player, clock=15) is None
    seeks_age(40)  # the first three have waited long enough to accept a 400-point spread

    with django_capture_on_commit_callbacks(execute=True):
        match = seek(players[3], clock=15)
    # The newcomer's window (100) does not reach 1800 yet: nobody is seated...
    assert match is None
    assert heard.messages == []
    Seek.objects.filter(user=players[3]).update(created_at=timezone.now() - timedelta(seconds=30))
    # ...until the worker's next pass, once his window has widened as well.
    with django_capture_on_commit_callbacks(execute=True):
        (match,) = seeks_pair()

    assert match.rated and match.clock_seconds == 15 and match.variant == "hokm4"
    seats = list(match.seats.order_by("index").values_list("user__username", flat=True))
    assert seats == ["ali", "sara", "mina", "reza"]  # 1800 + 1400 against 1700 + 1500
    table = match.table
    assert table is not None
    assert (table.rated, table.fill_with_computer, table.turn_clock_seconds) == (True, False, 15)
    assert (table.target, table.status, table.is_private) == (
        default_target("hokm4"),
        Table.Status.PLAYING,
        False,
    )
    assert table.name == "Rated: Hokm, four players"
    assert list(table.seats.order_by("index").values_list("user__username", flat=True)) == seats
    assert not Seek.objects.exists()
    for player in players:
        assert heard.of(f"ch.{player.pk}") == [{"type": PAIRED_TYPE, "match_id": match.pk}]


@pytest.mark.django_db
def test_the_last_seek_of_a_group_in_range_pairs_at_once_without_the_worker(
    heard, django_capture_on_commit_callbacks
):
    players = [UserFactory() for _ in range(3)]
    assert seek(players[0], "hokm3", 60) is None
    assert seek(players[1], "hokm3", 60) is None
    assert seek(players[2], "hokm3", 30) is None  # another clock: another pool

    last = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        match = seek(last, "hokm3", 60)

    assert match is not None and match.rated
    assert list(match.seats.order_by("index").values_list("user", flat=True)) == [
        players[0].pk,
        players[1].pk,
        last.pk,
    ]
    assert list(Seek.objects.values_list("user", flat=True)) == [players[2].pk]
    assert heard.of(f"ch.{players[2].pk}") == []


@pytest.mark.django_db
def test_the_worker_pairs_seeks_as_their_windows_widen():
    low, high = UserFactory(), UserFactory()
    rated(low, "hokm2", 1500)
    rated(high, "hokm2", 1750)
    seek(low, "hokm2")
    seek(high, "hokm2")
    assert not Match.objects.exists()

    seeks_age(14)
    Worker()._seeks_pair()
    assert not Match.objects.exists()

    seeks_age(15)
    worker = Worker()
    worker._seeks_pair()
    match = Match.objects.get()
    assert set(match.seats.values_list("user", flat=True)) == {low.pk, high.pk}
    assert not Seek.objects.exists()


@pytest.mark.django_db
def test_seeks_whose_server_went_away_are_dropped_not_paired(heard):
    first, second = UserFactory(), UserFactory()
    seek(first, "hokm2")
    Seek.objects.update(seen_at=timezone.now() - timedelta(seconds=SEEK_ALIVE_SECONDS + 1))
    seek(second, "hokm2")  # would pair with the first, were his socket alive

    assert Seek.objects.count() == 2
    assert seeks_pair() == []
    assert list(Seek.objects.values_list("user", flat=True)) == [second.pk]


def waiting(user, variant: str = "hokm2", rating: int = 1500, **fields: Any) -> Seek:
    """A seek written straight to the pool, without the pairing that ``seek_create`` runs."""
    fields = {"clock_seconds": 30, "channel_name": f"ch.{user.pk}"} | fields
    return Seek.objects.create(user=user, variant=variant, rating=rating, **fields)


@pytest.mark.django_db
def test_the_sockets_heartbeat_keeps_its_seek_in_the_pool():
    first, second, silent = UserFactory(), UserFactory(), UserFactory()
    for player in (first, second, silent):
        waiting(player)
    later = timezone.now() + timedelta(seconds=SEEK_ALIVE_SECONDS + 1)
    seeks_seen(channel_names=[f"ch.{first.pk}", f"ch.{second.pk}"], now=later)

    (match,) = seeks_pair(now=later)

    assert set(match.seats.values_list("user", flat=True)) == {first.pk, second.pk}
    assert not Seek.objects.exists()  # the silent one's was dropped


@pytest.mark.django_db
def test_players_who_reported_one_another_in_the_last_day_are_not_seated_together():
    reporter, reported_player, stranger = UserFactory(), UserFactory(), UserFactory()
    Report.objects.create(
        reporter=reporter,
        reported=reported_player,
        reason=Report.Reason.CHAT_ABUSE,
        created_at=timezone.now() - timedelta(hours=23),
    )

    seek(reporter, "hokm2")
    assert seek(reported_player, "hokm2") is None  # either way round
    match = seek(stranger, "hokm2")

    assert match is not None
    assert set(match.seats.values_list("user", flat=True)) == {reporter.pk, stranger.pk}
    assert list(Seek.objects.values_list("user", flat=True)) == [reported_player.pk]


@pytest.mark.django_db
def test_a_report_older_than_a_day_no_longer_keeps_them_apart():
    reporter, reported_player = UserFactory(), UserFactory()
    Report.objects.create(
        reporter=reporter,
        reported=reported_player,
        reason=Report.Reason.CHEATING,
        created_at=timezone.now() - timedelta(hours=25),
    )

    seek(reporter, "hokm2")

    assert seek(reported_player, "hokm2") is not None


@pytest.mark.django_db
def test_the_reports_question_is_answered_by_moderation_and_by_nobody_without_it(monkeypatch):
    a, b, c = UserFactory(), UserFactory(), UserFactory()
    Report.objects.create(reporter=a, reported=b, reason=Report.Reason.OTHER)
    Report.objects.create(reporter=c, reported=UserFactory(), reason=Report.Reason.OTHER)
    since = timezone.now() - timedelta(days=1)

    assert restrictions.reported_pairs(user_ids=[a.pk, b.pk, c.pk], since=since) == {
        frozenset((a.pk, b.pk))
    }
    assert restrictions.reported_pairs(user_ids=[a.pk, c.pk], since=since) == set()
    monkeypatch.setattr(restrictions, "_source", None)
    assert restrictions.reported_pairs(user_ids=[a.pk, b.pk], since=since) == set()


def finished_rated_match(variant: str, users: list) -> Match:
    match = match_create(
        variant=variant,
        target=7,
        seats=[SeatSpec(name=u.username, user=u) for u in users],
        clock_seconds=30,
        rated=True,
    )
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    return match


@pytest.mark.django_db
def test_the_opponent_of_the_last_rated_match_is_not_met_again_when_another_waits():
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    last = finished_rated_match("hokm2", [first, second])
    waiting(first)
    waiting(second)  # his equal: the best pair, were it not the same again
    waiting(third, rating=1590)

    (match,) = seeks_pair()

    assert match.pk != last.pk
    assert set(match.seats.values_list("user", flat=True)) == {first.pk, third.pk}
    assert list(Seek.objects.values_list("user", flat=True)) == [second.pk]


@pytest.mark.django_db
def test_the_last_opponents_meet_again_when_nobody_else_waits():
    first, second = UserFactory(), UserFactory()
    finished_rated_match("hokm2", [first, second])
    waiting(first)

    match = seek(second, "hokm2")

    assert match is not None
    assert set(match.seats.values_list("user", flat=True)) == {first.pk, second.pk}


@pytest.mark.django_db
def test_a_previous_match_of_another_game_or_unrated_is_no_repeat():
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    finished_rated_match("hokm2-draw", [first, second])
    casual = match_create(
        variant="hokm2",
        target=7,
        seats=[SeatSpec(name="a", user=first), SeatSpec(name="b", user=second)],
        clock_seconds=30,
    )
    Match.objects.filter(pk=casual.pk).update(status=Match.Status.FINISHED)
    waiting(first)
    waiting(second)
    waiting(third, rating=1590)

    (match,) = seeks_pair()

    assert set(match.seats.values_list("user", flat=True)) == {first.pk, second.pk}


@pytest.mark.django_db
def test_a_player_sanctioned_while_waiting_is_dropped_and_the_others_wait_on(
    heard, django_capture_on_commit_callbacks
):
    patient, barred, fresh = UserFactory(), UserFactory(), UserFactory()
    waiting(patient)
    waiting(barred, channel_name="ch.barred")
    # A play ban that began after he asked (seek_create refuses one in force then).
    sanction_in_force(barred, Sanction.Kind.PLAY_BAN, reason="Left 3 matches")

    with django_capture_on_commit_callbacks(execute=True):
        assert seeks_pair() == []
    assert heard.of("ch.barred") == [{"type": ENDED_TYPE, "reason": "barred"}]
    assert list(Seek.objects.values_list("user", flat=True)) == [patient.pk]

    match = seek(fresh, "hokm2")
    assert match is not None
    assert set(match.seats.values_list("user", flat=True)) == {patient.pk, fresh.pk}


@pytest.mark.django_db
def test_a_player_whose_clocked_match_started_meanwhile_waits_out_of_the_groups():
    busy, other, opponent = UserFactory(), UserFactory(), UserFactory()
    seek(busy, "hokm2")
    match_create(
        variant="hokm2",
        target=7,
        seats=[SeatSpec(name="a", user=busy), SeatSpec(name="b", user=opponent)],
        clock_seconds=30,
    )

    assert seek(other, "hokm2") is None

    assert set(Seek.objects.values_list("user", flat=True)) == {busy.pk, other.pk}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("heard")
def test_two_pairers_at_once_seat_each_player_once(monkeypatch):
    """Two server processes pair the same pool at the same moment (PostgreSQL's row locks): the
    second waits for the first's locks, then finds the seeks gone, and starts nothing."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite runs one writer at a time")
    players = [UserFactory() for _ in range(4)]
    for player in players:
        waiting(player, "hokm4")
    real_start = seeks._rated_match_start
    started = threading.Event()

    def slow_start(*args: Any) -> Match:
        started.set()
        time.sleep(0.5)  # holding the pool's locks
        return real_start(*args)

    monkeypatch.setattr(seeks, "_rated_match_start", slow_start)
    results: dict[str, list[Match]] = {}

    def run(name: str) -> None:
        try:
            results[name] = seeks_pair()
        finally:
            connections.close_all()

    first = threading.Thread(target=run, args=("first",))
    first.start()
    assert started.wait(5)
    second = threading.Thread(target=run, args=("second",))
    second.start()
    first.join(10)
    second.join(10)

    assert len(results["first"]) == 1 and results["second"] == []
    assert Match.objects.count() == 1
    assert MatchSeat.objects.filter(user__in=players).count() == 4
    assert not Seek.objects.exists()


# -- the lobby socket ------------------------------------------------------------------------------

db = database_sync_to_async


@pytest.fixture
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


async def lobby_socket(user: Any = None) -> tuple[WebsocketCommunicator, str]:
    socket = WebsocketCommunicator(application(user=user), "/ws/lobby/")
    accepted, _ = await socket.connect()
    assert accepted
    return socket, await socket.receive_from()


def form(**fields: Any) -> dict[str, Any]:
    """A seek panel form's fields as htmx's ws extension sends them: text, and its headers."""
    return {**fields, "HEADERS": {"HX-Request": "true", "HX-Trigger": None}}


async def waiting_panel(socket: WebsocketCommunicator) -> str:
    frame = await socket.receive_from()
    assert 'id="seek-panel"' in frame and "seek-panel--waiting" in frame, frame
    return frame


socket_test = pytest.mark.django_db(transaction=True)


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_a_signed_in_lobby_gets_the_seek_form_with_its_tables_in_one_frame():
    player = await db(UserFactory)()

    socket, frame = await lobby_socket(player)

    assert frame.lstrip().startswith('<div id="lobby-tables"')
    assert frame.count('hx-swap-oob="true"') == 2
    assert 'id="seek-panel"' in frame and "ws-send" in frame
    assert 'name="variant" value="hokm4" checked' in frame
    assert 'name="clock" value="30" checked' in frame
    assert "Play rated now" in frame
    assert await socket.receive_nothing(timeout=0.1)
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_a_visitor_gets_no_seek_form_and_a_clear_error_if_he_seeks_anyway():
    socket, frame = await lobby_socket()
    assert "seek-panel" not in frame

    await socket.send_json_to(form(type="seek", variant="hokm4", clock="30"))
    answer = await socket.receive_from()

    assert "Sign in to play rated matches against people." in answer
    assert "seek-panel--signin" in answer
    assert not await db(Seek.objects.exists)()
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_a_seek_over_the_socket_waits_with_its_window_and_a_cancel_button():
    player = await db(UserFactory)()
    socket, _ = await lobby_socket(player)

    await socket.send_json_to(form(type="seek", variant="hokm2-draw", clock="15"))
    panel = await waiting_panel(socket)

    row = await db(Seek.objects.get)(user=player)
    assert (row.variant, row.clock_seconds) == ("hokm2-draw", 15)
    assert "Looking for players: Hokm, two players with the draw, 15 s per turn" in panel
    # The window around his 1500: 100 points at first, wider by 10 a second he has waited
    # while the panel was made (a second or so on a busy machine).
    low, high = (int(v) for v in re.findall(r"data-seek-(?:low|high)>(\d+)<", panel))
    assert 1500 - low == high - 1500 and 100 <= high - 1500 <= 130, (low, high)
    assert 'data-window-per-second="10"' in panel and 'data-window-max="500"' in panel
    assert 'value="seek_cancel"' in panel and "Cancel" in panel
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_a_refused_seek_shows_the_form_again_with_the_reason():
    player = await db(UserFactory)()
    socket, _ = await lobby_socket(player)

    await socket.send_json_to(form(type="seek", variant="hokm2", clock="45"))
    answer = await socket.receive_from()

    assert "Choose a turn clock of 15, 30 or 60 seconds." in answer
    assert 'role="alert"' in answer and "seek-panel--idle" in answer
    assert 'name="variant" value="hokm2" checked' in answer  # his choice kept
    assert not await db(Seek.objects.exists)()
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_cancel_ends_the_seek_and_shows_the_form():
    player = await db(UserFactory)()
    socket, _ = await lobby_socket(player)
    await socket.send_json_to(form(type="seek", variant="court-piece", clock="60"))
    await waiting_panel(socket)

    await socket.send_json_to(form(type="seek_cancel"))
    answer = await socket.receive_from()

    assert "You stopped looking for players." in answer
    assert 'name="variant" value="court-piece" checked' in answer
    assert 'name="clock" value="60" checked' in answer
    assert not await db(Seek.objects.exists)()
    assert await socket.receive_nothing(timeout=0.1)  # told once, by its own answer
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_leaving_the_lobby_ends_the_seek():
    player, other = await db(UserFactory)(), await db(UserFactory)()
    socket, _ = await lobby_socket(player)
    await socket.send_json_to(form(type="seek", variant="hokm4", clock="30"))
    await waiting_panel(socket)
    await db(seek)(other)  # another player's seek, from another socket, stays

    await socket.disconnect()

    assert await db(lambda: list(Seek.objects.values_list("user", flat=True)))() == [other.pk]


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_the_pairing_sends_each_page_to_the_match():
    first, second = await db(UserFactory)(), await db(UserFactory)()
    first_socket, _ = await lobby_socket(first)
    second_socket, _ = await lobby_socket(second)

    await first_socket.send_json_to(form(type="seek", variant="hokm2", clock="30"))
    await waiting_panel(first_socket)
    await second_socket.send_json_to(form(type="seek", variant="hokm2", clock="30"))

    answers = [await socket.receive_from() for socket in (first_socket, second_socket)]

    match = await db(Match.objects.get)()
    for socket, answer in zip((first_socket, second_socket), answers, strict=True):
        assert f'data-redirect="/match/{match.pk}/"' in answer
        assert "seek-panel--paired" in answer and "Go to the match" in answer
        # Told once. The lobby's list may follow (the new rated table is public), a panel not.
        while not await socket.receive_nothing(timeout=0.1):
            assert 'id="seek-panel"' not in await socket.receive_from()
        await socket.disconnect()
    assert match.rated
    assert not await db(Seek.objects.exists)()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_a_seek_from_another_page_replaces_this_pages_and_says_so():
    player = await db(UserFactory)()
    first, _ = await lobby_socket(player)
    second, _ = await lobby_socket(player)
    await first.send_json_to(form(type="seek", variant="hokm4", clock="30"))
    await waiting_panel(first)

    await second.send_json_to(form(type="seek", variant="hokm3", clock="15"))
    await waiting_panel(second)
    told = await first.receive_from()

    assert "You are now looking for players from another page." in told
    assert "seek-panel--idle" in told
    assert (await db(Seek.objects.get)(user=player)).variant == "hokm3"
    await first.disconnect()  # its close does not end the other page's seek
    assert await db(Seek.objects.filter(user=player).exists)()
    await second.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_other_messages_are_ignored_as_before():
    player = await db(UserFactory)()
    socket, _ = await lobby_socket(player)

    for text in ('{"type": "anything"}', "[1, 2]", "not json", '{"type": ["seek"]}', "null"):
        await socket.send_to(text_data=text)
    await socket.send_to(bytes_data=b'{"type": "seek"}')

    assert await socket.receive_nothing(timeout=0.3)
    assert not await db(Seek.objects.exists)()
    await socket.disconnect()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_the_socket_caps_hold_for_seeks():
    player = await db(UserFactory)()
    socket, _ = await lobby_socket(player)

    padded = form(type="seek", variant="hokm4", clock="30", pad="x" * 20_000)
    await socket.send_json_to(padded)

    assert await socket.receive_output() == {"type": "websocket.close", "code": CLOSE_TOO_LARGE}
    assert not await db(Seek.objects.exists)()


@socket_test
@pytest.mark.usefixtures("_in_memory_layer")
async def test_the_seek_panel_speaks_the_pages_language():
    player = await db(UserFactory)()
    socket = WebsocketCommunicator(
        application(user=player), "/ws/lobby/", headers=[(b"accept-language", b"fa")]
    )
    assert (await socket.connect())[0]
    assert "حکم چهارنفره" in await socket.receive_from()  # the form's games

    await socket.send_json_to(form(type="seek", variant="hokm4", clock="30"))
    panel = await waiting_panel(socket)

    assert "حکم چهارنفره" in panel and "Hokm, four players" not in panel
    await socket.disconnect()


#: A seek nested past the JSON parser's recursion limit.
_DEEP = '{"type": ' * 5000 + '"seek"' + "}" * 5000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type": "seek", "variant": "hokm4", "clock": "30"}', "seek"),
        ('{"type": "seek_cancel"}', "seek_cancel"),
        ('{"type": "ping"}', None),
        ("not json", None),
        ("", None),
        ('["seek"]', None),
        # Refused like any other junk, not raised: a raise killed the socket's consumer, and the
        # fuzz test (tests/live/test_fuzz_frames.py) waited for it for ever.
        (_DEEP, None),
    ],
)
def test_a_lobby_frame_is_a_seek_or_nothing(text, expected):
    message = seek_message(text)

    assert (message["type"] if message else None) == expected
