"""Rated and casual tables (issue 21): the table form, the table's facts, and what a rated match
shows at the table and says in its events (docs/ratings.md)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.lobby.services import TableError, table_join_seat
from games.models import Match, MatchEvent, Rating, Table
from games.play.consumers import match_payload
from games.play.rendering import render_table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec
from tests.accounts.players import client_for
from tests.games.factories import MatchFactory, UserFactory, match_play, table_form_data

pytestmark = pytest.mark.django_db


def _create(user, **overrides):
    return client_for(user).post(reverse("games:table_create"), table_form_data(**overrides))


def test_the_form_opens_a_rated_table_with_a_range_of_ratings():
    user = UserFactory()

    response = _create(user, rated="on", rating_min="1400", rating_max="1700")

    table = Table.objects.get()
    assert response.status_code == 302
    assert (table.rated, table.rating_min, table.rating_max) == (True, 1400, 1700)


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"turn_clock_seconds": "", "is_private": "on"}, "A rated table needs a turn clock."),
        ({"fill_with_computer": "on"}, "played by people only"),
        ({"rating_min": "1800", "rating_max": "1700"}, "must not be above the highest"),
        ({"rating_min": "-5"}, "greater than or equal to 0"),
    ],
)
def test_the_form_refuses_a_rated_table_without_what_rating_needs(overrides, error):
    response = _create(UserFactory(), rated="on", **overrides)

    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Table.objects.exists()


def test_a_casual_table_drops_a_range_left_in_the_form():
    _create(UserFactory(), rating_min="1400", rating_max="1700")

    table = Table.objects.get()
    assert (table.rated, table.rating_min, table.rating_max) == (False, None, None)


def test_the_creator_outside_his_own_range_is_told_his_rating():
    response = _create(UserFactory(), rated="on", rating_min="1600")

    page = response.content.decode()
    assert response.status_code == 200
    assert "This table is for ratings from 1600 to …; yours is 1500." in page
    assert not Table.objects.exists()


def test_the_table_page_says_rated_and_its_range():
    user = UserFactory()
    _create(user, rated="on", rating_min="1400", rating_max="1700")
    table = Table.objects.get()

    page = client_for(UserFactory()).get(reverse("games:table_detail", args=[table.pk]))

    text = page.content.decode()
    assert re.search(r'class="fact-rated is-rated">rated<', text)
    assert "ratings 1400 to 1700" in text


def test_a_player_outside_the_range_cannot_sit_down():
    _create(UserFactory(), rated="on", rating_max="1600")
    table = Table.objects.get()
    strong = UserFactory()
    Rating.objects.create(user=strong, variant="hokm4", mu=40.0, sigma=3.0, rating=2120, games=30)

    with pytest.raises(TableError, match="yours is 2120"):
        table_join_seat(table=table, user=strong, seat_index=1)


def test_four_people_at_a_rated_table_play_a_rated_match():
    people = [UserFactory() for _ in range(4)]
    _create(people[0], rated="on")
    table = Table.objects.get()

    for index, person in enumerate(people[1:], start=1):
        match = table_join_seat(table=table, user=person, seat_index=index)

    assert match is not None and match.rated


def _rated_match(people, *, play_to_end: bool) -> Match:
    match = MatchFactory(
        variant="hokm4",
        target=1,
        rated=True,
        clock_seconds=30,
        seats=[SeatSpec(name=p.username, user=p) for p in people],
    )
    if play_to_end:
        return match_play(match, rng_seed=3).match
    match_play(match, rng_seed=3, until=lambda s: len(s.hand.tricks) >= 1)
    return Match.objects.get(pk=match.pk)


def test_a_rated_table_shows_each_players_rating_beside_his_name():
    people = [UserFactory() for _ in range(4)]
    match = _rated_match(people, play_to_end=False)

    html = render_table(
        match=match,
        seats=list(match.seats.order_by("index")),
        state=match_state_build(match=match),
        seat=0,
    )

    assert html.count('class="seat__rating"') == 4
    assert re.search(r'class="seat__rating"[^>]*>1500\?<', html)


def test_a_casual_table_shows_no_rating():
    people = [UserFactory() for _ in range(4)]
    match = MatchFactory(
        variant="hokm4", target=1, seats=[SeatSpec(name=p.username, user=p) for p in people]
    )
    match_play(match, rng_seed=3, until=lambda s: len(s.hand.tricks) >= 1)

    html = render_table(
        match=match,
        seats=list(match.seats.order_by("index")),
        state=match_state_build(match=match),
        seat=0,
    )

    assert "seat__rating" not in html
    assert "banner__ratings" not in html


def test_the_end_banner_of_a_rated_match_shows_every_change():
    people = [UserFactory() for _ in range(4)]
    match = _rated_match(people, play_to_end=True)
    winners = {0, 2} if match.winner_side == 0 else {1, 3}
    mine = "is-up" if 0 in winners else "is-down"

    html = render_table(
        match=match,
        seats=list(match.seats.order_by("index")),
        state=match_state_build(match=match),
        seat=0,
    )

    moves = re.findall(
        r'<li class="rating-move (is-up|is-down)[^"]*">.*?rating-move__after">(\d+\?)</span> '
        r'<span class="rating-move__delta">([+−]\d+)</span>',
        html,
    )
    assert len(moves) == 4
    # The winners gain, the losers lose; a new player's first rated match: 1549? and 1470?.
    assert sorted(moves) == sorted(
        [("is-up", "1549?", "+49")] * 2 + [("is-down", "1470?", "−30")] * 2
    )
    plates = re.findall(r'class="seat__rating"[^>]*>([^<]+)<', html)
    assert plates == ["1500?"] * 4  # the plates keep the rating before
    # The viewer's own line is marked.
    assert re.search(rf'<li class="rating-move {mine} is-you">', html)


def test_the_json_state_says_rated_and_the_last_event_carries_the_changes():
    people = [UserFactory() for _ in range(4)]
    match = _rated_match(people, play_to_end=True)

    seats = list(match.seats.order_by("index"))
    state = match_payload(match, seats, match_state_build(match=match), 0)
    last = MatchEvent.objects.filter(match=match).order_by("-version").first()

    assert state["rated"] is True
    assert sorted(last.data["ratings"], key=lambda r: r["seat"]) == [
        {
            "seat": seat,
            "before": 1500,
            "after": 1549 if seat % 2 == match.winner_side else 1470,
            "provisional": True,
        }
        for seat in range(4)
    ]
