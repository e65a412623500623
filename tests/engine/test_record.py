"""The game record (shared/RECORD.md): round trips, the independent corpus, and hokm_check."""

import contextlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command, load_command_class
from hypothesis import given
from hypothesis import strategies as st

from games.engine import VARIANTS, match_apply, match_legal_actions, new_match, next_hand
from games.engine.record import build_record, check_record, load_record, replay_record
from tests.record_corpus import CORPUS, corpus_document, with_constant, with_trump

ROOT = Path(__file__).resolve().parents[2]


def records_in(folder: str) -> list[Path]:
    paths = (CORPUS / folder).glob("*.json")
    return sorted(p for p in paths if not p.name.endswith(".expected.json"))


VALID = records_in("valid")
FAULTY = records_in("faulty")


def expected_for(path: Path) -> dict:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text())


def verdict(path: Path) -> dict:
    try:
        document = load_record(path.read_bytes().decode("utf-8"))
    except Exception as error:  # the command's own path is tested below
        return getattr(error, "to_json", lambda: {"valid": False})()
    return check_record(document)


def test_the_corpus_is_there():
    assert len(VALID) >= 10 and len(FAULTY) >= 25


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_records_of_the_corpus(path):
    assert verdict(path) == expected_for(path)


@pytest.mark.parametrize("path", FAULTY, ids=lambda p: p.stem)
def test_faulty_records_of_the_corpus(path):
    expected = expected_for(path)
    result = verdict(path)
    assert result["valid"] is False
    assert (result["hand"], result["trick"], result["seat"]) == (
        expected["hand"],
        expected["trick"],
        expected["seat"],
    ), result["error"]
    assert set(result) == {"valid", "error", "hand", "trick", "seat"}
    message = result["error"].lower()
    for word in expected.get("error_contains", []):
        assert word.lower() in message, (word, result["error"])


def random_match_states(variant_name, seed, stop_after):
    variant = VARIANTS[variant_name]
    rng = random.Random(seed)
    match = new_match(variant, seed=seed, target=rng.choice([1, 2, 3]))
    hands, steps = [], 0
    while not match.is_over and steps < stop_after:
        if match.hand.is_over:
            hands.append(match.hand)
            match = next_hand(match)
        match = match_apply(match, rng.choice(match_legal_actions(match)))
        steps += 1
    return match, hands + [match.hand]


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
@given(seed=st.integers(0, 2**63 - 1), stop_after=st.integers(0, 600))
def test_round_trip_export_import_export(variant_name, seed, stop_after):
    match, hands = random_match_states(variant_name, seed, stop_after)
    variant = match.variant
    players = [f"player {s}" for s in range(variant.players)]
    document = build_record(
        variant=variant, target=match.target, players=players, draw=match.draw, hands=hands
    )
    document = json.loads(json.dumps(document))
    result = check_record(document)
    assert result["valid"] is True, result
    assert result["complete"] == match.is_over
    assert result["score"] == list(match.scores)
    finished = [h.result for h in hands if h.result is not None]
    assert [h["points"] for h in result["hands"]] == [r.points for r in finished]
    replay = replay_record(document)
    again = build_record(
        variant=replay.variant,
        target=replay.target,
        players=replay.players,
        draw=replay.draw,
        hands=[h.state for h in replay.hands],
    )
    assert again == document
    # The replayed hands are the very states the engine played.
    played = [h for h in hands if h.phase.value in ("play", "done")]
    assert [h.state.tricks for h in replay.hands] == [h.tricks for h in played]
    assert [h.state.holdings for h in replay.hands] == [h.holdings for h in played]


def test_a_record_with_no_hands_is_valid_and_scores_zero():
    document = {"format": "hokm-record/1", "variant": "hokm3", "target": 5}
    document.update(players=["a", "b", "c"], hands=[])
    assert check_record(document) == {
        "valid": True,
        "complete": False,
        "score": [0, 0, 0],
        "winner": None,
        "hands": [],
    }


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[" * 100_000,  # deeply nested: no RecursionError traceback
        '{"format": "hokm-record/1"',
        "null",
        "[]",
        '"hokm-record/1"',
    ],
)
def test_malformed_documents_are_whole_document_faults(text):
    try:
        result = check_record(load_record(text))
    except Exception as error:
        result = error.to_json()
    assert result["valid"] is False
    assert (result["hand"], result["trick"], result["seat"]) == (None, None, None)


def run_check(*args: str) -> subprocess.CompletedProcess:
    """``python manage.py hokm_check`` in a process of its own, as a person runs it."""
    return subprocess.run(
        [sys.executable, "manage.py", "hokm_check", *args],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )


def check_in_process(*args: str) -> tuple[int, str, str]:
    """``hokm_check`` run here by ``call_command``: its exit code (0 when it returns), what it
    wrote on standard output and on standard error. Any exception but SystemExit goes up: the
    traceback a person would have seen."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("hokm_check", *args, stdout=out, stderr=err)
    except SystemExit as exit:
        return exit.code, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def check_document(tmp_path: Path, document: object) -> tuple[int, dict]:
    """``hokm_check`` on ``document`` written to a file: the exit code and the verdict."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document))
    status, out, _ = check_in_process(str(path))
    return status, json.loads(out)


def check_command_line(*args: str) -> tuple[int, str]:
    """``hokm_check`` given ``args`` as on the command line, here: argparse's exit code and what
    it wrote on standard error. ``call_command`` would raise CommandError instead of exiting 2."""
    command = load_command_class("games", "hokm_check")
    with contextlib.redirect_stderr(io.StringIO()) as err, pytest.raises(SystemExit) as exit:
        command.run_from_argv(["manage.py", "hokm_check", *args])
    return exit.value.code, err.getvalue()


def test_hokm_check_command_exit_codes(tmp_path, monkeypatch):
    valid = VALID[0]
    # Once through manage.py in a process of its own: the real entry point and exit status.
    done = run_check(str(valid))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_for(valid)
    # Standard input with "-".
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(valid.read_bytes())))
    status, out, _ = check_in_process("-")
    assert status == 0 and json.loads(out) == expected_for(valid)
    # An invalid record: exit 1 and the located fault, no traceback.
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe garbage")
    status, out, err = check_in_process(str(bad))
    assert status == 1 and "Traceback" not in err
    assert json.loads(out)["valid"] is False
    # A file that cannot be read is an invalid record with every location null.
    status, out, _ = check_in_process(str(tmp_path / "missing.json"))
    assert status == 1
    assert json.loads(out) == {
        "valid": False,
        "error": json.loads(out)["error"],
        "hand": None,
        "trick": None,
        "seat": None,
    }
    # Wrong arguments: a usage message and exit 2.
    status, err = check_command_line()
    assert status == 2 and "usage" in err.lower()
    status, _ = check_command_line("a.json", "b.json")
    assert status == 2


def test_hokm_check_in_process_for_a_faulty_record():
    path = FAULTY[0]
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("hokm_check", str(path), stdout=out)
    assert exit_info.value.code == 1
    result = json.loads(out.getvalue())
    assert (result["hand"], result["trick"], result["seat"]) == tuple(
        expected_for(path)[k] for k in ("hand", "trick", "seat")
    )


# -- hokm_check on records no writer of the format would produce -----------------------------------


@pytest.mark.parametrize("trump", [["S"], {"suit": "S"}], ids=["list", "object"])
def test_hokm_check_reports_a_trump_that_is_a_list_or_object(tmp_path, trump):
    """RECORD.md: an invalid record exits 1 with one JSON verdict; it used to die in a traceback."""
    status, verdict = check_document(tmp_path, with_trump(trump))

    assert status == 1
    assert verdict["valid"] is False
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (2, None, None)
    assert "trump" in verdict["error"]


def test_an_earlier_fault_is_still_reported_before_a_bad_trump(tmp_path):
    """The first fault in the order of play wins: an illegal card in hand 1 comes before a trump
    that is a list in hand 3 (R4.2)."""
    document = corpus_document("faulty/trick_not_following_diamonds.json")
    assert len(document["hands"]) > 1
    document["hands"][-1]["trump"] = ["S"]

    status, verdict = check_document(tmp_path, document)

    assert status == 1
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (0, 2, 3)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_hokm_check_refuses_nan_and_infinity_as_not_json(tmp_path, constant):
    path = tmp_path / "record.json"
    path.write_bytes(with_constant(constant))
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit:
        call_command("hokm_check", str(path), stdout=out)

    assert exit.value.code == 1
    verdict = json.loads(out.getvalue())
    assert verdict["valid"] is False and "not JSON" in verdict["error"]
    assert (verdict["hand"], verdict["trick"], verdict["seat"]) == (None, None, None)


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
