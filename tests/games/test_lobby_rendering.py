"""The lobby's list rendered once per state (games.lobby.rendering): reused while nothing it
shows has changed, rendered anew as soon as anything has, in each language apart."""

from __future__ import annotations

from unittest import mock

import pytest
from django.utils import translation

from games.lobby import rendering
from games.lobby.rendering import lobby_tables_html
from games.lobby.selectors import lobby_tables
from games.lobby.services import table_join_seat
from games.models import Rating, Table
from tests.games.factories import UserFactory, open_table

pytestmark = pytest.mark.django_db

#: "Take a seat" in Persian (locale/fa).
TAKE_A_SEAT_FA = "نشستن سر میز"


def _render_count() -> mock.MagicMock:
    return mock.patch.object(rendering, "render_to_string", wraps=rendering.render_to_string)


def test_the_same_list_is_rendered_once():
    open_table(name="Friday night")
    with _render_count() as renders:
        first = lobby_tables_html(tables=lobby_tables())
        second = lobby_tables_html(tables=lobby_tables())

    assert renders.call_count == 1
    assert first == second and "Friday night" in first


@pytest.mark.parametrize(
    "change",
    ["sit down", "rename", "rating", "new table", "language"],
)
def test_anything_the_list_shows_changing_renders_it_anew(change):
    table = open_table(name="Friday night")
    guest = UserFactory(username="guest")
    table_join_seat(table=table, user=guest, seat_index=1)
    before = lobby_tables_html(tables=lobby_tables())

    language = "en"
    if change == "sit down":
        table_join_seat(table=table, user=UserFactory(username="newcomer"), seat_index=2)
        expected = "newcomer"
    elif change == "rename":
        Table.objects.filter(pk=table.pk).update(name="Saturday night")
        expected = "Saturday night"
    elif change == "rating":
        Rating.objects.create(user=guest, variant="hokm4", mu=40, sigma=3, rating=2120, games=20)
        expected = "2120"
    elif change == "new table":
        open_table(name="Second table")
        expected = "Second table"
    else:
        language = "fa"
        expected = TAKE_A_SEAT_FA
    with translation.override(language):
        after = lobby_tables_html(tables=lobby_tables())

    assert after != before
    assert expected in after and expected not in before
