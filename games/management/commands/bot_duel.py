"""``python manage.py bot_duel``: measure one computer player against another on duplicate deals.

The work is :mod:`games.bots.duel`; this command parses the options, shows the progress on standard
error and prints the report on standard output (a table, or JSON with ``--json``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.duel import PLAYERS, DuelConfig, Progress, format_progress, format_report, run_duel
from games.engine import DEFAULT_TARGET, VARIANTS

#: On a file or pipe, a progress line at most this often (a terminal gets one line, rewritten).
PROGRESS_EVERY = 5.0


class Command(BaseCommand):
    help = (
        "Play duplicate deals between two computer players (A and B) and report A's hand win "
        "rate with a 95% confidence interval, Kots, match win rate and time per decision."
    )
    # Pure computation: no database, no system checks.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", default="expert", choices=PLAYERS, help="player A (expert)")
        parser.add_argument("--b", default="greedy", choices=PLAYERS, help="player B (greedy)")
        parser.add_argument("--variant", default="hokm4", choices=sorted(VARIANTS))
        parser.add_argument("--pairs", type=int, default=400, help="duplicate deals to play (400)")
        parser.add_argument(
            "--seed", type=int, default=100_000, help="seed of the first deal; deal i is seed + i"
        )
        parser.add_argument(
            "--matches", type=int, default=0, help="duplicate match sets to play as well (0)"
        )
        parser.add_argument("--target", type=int, default=DEFAULT_TARGET, help="match target")
        parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            config = DuelConfig(
                a=options["a"],
                b=options["b"],
                variant=options["variant"],
                pairs=options["pairs"],
                seed=options["seed"],
                matches=options["matches"],
                target=options["target"],
                jobs=options["jobs"],
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
