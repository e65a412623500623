"""Issue 7: the lobby's quick start offers the four computer levels, and computer players' names
are shown in the reader's language, whoever opened the table. Issue 22: one short name for a
computer player everywhere ("Hard bot 2"), not "Hard · 2" on the table and "Computer (hard, seat 2)"
in the history and the replay."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.lobby.selectors import computer_player_name
from games.lobby.services import play_against_computer
from games.models import Match, MatchSeat, Table
from games.play.consumers import match_payload
from games.play.rendering import seat_name
from games.play.selectors import match_state_build
from tests.accounts.players import client_for
from tests.games.factories import UserFactory

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "medium", "hard", "expert"]


def lobby_page(client: Client, *, language: str = "en") -> str:
    response = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def quick_start_form(page: str) -> str:
    start = page.index(f'action="{reverse("games:play_computer")}" class="computer-start"')
    return page[start : page.index("</form>", start)]


def checked_level(form: str) -> str:
    (value,) = re.findall(r'name="computer_level" value="(\w+)"[^>]*\bchecked\b', form)
    return value


def computer_seats(match: Match) -> list[MatchSeat]:
    return list(match.seats.filter(computer_level__isnull=False).order_by("index"))


def names_in(language: str, seats: list[MatchSeat]) -> list[str]:
    with translation.override(language):
        return [computer_player_name(level=s.computer_level, index=s.index) for s in seats]


# -- the quick start ---------------------------------------------------------------------------


def test_the_lobby_offers_the_four_levels_in_the_quick_start_form_medium_chosen():
    form = quick_start_form(lobby_page(client_for(UserFactory())))

    assert re.findall(r'name="computer_level" value="(\w+)"', form) == LEVELS
    assert checked_level(form) == "medium"
    assert form.count('class="level-card"') == 4
    # The level travels with whichever game is clicked: every game is a button of this form.
    assert re.findall(r'<button type="submit" name="variant" value="([\w-]+)"', form) == [
        "hokm4",
        "hokm3",
        "hokm2",
        "hokm2-draw",
        "court-piece",  # R9
    ]


def test_the_persian_lobby_names_the_levels_in_persian():
    form = quick_start_form(lobby_page(client_for(UserFactory()), language="fa"))

    for name in ("آسان", "متوسط", "سخت", "استاد"):
        assert f">{name}</label>" in form
    assert "سطح رایانه" in form


@pytest.mark.parametrize("level", LEVELS)
def test_the_quick_start_seats_computer_players_of_the_chosen_level(level):
    user = UserFactory()

    response = client_for(user).post(
        reverse("games:play_computer"), {"variant": "hokm4", "computer_level": level}
    )

    match = Match.objects.get()
    assert response.url == reverse("games:match", args=[match.pk])
    assert match.table.computer_level == level
    assert match.seats.get(index=0).user == user
    assert [s.computer_level for s in computer_seats(match)] == [level] * 3


def test_the_quick_start_without_a_level_is_medium_and_nothing_is_remembered():
    user = UserFactory()
    client = client_for(user)
    client.post(reverse("games:play_computer"), {"variant": "hokm3", "computer_level": "expert"})

    # The first is unfinished: the quick start asks, and he ends it to start the next (R8.2).
    client.post(reverse("games:play_computer"), {"variant": "hokm2", "unfinished": "resign"})

    latest = Match.objects.get(variant="hokm2")
    assert [s.computer_level for s in computer_seats(latest)] == ["medium"]
    assert checked_level(quick_start_form(lobby_page(client))) == "medium"


@pytest.mark.parametrize("level", ["grandmaster", "random", "greedy", ""])
def test_an_unknown_level_is_refused_and_creates_nothing(level):
    # "random" and "greedy" are bots for duels only (games.bots.DUEL_ONLY), never a table's.
    client = client_for(UserFactory())

    response = client.post(
        reverse("games:play_computer"), {"variant": "hokm4", "computer_level": level}
    )

    assert response.url == reverse("games:lobby")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Choose one of the computer levels offered."
    ]
    assert Match.objects.count() == 0
    assert Table.objects.count() == 0


def test_an_unknown_level_is_refused_in_persian():
    response = client_for(UserFactory()).post(
        reverse("games:play_computer"),
        {"variant": "hokm4", "computer_level": "grandmaster"},
        HTTP_ACCEPT_LANGUAGE="fa",
        follow=True,
    )

    assert "یکی از سطح‌های رایانه را انتخاب کنید." in response.content.decode()
    assert Match.objects.count() == 0


# -- computer players' names in the reader's language ---------------------------------------------


def match_opened_in(language: str, *, level: str = "hard") -> tuple[Any, Match]:
    user = UserFactory(display_name="Sara")
    with translation.override(language):
        match = play_against_computer(user=user, computer_level=level)
    return user, match


PAGES = ["games:match", "games:replay", "games:match_summary"]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(("opened_in", "read_in"), [("en", "fa"), ("fa", "en")])
def test_computer_names_follow_the_reader_not_the_opener(page, opened_in, read_in):
    user, match = match_opened_in(opened_in)
    seats = computer_seats(match)
    assert [s.name for s in seats] == names_in(opened_in, seats)  # stored once, as opened

    response = client_for(user).get(reverse(page, args=[match.pk]), HTTP_ACCEPT_LANGUAGE=read_in)

    html = response.content.decode()
    assert response.status_code == 200
    for shown, stored in zip(names_in(read_in, seats), names_in(opened_in, seats), strict=True):
        assert shown in html
        assert stored not in html
    assert "Sara" in html  # a person's name is as stored


@pytest.mark.parametrize(("opened_in", "read_in"), [("en", "fa"), ("fa", "en")])
def test_the_lobby_and_the_history_show_computer_names_in_the_readers_language(opened_in, read_in):
    user, match = match_opened_in(opened_in, level="easy")
    seats = computer_seats(match)
    client = client_for(user)

    for url in (reverse("games:lobby"), reverse("games:my_games")):
        html = client.get(url, HTTP_ACCEPT_LANGUAGE=read_in).content.decode()
        for shown, stored in zip(names_in(read_in, seats), names_in(opened_in, seats), strict=True):
            assert shown in html, url
            assert stored not in html, url


def test_the_json_protocol_names_computer_players_in_english_whoever_opened_the_table():
    _, match = match_opened_in("fa", level="expert")
    seats = list(match.seats.order_by("index"))

    with translation.override("fa"):
        payload = match_payload(match, seats, match_state_build(match=match), 0)

    assert [p["name"] for p in payload["players"]] == [
        "Sara",
        "Expert bot 2",
        "Expert bot 3",
        "Expert bot 4",
    ]


def test_a_computer_name_comes_from_its_match_seat_and_a_persons_is_stored():
    _, match = match_opened_in("en", level="medium")
    person, computer = match.seats.get(index=0), match.seats.get(index=2)
    person.name = "Sara the Bold"

    with translation.override("fa"):
        assert seat_name(person) == "Sara the Bold"
        assert seat_name(computer) == computer_player_name(level="medium", index=2)
        assert seat_name(computer) != computer.name


@pytest.mark.parametrize("page", [*PAGES, "games:my_games", "games:lobby"])
def test_a_computer_player_has_one_short_name_on_every_page(page):
    user, match = match_opened_in("en", level="medium")
    args = [match.pk] if page in PAGES else []

    html = client_for(user).get(reverse(page, args=args)).content.decode()

    for index in (1, 2, 3):
        assert f"Medium bot {index + 1}" in html
    assert "Computer (" not in html
    assert "Medium ·" not in html


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_replay_names_computers_as_the_live_table_does(language):
    """The plates, the hand rows, the score panel and the script's trick and status line all name
    a computer as the table does, by the one name ("Hard bot 2")."""
    user, match = match_opened_in("en", level="hard")
    seats = computer_seats(match)
    client = client_for(user)

    html = client.get(
        reverse("games:replay", args=[match.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()

    data = json.loads(re.search(r'id="replay-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    with translation.override(language):
        for seat in seats:
            name = seat_name(seat)
            assert name == computer_player_name(level="hard", index=seat.index)
            assert f'title="{name}">{name}</bdi>' in html  # the plate and the score panel
            assert f"<bdi>{name}</bdi>" in html  # the row of the seat's cards
            assert data["seats"][seat.index] == {
                "name": name,
                "side": seat.index % 2,
                "computer": True,
            }


def test_the_tables_status_lines_name_a_computer_as_its_plate_does():
    """ "Hard bot 2 to play", "Hakem Hard bot 2 is choosing the hokm": the same name as on the
    computer's plate and in the banners."""
    from games.bots import greedy_action
    from games.engine import Phase, apply, view
    from games.play.rendering import render_table

    user = UserFactory(display_name="Sara")
    match = play_against_computer(user=user, computer_level="hard")
    seats = list(match.seats.order_by("index"))
    state = match_state_build(match=match)
    hand = state.hand
    seen = set()
    for _ in range(20):
        on_turn = hand.to_act
        if on_turn is None:
            break
        html = render_table(match=match, seats=seats, state=replace(state, hand=hand), seat=0)
        if seats[on_turn].computer_level:
            name = f"Hard bot {on_turn + 1}"
            if hand.phase is Phase.CALL:
                assert f"Hakem <bdi>{name}</bdi> is choosing the hokm" in html
                seen.add("call")
            elif hand.phase is Phase.PLAY:
                assert f"<bdi>{name}</bdi> to play" in html  # a name is isolated (|isolate)
                seen.add("play")
        hand = apply(hand, greedy_action(view(hand, on_turn)))
    assert "play" in seen, "no computer was on turn"


@pytest.mark.parametrize("name", ["Medium bot 2", "Hard bot 4", "Expert bot"])
def test_no_person_may_go_by_a_computer_players_name(name):
    from accounts.forms import DisplayNameForm

    form = DisplayNameForm({"display_name": name}, instance=UserFactory())

    assert not form.is_valid()
