"""``/healthz/`` (hokm_site/health.py): 200 when the database and the channel layer answer, 503
naming the part that does not otherwise, with no detail of the error and never cached."""

from __future__ import annotations

import pytest
from django.urls import reverse

from hokm_site import health

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_healthy_process_answers_200_with_each_check(client):
    response = client.get(reverse("healthz"))

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "channel_layer": "ok"},
    }
    assert "no-store" in response["Cache-Control"]


def test_a_database_that_does_not_answer_gives_503_and_says_which(client, monkeypatch, caplog):
    def refused() -> None:
        raise OSError("connection refused: secret-host:5432")

    monkeypatch.setattr(health, "_database_query", refused)

    response = client.get(reverse("healthz"))

    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "unavailable", "channel_layer": "ok"},
    }
    assert "secret-host" not in response.content.decode()
    assert "health check database failed" in caplog.text


def test_a_channel_layer_that_hangs_fails_its_check_within_the_deadline(client, monkeypatch):
    class Hanging:
        async def new_channel(self) -> str:
            return "health.test!1"

        async def send(self, channel: str, message: dict) -> None:
            return None

        async def receive(self, channel: str) -> dict:
            import asyncio

            await asyncio.sleep(60)
            return {}

    monkeypatch.setattr(health, "get_channel_layer", Hanging)
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.2)

    response = client.get(reverse("healthz"))

    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "channel_layer": "unavailable"}


def test_only_reads_are_allowed(client):
    assert client.post(reverse("healthz")).status_code == 405
    assert client.head(reverse("healthz")).status_code == 200
