"""Ratings through the services (docs/ratings.md): a rated match changes each player's rating once
when it ends, and says so in its last event; casual matches and matches with a computer seat
change nothing; what a rated match and a rated table need; leaving counts as a loss (R8.1); a
moderator's void takes the changes back and its lifting gives them again, both in the log."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.engine import get_variant
from games.lobby.services import TableError, play_against_computer, table_join_seat
from games.models import Match, MatchEvent, Rating, RatingChange
from games.play.services import SeatSpec, match_create
from games.ratings.model import SIGMA, Skill, rate
from games.ratings.services import match_outcome_of
from moderation.models import ModerationLogEntry
from moderation.services import ModerationError, sanction_apply, sanction_lift
from tests.games.factories import COMPUTER, UserFactory, open_table, seated_match
from tests.ratings.matches import (
    changes_of,
    finished_match_rate,
    match_play_out,
    rated_match_create,
    ratings_of,
    rebuild_check,
)

pytestmark = pytest.mark.django_db

NEWCOMER = (25.0, SIGMA, 1500, 0, 0)


def people(n: int) -> list[User]:
    return [UserFactory() for _ in range(n)]


def last_event(match: Match) -> MatchEvent:
    return MatchEvent.objects.filter(match=match).order_by("-version").first()


def played(variant: str, players: list[User], *, seed: int = 5, leaver: int | None = None):
    return match_play_out(
        rated_match_create(variant, players, seed=seed), rng_seed=seed, leaver=leaver
    )


def approx_rows(rows):
    return [pytest.approx(row, rel=1e-12) for row in rows]


# -- a rated match ends ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["hokm4", "hokm3", "hokm2", "court-piece"])
def test_a_rated_match_changes_each_players_rating_once_as_the_model_says(variant):
    players = people(get_variant(variant).players)

    match = played(variant, players)

    assert match.status == Match.Status.FINISHED
    outcome = match_outcome_of(match, list(match.seats.order_by("index")))
    expected = rate(outcome, [Skill()] * len(players))
    won = [outcome.won(seat) for seat in range(len(players))]
    assert sum(won) == len(get_variant(variant).seats_of(match.winner_side))
    assert ratings_of(variant, players) == [
        (e.mu, e.sigma, e.rating, 1, int(w)) for e, w in zip(expected, won, strict=True)
    ]
    changes = changes_of(match)
    assert [
        (c.user_id, c.seat, c.variant, c.mu_before, c.sigma_before, c.rating_before)
        for c in changes
    ] == [(p.pk, seat, variant, 25.0, SIGMA, 1500) for seat, p in enumerate(players)]
    assert [(c.mu_after, c.sigma_after, c.rating_after, c.won) for c in changes] == [
        (e.mu, e.sigma, e.rating, w) for e, w in zip(expected, won, strict=True)
    ]
    assert RatingChange.objects.count() == len(players)
    assert set(Rating.objects.values_list("variant", flat=True)) == {variant}
    # The event that ends the match carries every change, for the end banner.
    assert last_event(match).data["ratings"] == [
        {"seat": seat, "before": 1500, "after": e.rating, "provisional": True}
        for seat, e in enumerate(expected)
    ]
    # The winners gain and the last loses (the places between depend on hokm3's points).
    assert all(expected[s].rating > 1500 for s in range(len(players)) if won[s])
    assert min(e.rating for e in expected) < 1500


def test_finishing_a_rated_match_again_changes_nothing():
    players = people(2)
    match = played("hokm2", players)
    rows = ratings_of("hokm2", players)

    assert finished_match_rate(match) == []  # a retry of the same finish

    assert ratings_of("hokm2", players) == rows
    assert RatingChange.objects.count() == 2


def test_a_rated_four_player_match_of_newcomers_moves_them_to_1549_and_1470():
    players = people(4)

    match = played("hokm4", players)

    winners = set(get_variant("hokm4").seats_of(match.winner_side))
    assert [row[2] for row in ratings_of("hokm4", players)] == [
        1549 if seat in winners else 1470 for seat in range(4)
    ]


def test_a_second_rated_match_starts_from_the_first_ones_ratings():
    players = people(2)
    played("hokm2", players, seed=5)
    middle = [Skill(row[0], row[1]) for row in ratings_of("hokm2", players)]

    match = played("hokm2", players, seed=6)

    after = rate(match_outcome_of(match, list(match.seats.order_by("index"))), middle)
    assert [row[:3] for row in ratings_of("hokm2", players)] == [
        (s.mu, s.sigma, s.rating) for s in after
    ]
    assert [row[3] for row in ratings_of("hokm2", players)] == [2, 2]
    assert [(c.mu_before, c.sigma_before) for c in changes_of(match)] == [
        (s.mu, s.sigma) for s in middle
    ]
    rebuild_check()


# -- casual matches -------------------------------------------------------------------------------


def test_a_casual_match_changes_no_rating():
    players = people(4)
    match = match_create(
        variant="hokm4",
        target=1,
        seats=[SeatSpec(name=p.username, user=p) for p in players],
        seed=5,
        clock_seconds=30,
    )

    match = match_play_out(match, rng_seed=5)

    assert match.status == Match.Status.FINISHED and not match.rated
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert "ratings" not in last_event(match).data


def test_a_match_with_a_computer_seat_is_casual_and_changes_no_rating():
    players = people(3)

    match = seated_match(players[0], COMPUTER, players[1], players[2], target=1, rng_seed=2)

    assert match.status == Match.Status.FINISHED and not match.rated
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_match_against_the_computer_is_casual():
    player = UserFactory()

    match = play_against_computer(user=player, variant="hokm2", target=1)
    match = match_play_out(match, rng_seed=1)

    assert match.status == Match.Status.FINISHED and not match.rated
    assert not Rating.objects.exists()


@pytest.mark.parametrize(
    ("computer", "clock"), [(True, 30), (False, None)], ids=["a computer seat", "no clock"]
)
def test_a_rated_match_needs_people_in_every_seat_and_a_clock(computer, clock):
    second = (
        SeatSpec(name="Bot", computer_level="medium")
        if computer
        else SeatSpec(name="sara", user=UserFactory())
    )
    seats = [SeatSpec(name="ali", user=UserFactory()), second]

    with pytest.raises(ValueError, match="a person in every seat and a turn clock"):
        match_create(variant="hokm2", target=1, seats=seats, clock_seconds=clock, rated=True)

    assert not Match.objects.exists()


# -- rated tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table_settings", "message"),
    [
        ({"turn_clock_seconds": None, "is_private": True}, "needs a turn clock"),
        ({"fill_with_computer": True}, "people only"),
        ({"rating_min": 1700, "rating_max": 1600}, "must not be above the highest"),
        ({"rating_min": -1}, "from 0 to 5000"),
        ({"rating_max": 5001}, "from 0 to 5000"),
        ({"rating_min": 1600}, "yours is 1500"),  # the creator outside his own range
        ({"rated": False, "rating_max": 1600}, "Only a rated table"),
    ],
)
def test_a_rated_table_refuses_what_rating_cannot_have(table_settings, message):
    with pytest.raises(TableError, match=message):
        open_table(**({"rated": True} | table_settings))


def test_a_rated_table_refuses_a_player_outside_its_range_and_seats_one_inside():
    table = open_table(rated=True, rating_min=1400, rating_max=1600)
    strong, weak, newcomer = UserFactory(), UserFactory(), UserFactory()
    Rating.objects.create(user=strong, variant="hokm4", mu=35.0, sigma=3.0, rating=1700)
    Rating.objects.create(user=weak, variant="hokm4", mu=20.0, sigma=5.0, rating=1300)
    # A rating in another family does not count at a hokm4 table.
    Rating.objects.create(user=newcomer, variant="hokm2", mu=40.0, sigma=2.0, rating=2180)

    with pytest.raises(TableError, match="yours is 1700"):
        table_join_seat(table=table, user=strong, seat_index=1)
    with pytest.raises(TableError, match="yours is 1300"):
        table_join_seat(table=table, user=weak, seat_index=1)
    table_join_seat(table=table, user=newcomer, seat_index=1)

    assert list(table.seats.order_by("index").values_list("user", flat=True))[:2] == [
        table.created_by_id,
        newcomer.pk,
    ]


def test_a_full_rated_table_starts_a_rated_match():
    table = open_table(rated=True, variant="hokm2", target=1)

    match = table_join_seat(table=table, user=UserFactory(), seat_index=1)

    assert match is not None and match.rated and match.clock_seconds == 30


# -- leaving counts as a loss (R8.1) --------------------------------------------------------------


def test_a_player_who_left_loses_though_his_partner_wins_R8_1():
    # Seat 0 leaves at once and the computer plays his seat; the first seed whose match his
    # team wins is the case of interest (a loss of his team would be a loss anyway).
    for seed in range(20):
        players = people(4)
        match = played("hokm4", players, seed=seed, leaver=0)
        if match.winner_side == 0:
            break
    else:
        pytest.fail("no seed of 20 lets the team of the player who left win")

    assert match.seats.get(index=0).status == "left"
    changes = changes_of(match)
    assert [c.won for c in changes] == [False, False, True, False]
    assert [c.rating_after for c in changes] == [1470, 1470, 1549, 1470]
    # His partner won with him gone; he is rated as the loser of the same match.
    rows = ratings_of("hokm4", players)
    assert [(games, wins) for *_, games, wins in rows] == [(1, 0), (1, 0), (1, 1), (1, 0)]
    assert rows[0][0] < 25 < rows[2][0]
    assert last_event(match).data["ratings"][0] == {
        "seat": 0,
        "before": 1500,
        "after": 1470,
        "provisional": True,
    }
    rebuild_check()


# -- voids ----------------------------------------------------------------------------------------


def test_a_void_takes_the_changes_back_and_its_lifting_gives_them_again(moderator):
    players = people(4)
    match = played("hokm4", players)
    after = ratings_of("hokm4", players)
    shown_after = [row[2] for row in after]

    sanction = sanction_apply(
        moderator=moderator, user=players[1], kind="void", reason="Collusion", match=match
    )

    assert ratings_of("hokm4", players) == approx_rows([NEWCOMER] * 4)
    voids = changes_of(match, RatingChange.Kind.VOID)
    assert [(c.user_id, c.seat, c.rating_before, c.rating_after) for c in voids] == [
        (p.pk, seat, shown_after[seat], 1500) for seat, p in enumerate(players)
    ]
    assert [c.won for c in voids] == [c.won for c in changes_of(match)]
    entry = ModerationLogEntry.objects.get(action="void")
    assert entry.details["match"] == match.pk
    assert entry.details["ratings_taken_back"] == [
        {"user": p.pk, "name": p.username, "seat": seat, "from": shown_after[seat], "to": 1500}
        for seat, p in enumerate(players)
    ]
    assert "2 rating events replayed" in rebuild_check()  # the match, the void

    sanction_lift(moderator=moderator, sanction=sanction, reason="They were friends, no more")

    assert ratings_of("hokm4", players) == approx_rows(after)
    restores = changes_of(match, RatingChange.Kind.RESTORE)
    assert [(c.rating_before, c.rating_after) for c in restores] == [
        (1500, shown_after[seat]) for seat in range(4)
    ]
    lift = ModerationLogEntry.objects.get(action="lift")
    assert lift.details["ratings_restored"] == [
        {"user": p.pk, "name": p.username, "seat": seat, "from": 1500, "to": shown_after[seat]}
        for seat, p in enumerate(players)
    ]
    assert "3 rating events replayed" in rebuild_check()


def test_a_void_of_a_void_match_is_refused_and_changes_nothing(moderator):
    players = people(2)
    match = played("hokm2", players)
    sanction_apply(moderator=moderator, user=players[0], kind="void", reason="Cheat", match=match)
    rows = ratings_of("hokm2", players)

    with pytest.raises(ModerationError):
        sanction_apply(
            moderator=moderator, user=players[1], kind="void", reason="Again", match=match
        )

    assert ratings_of("hokm2", players) == rows
    assert RatingChange.objects.filter(kind=RatingChange.Kind.VOID).count() == 2


def test_a_void_of_a_casual_match_takes_no_rating_back(moderator):
    players = people(2)
    match = match_play_out(
        match_create(
            variant="hokm2",
            target=1,
            seats=[SeatSpec(name=p.username, user=p) for p in players],
            clock_seconds=30,
        )
    )

    sanction_apply(moderator=moderator, user=players[0], kind="void", reason="Abuse", match=match)

    assert "ratings_taken_back" not in ModerationLogEntry.objects.get(action="void").details
    assert not RatingChange.objects.exists()


def test_a_void_is_taken_from_the_ratings_as_they_stand_after_later_matches(moderator):
    ali, sara, reza = people(3)
    first = played("hokm2", [ali, sara], seed=5)
    played("hokm2", [sara, ali], seed=6)
    after_later = ratings_of("hokm2", [ali, sara])
    first_changes = changes_of(first)

    sanction = sanction_apply(
        moderator=moderator, user=ali, kind="void", reason="Collusion", match=first
    )
    played("hokm2", [ali, reza], seed=7)
    played("hokm2", [reza, sara], seed=8)

    # The void moved each rating by what the first match changed, from where it stood.
    for row, change in zip(after_later, first_changes, strict=True):
        void = RatingChange.objects.get(match=first, kind="void", user=change.user_id)
        assert (void.mu_before, void.sigma_before) == row[:2]
        assert void.mu_after == pytest.approx(row[0] - (change.mu_after - change.mu_before))
    assert [r[3] for r in ratings_of("hokm2", [ali, sara, reza])] == [2, 2, 2]
    rebuild_check()

    sanction_lift(moderator=moderator, sanction=sanction, reason="Lifted")
    played("hokm2", [ali, sara], seed=9)

    assert [r[3] for r in ratings_of("hokm2", [ali, sara, reza])] == [4, 4, 2]
    rebuild_check()


def test_a_match_voided_before_its_end_is_rated_when_the_void_is_lifted(moderator):
    players = people(2)
    match = rated_match_create("hokm2", players, seed=5)
    sanction = sanction_apply(
        moderator=moderator, user=players[0], kind="void", reason="Reported", match=match
    )
    match = match_play_out(match, rng_seed=5)
    assert match.voided and match.status == Match.Status.FINISHED
    assert not Rating.objects.exists()  # a void match changes no rating

    sanction_lift(moderator=moderator, sanction=sanction, reason="The report was wrong")

    expected = rate(match_outcome_of(match, list(match.seats.order_by("index"))), [Skill()] * 2)
    assert [row[:3] for row in ratings_of("hokm2", players)] == [
        (s.mu, s.sigma, s.rating) for s in expected
    ]
    assert [c.kind for c in RatingChange.objects.order_by("seat")] == ["match", "match"]
    assert ModerationLogEntry.objects.get(action="lift").details["ratings_restored"] == [
        {"user": p.pk, "name": p.username, "seat": seat, "from": 1500, "to": expected[seat].rating}
        for seat, p in enumerate(players)
    ]
    rebuild_check()
