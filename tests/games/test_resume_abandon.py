"""Unfinished matches (issue 22): a match against the computer waits to be resumed (R8.2), the
quick start asks before opening another, the lobby can resign it, and a match nobody plays for a
week ends as abandoned, with no winner and no rating changed."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from games.lobby.services import UnfinishedMatchError, play_against_computer
from games.models import Match, MatchEvent, RatingChange
from games.play import autoplay
from games.play.services import (
    ABANDON_AFTER,
    match_seat_leave,
    match_step,
    matches_idle_abandon,
)
from tests.accounts.players import client_for
from tests.games.factories import COMPUTER, UserFactory, seated_match
from tests.ratings.matches import rated_match_create

pytestmark = pytest.mark.django_db

PLAY = reverse("games:play_computer")


def lobby(user) -> str:
    return client_for(user).get(reverse("games:lobby")).content.decode()


def age(match: Match, *, days: float) -> None:
    """Make every change of ``match`` as old as ``days``: as if nobody had touched it since."""
    then = timezone.now() - timedelta(days=days)
    MatchEvent.objects.filter(match=match).update(created_at=then)
    Match.objects.filter(pk=match.pk).update(created_at=then)


# -- resume ---------------------------------------------------------------------------------


def test_the_lobby_offers_to_resume_an_unfinished_match_against_the_computer_R8_2():
    user = UserFactory()
    match = play_against_computer(user=user, variant="hokm3")
    people = seated_match(user, UserFactory(), variant="hokm2", play=False)

    page = lobby(user)

    resume = page[page.index('id="resume-title"') : page.index('class="computer-start"')]
    assert "Your unfinished match" in resume
    assert "Hokm, three players" in resume
    assert "Score 0 – 0 – 0, playing to 7" in resume
    assert "Last played" in resume
    assert f'href="{reverse("games:match", args=[match.pk])}">Resume</a>' in resume
    assert f'name="resign" value="{match.pk}"' in resume
    # A match with another person is not one to resume against the computer: it stays in the
    # matches in progress.
    assert f'name="resign" value="{people.pk}"' not in page
    progress = page[page.index('id="my-matches"') : page.index('id="play-rated"')]
    assert reverse("games:match", args=[people.pk]) in progress
    assert reverse("games:match", args=[match.pk]) not in progress


def test_the_quick_start_asks_before_opening_another_match_R8_2():
    user = UserFactory()
    unfinished = play_against_computer(user=user, variant="hokm4")

    response = client_for(user).post(PLAY, {"variant": "hokm2", "computer_level": "hard"})

    assert response.status_code == 200
    page = response.content.decode()
    assert "resume it, or resign it and start a new one" in page
    assert f'href="{reverse("games:match", args=[unfinished.pk])}"' in page
    # The new game's choice goes along with the answer.
    form = page[
        page.index('name="unfinished"') - 600 : page.index(
            "</form>", page.index('name="unfinished"')
        )
    ]
    assert 'name="variant" value="hokm2"' in form
    assert 'name="computer_level" value="hard"' in form
    assert 'name="unfinished" value="resign"' in form
    assert Match.objects.filter(seats__user=user).count() == 1
    unfinished.refresh_from_db()
    assert unfinished.status == Match.Status.PLAYING


def test_resign_it_and_start_a_new_one_R8_2():
    user = UserFactory()
    old = play_against_computer(user=user, variant="hokm4")

    response = client_for(user).post(
        PLAY, {"variant": "hokm2", "computer_level": "hard", "unfinished": "resign"}
    )

    new = Match.objects.exclude(pk=old.pk).get(seats__user=user)
    assert response.url == reverse("games:match", args=[new.pk])
    assert (new.variant, new.status) == ("hokm2", Match.Status.PLAYING)
    old.refresh_from_db()
    assert (old.status, old.ended_by, old.resigned_seat, old.winner_side) == (
        Match.Status.FINISHED,
        "resign",
        0,
        1,
    )


def test_the_service_asks_or_resigns_only_when_told_and_programs_start_as_before():
    """``games.play.api`` starts without asking: the default opens another match."""
    user = UserFactory()
    first = play_against_computer(user=user, variant="hokm2")
    second = play_against_computer(user=user, variant="hokm2")
    with pytest.raises(UnfinishedMatchError) as asked:
        play_against_computer(user=user, variant="hokm2", if_unfinished="ask")
    assert {m.pk for m in asked.value.matches} == {first.pk, second.pk}
    assert Match.objects.filter(seats__user=user).count() == 2

    third = play_against_computer(user=user, variant="hokm2", if_unfinished="resign")

    statuses = dict(Match.objects.filter(seats__user=user).values_list("pk", "status"))
    assert statuses == {
        first.pk: Match.Status.FINISHED,
        second.pk: Match.Status.FINISHED,
        third.pk: Match.Status.PLAYING,
    }


def test_the_lobby_resigns_an_unfinished_match_against_the_computer_R8():
    user = UserFactory()
    match = play_against_computer(user=user, variant="hokm3")

    response = client_for(user).post(PLAY, {"resign": str(match.pk)})

    assert response.url == reverse("games:lobby")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "You resigned the match against the computer (Hokm, three players)."
    ]
    match.refresh_from_db()
    assert (match.status, match.ended_by) == (Match.Status.FINISHED, "resign")
    assert 'id="resume-title"' not in lobby(user)


@pytest.mark.parametrize("whose", ["someone else's", "with a person", "over", "not a number"])
def test_the_lobby_refuses_to_resign_what_is_not_his_to_resign_R8(whose):
    user = UserFactory()
    if whose == "someone else's":
        match = play_against_computer(user=UserFactory())
    elif whose == "with a person":
        match = seated_match(user, UserFactory(), variant="hokm2", play=False)
    else:
        match = seated_match(user, COMPUTER, variant="hokm2", target=1)  # played to its end
    before = Match.objects.filter(pk=match.pk).values_list("status", "version").get()
    value = "1e3" if whose == "not a number" else str(match.pk)

    response = client_for(user).post(PLAY, {"resign": value})

    assert response.url == reverse("games:lobby")
    (message,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert message in (
        "This match is over already.",
        "Only a match against the computer can be resigned here.",
    )
    assert Match.objects.filter(pk=match.pk).values_list("status", "version").get() == before


# -- abandon --------------------------------------------------------------------------------


def test_a_match_against_the_computer_can_be_resumed_for_days_R8_2():
    """R8.2 asks for 10 minutes at least: a match untouched for six days is still there."""
    user = UserFactory()
    match = play_against_computer(user=user)
    age(match, days=6)

    assert matches_idle_abandon() == 0

    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert ABANDON_AFTER >= 7 * 24 * 60 * 60


def test_the_worker_ends_a_match_nobody_played_for_a_week_as_abandoned_R8_2():
    user = UserFactory()
    match = play_against_computer(user=user, variant="hokm2")
    kept = play_against_computer(user=UserFactory(), variant="hokm2")
    age(match, days=8)
    version = Match.objects.get(pk=match.pk).version

    worker = autoplay.Worker()
    worker._swept = float("-inf")  # its sweep is due
    worker._sweep()

    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED
    assert match.ended_by == "abandon"
    assert match.winner_side is None
    assert match.finished_at is not None
    assert match.step_at is None
    assert match.version == version + 1
    assert MatchEvent.objects.get(match=match, version=match.version).kind == "abandon"
    kept.refresh_from_db()
    assert kept.status == Match.Status.PLAYING
    # Abandoned, not playing: gone from the lobby, and so shown in the history and summary.
    page = lobby(user)
    assert 'id="resume-title"' not in page
    history = client_for(user).get(reverse("games:my_games")).content.decode()
    assert "result-badge--abandoned" in history
    assert "result-badge--playing" not in history
    summary = client_for(user).get(reverse("games:match_summary", args=[match.pk]))
    assert "Nobody played the match for a long time" in summary.content.decode()
    # The match page says so too, over the table it left.
    shown = client_for(user).get(reverse("games:match", args=[match.pk])).content.decode()
    ending = re.search(r'<div id="match-ending".*?</section>', shown, re.S)
    assert ending is not None
    assert "Match abandoned" in ending.group()
    assert "no winner" in ending.group()


def test_an_abandoned_rated_match_changes_no_rating_R8_2():
    """People whose clock stopped because nobody was connected (R8.2) and never came back."""
    players = [UserFactory(), UserFactory()]
    match = rated_match_create("hokm2", players)
    age(match, days=8)

    assert matches_idle_abandon() == 1

    match.refresh_from_db()
    assert (match.status, match.winner_side) == (Match.Status.ABANDONED, None)
    assert not RatingChange.objects.filter(match=match).exists()
    assert not any(p.ratings.exists() for p in players)


def test_a_change_since_keeps_the_match_going_R8_2():
    """The last change counts, not the start: a move yesterday keeps a week-old match."""
    match = play_against_computer(user=UserFactory())
    age(match, days=8)
    latest = MatchEvent.objects.get(match=match, version=match.version)
    latest.created_at = timezone.now() - timedelta(days=1)
    latest.save(update_fields=["created_at"])

    assert matches_idle_abandon() == 0
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_the_abandon_after_setting_is_read(settings):
    settings.HOKM_ABANDON_AFTER_SECONDS = 60
    match = play_against_computer(user=UserFactory())

    assert matches_idle_abandon(now=timezone.now() + timedelta(seconds=61)) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED


def test_a_people_table_all_its_persons_left_is_played_to_its_end_R8_1():
    """Leaving gives the seat to the computer (R8.1): with every person gone, the computer
    plays the match out, and it ends finished, not "Playing" for good (nor abandoned)."""
    people = [UserFactory(), UserFactory()]
    match = seated_match(*people, variant="hokm2", target=1, play=False)
    for seat in range(2):
        match_seat_leave(match=match, seat=seat)

    steps = 0
    while match_step(match=match.pk, rush=True):
        steps += 1
        assert steps < 500, "the computer should finish the match"

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner_side is not None
    assert match.ended_by == ""
