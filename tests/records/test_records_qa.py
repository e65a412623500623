"""Game records and replays under hostile input (shared/RECORD.md, RULES.md R8.3): the import
refuses a malformed record with a clear message and stores nothing, never a 500; ``hokm_check``
reports a fault instead of crashing; exports of played matches check as RECORD.md says."""

from __future__ import annotations

import io
import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from games.engine.record import check_record
from games.models import Hand, Match, MatchSeat
from games.records import match_export_record
from games.services import SeatSpec
from games.tables import computer_player_name
from tests.games.factories import MatchFactory, UserFactory, match_play

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent
IMPORT_URL = reverse("games:record_import")


def _corpus(name: str) -> dict:
    return json.loads((CORPUS / name).read_text())


@pytest.fixture
def signed_in(client):
    client.force_login(UserFactory())
    return client


def _upload(client, document: object):
    content = json.dumps(document).encode()
    return client.post(
        IMPORT_URL, {"file": SimpleUploadedFile("record.json", content, "application/json")}
    )


def _page_text(response) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def _checker_verdict(response) -> dict:
    found = re.search(r"<pre[^>]*>(.*?)</pre>", response.content.decode(), re.S)
    return json.loads(unescape(found.group(1)))


def _nothing_stored() -> bool:
    return not (Match.objects.exists() or MatchSeat.objects.exists() or Hand.objects.exists())


def _hokm_check(tmp_path, document: object) -> tuple[int, dict]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document))
    out = io.StringIO()
    try:
        call_command("hokm_check", str(path), stdout=out)
        status = 0
    except SystemExit as exit:
        status = exit.code
    return status, json.loads(out.getvalue())


# -- a hand's trump that is a list or an object ----------------------------------------------------


def _with_trump(value: object) -> dict:
    document = _corpus("valid/hokm4_match_target7.json")
    document["hands"][2]["trump"] = value
    return document


@pytest.mark.parametrize("trump", [["S"], {"suit": "S"}], ids=["list", "object"])
def test_import_of_a_trump_that_is_a_list_or_object_is_a_fault_of_its_hand(signed_in, trump):
    """It was a 500 (the engine looked the value up in a set): now the page locates it at hand 3
    as the checker locates a bad trump letter, and nothing is stored."""
    response = _upload(signed_in, _with_trump(trump))

    assert response.status_code == 200
    text = _page_text(response)
    assert "This record cannot be imported" in text
    assert '"trump" must be one of S, H, D, C' in text
    assert re.search(r"Where:\s*hand 3\s*What is wrong:", text)
    verdict = _checker_verdict(response)
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (2, None, None)
    assert _nothing_stored()


@pytest.mark.parametrize("trump", [["S"], {"suit": "S"}], ids=["list", "object"])
def test_hokm_check_reports_a_trump_that_is_a_list_or_object(tmp_path, trump):
    """RECORD.md: an invalid record exits 1 with one JSON verdict; it used to die in a traceback."""
    status, verdict = _hokm_check(tmp_path, _with_trump(trump))

    assert status == 1
    assert verdict["valid"] is False
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (2, None, None)
    assert "trump" in verdict["error"]


def test_an_earlier_fault_is_still_reported_before_a_bad_trump(tmp_path):
    """The first fault in the order of play wins: an illegal card in hand 1 comes before a trump
    that is a list in hand 3 (R4.2)."""
    document = _corpus("faulty/trick_not_following_diamonds.json")
    assert len(document["hands"]) > 1
    document["hands"][-1]["trump"] = ["S"]

    status, verdict = _hokm_check(tmp_path, document)

    assert status == 1
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (0, 2, 3)


# -- player names that cannot be stored or shown -------------------------------------------------


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
    document = _corpus("valid/hokm4_match_target7.json")
    document["players"][1] = name

    response = _upload(signed_in, document)

    assert response.status_code == 200
    text = _page_text(response)
    assert "This record cannot be imported" in text
    assert '"players": the name of ' in text
    assert "the record as a whole" in text
    assert _nothing_stored()


def test_a_fault_located_at_a_seat_with_an_unshowable_name_still_shows(signed_in):
    """The page names the seat at fault after its player: a lone surrogate there made the page
    itself a 500. The seat is then shown by its number."""
    document = _corpus("faulty/trick_not_following_diamonds.json")
    document["players"][3] = "dave\udfff"

    response = _upload(signed_in, document)

    assert response.status_code == 200
    text = _page_text(response)
    assert "seat 4 played KS but holds a diamond and diamonds were led" in text
    assert _nothing_stored()


def test_the_fault_shown_quotes_a_huge_value_shortened(signed_in):
    """An unknown variant of 200 000 letters was quoted in full, twice: the page stays small."""
    document = _corpus("valid/hokm4_no_hands.json")
    document["variant"] = "x" * 200_000

    response = _upload(signed_in, document)

    assert response.status_code == 200
    assert len(response.content) < 50_000
    assert "unknown variant" in _page_text(response)
    assert _checker_verdict(response)["error"].endswith("…")
    assert _nothing_stored()


# -- the replay of a voided match ----------------------------------------------------------------


def _replay_page(client, match: Match) -> str:
    return client.get(reverse("games:replay", kwargs={"match_id": match.pk})).content.decode()


def _replay_data(html: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


def test_replay_of_a_voided_match_names_no_winner_R7_1(client):
    """A moderator's void takes the result away (as on the summary and in the history): the
    replay no longer says who won the match, and says why."""
    match = MatchFactory(variant="hokm4", target=1, seed=31)
    match_play(match, rng_seed=31)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner_side is not None
    assert _replay_data(_replay_page(client, match))["match_result"]

    Match.objects.filter(pk=match.pk).update(voided=True)
    html = _replay_page(client, match)

    data = _replay_data(html)
    assert data["match_result"] is None
    assert "won the match" not in _page_text_of(html)
    assert "A moderator voided this match" in _page_text_of(html)
    # The hands themselves stay as they were played, face up (R8.3).
    assert data["revealed"] is True and data["hands"][0]["result"] is not None


def _page_text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


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
    document = _corpus(f"faulty/{name}")
    expected = _corpus(f"faulty/{name.replace('.json', '.expected.json')}")

    response = _upload(signed_in, document)

    text = _page_text(response)
    assert re.search(rf"Where:\s*hand {expected['hand'] + 1}\s*What is wrong:", text)
    assert says in re.sub(r"\s+", " ", text)
    # The checker's own verdict keeps the file's count, as hokm_check prints it.
    assert _checker_verdict(response)["hand"] == expected["hand"]
    assert _nothing_stored()


# -- the names in an exported record -------------------------------------------------------------


def test_export_names_computer_players_by_their_seat_after_the_partner_draw_R2_3():
    """RECORD.md: ``players`` are in play order after the re-seating of R2.3. A computer player's
    stored name carries the seat it sat down in; the export gave "Computer (hard, seat 2)" for
    seat 1 and the other way round. It now names each seat as the replay does."""
    seats = [
        SeatSpec(name=computer_player_name(level="hard", index=i), computer_level="hard")
        for i in range(4)
    ]
    match = MatchFactory(variant="hokm4", target=1, seed=41, partner_draw=True, seats=seats)
    stored = list(match.seats.order_by("index").values_list("name", flat=True))
    # Seed 41 swaps the first two seats (R2.3).
    assert stored[:2] == [computer_player_name(level="hard", index=i) for i in (1, 0)]
    match_play(match, rng_seed=41)

    document = match_export_record(match=match)

    assert document["players"] == [computer_player_name(level="hard", index=i) for i in range(4)]
    assert check_record(document)["valid"] is True


# -- a match with no hand --------------------------------------------------------------------------


def test_replay_of_a_match_with_no_hand_does_not_count_a_first_hand(signed_in):
    """A record with ``"hands": []`` is valid (RECORD.md): its replay said "Hand 1 of 0" and
    "The replay opens at the deal of the first hand", where there is none."""
    response = _upload(signed_in, _corpus("valid/hokm4_no_hands.json"))
    assert response.status_code == 302

    html = signed_in.get(response["Location"]).content.decode()

    text = _page_text_of(html)
    assert "Hand 1 of 0" not in text
    assert "the deal of the first hand" not in text
    assert "No hand has been dealt." in text
    assert _replay_data(html)["hands"] == []


# -- NaN and Infinity are not JSON -----------------------------------------------------------------


def _with_constant(constant: str) -> bytes:
    text = json.dumps(_corpus("valid/hokm4_match_target7.json"))
    return text.replace('"format":', f'"note": {constant}, "format":', 1).encode()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_import_refuses_nan_and_infinity_as_not_json(signed_in, constant):
    """RECORD.md's "not JSON" fault: Python's reader takes these words, JSON (RFC 8259) has not,
    so a record holding one, even under a key the format ignores, was imported."""
    response = signed_in.post(
        IMPORT_URL,
        {"file": SimpleUploadedFile("r.json", _with_constant(constant), "application/json")},
    )

    assert response.status_code == 200
    assert f"The record is not JSON: {constant} is not a JSON value" in _page_text(response)
    assert _nothing_stored()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_hokm_check_refuses_nan_and_infinity_as_not_json(tmp_path, constant):
    path = tmp_path / "record.json"
    path.write_bytes(_with_constant(constant))
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit:
        call_command("hokm_check", str(path), stdout=out)

    assert exit.value.code == 1
    verdict = json.loads(out.getvalue())
    assert verdict["valid"] is False and "not JSON" in verdict["error"]
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (None, None, None)


# -- a file without an end -------------------------------------------------------------------------


def test_hokm_check_stops_reading_a_file_without_an_end():
    """``hokm_check /dev/zero`` read until the memory ran out: the checker reads at most
    CHECK_MAX_BYTES and calls a longer file an invalid record (RECORD.md: exit 1, one verdict
    with hand, trick and seat null)."""
    out = io.StringIO()
    with pytest.raises(SystemExit) as stopped:
        call_command("hokm_check", "/dev/zero", stdout=out)

    assert stopped.value.code == 1
    verdict = json.loads(out.getvalue())
    assert verdict == {
        "valid": False,
        "error": "the record is larger than 64 MB, the most the checker reads",
        "hand": None,
        "trick": None,
        "seat": None,
    }
