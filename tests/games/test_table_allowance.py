"""A player opens at most ``TABLES_PER_WINDOW`` tables within ``TABLES_WINDOW``: each table
against the computer sets computer players thinking on the server, and a program opening tables
in a loop would hold up everyone's (issue 7's worker pool, issue 8's bad input)."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.tokens import token_create
from games.lobby import services as tables
from games.lobby.services import (
    TABLES_PER_WINDOW,
    TABLES_WINDOW,
    TooManyTablesError,
    play_against_computer,
    table_create,
)
from games.models import Match, Table
from tests.accounts.players import client_for, make_player
from tests.games.factories import UserFactory, api_match_start, open_table

pytestmark = pytest.mark.django_db


def open_private(user) -> Table:
    return table_create(
        user=user,
        name="",
        variant="hokm4",
        target=7,
        turn_clock_seconds=None,
        is_private=True,
        allow_spectators=False,
        fill_with_computer=False,
        computer_level="medium",
        partner_draw=False,
    )


def test_past_the_allowance_no_table_is_opened_and_the_player_is_told_when():
    lale = make_player("lale")
    for _ in range(TABLES_PER_WINDOW):
        open_private(lale)
    with pytest.raises(TooManyTablesError) as refused:
        open_private(lale)
    assert "You have opened 20 tables in the last 10 minutes" in refused.value.message
    assert "You can open another in 10 minutes." in refused.value.message
    assert 0 < refused.value.retry_after <= TABLES_WINDOW.total_seconds() + 1
    with pytest.raises(TooManyTablesError):
        play_against_computer(user=lale)
    assert Table.objects.filter(created_by=lale).count() == TABLES_PER_WINDOW
    assert not Match.objects.exists()
    # Another player is not held back by lale's tables.
    assert play_against_computer(user=make_player("roya")).pk


def test_tables_opened_before_the_window_do_not_count():
    lale = make_player("lale")
    for _ in range(TABLES_PER_WINDOW):
        open_private(lale)
    # The oldest leaves the window: one place is free again, and only one.
    oldest = Table.objects.filter(created_by=lale).order_by("created_at").first()
    Table.objects.filter(pk=oldest.pk).update(
        created_at=timezone.now() - TABLES_WINDOW - timedelta(seconds=1)
    )
    assert open_private(lale).pk
    with pytest.raises(TooManyTablesError):
        open_private(lale)


def test_the_api_answers_429_with_retry_after():
    lale = make_player("lale")
    _, raw = token_create(user=lale, name="bot")
    for _ in range(TABLES_PER_WINDOW):
        open_private(lale)
    response = api_match_start(raw, {"variant": "hokm4"})
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert 0 < int(response["Retry-After"]) <= TABLES_WINDOW.total_seconds() + 1
    assert not Match.objects.exists()


def test_the_table_form_answers_429_with_retry_after_and_says_when():
    lale = make_player("lale")
    for _ in range(TABLES_PER_WINDOW):
        open_private(lale)
    client = client_for(lale)
    form = {"name": "One more", "variant": "hokm4", "target": 7, "turn_clock_seconds": "30"}
    response = client.post(reverse("games:table_create"), form | {"computer_level": "medium"})
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= TABLES_WINDOW.total_seconds() + 1
    assert "You can open another in 10 minutes." in response.content.decode()
    assert Table.objects.filter(created_by=lale).count() == TABLES_PER_WINDOW


# -- the wait for the next table -------------------------------------------------------------------


def test_the_wait_for_the_next_table_says_one_minute_not_one_minutes():
    lale = UserFactory()
    for _ in range(TABLES_PER_WINDOW):
        open_table(lale, is_private=True, turn_clock_seconds=None)
    # The oldest leaves the window in 30 seconds: one minute to wait.
    oldest = Table.objects.filter(created_by=lale).order_by("created_at").first()
    Table.objects.filter(pk=oldest.pk).update(
        created_at=timezone.now() - TABLES_WINDOW + timedelta(seconds=30)
    )

    with pytest.raises(TooManyTablesError) as refused:
        open_table(lale)

    assert refused.value.message.endswith("You can open another in 1 minute.")
    assert 0 < refused.value.retry_after <= 31


# -- the table allowance under parallel requests ---------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_tables_opened_at_once_cannot_slip_past_the_allowance(monkeypatch):
    lale = UserFactory()
    for _ in range(TABLES_PER_WINDOW - 1):
        open_table(lale, is_private=True, turn_clock_seconds=None)
    # The first request stops inside its transaction, its table written but not committed, until
    # the second has had its chance to count.
    written, go_on = threading.Event(), threading.Event()
    announce = tables._table_changed_on_commit

    def slow_announce(table: Table, **kwargs: Any) -> None:
        if not written.is_set():
            written.set()
            go_on.wait(timeout=5)
        announce(table, **kwargs)

    monkeypatch.setattr(tables, "_table_changed_on_commit", slow_announce)
    outcomes: list[str] = []

    def open_one() -> None:
        try:
            open_table(lale, is_private=True, turn_clock_seconds=None)
            outcomes.append("opened")
        except TooManyTablesError:
            outcomes.append("refused")
        finally:
            connection.close()

    first = threading.Thread(target=open_one)
    first.start()
    assert written.wait(timeout=5)
    second = threading.Thread(target=open_one)
    second.start()
    second.join(timeout=0.5)  # it counts now, or waits for the first's lock
    go_on.set()
    first.join(timeout=30)
    second.join(timeout=30)

    assert sorted(outcomes) == ["opened", "refused"]
    assert Table.objects.filter(created_by=lale).count() == TABLES_PER_WINDOW
