"""The computer level on the create-a-table form (issue 7): four levels, each with its one line."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.lobby.forms import COMPUTER_LEVEL_DESCRIPTIONS, TableForm
from games.models import ComputerLevel, Seat, Table
from tests.accounts.players import client_for
from tests.games.factories import UserFactory, table_form_data

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "medium", "hard", "expert"]

DESCRIPTIONS = {
    "easy": "Plays sensibly but makes mistakes: good for learning.",
    "medium": "Always plays the obvious card, without looking ahead.",
    "hard": "Imagines the unseen cards and plays out the hand dozens of times before each card.",
    "expert": "Reads what the others’ plays reveal, searches hundreds of deals, calls trump by "
    "search, and solves the last tricks exactly.",
}

PERSIAN_DESCRIPTIONS = {
    "easy": "منطقی بازی می‌کند ولی اشتباه هم می‌کند: برای یادگرفتن خوب است.",
    "medium": "همیشه بدیهی‌ترین کارت را بازی می‌کند، بی‌آنکه جلوتر را ببیند.",
    "hard": "پیش از هر کارت، کارت‌های دیده‌نشده را تصور می‌کند و دور را ده‌ها بار تا آخر بازی می‌کند.",
    "expert": "از کارت‌هایی که دیگران بازی می‌کنند دستشان را می‌خواند، صدها پخش کارت را "
    "جست‌وجو می‌کند، حکم را با جست‌وجو تعیین می‌کند و دست‌های آخر را بی‌خطا حل می‌کند.",
}


def level_form(level: str) -> dict[str, str]:
    """The table form at ``level``, its empty seats filled with computer players."""
    return table_form_data(computer_level=level, fill_with_computer="on", allow_spectators=None)


def create_page(client: Client, *, language: str = "en") -> str:
    response = client.get(reverse("games:table_create"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def radio_values(page: str) -> list[str]:
    return re.findall(r'<input type="radio" name="computer_level" value="([a-z]+)"', page)


def test_the_form_offers_exactly_the_four_levels_weakest_first():
    assert [value for value, _ in TableForm().fields["computer_level"].choices] == LEVELS
    assert list(COMPUTER_LEVEL_DESCRIPTIONS) == LEVELS


def test_the_page_shows_each_level_as_a_radio_card_with_its_description():
    page = create_page(client_for(UserFactory()))

    assert radio_values(page) == LEVELS
    for index, level in enumerate(LEVELS):
        description_id = f"id_computer_level_{index}_description"
        assert f'aria-describedby="{description_id}"' in page
        assert f'id="{description_id}">{DESCRIPTIONS[level]}</p>' in page
        assert f'for="id_computer_level_{index}">{level.capitalize()}</label>' in page
    # Medium, the level the form starts on, is the one checked.
    assert re.search(r'value="medium"[^>]*\bchecked\b', page)
    assert len(re.findall(r"\bchecked\b", page.split('class="level-choice"')[1])) == 1


def test_the_form_says_a_computer_at_the_level_plays_for_an_away_player():
    page = create_page(client_for(UserFactory()))

    assert "and so does the computer that plays for a player who is away" in page
    assert 'aria-describedby="id_computer_level_helptext"' in page


@pytest.mark.parametrize("level", LEVELS)
def test_posting_a_level_creates_a_table_at_that_level(level):
    response = client_for(UserFactory()).post(reverse("games:table_create"), level_form(level))

    table = Table.objects.get()
    assert response.status_code == 302
    assert table.computer_level == level
    assert Seat.objects.filter(table=table).count() == 4


@pytest.mark.parametrize("level", ["grandmaster", "random", "greedy", ""])
def test_an_unknown_level_is_refused_and_creates_nothing(level):
    # "random" and "greedy" are bots for duels only (games.bots.DUEL_ONLY), never a table's.
    response = client_for(UserFactory()).post(reverse("games:table_create"), level_form(level))

    page = response.content.decode()
    assert response.status_code == 200
    expected = "Choose one of the computer levels offered." if level else "This field is required."
    assert expected in page
    assert 'aria-describedby="id_computer_level_helptext id_computer_level_error"' in page
    assert 'aria-invalid="true"' in page
    assert Table.objects.count() == 0


def test_the_persian_page_shows_the_persian_names_and_descriptions():
    page = create_page(client_for(UserFactory()), language="fa")

    assert 'lang="fa"' in page and 'dir="rtl"' in page
    assert radio_values(page) == LEVELS
    for level in LEVELS:
        assert PERSIAN_DESCRIPTIONS[level] in page
        assert DESCRIPTIONS[level] not in page
    for name in ("آسان", "متوسط", "سخت", "استاد"):
        assert f">{name}</label>" in page
    assert "رایانه‌ای هم که به جای بازیکن غایب بازی می‌کند" in page


def test_the_table_page_names_the_level_in_persian():
    client = client_for(UserFactory())
    client.post(reverse("games:table_create"), level_form(ComputerLevel.EXPERT))
    table = Table.objects.get()

    page = client.get(
        reverse("games:table_detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="fa"
    ).content.decode()

    assert "صندلی‌های خالی: بازیکن رایانه‌ای استاد" in page
