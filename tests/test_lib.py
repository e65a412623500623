"""lib: the helpers every app shares (send_on_commit, ApplicationError)."""

from __future__ import annotations

import logging

import pytest
from django.db import transaction

from games.engine import Card, PlayCard
from games.lobby.services import TableError, TooManyTablesError
from games.models import ClientAction
from games.play.chat import ChatError
from games.play.services import match_client_action
from lib.errors import ApplicationError
from lib.realtime import send_on_commit
from moderation.services import ModerationError
from tests.games.factories import MatchFactory

pytestmark = pytest.mark.django_db


class RecordingLayer:
    """A channel layer that keeps what is sent to it (the Redis layer of CI cannot receive on a
    channel of this process)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append((group, message))


@pytest.fixture
def layer(monkeypatch) -> RecordingLayer:
    recording = RecordingLayer()
    monkeypatch.setattr("lib.realtime.get_channel_layer", lambda: recording)
    return recording


def test_send_on_commit_sends_once_the_transaction_commits(
    layer: RecordingLayer, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        send_on_commit("lib.test.commit", {"type": "lib.hello", "n": 1})
        assert layer.sent == []  # not before the commit
    assert len(callbacks) == 1
    assert layer.sent == [("lib.test.commit", {"type": "lib.hello", "n": 1})]


def test_send_on_commit_sends_nothing_when_the_transaction_rolls_back(
    layer: RecordingLayer, django_capture_on_commit_callbacks
) -> None:
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        send_on_commit("lib.test.rollback", {"type": "lib.hello"})
        raise RuntimeError("roll back")
    assert callbacks == []
    assert layer.sent == []


def test_send_on_commit_logs_a_broken_channel_layer_instead_of_failing(
    monkeypatch, caplog, django_capture_on_commit_callbacks
) -> None:
    """The change is committed: a layer that fails must not turn it into an error."""

    class BrokenLayer:
        async def group_send(self, group: str, message: dict) -> None:
            raise ConnectionError("redis is away")

    monkeypatch.setattr("lib.realtime.get_channel_layer", lambda: BrokenLayer())
    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        send_on_commit("lib.test.broken", {"type": "lib.hello"})
    assert "redis is away" in caplog.text


def test_send_on_commit_without_a_channel_layer_warns(
    monkeypatch, caplog, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr("lib.realtime.get_channel_layer", lambda: None)
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        send_on_commit("lib.test.none", {"type": "lib.hello"})
    assert "no channel layer: lib.test.none not told of lib.hello" in caplog.text


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ChatError("muted", "You are muted."), "muted"),
        (ModerationError("not_open", "This report is closed."), "not_open"),
        (TableError("This seat is taken."), "table_refused"),
        (TooManyTablesError("Wait a minute.", retry_after=60), "too_many_tables"),
    ],
)
def test_every_refusal_is_an_application_error_with_a_code_and_a_message(
    error: ApplicationError, code: str
) -> None:
    assert isinstance(error, ApplicationError)
    assert error.code == code
    assert error.message == str(error)


def test_a_top_level_service_refuses_to_run_inside_another_transaction() -> None:
    """Nested, its events would wait for an outer commit that may never come (durable=True)."""
    match = MatchFactory(variant="hokm2")
    card = Card.parse("AS")
    with transaction.atomic(), pytest.raises(RuntimeError, match="durable"):
        match_client_action(match=match, seat=0, action=PlayCard(seat=0, card=card), client_seq=1)
    assert ClientAction.objects.count() == 0


@pytest.mark.django_db
def test_the_any_lookup_matches_as_in_does_on_every_database() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from lib import lookups  # noqa: F401 - registers ``__any``
    from tests.games.factories import UserFactory

    users = [UserFactory() for _ in range(5)]
    wanted = [users[0].pk, users[3].pk, users[4].pk, 10**9]
    model = type(users[0])

    with CaptureQueriesContext(connection) as queries:
        found = set(model.objects.filter(pk__any=wanted).values_list("pk", flat=True))

    assert found == set(model.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    assert found == {users[0].pk, users[3].pk, users[4].pk}
    sql = queries.captured_queries[0]["sql"]
    # One array parameter on PostgreSQL, whatever the number of values.
    assert ("= ANY(" in sql) == (connection.vendor == "postgresql")
    with CaptureQueriesContext(connection) as empty:
        assert list(model.objects.filter(pk__any=[])) == []
    assert len(empty) == 0  # as __in=[]: nothing can match, nothing is asked
