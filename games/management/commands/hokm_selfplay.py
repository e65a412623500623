"""``python manage.py hokm_selfplay``: play a whole match between computer players, dealt fairly,
and write its ``hokm-record/1`` record (docs/fairness.md).

The match goes through the services a live match uses (``games.play.services``): it is created
without a seed, so its flips and every hand are fair shuffles (R8.4); each time a hand ends and the
next shuffle is committed to, every seat answers with its client seed, as a person's client does;
the computer players decide and the next hand is dealt with ``match_step``. The match is stored
in the database like any other. Nothing runs in the background: the worker is off and the computer
players decide in this process for the length of the command.

The record it writes verifies with ``python manage.py hokm_check`` and with the standalone
``python3 scripts/verify_deal.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test.utils import override_settings

from games.engine import GAME_VARIANTS, FairError, check_client_seed, get_variant
from games.engine.record import check_record
from games.history.records import match_export_record
from games.lobby.selectors import computer_player_name
from games.lobby.services import default_target
from games.models import ComputerLevel, Match
from games.play.services import SeatSpec, match_client_seed, match_create, match_step

DEFAULT_LEVEL = ComputerLevel.MEDIUM.value


class Command(BaseCommand):
    help = (
        "Play a whole match between computer players through the site's services, dealt fairly "
        "(R8.4): every shuffle committed to before its deal and answered with the seats' client "
        "seeds. Write the match's hokm-record/1 record to FILE. The match is stored in the "
        "database like any other."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--variant", required=True, metavar="VARIANT", help=f"one of {', '.join(GAME_VARIANTS)}"
        )
        parser.add_argument(
            "--options",
            default=None,
            metavar="JSON",
            help="Court Piece only: the table settings of R9.11 as a record stores them, e.g. "
            '\'{"hidden_trump": "blind", "double_sir": true}\'',
        )
        parser.add_argument(
            "--target",
            type=int,
            default=None,
            metavar="N",
            help="points to win (the variant's default: 7 in Hokm, 1 court in Court Piece)",
        )
        parser.add_argument(
            "--level",
            default=DEFAULT_LEVEL,
            choices=ComputerLevel.values,
            help=f"the computer players' level ({DEFAULT_LEVEL})",
        )
        parser.add_argument(
            "--client-seeds",
            default=None,
            metavar="SEEDS",
            help="one client seed per seat in seat order, separated by commas (so a seed cannot "
            "hold a comma): 0 to 64 characters from space to ~ except |. They go into the flips, "
            "the first hand and every later shuffle. Default: every seat adds the empty string, "
            "as a computer's seat does on the site",
        )
        parser.add_argument(
            "--max-deals",
            type=int,
            default=None,
            metavar="N",
            help="Court Piece only: end the match after N deals at most (R9.10.2)",
        )
        parser.add_argument(
            "--out",
            required=True,
            metavar="FILE",
            help="where to write the record (JSON, UTF-8); - for standard output",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        variant = _variant(options["variant"])
        players = get_variant(variant).players
        court_piece = get_variant(variant).family == "court-piece"
        seeds = client_seeds_parse(options["client_seeds"], players)
        table = _table_options(options["options"], court_piece=court_piece, variant=variant)
        target = default_target(variant) if options["target"] is None else options["target"]
        if target < 1:
            raise CommandError(f"--target must be 1 or more, not {target}")
        max_deals = options["max_deals"]
        if max_deals is not None and not court_piece:
            raise CommandError(f"--max-deals is Court Piece's (R9.10.2), not {variant}'s")
        if max_deals is not None and max_deals < 1:
            raise CommandError(f"--max-deals must be 1 or more, not {max_deals}")
        out = options["out"]
        if out != "-" and not Path(out).parent.is_dir():
            raise CommandError(f"--out: there is no folder {str(Path(out).parent)!r}")
        level = options["level"]

        started = time.monotonic()
        # Nothing in the background: no worker thread takes this match's steps (or any other's),
        # and the computer players decide in this thread rather than in a pool of processes.
        with override_settings(HOKM_AUTOPLAY="off", HOKM_BOT_PROCESSES=0):
            try:
                match = match_create(
                    variant=variant,
                    target=target,
                    seats=[
                        SeatSpec(
                            name=computer_player_name(level=level, index=seat),
                            computer_level=level,
                        )
                        for seat in range(players)
                    ],
                    options=table,
                    max_deals=max_deals,
                    client_seeds=seeds,
                )
            except ValueError as error:  # the engine's and the service's refusals
                raise CommandError(str(error)) from error
            play_out(match, seeds)
        record = match_export_record(match=match)
        text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
        if out == "-":
            self.stdout.write(text, ending="")
            self.stdout.flush()
        else:
            Path(out).write_text(text, encoding="utf-8")
        verdict = check_record(record)
        unit = "deal" if court_piece else "hand"
        summary = (
            f"{variant}: match {match.pk}, {_count(len(record['hands']), unit)}, final score "
            f"{'-'.join(str(score) for score in match.scores)}"
            f"{' courts' if court_piece else ''}, side {match.winner_side} won, "
            f"{time.monotonic() - started:.1f} s; record "
            f"{'valid' if verdict['valid'] else 'INVALID'}, written to "
            f"{'standard output' if out == '-' else out}"
        )
        # The summary never mixes with a record written to standard output.
        (self.stderr if out == "-" else self.stdout).write(summary, style_func=str)
        if not verdict["valid"]:
            raise CommandError(f"the record does not verify: {json.dumps(verdict)}")


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


def _variant(name: str) -> str:
    if name not in GAME_VARIANTS:
        raise CommandError(f"unknown variant {name!r}: one of {', '.join(GAME_VARIANTS)}")
    return name


def client_seeds_parse(text: str | None, players: int) -> list[str]:
    """``--client-seeds``: one seed per seat, comma-separated, each as RECORD.md allows it.
    Without it every seat adds the empty string. Raises ``CommandError``."""
    if text is None:
        return [""] * players
    seeds = text.split(",")
    if len(seeds) != players:
        raise CommandError(
            f"--client-seeds: {players} seeds, one per seat separated by commas, not "
            f"{len(seeds)} (a seed cannot hold a comma)"
        )
    for seat, seed in enumerate(seeds):
        try:
            check_client_seed(seed)
        except FairError as error:
            raise CommandError(f"--client-seeds: seat {seat}'s seed {seed!r}: {error}") from error
    return seeds


def _table_options(text: str | None, *, court_piece: bool, variant: str) -> dict[str, Any] | None:
    """``--options``: Court Piece's table settings as JSON; checked in full by ``match_create``
    (``CourtPieceOptions.from_json``) before anything is stored."""
    if text is None:
        return None
    if not court_piece:
        raise CommandError(f"--options sets Court Piece's table (R9.11), not {variant}'s")
    try:
        table = json.loads(text)
    except ValueError as error:
        raise CommandError(f"--options is not JSON: {error}") from error
    if not isinstance(table, dict):
        raise CommandError('--options must be a JSON object, e.g. \'{"hidden_trump": "blind"}\'')
    return table


def play_out(match: Match, seeds: list[str]) -> None:
    """Take the match's automatic steps until it is over; each shuffle committed to when a hand
    ends gets every seat's client seed before the next deal, as the seats' clients send them."""
    answered: str | None = None
    while True:
        waiting = Match.objects.values_list("next_fair", flat=True).get(pk=match.pk)
        commit = (waiting or {}).get("commit")
        if commit and commit != answered and any(seeds):
            for seat, seed in enumerate(seeds):
                match_client_seed(match=match.pk, seat=seat, commit=commit, seed=seed)
            answered = commit
        if not match_step(match=match.pk, rush=True):
            break
    match.refresh_from_db()
    if match.status != Match.Status.FINISHED:
        raise CommandError(
            f"match {match.pk} stopped before its end (status {match.status}); its record is "
            "not written"
        )
