"""A NUL character in an address is refused with the site's 400 page before any view runs: on
PostgreSQL a NUL reaching a lookup raised a DataError, a 500 (``/players/%00/`` did)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.accounts.players import client_for
from tests.games.factories import UserFactory

pytestmark = pytest.mark.django_db

ADDRESSES = [
    "/players/%00/",
    "/players/sara%00/",
    "/history/?opponent=%00",
    "/history/?%00=1",
    "/lobby/?x=a%00b",
    "/admin/games/match/?q=%00",
    "/invite/%00/",
]


@pytest.fixture(autouse=True)
def _production_error_pages(settings) -> None:
    settings.DEBUG = False  # the templates, not Django's technical pages


@pytest.mark.parametrize("address", ADDRESSES)
def test_a_nul_in_the_address_is_a_400_without_a_query(address: str) -> None:
    client = client_for(UserFactory(username="sara", is_staff=True, is_superuser=True))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(address)
    assert response.status_code == 400
    assert "Bad request" in response.content.decode()
    # At most the session is read (the language chosen); no view looked anything up.
    assert all('"django_session"' in q["sql"] for q in queries.captured_queries)


def test_addresses_without_nul_are_served() -> None:
    client = client_for(UserFactory(username="sara"))
    assert client.get("/players/sara/").status_code == 200
    assert client.get("/lobby/?x=a%01b").status_code == 200
