"""The rules engine imports nothing from Django or Channels (STYLE.md): it must run, and be
tested and replayed, without a database, a settings module or an event loop."""

from pathlib import Path

from tests.pure_imports import forbidden_imports

ENGINE_DIR = Path(__file__).resolve().parent.parent / "games" / "engine"


def engine_files() -> list[Path]:
    return sorted(ENGINE_DIR.rglob("*.py"))


def test_engine_package_exists_and_has_modules() -> None:
    assert engine_files(), f"no Python files under {ENGINE_DIR}: nothing was checked"


def test_engine_imports_neither_django_nor_channels() -> None:
    offenders = {
        str(path.relative_to(ENGINE_DIR.parent.parent)): hits
        for path in engine_files()
        if (hits := forbidden_imports(path.read_text(encoding="utf-8"), str(path)))
    }
    assert offenders == {}


def test_the_import_check_itself_catches_django_and_channels() -> None:
    source = "import os\nfrom django.db import models\nimport channels.layers\nfrom . import x\n"
    assert forbidden_imports(source, "example.py") == [
        "line 2: django.db",
        "line 3: channels.layers",
    ]
