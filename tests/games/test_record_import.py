"""Importing a ``hokm-record/1`` file (games.replay_views.record_import, shared/RECORD.md): a
correct record is stored and opens in the replay; a faulty one shows its first fault located as
people count (hand 1 is the first, seats by name) and nothing is stored; files that are too
large, not UTF-8, not JSON or nested too deeply get a clear error, never a 500."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from games.models import Hand, Match
from games.replay_forms import RECORD_MAX_BYTES
from tests.games.factories import UserFactory

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[1] / "records"


def _records(folder: str) -> list[Path]:
    paths = (CORPUS / folder).glob("*.json")
    return sorted(p for p in paths if not p.name.endswith(".expected.json"))


VALID = _records("valid")
FAULTY = _records("faulty")
URL = reverse("games:record_import")


@pytest.fixture
def user():
    return UserFactory()


@pytest.fixture
def signed_in(client, user):
    client.force_login(user)
    return client


def _upload(client, content: bytes, name: str = "record.json"):
    return client.post(URL, {"file": SimpleUploadedFile(name, content, "application/json")})


def _page_text(response) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def _replay_data(client, match: Match) -> dict:
    html = client.get(reverse("games:replay", kwargs={"match_id": match.pk})).content.decode()
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


def test_import_needs_a_signed_in_user(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_form_uploads_files_with_a_csrf_token(signed_in):
    html = signed_in.get(URL).content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'type="file"' in html and 'accept=".json,application/json"' in html


def test_a_post_without_the_csrf_token_is_refused(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    content = (CORPUS / "valid" / "hokm4_target1.json").read_bytes()
    response = _upload(client, content)
    assert response.status_code == 403
    assert not Match.objects.filter(imported=True).exists()


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_every_valid_record_opens_in_its_replay(signed_in, user, path):
    """The corpus's valid records (tests/records/valid) are stored and open in the replay, which
    shows exactly the record's hands and tricks."""
    document = json.loads(path.read_text())
    response = _upload(signed_in, path.read_bytes(), name=path.name)
    match = Match.objects.get(imported=True)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:replay", kwargs={"match_id": match.pk})
    assert match.imported_by == user
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    assert match.scores == expected["score"]
    assert match.status == ("finished" if expected["complete"] else "abandoned")

    data = _replay_data(signed_in, match)
    assert data["revealed"] is True
    assert [s["name"] for s in data["seats"]] == document["players"]
    assert len(data["hands"]) == len(document["hands"])
    for shown, recorded in zip(data["hands"], document["hands"], strict=True):
        assert shown["hakem"] == recorded["hakem"] and shown["trump"] == recorded["trump"]
        assert [sorted(c) for c in shown["cards"]] == [sorted(c) for c in recorded["cards"]]
        assert [t["cards"] for t in shown["tricks"]] == [t for t in recorded["tricks"] if t]


def test_pasted_text_imports_too(signed_in):
    text = (CORPUS / "valid" / "hokm3_kot_non_hakem.json").read_text()
    response = signed_in.post(URL, {"text": text})
    match = Match.objects.get(imported=True)
    assert response["Location"] == reverse("games:replay", kwargs={"match_id": match.pk})
    assert match.variant == "hokm3"


def test_a_byte_order_mark_is_not_part_of_the_record(signed_in):
    content = (CORPUS / "valid" / "hokm4_target1.json").read_bytes()
    response = _upload(signed_in, b"\xef\xbb\xbf" + content)
    assert response.status_code == 302


def _expected_place(expected: dict, players: list) -> list[str]:
    parts = []
    if expected["hand"] is not None:
        parts.append(f"hand {expected['hand'] + 1}")
    if expected["trick"] is not None:
        parts.append(f"trick {expected['trick'] + 1}")
    if expected["seat"] is not None:
        seat = expected["seat"]
        parts.append(f"{players[seat]} (seat {seat + 1})")
    return parts


@pytest.mark.parametrize("path", FAULTY, ids=lambda p: p.stem)
def test_every_faulty_record_shows_its_fault_and_stores_nothing(signed_in, path):
    """The corpus's faulty records (tests/records/faulty): the page says where the first fault is
    (1-based, the seat by its player's name) and what it is, as hokm_check finds it."""
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    response = _upload(signed_in, path.read_bytes(), name=path.name)
    assert response.status_code == 200
    assert not Match.objects.exists() and not Hand.objects.exists()
    text = _page_text(response)
    try:
        document = json.loads(path.read_text())
    except ValueError:
        assert "The record is not JSON" in text
        return
    assert "This record cannot be imported" in text
    assert "Nothing was stored" in text
    where = re.search(r"Where:\s*(.*?)\s*What is wrong:", text, re.S).group(1)
    where = re.sub(r"\s+,", ",", re.sub(r"\s+", " ", where))
    players = document.get("players") if isinstance(document, dict) else None
    places = _expected_place(expected, players or [])
    if places:
        assert where == ", ".join(places)
    else:
        assert where == "the record as a whole"
    for needle in expected["error_contains"]:
        assert needle in text.lower()
    # The checker's own verdict, zero-based as hokm_check prints it.
    checker = re.search(r"<pre[^>]*>(.*?)</pre>", response.content.decode(), re.S).group(1)
    verdict = json.loads(unescape(checker))
    assert {k: verdict[k] for k in ("valid", "hand", "trick", "seat")} == {
        "valid": False,
        "hand": expected["hand"],
        "trick": expected["trick"],
        "seat": expected["seat"],
    }


def test_seats_in_the_message_are_named_and_counted_from_1(signed_in):
    """ "seat 3 played KS but holds a diamond" reads "dave (seat 4) played KS …"."""
    path = CORPUS / "faulty" / "trick_not_following_diamonds.json"
    text = _page_text(_upload(signed_in, path.read_bytes()))
    assert "dave (seat 4) played KS but holds a diamond and diamonds were led" in text
    assert "hand 0" not in text.split("As the checker reports it")[0]


def test_a_target_too_large_to_store_is_a_fault_of_the_whole_record(signed_in):
    document = json.loads((CORPUS / "valid" / "hokm4_no_hands.json").read_text())
    document["target"] = 2**31  # past what Match.target can hold
    text = _page_text(_upload(signed_in, json.dumps(document).encode()))
    assert "the record as a whole" in text and '"target" must be at most' in text
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"format": "hokm-record/1", "variant": ', "The record is not JSON"),
        (b"", "The submitted file is empty."),
        (b"   \n", "The record is empty."),
        ('{"players": ["Sépideh"]}'.encode("latin-1"), "The record is not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested far too deeply"),
        (b'{"target": ' + b"9" * 5000 + b"}", "The record is not JSON"),
    ],
    ids=["truncated", "empty-file", "blank", "latin-1", "deeply-nested", "huge-number"],
)
def test_unreadable_files_get_a_clear_error(signed_in, content, message):
    response = _upload(signed_in, content)
    assert response.status_code == 200
    assert message in _page_text(response)
    assert not Match.objects.exists()


def test_json_error_says_where(signed_in):
    response = _upload(signed_in, b'{\n  "format": "hokm-record/1",\n  "variant" "hokm4"\n}')
    assert "at line 3, column 13" in _page_text(response)


def test_a_file_over_the_size_limit_is_refused_unread(signed_in):
    document = json.loads((CORPUS / "valid" / "hokm4_target1.json").read_text())
    document["padding"] = "x" * RECORD_MAX_BYTES  # keys the format does not name are ignored
    content = json.dumps(document).encode()
    assert len(content) > RECORD_MAX_BYTES
    response = _upload(signed_in, content)
    assert response.status_code == 200
    assert "The record is too large: at most \u20661.0\xa0MB\u2069." in _page_text(response)
    assert not Match.objects.exists()


def test_pasted_text_over_the_size_limit_is_refused(signed_in):
    response = signed_in.post(URL, {"text": "[" + " " * RECORD_MAX_BYTES + "]"})
    assert response.status_code == 200
    assert "The record is too large" in _page_text(response)


def test_a_record_just_under_the_limit_is_read(signed_in):
    document = json.loads((CORPUS / "valid" / "hokm4_target1.json").read_text())
    size = len(json.dumps(document).encode())
    document["padding"] = "x" * (RECORD_MAX_BYTES - size - 20)
    content = json.dumps(document).encode()
    assert len(content) <= RECORD_MAX_BYTES
    assert _upload(signed_in, content).status_code == 302


def test_a_file_and_pasted_text_together_are_refused(signed_in):
    content = (CORPUS / "valid" / "hokm4_target1.json").read_bytes()
    response = signed_in.post(
        URL,
        {
            "file": SimpleUploadedFile("r.json", content, "application/json"),
            "text": content.decode(),
        },
    )
    assert "Choose a file or paste the text, not both." in _page_text(response)
    assert not Match.objects.exists()


def test_imported_match_opens_for_its_importer_only(signed_in, client):
    content = (CORPUS / "valid" / "hokm2_unseen.json").read_bytes()
    location = _upload(signed_in, content)["Location"]
    assert signed_in.get(location).status_code == 200
    signed_in.force_login(UserFactory())
    assert signed_in.get(location).status_code == 404
