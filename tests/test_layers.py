"""The import contracts of pyproject.toml (``lint-imports``, run by ``make lint``): kept by the
tree, and broken by an upward import, even one inside a function.

Each check runs ``lint-imports`` in a process of its own: in this one the project's packages are
imported already, and the planted copy must be read from its files, not from ``sys.modules``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
IMPORT_LINTER = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``tree`` with its pyproject.toml."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        # Wide, plain output: a wrapped line would not match.
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def tree_copy(destination: Path) -> Path:
    """The project's packages and pyproject.toml, copied under ``destination``."""
    for package in IMPORT_LINTER["root_packages"]:
        shutil.copytree(
            ROOT / package,
            destination / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "static", "templates"),
        )
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")
    return destination


def test_the_tree_keeps_every_import_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(IMPORT_LINTER['contracts'])} kept, 0 broken." in result.stdout


def test_upward_and_impure_imports_break_the_contracts_even_inside_functions(
    tmp_path: Path,
) -> None:
    tree = tree_copy(tmp_path)
    # A lower layer reaching up, from inside a function: the way the old cycles were hidden.
    (tree / "accounts" / "planted.py").write_text(
        "def react():\n    from moderation import services\n\n    return services\n"
    )
    # The engine using Django, inside a function too.
    (tree / "games" / "engine" / "planted.py").write_text(
        "def now():\n    from django.utils import timezone\n\n    return timezone.now()\n"
    )
    # The bots using a room of games/ other than the engine.
    (tree / "games" / "bots" / "planted.py").write_text("from games.play import services\n")

    result = lint_imports(tree)

    output = result.stdout
    assert result.returncode == 1, output + result.stderr
    assert "accounts is not allowed to import moderation" in output
    assert re.search(r"accounts\.planted -> moderation\.services \(l\.2\)", output)
    assert "games.engine is not allowed to import django" in output
    assert re.search(r"games\.engine\.planted -> django \(l\.2\)", output)
    assert "games.bots is not allowed to import games.play" in output
    assert re.search(r"games\.bots\.planted -> games\.play\.services \(l\.1\)", output)
