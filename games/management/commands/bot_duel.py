"""``python manage.py bot_duel``: measure one computer player against another on duplicate deals.

The work is :mod:`games.bots.duel`; this command parses the options, shows the progress on standard
error and prints the report on standard output (a table, or JSON with ``--json``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.duel import (
    COURT_PIECE,
    PLAYERS,
    DuelConfig,
    Progress,
    format_progress,
    format_report,
    run_duel,
)
from games.engine import GAME_VARIANTS, CourtPieceOptions
from games.engine.court_piece import OptionsError

#: On a file or pipe, a progress line at most this often (a terminal gets one line, rewritten).
PROGRESS_EVERY = 5.0


class Command(BaseCommand):
    help = (
        "Play duplicate deals between two computer players (A and B) and report A's hand win "
        "rate with a 95% confidence interval, Kots (courts in Court Piece), match win rate and "
        "time per decision."
    )
    # Pure computation: no database, no system checks.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", default="expert", choices=PLAYERS, help="player A (expert)")
        parser.add_argument("--b", default="greedy", choices=PLAYERS, help="player B (greedy)")
        parser.add_argument("--variant", default="hokm4", choices=sorted(GAME_VARIANTS))
        parser.add_argument("--pairs", type=int, default=400, help="duplicate deals to play (400)")
        parser.add_argument(
            "--seed", type=int, default=100_000, help="seed of the first deal; deal i is seed + i"
        )
        parser.add_argument(
            "--matches", type=int, default=0, help="duplicate match sets to play as well (0)"
        )
        parser.add_argument(
            "--target", type=int, default=None, help="match target (7 in Hokm, 1 in Court Piece)"
        )
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a Court Piece table setting (R9.11), repeatable: double_sir=true, "
            "ace_rule=true, hidden_trump=chosen|blind|off, goon_court=false, ace_caller=S",
        )
        parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            table = table_options(options["option"], options["variant"])
            config = DuelConfig(
                a=options["a"],
                b=options["b"],
                variant=options["variant"],
                pairs=options["pairs"],
                seed=options["seed"],
                matches=options["matches"],
                target=options["target"],
                jobs=options["jobs"],
                options=table,
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        result = run_duel(config, progress=self._progress_writer())
        if options["json"]:
            self.stdout.write(json.dumps(result.report, indent=2))
        else:
            self.stdout.write(format_report(result.report))

    def _progress_writer(self) -> Any:
        stream = self.stderr
        on_terminal = stream.isatty()
        last = -PROGRESS_EVERY

        def show(progress: Progress) -> None:
            nonlocal last
            finished = progress.done == progress.total
            line = format_progress(progress)
            if on_terminal:
                # Plain text: Django would colour everything written to a terminal's stderr red.
                stream.write(f"\r{line}\x1b[K", style_func=str, ending="\n" if finished else "")
                stream.flush()
            elif finished or time.monotonic() - last >= PROGRESS_EVERY:
                stream.write(line, style_func=str)
                last = time.monotonic()

        return show


def table_options(pairs: list[str], variant: str) -> CourtPieceOptions | None:
    """``--option NAME=VALUE`` as Court Piece's settings (R9.11); values are JSON where they
    parse as JSON (``true``, ``null``), else text (``chosen``, ``S``). Raises ``ValueError``."""
    if not pairs:
        return None
    if variant != COURT_PIECE:
        raise ValueError(f"--option sets Court Piece's table, not {variant}'s")
    settings: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--option takes NAME=VALUE, not {pair!r}")
        try:
            settings[name] = json.loads(text)
        except json.JSONDecodeError:
            settings[name] = text
    try:
        return CourtPieceOptions.from_json(settings)
    except OptionsError as error:
        raise ValueError(f"--option: {error}") from error
