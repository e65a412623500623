"""Issue 7: names on the live table where room is short.

A computer player's full name ("Computer (hard, seat 2)") does not fit a seat plate, and cut at
the end it loses the seat that tells three computers apart (in Persian, cut at the wrong end, it
lost its first word). Plates, the score panel and the names under played cards show a short form,
its level and seat ("Hard · 2"), with the full name as the title and for screen readers; a
person's name is shown as it is, the page cutting a long one at its own end (``dir="auto"``).
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
from games.play.rendering import computer_short_name, render_table, seat_name, seat_short_name
from games.play.selectors import match_state_build
from games.play.services import SeatSpec
from tests.accounts.players import client_for
from tests.games.factories import MatchFactory, UserFactory, match_play

pytestmark = pytest.mark.django_db

PERSIAN_NAME = "شهرزاد خسروشاهی بزرگ‌مهر"  # a long display name (40 characters at most)
LATIN_NAME = "Maximilian von Humboldt-Ross"

SHORT = {
    ("en", "hard", 1): "Hard · 2",
    ("en", "expert", 3): "Expert · 4",
    ("en", "easy", 2): "Easy · 3",
    ("fa", "hard", 1): "سخت · 2",
    ("fa", "expert", 3): "استاد · 4",
    ("fa", "medium", 2): "متوسط · 3",
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


def short_label(*, full: str, short: str) -> str:
    """What a computer seat's name is drawn as where room is short."""
    return (
        f'<bdi class="seat-label" dir="auto" title="{escape(full)}" aria-hidden="true">'
        f'{escape(short)}</bdi><span class="visually-hidden">{escape(full)}</span>'
    )


def whole_label(name: str) -> str:
    return f'<bdi class="seat-label" dir="auto" title="{escape(name)}">{escape(name)}</bdi>'


# -- the helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("language", "level", "index"), list(SHORT))
def test_a_computer_players_short_name_is_its_level_and_seat(language, level, index):
    with translation.override(language):
        assert computer_short_name(level=level, index=index) == SHORT[language, level, index]


def test_a_persons_short_name_is_the_name_itself():
    seat = MatchSeat(index=2, name=PERSIAN_NAME)
    computer = MatchSeat(index=1, name="Computer (hard, seat 2)", computer_level="hard")

    with translation.override("fa"):
        assert seat_short_name(seat) == seat_name(seat) == PERSIAN_NAME
        assert seat_short_name(computer) == "سخت · 2"
        assert seat_name(computer) == "رایانه (سخت، صندلی 2)"


# -- the live page -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_plates_show_a_computer_by_level_and_seat_with_the_full_name_in_the_title(language):
    user = UserFactory(display_name="Sara")
    match = play_against_computer(user=user, computer_level="hard")

    html = page(client_for(user), match, language)

    with translation.override(language):
        for index in (1, 2, 3):
            full = computer_player_name(level="hard", index=index)
            short = computer_short_name(level="hard", index=index)
            assert plate_name(html, index) == short_label(full=full, short=short)
    # The plate still says it is a computer, and the seat's region is named in full.
    assert html.count('class="seat-badge seat-badge--bot"') == 3
    if language == "en":
        assert 'aria-label="Seat 2: Computer (hard, seat 2)"' in html
        assert ">Hard · 2</bdi>" in html
    else:
        assert ">سخت · 2</bdi>" in html
        assert 'title="رایانه (سخت، صندلی 2)"' in html


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_score_panel_names_each_side_by_its_short_names(language):
    user = UserFactory(display_name="Sara")
    match = play_against_computer(user=user, computer_level="expert")

    html = page(client_for(user), match, language)

    with translation.override(language):
        label = {
            i: short_label(
                full=computer_player_name(level="expert", index=i),
                short=computer_short_name(level="expert", index=i),
            )
            for i in (1, 2, 3)
        }
    and_ = '<span class="score__and">&amp;</span>'
    # Partners sit opposite (R1.2): Sara with seat 3, seats 2 and 4 together; the viewer's first.
    assert score_names(html) == [
        whole_label("Sara") + and_ + label[2],
        label[1] + and_ + label[3],
    ]


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

    assert plate_name(html, 1) == whole_label(PERSIAN_NAME)
    assert plate_name(html, 2) == whole_label(LATIN_NAME)
    assert plate_name(html, 0).startswith(whole_label("Sara") + '<span class="seat__you">')
    assert whole_label(PERSIAN_NAME) in score_names(html)[1]
    with translation.override(language):
        short = computer_short_name(level="medium", index=3)
    assert f'aria-hidden="true">{short}</bdi>' in plate_name(html, 3)


def test_the_fragment_sent_after_a_move_shows_short_names_under_the_played_cards():
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
            full = computer_player_name(level="hard", index=index)
            short = computer_short_name(level="hard", index=index)
            assert short_label(full=full, short=short) in html
    who = re.findall(r'<span class="trick__who[^"]*">(.*?)</span>\s*</div>', html, re.S)
    assert len(who) == 2
    assert all("seat-label" in w or w == "شما" for w in who)
