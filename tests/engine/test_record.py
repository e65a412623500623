"""The game record (shared/RECORD.md): round trips, the independent corpus, and hokm_check."""

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from games.engine import VARIANTS, match_apply, match_legal_actions, new_match, next_hand
from games.engine.record import build_record, check_record, load_record, replay_record

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "records"


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


def run_check(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "hokm_check", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        timeout=60,
    )


def test_hokm_check_command_exit_codes(tmp_path):
    valid = VALID[0]
    done = run_check(str(valid))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_for(valid)
    # Standard input with "-".
    done = run_check("-", stdin=valid.read_bytes())
    assert done.returncode == 0 and json.loads(done.stdout) == expected_for(valid)
    # An invalid record: exit 1 and the located fault, no traceback.
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe garbage")
    done = run_check(str(bad))
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert json.loads(done.stdout)["valid"] is False
    # A file that cannot be read is an invalid record with every location null.
    done = run_check(str(tmp_path / "missing.json"))
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "valid": False,
        "error": json.loads(done.stdout)["error"],
        "hand": None,
        "trick": None,
        "seat": None,
    }
    # Wrong arguments: a usage message and exit 2.
    done = run_check()
    assert done.returncode == 2 and b"usage" in done.stderr.lower()
    done = run_check("a.json", "b.json")
    assert done.returncode == 2


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
