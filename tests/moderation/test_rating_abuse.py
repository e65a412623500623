"""Rating abuse (issue 21): a player's rated results by opponent, and the flag the site raises on
one who gains more than RATING_GAIN_FLAG points in a day against the same opponent."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Match, RatingChange
from games.play.services import SeatSpec
from games.play.signals import match_finished
from moderation import services as moderation
from moderation.models import ModerationLogEntry, RatingFlag
from moderation.views import ACTION_LABELS
from tests.accounts.players import client_for, make_player
from tests.games.factories import MatchFactory, match_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def arash(db: None) -> User:
    return make_player("arash")


@pytest.fixture
def dara(db: None) -> User:
    return make_player("dara")


def rated_match(
    variant: str,
    people: list[User],
    gains: dict[User, int],
    *,
    at: datetime | None = None,
    voided: bool = False,
) -> Match:
    """A finished rated match of ``people`` in seat order whose rating changes (written as
    ``match_ratings_apply`` would) are ``gains``: a gain above 0 is a win."""
    at = at or timezone.now()
    match = MatchFactory(
        variant=variant,
        target=1,
        rated=True,
        clock_seconds=30,
        seats=[SeatSpec(name=u.username, user=u) for u in people],
    )
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished_at=at, voided=voided
    )
    for user, gain in gains.items():
        RatingChange.objects.create(
            match=match,
            user=user,
            variant=variant,
            seat=people.index(user),
            mu_before=25.0,
            sigma_before=8.0,
            mu_after=25.0,
            sigma_after=8.0,
            rating_before=1500,
            rating_after=1500 + gain,
            won=gain > 0,
            created_at=at,
        )
    return match


def flag_check(match: Match, *, now: datetime | None = None) -> list[RatingFlag]:
    return moderation.rating_gains_flag(match_id=match.pk, now=now)


def opponents_url(user: User) -> str:
    return reverse("moderation:moderation_player_opponents", args=[user.username])


# -- results by opponent --------------------------------------------------------------------------


def test_results_by_opponent_count_matches_wins_losses_and_net_gain(player, bahar, arash, dara):
    roya = player
    first = rated_match("hokm2", [roya, bahar], {roya: 30, bahar: -30})
    rated_match("hokm2", [bahar, roya], {roya: -20, bahar: 20})
    last = rated_match("hokm2", [roya, bahar], {roya: 25, bahar: -25})
    rated_match("hokm2", [arash, roya], {roya: 40, arash: -40})
    # Voided: left out, however much it gave.
    rated_match("hokm2", [roya, bahar], {roya: 300, bahar: -300}, voided=True)
    # Dara is her partner: not an opponent. Arash and Bahar both are, each for the whole match.
    rated_match("hokm4", [roya, arash, dara, bahar], {roya: 15, dara: 15, arash: -15, bahar: -15})
    # A seat whose account is deleted is nobody's opponent.
    gone = make_player("gone")
    rated_match("hokm3", [roya, gone, arash], {roya: -5, arash: 10})
    gone.delete()

    results = moderation.rated_results_by_opponent(user=roya)

    assert list(results) == ["hokm4", "hokm3", "hokm2"]
    hokm2 = [(r.opponent, r.matches, r.wins, r.losses, r.gain) for r in results["hokm2"]]
    assert hokm2 == [(arash, 1, 1, 0, 40), (bahar, 3, 2, 1, 35)]
    assert [r.match_id for r in results["hokm2"][1].results] == [last.pk, last.pk - 1, first.pk]
    assert results["hokm2"][1].last_played_at == results["hokm2"][1].results[0].played_at
    assert [(r.opponent, r.gain) for r in results["hokm4"]] == [(arash, 15), (bahar, 15)]
    assert [(r.opponent, r.losses, r.gain) for r in results["hokm3"]] == [(arash, 1, -5)]


def test_the_results_page_links_opponents_and_matches(player, bahar, moderator):
    counted = rated_match("hokm2", [player, bahar], {player: 30, bahar: -30})
    voided = rated_match("hokm2", [player, bahar], {player: 70, bahar: -70}, voided=True)

    page = client_for(moderator).get(opponents_url(player))

    text = page.content.decode()
    assert page.status_code == 200
    assert reverse("moderation:moderation_player", args=["bahar"]) in text
    assert reverse("games:match_summary", args=[counted.pk]) in text
    assert reverse("games:match_summary", args=[voided.pk]) not in text
    assert f'id="opp-hokm2-{bahar.pk}"' in text
    assert "+30" in text


def test_the_moderator_player_page_links_the_results_by_opponent(player, moderator):
    page = client_for(moderator).get(reverse("moderation:moderation_player", args=["roya"]))

    assert opponents_url(player) in page.content.decode()


def test_the_results_page_costs_the_same_queries_whatever_the_history(
    player, bahar, arash, dara, moderator
):
    client = client_for(moderator)
    rated_match("hokm2", [player, bahar], {player: 30, bahar: -30})
    client.get(opponents_url(player))  # the session and the site's caches warm

    with CaptureQueriesContext(connection) as small:
        assert client.get(opponents_url(player)).status_code == 200
    for n in range(4):
        rated_match("hokm2", [player, arash], {player: n - 2, arash: 2 - n})
        rated_match("hokm4", [player, arash, dara, bahar], {player: 9, dara: 9, arash: -9})
    flag = RatingFlag.objects.create(
        user=player, opponent=arash, opponent_name="arash", variant="hokm4", gain=200
    )
    moderation.rating_flag_close(moderator=moderator, flag=flag, decision="friends")
    with CaptureQueriesContext(connection) as large:
        page = client.get(opponents_url(player))

    assert page.content.decode().count("<tr id=") == 4
    assert len(large.captured_queries) == len(small.captured_queries)


# -- the flag -------------------------------------------------------------------------------------


def test_the_threshold_is_150_points_a_day() -> None:
    assert moderation.RATING_GAIN_FLAG == 150
    assert timedelta(hours=24) == moderation.RATING_GAIN_WINDOW


def test_a_gain_above_the_threshold_against_one_opponent_opens_a_flag(player, bahar):
    now = timezone.now()
    first = rated_match("hokm2", [player, bahar], {player: 80, bahar: -80}, at=now)
    second = rated_match("hokm2", [bahar, player], {player: 71, bahar: -71}, at=now)

    (flag,) = flag_check(second, now=now)

    assert (flag.user, flag.opponent, flag.variant, flag.gain, flag.status) == (
        player,
        bahar,
        "hokm2",
        151,
        RatingFlag.Status.OPEN,
    )
    assert flag.matches == [first.pk, second.pk]
    entry = ModerationLogEntry.objects.get(action="rating_flag")
    assert (entry.moderator, entry.target, entry.details["gain"]) == (None, player, 151)
    assert "151" in entry.reason and "bahar" in entry.reason


def test_a_gain_of_the_threshold_itself_opens_no_flag(player, bahar):
    rated_match("hokm2", [player, bahar], {player: 80, bahar: -80})
    last = rated_match("hokm2", [player, bahar], {player: 70, bahar: -70})

    assert flag_check(last) == []
    assert not RatingFlag.objects.exists()


def test_losses_against_the_opponent_count_against_the_gain(player, bahar):
    rated_match("hokm2", [player, bahar], {player: 120, bahar: -120})
    rated_match("hokm2", [player, bahar], {player: -30, bahar: 30})
    last = rated_match("hokm2", [player, bahar], {player: 50, bahar: -50})

    assert flag_check(last) == []


def test_gains_against_different_opponents_are_not_added(player, bahar, arash):
    rated_match("hokm2", [player, bahar], {player: 100, bahar: -100})
    last = rated_match("hokm2", [player, arash], {player: 100, arash: -100})

    assert flag_check(last) == []


def test_gains_older_than_a_day_do_not_count(player, bahar):
    now = timezone.now()
    rated_match("hokm2", [player, bahar], {player: 100}, at=now - timedelta(hours=24, minutes=1))
    rated_match("hokm2", [player, bahar], {player: 40}, at=now - timedelta(hours=23))
    last = rated_match("hokm2", [player, bahar], {player: 40}, at=now)

    assert flag_check(last, now=now) == []


def test_voided_matches_do_not_count(player, bahar):
    rated_match("hokm2", [player, bahar], {player: 100}, voided=True)
    last = rated_match("hokm2", [player, bahar], {player: 100})

    assert flag_check(last) == []


def test_a_partnership_match_counts_against_both_opponents_not_the_partner(
    player, bahar, arash, dara
):
    people = [player, arash, dara, bahar]
    rated_match("hokm4", people, {player: 80, dara: 80, arash: -80, bahar: -80})
    last = rated_match("hokm4", people, {player: 80, dara: 80, arash: -80, bahar: -80})

    flags = flag_check(last)

    assert sorted((f.user.username, f.opponent.username, f.gain) for f in flags) == [
        ("dara", "arash", 160),
        ("dara", "bahar", 160),
        ("roya", "arash", 160),
        ("roya", "bahar", 160),
    ]


def test_each_variant_is_its_own_rating(player, bahar):
    rated_match("hokm2", [player, bahar], {player: 100})
    last = rated_match("hokm2-draw", [player, bahar], {player: 100})

    assert flag_check(last) == []


def test_an_open_flag_is_updated_rather_than_doubled(player, bahar):
    now = timezone.now()
    first = rated_match("hokm2", [player, bahar], {player: 100}, at=now - timedelta(hours=2))
    second = rated_match("hokm2", [player, bahar], {player: 60}, at=now - timedelta(hours=1))
    (opened,) = flag_check(second, now=now - timedelta(hours=1))
    third = rated_match("hokm2", [player, bahar], {player: 20}, at=now)

    (updated,) = flag_check(third, now=now)
    flag_check(third, now=now)

    assert updated.pk == opened.pk
    assert RatingFlag.objects.count() == 1
    flag = RatingFlag.objects.get()
    assert (flag.gain, flag.matches, flag.updated_at) == (180, [first.pk, second.pk, third.pk], now)
    assert ModerationLogEntry.objects.filter(action="rating_flag").count() == 1


def test_after_a_flag_is_closed_the_pair_counts_from_the_closing(player, bahar, moderator):
    first = rated_match("hokm2", [player, bahar], {player: 160})
    (flag,) = flag_check(first)
    moderation.rating_flag_close(moderator=moderator, flag=flag, decision="a good day")

    second = rated_match("hokm2", [player, bahar], {player: 100})
    assert flag_check(second) == []

    third = rated_match("hokm2", [player, bahar], {player: 60})
    (again,) = flag_check(third)
    assert again.pk != flag.pk
    assert (again.gain, again.matches) == (160, [second.pk, third.pk])


def test_an_unrated_or_unfinished_match_is_not_checked(player, bahar):
    rated_match("hokm2", [player, bahar], {player: 200})
    casual = MatchFactory(
        variant="hokm2",
        seats=[SeatSpec(name="roya", user=player), SeatSpec(name="bahar", user=bahar)],
    )
    Match.objects.filter(pk=casual.pk).update(status=Match.Status.FINISHED)
    playing = MatchFactory(
        variant="hokm2",
        rated=True,
        clock_seconds=30,
        seats=[SeatSpec(name="roya", user=player), SeatSpec(name="bahar", user=bahar)],
    )

    assert flag_check(casual) == []
    assert flag_check(playing) == []


def test_a_rated_match_played_to_its_end_is_checked(
    player, bahar, django_capture_on_commit_callbacks
):
    # An earlier gain of each against the other, so that the winner of the match goes over.
    rated_match("hokm2", [player, bahar], {player: 140})
    rated_match("hokm2", [player, bahar], {bahar: 140})
    match = MatchFactory(
        variant="hokm2",
        target=1,
        rated=True,
        clock_seconds=30,
        seats=[SeatSpec(name="roya", user=player), SeatSpec(name="bahar", user=bahar)],
    )

    with django_capture_on_commit_callbacks(execute=True):
        match_play(match, rng_seed=4)

    winner = RatingChange.objects.get(match=match, won=True)
    (flag,) = RatingFlag.objects.all()
    assert flag.user_id == winner.user_id
    assert flag.gain == 140 + winner.delta
    assert flag.matches[-1] == match.pk


def test_an_error_in_the_check_is_logged_and_leaves_the_match_finished(
    player, bahar, monkeypatch, caplog
):
    match = rated_match("hokm2", [player, bahar], {player: 200})

    def broken(**kwargs):
        raise RuntimeError("no database")

    monkeypatch.setattr(moderation, "rating_gains_flag", broken)
    with caplog.at_level(logging.ERROR, logger="django.dispatch"):
        match_finished.send_robust(sender=Match, match_id=match.pk)

    assert "no database" in caplog.text
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert RatingChange.objects.filter(match=match).count() == 1


# -- the queue and closing ------------------------------------------------------------------------


@pytest.fixture
def flag(player: User, bahar: User) -> RatingFlag:
    rated_match("hokm2", [player, bahar], {player: 100})
    (flag,) = flag_check(rated_match("hokm2", [player, bahar], {player: 90}))
    return flag


def test_the_queue_shows_open_flags_with_their_results_by_opponent(flag, moderator, player):
    page = client_for(moderator).get(reverse("moderation:moderation_queue"))

    text = page.content.decode()
    assert list(page.context["flags"]) == [flag]
    assert f'data-flag="{flag.pk}"' in text
    assert f"{opponents_url(player)}#opp-hokm2-{flag.opponent_id}" in text
    assert reverse("moderation:moderation_flag_close", args=[flag.pk]) in text
    for match_id in flag.matches:
        assert reverse("games:match_summary", args=[match_id]) in text


def test_a_moderator_closes_a_flag_with_a_decision(flag, moderator, player):
    client = client_for(moderator)
    url = reverse("moderation:moderation_flag_close", args=[flag.pk])

    response = client.post(url, {"decision": "Brothers at one table; warned."})

    assert response.status_code == 302
    assert response.url == reverse("moderation:moderation_queue")
    flag.refresh_from_db()
    assert (flag.status, flag.closed_by, flag.decision) == (
        RatingFlag.Status.CLOSED,
        moderator,
        "Brothers at one table; warned.",
    )
    entry = ModerationLogEntry.objects.get(action="rating_flag_close")
    assert (entry.moderator, entry.target, entry.reason) == (
        moderator,
        player,
        "Brothers at one table; warned.",
    )
    queue = client.get(reverse("moderation:moderation_queue"))
    assert list(queue.context["flags"]) == []
    log = client.get(reverse("moderation:moderation_log")).content.decode()
    assert str(ACTION_LABELS["rating_flag_close"]) in log
    assert str(ACTION_LABELS["rating_flag"]) in log


def test_closing_from_the_results_page_comes_back_to_it(flag, moderator, player):
    response = client_for(moderator).post(
        reverse("moderation:moderation_flag_close", args=[flag.pk]),
        {"decision": "checked", "back": "player"},
    )

    assert response.url == opponents_url(player)


def test_a_flag_is_not_closed_without_a_decision_nor_twice(flag, moderator):
    client = client_for(moderator)
    url = reverse("moderation:moderation_flag_close", args=[flag.pk])

    client.post(url, {"decision": "  "})
    assert RatingFlag.objects.get(pk=flag.pk).status == RatingFlag.Status.OPEN

    client.post(url, {"decision": "checked"})
    page = client.post(url, {"decision": "again"}, follow=True)
    assert "This flag is closed." in page.content.decode()
    assert RatingFlag.objects.get(pk=flag.pk).decision == "checked"


def test_a_moderator_cannot_close_a_flag_about_himself(moderator, bahar):
    rated_match("hokm2", [moderator, bahar], {moderator: 160})
    (flag,) = flag_check(rated_match("hokm2", [moderator, bahar], {moderator: 1}))

    with pytest.raises(moderation.ModerationError) as refused:
        moderation.rating_flag_close(moderator=moderator, flag=flag, decision="fine")

    assert refused.value.code == "self"
    queue = client_for(moderator).get(reverse("moderation:moderation_queue")).content.decode()
    assert reverse("moderation:moderation_flag_close", args=[flag.pk]) not in queue


def test_players_reach_neither_the_results_nor_the_close(flag, player, bahar):
    for client in (client_for(player), client_for(bahar), Client()):
        assert client.get(opponents_url(player)).status_code == 404
        close = reverse("moderation:moderation_flag_close", args=[flag.pk])
        assert client.post(close, {"decision": "mine"}).status_code == 404
    with pytest.raises(moderation.ModerationError):
        moderation.rating_flag_close(moderator=player, flag=flag, decision="mine")
    assert RatingFlag.objects.get(pk=flag.pk).status == RatingFlag.Status.OPEN


def test_the_log_labels_the_flag_actions() -> None:
    assert {"rating_flag", "rating_flag_close"} <= set(ACTION_LABELS)
    assert {"rating_flag", "rating_flag_close"} <= set(moderation.ACTIONS)


def test_closing_needs_the_csrf_token(flag, moderator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(moderator)

    response = client.post(
        reverse("moderation:moderation_flag_close", args=[flag.pk]), {"decision": "checked"}
    )

    assert response.status_code == 403
    assert RatingFlag.objects.get(pk=flag.pk).status == RatingFlag.Status.OPEN


def test_a_flag_outlives_the_opponents_deleted_account(flag, moderator, bahar):
    bahar.delete()

    page = client_for(moderator).get(reverse("moderation:moderation_queue"))

    (kept,) = page.context["flags"]
    assert (kept.pk, kept.opponent, kept.opponent_name) == (flag.pk, None, "bahar")
    assert "(account deleted)" in page.content.decode()
