"""``python manage.py hokm_selfplay`` (docs/fairness.md): a whole computer match played through
the live services, dealt fairly (R8.4), its record written; the record verifies with the checker
and with the standalone verifier, and every shuffle carries the client seeds given."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine.record import check_record
from games.models import Hand, Match

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # (variant, extra arguments, seeds). Every variant's fair deal is checked through the same
    # services by tests/games/test_fair_live.py; here the command's own path, a few of them.
    # Hokm2 to 4 points: at least two hands (a Hakem Kot scores 3), so the shuffles after the
    # first are committed when a hand ends and answered by the seats before the deal.
    ("hokm2", ["--target", "4"], ["x~y", "7 !"]),
    (
        "court-piece",
        ["--max-deals", "2", "--options", '{"hidden_trump": "blind"}'],
        ["s0", "s1", "s2", "s3"],
    ),
]


def _selfplay(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("hokm_selfplay", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _verify_deal(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", str(ROOT / "scripts" / "verify_deal.py"), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(("variant", "extra", "seeds"), CASES)
def test_selfplay_writes_a_record_that_verifies_R8_4(
    variant: str, extra: list[str], seeds: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    summary, _ = _selfplay(
        "--variant",
        variant,
        "--level",
        "easy",
        "--client-seeds",
        ",".join(seeds),
        "--out",
        str(path),
        *extra,
    )
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["variant"] == variant
    assert check_record(record)["valid"], check_record(record)
    verified = _verify_deal(path)
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.count("OK") == len(record["hands"]) + 1  # the flips and each hand

    # Every shuffle, the flips' and every hand's, took the seeds given, and revealed its seed.
    flips = record.get("hakem_draw") or record["dealer_draw"]
    assert flips["fair"]["client_seeds"] == seeds
    assert record["hands"]
    for hand in record["hands"]:
        assert hand["fair"]["client_seeds"] == seeds
        assert len(hand["fair"]["server_seed"]) == 64

    # The match is stored like any other, finished, and the summary names it and the file.
    match = Match.objects.get()
    assert match.status == Match.Status.FINISHED
    assert Hand.objects.filter(match=match).count() == len(record["hands"])
    assert summary.startswith(f"{variant}: match {match.pk}, ")
    assert str(path) in summary and "record valid" in summary
    if variant == "hokm2":
        assert len(record["hands"]) >= 2  # the exchange after a hand ended was taken
    if variant == "court-piece":
        assert record["options"]["hidden_trump"] == "blind"
        assert record["max_deals"] == 2


def test_selfplay_writes_to_standard_output_and_defaults_to_empty_seeds() -> None:
    out, err = _selfplay("--variant", "hokm2", "--target", "1", "--level", "easy", "--out", "-")
    record = json.loads(out)
    assert check_record(record)["valid"]
    assert all(hand["fair"]["client_seeds"] == ["", ""] for hand in record["hands"])
    assert "written to standard output" in err


BAD = [
    (["--variant", "hokm5"], "unknown variant"),
    (["--variant", "hokm4", "--client-seeds", "a,b,c"], "4 seeds"),
    (["--variant", "hokm2", "--client-seeds", "a,b,c"], "2 seeds"),
    (["--variant", "hokm2", "--client-seeds", "a|b,c"], "seat 0"),
    (["--variant", "hokm2", "--client-seeds", "a," + "x" * 65], "at most 64"),
    (["--variant", "hokm2", "--client-seeds", "a,é"], r"U\+00E9"),
    (["--variant", "court-piece", "--options", "{hidden_trump: blind}"], "not JSON"),
    (["--variant", "court-piece", "--options", "[1]"], "JSON object"),
    (["--variant", "court-piece", "--options", '{"hidden_trump": "never"}'], "hidden_trump"),
    (["--variant", "hokm4", "--options", "{}"], "Court Piece"),
    (["--variant", "hokm4", "--max-deals", "2"], "Court Piece"),
    (["--variant", "court-piece", "--max-deals", "0"], "--max-deals"),
    (["--variant", "hokm2", "--target", "0"], "--target"),
    (["--variant", "hokm2", "--level", "godlike"], "godlike"),
]


@pytest.mark.parametrize(("arguments", "message"), BAD)
def test_bad_input_is_refused_and_nothing_is_written(
    arguments: list[str], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    with pytest.raises(CommandError, match=message):
        _selfplay(*arguments, "--out", str(path))
    assert not path.exists()
    assert not Match.objects.exists()


def test_an_output_folder_that_does_not_exist_is_refused_before_play(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no folder"):
        _selfplay("--variant", "hokm2", "--out", str(tmp_path / "missing" / "game.json"))
    assert not Match.objects.exists()
