"""Importing a ``hokm-record/1`` file (games.history.replay_views.record_import, shared/RECORD.md):
a correct record is stored and opens in the replay; a faulty one shows its first fault located as
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

from games.history.replay_forms import RECORD_MAX_BYTES
from games.models import Hand, Match, MatchSeat
from tests.games.factories import UserFactory
from tests.record_corpus import CORPUS, corpus_document, with_constant, with_trump

pytestmark = pytest.mark.django_db


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


# -- records no writer of the format would produce -------------------------------------------------


def _upload_document(client, document: object):
    return _upload(client, json.dumps(document).encode())


def _checker_verdict(response) -> dict:
    found = re.search(r"<pre[^>]*>(.*?)</pre>", response.content.decode(), re.S)
    return json.loads(unescape(found.group(1)))


def _nothing_stored() -> bool:
    return not (Match.objects.exists() or MatchSeat.objects.exists() or Hand.objects.exists())


def _page_text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def _page_data(html: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


# -- a hand's trump that is a list or an object ----------------------------------------------------


@pytest.mark.parametrize("trump", [["S"], {"suit": "S"}], ids=["list", "object"])
def test_import_of_a_trump_that_is_a_list_or_object_is_a_fault_of_its_hand(signed_in, trump):
    """It was a 500 (the engine looked the value up in a set): now the page locates it at hand 3
    as the checker locates a bad trump letter, and nothing is stored."""
    response = _upload_document(signed_in, with_trump(trump))

    assert response.status_code == 200
    text = _page_text(response)
    assert "This record cannot be imported" in text
    assert '"trump" must be one of S, H, D, C' in text
    assert re.search(r"Where:\s*hand 3\s*What is wrong:", text)
    verdict = _checker_verdict(response)
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (2, None, None)
    assert _nothing_stored()


# -- player names that cannot be stored or shown ---------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["ali\u0000", "ali\nreza", "\ud800ali", "\u202eeman live", "ali\u200breza"],
    ids=["nul", "line-break", "lone-surrogate", "right-to-left-override", "zero-width-space"],
)
def test_import_refuses_a_player_name_that_cannot_be_stored(signed_in, name):
    """A NUL (refused by PostgreSQL text), a line break or half a surrogate pair (no UTF-8 for
    it) in a name was stored or crashed the page: now a fault of the whole record. So is an
    invisible character, which a display name may not hold either: a right-to-left override
    shows "\u202eeman live" as "evil name", a zero-width space makes a look-alike name."""
    document = corpus_document("valid/hokm4_match_target7.json")
    document["players"][1] = name

    response = _upload_document(signed_in, document)

    assert response.status_code == 200
    text = _page_text(response)
    assert "This record cannot be imported" in text
    assert '"players": the name of ' in text
    assert "the record as a whole" in text
    assert _nothing_stored()


def test_a_fault_located_at_a_seat_with_an_unshowable_name_still_shows(signed_in):
    """The page names the seat at fault after its player: a lone surrogate there made the page
    itself a 500. The seat is then shown by its number."""
    document = corpus_document("faulty/trick_not_following_diamonds.json")
    document["players"][3] = "dave\udfff"

    response = _upload_document(signed_in, document)

    assert response.status_code == 200
    text = _page_text(response)
    assert "seat 4 played KS but holds a diamond and diamonds were led" in text
    assert _nothing_stored()


def test_the_fault_shown_quotes_a_huge_value_shortened(signed_in):
    """An unknown variant of 200 000 letters was quoted in full, twice: the page stays small."""
    document = corpus_document("valid/hokm4_no_hands.json")
    document["variant"] = "x" * 200_000

    response = _upload_document(signed_in, document)

    assert response.status_code == 200
    assert len(response.content) < 50_000
    assert "unknown variant" in _page_text(response)
    assert _checker_verdict(response)["error"].endswith("…")
    assert _nothing_stored()


# -- the fault as people count ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("hand_after_match_decided.json", "hand 2 is played after the match was decided"),
        ("hand_after_unfinished_hand.json", "hand 3 comes after hand 2, which was not played"),
    ],
)
def test_hands_named_in_the_fault_are_counted_from_1_as_its_place_is(signed_in, name, says):
    """The page says "Where: hand 2" and the message said "hand 1 is played after the match was
    decided" (the file's count from 0) about the same hand: both count from 1 now (R7.1)."""
    document = corpus_document(f"faulty/{name}")
    expected = corpus_document(f"faulty/{name.replace('.json', '.expected.json')}")

    response = _upload_document(signed_in, document)

    text = _page_text(response)
    assert re.search(rf"Where:\s*hand {expected['hand'] + 1}\s*What is wrong:", text)
    assert says in re.sub(r"\s+", " ", text)
    # The checker's own verdict keeps the file's count, as hokm_check prints it.
    assert _checker_verdict(response)["hand"] == expected["hand"]
    assert _nothing_stored()


# -- a match with no hand --------------------------------------------------------------------------


def test_replay_of_a_match_with_no_hand_does_not_count_a_first_hand(signed_in):
    """A record with ``"hands": []`` is valid (RECORD.md): its replay said "Hand 1 of 0" and
    "The replay opens at the deal of the first hand", where there is none."""
    response = _upload_document(signed_in, corpus_document("valid/hokm4_no_hands.json"))
    assert response.status_code == 302

    html = signed_in.get(response["Location"]).content.decode()

    text = _page_text_of(html)
    assert "Hand 1 of 0" not in text
    assert "the deal of the first hand" not in text
    assert "No hand has been dealt." in text
    assert _page_data(html)["hands"] == []


# -- NaN and Infinity are not JSON -----------------------------------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_import_refuses_nan_and_infinity_as_not_json(signed_in, constant):
    """RECORD.md's "not JSON" fault: Python's reader takes these words, JSON (RFC 8259) has not,
    so a record holding one, even under a key the format ignores, was imported."""
    response = signed_in.post(
        URL,
        {"file": SimpleUploadedFile("r.json", with_constant(constant), "application/json")},
    )

    assert response.status_code == 200
    assert f"The record is not JSON: {constant} is not a JSON value" in _page_text(response)
    assert _nothing_stored()
