"""scripts/verify_deal.py (R8.4): the player's own check of a record's fair deals, standard
library only. It must agree with the engine (games/engine/fair.py) and with hokm_check."""

from __future__ import annotations

import ast
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from games.engine import COURT_PIECE, HOKM2, HOKM3, HOKM4, commit_of, deal_hand, fair_flips
from games.engine.fair import CANONICAL_DECK, deal_stream, fisher_yates
from games.engine.record import check_record
from tests.engine.test_fair_deals import (
    RECORD_KINDS,
    fair_record,
    swap_outside_first5,
    tamper_both,
    tamper_client_seed,
    tamper_commit,
    tamper_seed,
)

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "verify_deal.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_deal", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verify_deal = load_script()


def run_script(tmp_path: Path, document: dict | str) -> subprocess.CompletedProcess:
    """The script as a player runs it: a Python of its own, a file of the record."""
    path = tmp_path / "record.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return subprocess.run(
        [sys.executable, "-I", str(SCRIPT), str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_the_script_uses_only_the_standard_library():
    """It imports standard modules only (and runs below with ``python -I``: no project path)."""
    tree = ast.parse(SCRIPT.read_text())
    imports = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not any(isinstance(node, ast.ImportFrom) for node in ast.walk(tree))
    assert imports == {"hashlib", "hmac", "itertools", "json", "sys"}
    assert imports <= sys.stdlib_module_names


@pytest.mark.parametrize("kind", RECORD_KINDS)
def test_a_fair_record_verifies_R8_4(tmp_path, kind):
    done = run_script(tmp_path, fair_record(kind))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["flips: OK", "hand 0: OK", "hand 1: OK"]


@pytest.mark.parametrize(
    "change",
    [tamper_seed, tamper_commit, tamper_both, tamper_client_seed],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("kind", ["hokm4", "hokm2-draw", "court-piece:blind"])
def test_a_tampered_hand_does_not_verify_R8_4(tmp_path, kind, change):
    document = fair_record(kind)
    change(document["hands"][1]["fair"])
    done = run_script(tmp_path, document)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[:2] == ["flips: OK", "hand 0: OK"]
    assert lines[2].startswith("hand 1: does not match: ")
    assert check_record(document)["hand"] == 1  # hokm_check agrees


@pytest.mark.parametrize("kind", ["hokm3", "hokm2", "court-piece:ace-caller"])
def test_tampered_flips_do_not_verify_R8_4(tmp_path, kind):
    document = fair_record(kind)
    tamper_both((document.get("hakem_draw") or document["dealer_draw"])["fair"])
    done = run_script(tmp_path, document)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("flips: does not match: ")
    assert check_record(document)["valid"] is False


def test_what_does_not_match_is_named_R8_4(tmp_path):
    document = fair_record("hokm2")
    swap_outside_first5(document, 0, 0, 1)
    unseen = document["hands"][1]["unseen"]
    unseen[0], unseen[1] = unseen[1], unseen[0]
    lines = run_script(tmp_path, document).stdout.splitlines()
    assert lines[1] == "hand 0: does not match: cards[0], cards[1]"
    assert lines[2] == "hand 1: does not match: unseen"


def test_a_last_hand_still_sealed_is_no_failure_R8_4(tmp_path):
    # A match resigned, or a record written while its last hand was played: that hand's seed is
    # still secret (RECORD.md), and everything else verifies.
    document = fair_record("hokm4")
    del document["hands"][-1]["fair"]["server_seed"]
    done = run_script(tmp_path, document)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].endswith(
        "not over when the record was written: its seed is not revealed yet"
    )


def test_parts_without_a_revealed_seed_are_not_verified_R8_4(tmp_path):
    document = fair_record("hokm4")
    del document["hands"][1]["fair"]["server_seed"]
    del document["hands"][0]["fair"]
    done = run_script(tmp_path, document)
    assert done.returncode == 1
    assert done.stdout.splitlines()[1:] == [
        "hand 0: not checked: no fair block with a revealed server seed",
        # The last hand may still be played: sealed, it is told apart, and hand 0 fails the run.
        "hand 1: not over when the record was written: its seed is not revealed yet",
    ]
    done = run_script(tmp_path, "not json")
    assert done.returncode == 1 and done.stdout.startswith("cannot read the record")
    assert "Traceback" not in done.stderr


def test_the_script_shuffles_as_the_engine_on_random_seeds_R8_4():
    rng = random.Random(84)
    for _ in range(25):
        seed = rng.randbytes(32)
        seeds = ["".join(rng.choice("ab ~!x") for _ in range(rng.randrange(5))) for _ in "1234"]
        index = rng.randrange(1000)
        fair = {"server_seed": seed.hex(), "client_seeds": seeds}
        stream = verify_deal.numbers(fair, "deal", index)
        script_deck = verify_deal.shuffle(verify_deal.DECK[:], stream)
        engine_stream = deal_stream(seed, seeds, hand_index=index)
        engine_deck = fisher_yates(CANONICAL_DECK, engine_stream)
        assert script_deck == [card.text for card in engine_deck]
        assert verify_deal.below(stream, 5) == engine_stream.draw_below(5)
        caller = rng.randrange(4)
        deal = deal_hand(COURT_PIECE, seed, seeds, hand_index=index, lead=caller)
        assert script_deck == [card.text for card in deal.deck]
        # The flips of every rule: the first seat and the cards turned.
        for variant in (HOKM4, HOKM3, HOKM2):
            players_seeds = seeds[: variant.players]
            flips = fair_flips(variant, seed, players_seeds)
            record = {"variant": variant.name, "players": players_seeds}
            part = {"first_seat": flips.first_seat, "cards": [c.text for c in flips.cards]}
            part["fair"] = {**fair, "client_seeds": players_seeds, "commit": commit_of(seed)}
            assert verify_deal.check(record, None, part) == []
