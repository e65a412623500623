"""``python manage.py hokm_check FILE``: check a ``hokm-record/1`` game record (shared/RECORD.md).

Prints one JSON object on standard output and exits 0 for a valid record, 1 for an invalid one,
2 for wrong arguments (argparse's usage error).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.engine.record import RecordFault, check_record
from games.history.records import json_constant_refuse


class Command(BaseCommand):
    help = "Check a hokm-record/1 game record; FILE may be - for standard input."
    # The checker is pure: no system checks, no database (it imports the models but reads none),
    # so it answers fast and anywhere.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the record, or - for standard input")

    def handle(self, *args: Any, **options: Any) -> None:
        verdict = check_file(options["file"])
        self.stdout.write(json.dumps(verdict, ensure_ascii=False))
        if not verdict["valid"]:
            raise SystemExit(1)


#: The largest record the checker reads. A hand takes about 1 KB (a match to 7 points about
#: 10 KB), so this is some 60,000 hands; without a bound, ``hokm_check /dev/zero`` (or an
#: endless pipe) read until the memory ran out.
CHECK_MAX_BYTES = 64 * 1024 * 1024


def check_file(path: str) -> dict[str, Any]:
    """The checker's verdict on a file; an unreadable file is an invalid record (RECORD.md)."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(CHECK_MAX_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                raw = handle.read(CHECK_MAX_BYTES + 1)
    except OSError as error:
        return RecordFault(f"cannot read {path}: {error.strerror or error}").to_json()
    if len(raw) > CHECK_MAX_BYTES:
        return RecordFault(
            f"the record is larger than {CHECK_MAX_BYTES // (1024 * 1024)} MB, the most "
            "the checker reads"
        ).to_json()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return RecordFault("the record is not UTF-8 text").to_json()
    try:
        # Not the engine's load_record: it reads NaN and Infinity, which JSON has not.
        document = json.loads(text, parse_constant=json_constant_refuse)
    except (ValueError, RecursionError) as error:
        return RecordFault(f"the record is not JSON: {error}").to_json()
    return check_record(document)
