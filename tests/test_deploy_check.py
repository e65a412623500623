"""The production environment of docs/operations.md passes ``manage.py check --deploy`` with no
warning, insecure changes to it are reported, and the document lists every variable the settings
read.

The environment is read from the document itself (its ``/etc/hokm/hokm.env`` block), so the file
an operator copies is the one checked here. Settings are read once per process: each check runs
``manage.py`` in a subprocess with only that environment's settings variables set.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OPERATIONS = ROOT / "docs" / "operations.md"
ENV_FILE_BLOCK = re.compile(r"```sh\n# /etc/hokm/hokm\.env\n(.*?)```", re.DOTALL)
#: How settings.py and environment.py read a variable: os.environ.get("X"), environ.get("X"),
#: env_bool("X", ...), env_int("X", ...), env_list("X", ...).
SETTING_READ = re.compile(r'\b(?:environ\.get|env_bool|env_int|env_list)\(\s*"([A-Z][A-Z0-9_]*)"')
DOCUMENTED = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \|", re.MULTILINE)
NO_ISSUES = "System check identified no issues (0 silenced)."


def variables_settings_read() -> set[str]:
    sources = [ROOT / "hokm_site" / "settings.py", ROOT / "hokm_site" / "environment.py"]
    return {name for path in sources for name in SETTING_READ.findall(path.read_text())}


def documented_environment() -> dict[str, str]:
    """The variables of the document's environment file, as systemd's ``EnvironmentFile=`` reads
    them: ``NAME=value`` lines, ``#`` comments, optional double quotes around a value."""
    block = ENV_FILE_BLOCK.search(OPERATIONS.read_text())
    assert block, "docs/operations.md has no /etc/hokm/hokm.env block"
    environment = {}
    for line in block.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition("=")
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        environment[name] = value
    return environment


def production_environment(**changes: str) -> dict[str, str]:
    """The document's environment with a key of the kind it tells the operator to generate."""
    return documented_environment() | {"SECRET_KEY": secrets.token_urlsafe(50)} | changes


def check_deploy(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``manage.py check --deploy --fail-level WARNING`` with exactly these settings variables:
    the caller's own (CI exports DATABASE_URL and REDIS_URL) are left out."""
    leave_out = variables_settings_read() | set(documented_environment())
    process_env = {k: v for k, v in os.environ.items() if k not in leave_out}
    process_env.update(environment, DJANGO_SETTINGS_MODULE="hokm_site.settings")
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=process_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_documented_production_environment_passes_check_deploy() -> None:
    environment = production_environment()
    assert environment["DEBUG"] == "0" and environment["HOKM_AUTOPLAY"] == "worker"
    result = check_deploy(environment)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert NO_ISSUES in result.stdout
    assert "WARNING" not in output.upper(), output


@pytest.mark.parametrize(
    ("change", "warning"),
    [
        ({"DEBUG": "1"}, "security.W018"),  # DEBUG on in production
        ({"SECRET_KEY": None}, "security.W009"),  # the document's placeholder left in place
        ({"SECURE_HSTS_SECONDS": "0"}, "security.W004"),  # no HSTS
    ],
    ids=["debug-on", "placeholder-key", "no-hsts"],
)
def test_an_insecure_change_is_reported(change: dict[str, str | None], warning: str) -> None:
    """The check above can fail: each of these is refused, and says why."""
    environment = production_environment()
    for name, value in change.items():
        environment[name] = documented_environment()[name] if value is None else value
    result = check_deploy(environment)
    assert result.returncode != 0, result.stdout
    assert warning in result.stderr
    assert NO_ISSUES not in result.stdout


def test_every_variable_the_settings_read_is_documented() -> None:
    read = variables_settings_read()
    assert {"DEBUG", "SECRET_KEY", "REDIS_URL", "HOKM_AUTOPLAY"} <= read  # the pattern works
    documented = set(DOCUMENTED.findall(OPERATIONS.read_text()))
    assert read - documented == set(), "read by the settings, missing from docs/operations.md"
    assert documented - read == set(), "in docs/operations.md, not read by the settings"
