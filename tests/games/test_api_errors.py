"""``POST /api/matches/`` answers every bad request with a JSON error a program can read, never a
server error or an HTML page (docs/protocol.md)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.utils.translation import trans_real

from accounts.tokens import token_create
from games.models import Match
from games.play.api import MAX_BODY_BYTES
from tests.accounts.players import make_player

pytestmark = pytest.mark.django_db

URL = "/api/matches/"


@pytest.fixture
def raw() -> str:
    return token_create(user=make_player("lale"), name="bot")[1]


def post(raw: str, body: bytes, **extra: str) -> tuple[int, dict]:
    response = Client(raise_request_exception=False).post(
        URL, data=body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}", **extra
    )
    assert response["Content-Type"] == "application/json"
    return response.status_code, response.json()


@pytest.mark.parametrize("variant", [["hokm4"], {"hokm4": 1}, 4, True])
def test_a_variant_that_is_not_a_string_is_refused(raw: str, variant: object) -> None:
    status, data = post(raw, json.dumps({"variant": variant}).encode())
    assert status == 400
    assert data["error"]["code"] == "bad_variant"
    assert "hokm4, hokm3, hokm2, hokm2-draw" in data["error"]["message"]
    assert not Match.objects.exists()


def test_json_nested_too_deep_is_refused(raw: str) -> None:
    # Under the size limit, yet deep enough that the JSON decoder hits Python's recursion limit.
    status, data = post(raw, b"[" * 1000)
    assert status == 400
    assert data["error"]["code"] == "bad_json"
    assert not Match.objects.exists()


@pytest.mark.parametrize("size", [MAX_BODY_BYTES + 1, 5000])
def test_a_body_too_large_answers_413_in_json(raw: str, settings, size: int) -> None:
    # Past DATA_UPLOAD_MAX_MEMORY_SIZE Django refuses to read the body at all (RequestDataTooBig).
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    status, data = post(raw, b" " * size)
    assert status == 413
    assert data["error"]["code"] == "too_large"
    assert not Match.objects.exists()


@pytest.mark.parametrize("method", ["get", "put", "patch", "delete", "options"])
def test_another_method_answers_405_in_json(raw: str, method: str) -> None:
    response = getattr(Client(), method)(URL, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    "header", [None, "", "Bearer", "Bearer hokm_not-a-token", "Basic bGFsZTpwdw==", "hokm_x"]
)
def test_without_a_valid_token_the_answer_is_401_with_a_bearer_challenge(header) -> None:
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
    response = Client().post(URL, data=b"{}", content_type="application/json", **extra)
    assert response.status_code == 401
    # RFC 9110, 11.6.1: a 401 carries the challenge saying how to authenticate.
    assert response["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthorized"
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("method", "body", "authorized", "code"),
    [
        ("get", b"", True, "method_not_allowed"),
        ("post", b"{}", False, "unauthorized"),
        ("post", b" " * 2000, True, "too_large"),
        ("post", b"{", True, "bad_json"),
        ("post", b"[]", True, "bad_request"),
        ("post", b'{"variant": "hokm5"}', True, "bad_variant"),
        ("post", b'{"target": 0}', True, "bad_target"),
        ("post", b'{"level": "godlike"}', True, "bad_level"),
    ],
)
def test_every_error_message_is_in_the_language_asked_for(
    raw: str, monkeypatch, method: str, body: bytes, authorized: bool, code: str
) -> None:
    # A stand-in Persian catalogue that knows every message, whatever locale/fa holds today.
    persian = trans_real.translation("fa")
    english = persian.gettext
    monkeypatch.setattr(persian, "gettext", lambda message: f"«{english(message)}»")
    extra = {"HTTP_AUTHORIZATION": f"Bearer {raw}"} if authorized else {}
    response = getattr(Client(), method)(
        URL, data=body, content_type="application/json", HTTP_ACCEPT_LANGUAGE="fa", **extra
    )
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"].startswith("«") and error["message"].endswith("»")


@pytest.mark.parametrize("debug", [False, True])
def test_the_address_without_its_slash_starts_a_match_too(raw: str, settings, debug) -> None:
    # APPEND_SLASH would redirect a POST without its body (and raise under DEBUG).
    settings.DEBUG = debug
    response = Client(raise_request_exception=False).post(
        URL.rstrip("/"),
        data=json.dumps({"variant": "hokm4"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 201
    assert Match.objects.filter(pk=response.json()["match"]).exists()
