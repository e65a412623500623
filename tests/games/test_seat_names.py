"""Issues 7 and 22: names on the live table where room is short.

A computer player has one short name everywhere (issue 22): its level and seat ("Hard bot 2"),
on the plate, in the score panel, under played cards, in the status lines and in the title. The
"Computer" badge on its plate says the rest. A person's name is shown as it is, the page cutting a
long one at its own end (``dir="auto"``).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from games.engine import Phase
from games.lobby.selectors import computer_player_name
from games.lobby.services import play_against_computer
from games.models import Match, MatchSeat
from games.play.rendering import render_table, seat_name
from games.play.selectors import match_state_build
from games.play.services import SeatSpec
from tests.accounts.players import client_for
from tests.games.factories import MatchFactory, UserFactory, match_play

pytestmark = pytest.mark.django_db

PERSIAN_NAME = "شهرزاد خسروشاهی بزرگ‌مهر"  # a long display name (40 characters at most)
LATIN_NAME = "Maximilian von Humboldt-Ross"

NAMES = {
    ("hard", 1): "Hard bot 2",
    ("expert", 3): "Expert bot 4",
    ("easy", 2): "Easy bot 3",
    ("medium", 0): "Medium bot 1",
}


def page(client: Client, match: Match, language: str) -> str:
    response = client.get(reverse("games:match", args=[match.pk]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def tight(html: str) -> str:
    """The markup without the whitespace between tags (the live fragment drops it too)."""
    return re.sub(r">\s+<", "><", html)


def plate_name(html: str, index: int) -> str:
    """The inside of seat ``index``'s ``seat__name`` on its plate."""
    section = re.search(
        rf'<section class="seat [^"]*" data-seat="{index}".*?</section>', html, re.S
    )
    assert section, f"no plate for seat {index}"
    name = re.search(
        r'<span class="seat__name">(.*?)</span><span class="(?!visually-hidden">)',
        tight(section.group(0)),
    )
    assert name, f"no name on the plate of seat {index}"
    return name.group(1)


def score_names(html: str) -> list[str]:
    return re.findall(
        r'<span class="score__names">(.*?)</span><span class="score__tricks">', tight(html)
    )


def label(name: str) -> str:
    """What a seat's name is drawn as where room is short, a computer's as a person's."""
    return f'<bdi class="seat-label" dir="auto" title="{escape(name)}">{escape(name)}</bdi>'


# -- the helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "index"), list(NAMES))
def test_a_computer_players_name_is_its_level_and_seat(level, index):
    with translation.override("en"):
        assert computer_player_name(level=level, index=index) == NAMES[level, index]


def test_a_computer_players_persian_name_has_its_persian_level_and_seat():
    with translation.override("fa"):
        name = computer_player_name(level="hard", index=1)
    assert "سخت" in name
    assert "2" in name
    assert "hard" not in name.lower()


def test_a_seats_name_is_the_computers_one_name_or_the_persons_as_stored():
    person = MatchSeat(index=2, name=PERSIAN_NAME)
    computer = MatchSeat(index=1, name="Computer (hard, seat 2)", computer_level="hard")

    with translation.override("en"):
        assert seat_name(person) == PERSIAN_NAME
        assert seat_name(computer) == "Hard bot 2"


# -- the live page -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_plates_show_a_computer_by_its_one_name_said_once(language):
    user = UserFactory(display_name="Sara")
    match = play_against_computer(user=user, computer_level="hard")

    html = page(client_for(user), match, language)

    with translation.override(language):
        for index in (1, 2, 3):
            name = computer_player_name(level="hard", index=index)
            assert plate_name(html, index) == label(name)
            # Not a second, longer name for screen readers beside the one shown.
            assert html.count(f'<span class="visually-hidden">{name}</span>') == 0
    # The plate still says it is a computer, once.
    assert html.count('class="seat-badge seat-badge--bot"') == 3
    assert "Computer (" not in html
    assert " · 2<" not in html
    if language == "en":
        assert 'aria-label="Seat 2: Hard bot 2"' in html
        assert ">Hard bot 2</bdi>" in html


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_score_panel_names_each_side_by_its_players_names(language):
    user = UserFactory(display_name="Sara")
    match = play_against_computer(user=user, computer_level="expert")

    html = page(client_for(user), match, language)

    with translation.override(language):
        names = {i: label(computer_player_name(level="expert", index=i)) for i in (1, 2, 3)}
    and_ = '<span class="score__and">&amp;</span>'
    # Partners sit opposite (R1.2): Sara with seat 3, seats 2 and 4 together; the viewer's first.
    assert score_names(html) == [label("Sara") + and_ + names[2], names[1] + and_ + names[3]]


@pytest.mark.parametrize("language", ["en", "fa"])
def test_a_persons_name_is_shown_whole_and_cut_in_its_own_direction(language):
    sara, shahrzad, max_ = (UserFactory() for _ in range(3))
    match = MatchFactory(
        seats=[
            SeatSpec(name="Sara", user=sara),
            SeatSpec(name=PERSIAN_NAME, user=shahrzad),
            SeatSpec(name=LATIN_NAME, user=max_),
            SeatSpec(name="Computer (medium, seat 4)", computer_level="medium"),
        ]
    )

    html = page(client_for(sara), match, language)

    assert plate_name(html, 1) == label(PERSIAN_NAME)
    assert plate_name(html, 2) == label(LATIN_NAME)
    assert plate_name(html, 0).startswith(label("Sara") + '<span class="seat__you">')
    assert label(PERSIAN_NAME) in score_names(html)[1]
    with translation.override(language):
        name = computer_player_name(level="medium", index=3)
    assert plate_name(html, 3) == label(name)


def test_the_fragment_sent_after_a_move_names_the_computers_under_the_played_cards():
    sara = UserFactory()
    match = MatchFactory(
        seed=7,
        seats=[
            SeatSpec(name="Sara", user=sara),
            *(SeatSpec(name=f"c{i}", computer_level="hard") for i in (1, 2, 3)),
        ],
    )
    played = match_play(
        match, until=lambda s: s.hand.phase is Phase.PLAY and len(s.hand.current) == 2
    )
    seats = list(played.match.seats.order_by("index"))
    state = match_state_build(match=played.match)
    players = [(state.hand.leader + i) % 4 for i in range(2)]

    with translation.override("fa"):
        html = render_table(match=played.match, seats=seats, state=state, seat=0)
        for index in players:
            if index == 0:
                continue
            assert label(computer_player_name(level="hard", index=index)) in html
    who = re.findall(r'<span class="trick__who[^"]*">(.*?)</span>\s*</div>', html, re.S)
    assert len(who) == 2
    assert all("seat-label" in w or w == "شما" for w in who)
