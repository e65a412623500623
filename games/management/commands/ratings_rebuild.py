"""``python manage.py ratings_rebuild``: recompute every rating from the stored history.

Replays the rated matches, voids and lifted voids in the order they were made to each player
(docs/ratings.md) and compares the result with the stored ratings. By default the numbers that
differ are written anew; ``--check`` only reports them and fails when any differ. Either way every
rating is locked while it runs: a rated match finishing meanwhile waits for it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ratings.services import ratings_rebuild


class Command(BaseCommand):
    help = "Recompute every rating from the stored history of rated matches and voids."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="Only compare with the stored ratings; fail when any differ.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        check = bool(options["check"])
        report = ratings_rebuild(write=not check)
        for line in report.ratings_differing[:50]:
            self.stdout.write(line)
        self.stdout.write(
            f"{report.events} rating events replayed; {report.ratings} ratings, "
            f"{len(report.ratings_differing)} differing; "
            f"{report.changes_differing} stored changes differing."
        )
        if check and (report.ratings_differing or report.changes_differing):
            raise CommandError("the stored ratings differ from the history")
        if not check and (report.ratings_differing or report.changes_differing):
            self.stdout.write("Written anew from the history.")
