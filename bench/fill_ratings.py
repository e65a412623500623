"""Fill a database with rated players and matches for the ratings benchmark (``ratings_bench``).

    .venv/bin/python -m bench.fill_ratings            # 10,000 players, 100,000 rated matches
    .venv/bin/python -m bench.fill_ratings --force    # drop the bench database and fill afresh

The database is ``BENCH_RATINGS_DATABASE_URL``, by default :data:`DEFAULT_DATABASE_URL` (its own,
so the history benchmark's data stays as it is; created when missing, then migrated; its name must
contain "bench"). A filled database is left as it is; one whose fill was interrupted is dropped
and filled again.

What it makes, all from ``--seed`` (the same arguments give the same data):

- ``--users`` players (``rated00001`` ...), each with a hidden skill, one to three game families
  (the first ``REGULARS`` three to five), a share of the matches that falls steeply with his
  number (the first play most, about 20 matches a day) and a span of activity in the last
  ``SPAN`` days: most started at its beginning and still play, the others came later or stopped;
- ``--matches`` finished rated matches over the five families (:data:`VARIANT_WEIGHTS`), each at
  a table of its own with a 30-second clock, finished in id order over the last ``SPAN`` days.
  The players of a match are drawn among those of the family active that day. Its hands are
  played out as summary rows only (who called trump, who won, the points, Kot and Hakem Kot; for
  Court Piece the deal's outcome and courts), each side winning a hand with a probability that
  grows with its players' hidden skill, until a side reaches the target (7 points, one court).
  No tricks and no cards played: no page measured reads them, and the profile's statistics read
  these columns only;
- each match's rating changes with the site's own model (``games.ratings.model.match_outcome``
  and ``rate``: one player in a hundred leaves, and is rated as having lost), in the order the
  matches finished, and the players' final ``Rating`` rows;
- ``--open-tables`` open public tables in the lobby (most rated), each with some of its seats
  taken by active players, and ``--playing`` rated matches in play with their players connected
  (``MatchConnection`` rows: the benchmark marks them seen again before it times the lobby).

Rows are built from each model's own defaults and written with PostgreSQL's ``COPY`` (psycopg's
``cursor.copy``), a batch of ``--batch`` matches per transaction; the ids are given here and the
sequences moved past them. It ends with ``VACUUM ANALYZE`` (the statistics autovacuum would give a
live site) and a check: every rating must equal its last change, its counts those of its changes,
and a sample of matches, rated again from their stored "before" values, must give the stored
"after" values.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import secrets
import time
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import accumulate, cycle
from typing import Any

from bench._django import database_create, database_describe, settings_prepare

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/hokm_bench_ratings"
VARIANT_WEIGHTS = {"hokm4": 40, "hokm3": 10, "hokm2": 20, "hokm2-draw": 10, "court-piece": 20}
SPAN = timedelta(days=90)
USERNAME = "rated{:05d}"
PASSWORD = "bench"  # noqa: S105 - throwaway accounts in a throwaway database
CLOCK_SECONDS = 30
#: How many of the first players are the regulars: several families, the largest shares.
REGULARS = 50
#: A player's share of the matches falls as (his number + ``SHARE_OFFSET``) to this power: the
#: heaviest, ``rated00001``, plays about 20 matches a day, each about half an hour.
SHARE_EXPONENT = 0.6
SHARE_OFFSET = 10
#: Share of the people's seats whose player left the match (rated as a loss, docs/ratings.md).
LEAVE_SHARE = 0.01
#: A hand, or a deal, takes about this long.
HAND_MINUTES = (2.0, 4.0)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fill_ratings", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--users", type=int, default=10_000, help="players (10000)")
    parser.add_argument("--matches", type=int, default=100_000, help="rated matches (100000)")
    parser.add_argument("--open-tables", type=int, default=120, help="open tables (120)")
    parser.add_argument("--playing", type=int, default=20, help="rated matches in play (20)")
    parser.add_argument("--batch", type=int, default=5_000, help="matches per transaction (5000)")
    parser.add_argument("--seed", type=int, default=21, help="seed of everything generated (21)")
    parser.add_argument("--verify", type=int, default=200, help="matches rated again (200)")
    parser.add_argument(
        "--force", action="store_true", help="drop and recreate the (bench) database first"
    )
    return parser.parse_args(argv)


def django_setup(*, reset: bool) -> None:
    """Point Django at the ratings benchmark's database (never the history one's), create it
    (afresh with ``reset``) and migrate it."""
    import django
    from django.apps import apps

    if apps.ready:
        from django.db import connections

        # Dropping the database ends every connection to it: Django's would be broken.
        connections.close_all()
    else:
        os.environ["BENCH_DATABASE_URL"] = (
            os.environ.get("BENCH_RATINGS_DATABASE_URL") or DEFAULT_DATABASE_URL
        )
        settings_prepare()
    database_create(reset=reset)
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    began = time.perf_counter()
    django_setup(reset=args.force)
    print(f"database: {database_describe()}")
    state = fill_state(args)
    if state == "partial":
        print("an earlier fill stopped part way: dropping the database and filling afresh")
        django_setup(reset=True)
    if state == "filled":
        print("already filled (use --force to fill afresh)")
    else:
        fill(args)
        fill_seconds = time.perf_counter() - began
        vacuum_analyze()
        print(
            f"fill: {fill_seconds:.1f} s, {time.perf_counter() - began:.1f} s with VACUUM ANALYZE"
        )
    counts_print()
    verify(args)


def fill_state(args: argparse.Namespace) -> str:
    """Whether the database is "empty", "filled" (its last step, the open tables, is written) or
    "partial"."""
    from django.contrib.auth import get_user_model

    from games.models import Match, Table

    if not get_user_model().objects.exists():
        return "empty"
    rated = Match.objects.filter(rated=True, status=Match.Status.FINISHED).count()
    open_tables = Table.objects.filter(status=Table.Status.OPEN).count()
    if rated >= args.matches and open_tables >= args.open_tables:
        return "filled"
    return "partial"


# -- the players ---------------------------------------------------------------------------------


@dataclass
class Player:
    id: int
    name: str
    skill: float
    families: tuple[str, ...]
    weight: float
    first_day: float
    last_day: float

    def active(self, day: float) -> bool:
        return self.first_day <= day <= self.last_day

    @property
    def display_name(self) -> str:
        """Half the players chose a display name, which is the name they play under."""
        return f"Player {self.name[len('rated') :]}" if self.id % 2 else ""

    @property
    def played_name(self) -> str:
        return self.display_name or self.name


def players_make(*, count: int, rng: random.Random, first_id: int) -> list[Player]:
    span_days = SPAN.days
    families = list(VARIANT_WEIGHTS)
    players = []
    for number in range(1, count + 1):
        regular = number <= REGULARS
        wanted = rng.randint(3, 5) if regular else rng.choices([1, 2, 3], [50, 35, 15])[0]
        chosen: list[str] = []
        while len(chosen) < wanted:
            family = rng.choices(families, [VARIANT_WEIGHTS[f] for f in families])[0]
            if family not in chosen:
                chosen.append(family)
        first_day = 0.0 if regular or rng.random() < 0.55 else rng.uniform(0, span_days - 5)
        if regular or rng.random() < 0.7:
            last_day = float(span_days)
        else:
            last_day = rng.uniform(first_day + 3, span_days - 1)
        weight = (number + SHARE_OFFSET) ** -SHARE_EXPONENT * (
            1.0 if regular else rng.lognormvariate(0, 0.7)
        )
        players.append(
            Player(
                id=first_id + number - 1,
                name=USERNAME.format(number),
                skill=rng.gauss(0, 1),
                families=tuple(chosen),
                weight=weight,
                first_day=first_day,
                last_day=last_day,
            )
        )
    return players


class Pool:
    """The players of one family, drawn by their share of the matches."""

    def __init__(self, players: list[Player]) -> None:
        self.players = players
        self.cumulative = list(accumulate(p.weight for p in players))

    def draw(self, rng: random.Random, *, day: float, taken: set[int]) -> Player:
        total = self.cumulative[-1]
        for _ in range(200):
            player = self.players[bisect_left(self.cumulative, rng.random() * total)]
            if player.id not in taken and player.active(day):
                return player
        raise RuntimeError(f"nobody free to play on day {day:.1f}")


# -- the matches ---------------------------------------------------------------------------------


@dataclass
class HandPlayed:
    hakem: int
    winner: int
    points: int
    kot: bool = False
    hakem_kot: bool = False
    outcome: str | None = None
    tricks_won: list[int] = field(default_factory=list)


@dataclass
class MatchPlayed:
    variant: str
    target: int
    players: list[Player]
    left: list[int]
    scores: list[int]
    winner: int
    hands: list[HandPlayed]
    created_at: datetime
    finished_at: datetime


def match_play(
    *, variant: str, players: list[Player], finished_at: datetime, rng: random.Random
) -> MatchPlayed:
    """The hands of a match as summary rows, each side winning a hand with a probability that
    grows with its players' hidden skill, until a side reaches the target."""
    from games.engine import get_variant

    rules = get_variant(variant)
    court_piece = rules.family == "court-piece"
    target = 1 if court_piece else 7
    strength = [
        math.exp(
            0.6 * sum(players[s].skill for s in rules.seats_of(side)) / len(rules.seats_of(side))
        )
        for side in range(rules.sides)
    ]
    scores = [0] * rules.sides
    hakem = rng.randrange(rules.players)
    hands: list[HandPlayed] = []
    tricks = rules.hand_size
    while max(scores) < target:
        winner = rng.choices(range(rules.sides), strength)[0]
        hakem_side = rules.side_of(hakem)
        if court_piece:
            roll = rng.random()
            outcome = "52-court" if roll < 0.01 else "court" if roll < 0.18 else "won"
            points = 2 if outcome == "52-court" else int(outcome == "court")
            hand = HandPlayed(hakem=hakem, winner=winner, points=points, outcome=outcome)
        else:
            kot = rng.random() < 0.1
            hakem_kot = kot and winner != hakem_side and rng.random() < 0.4
            points = 3 if hakem_kot else 2 if kot else 1
            hand = HandPlayed(
                hakem=hakem, winner=winner, points=points, kot=kot, hakem_kot=hakem_kot
            )
        hand.tricks_won = _tricks_split(rules, winner, tricks, kot=hand.kot, rng=rng)
        hands.append(hand)
        scores[winner] = min(target, scores[winner] + points)
        if winner != hakem_side:
            hakem = (hakem + 1) % rules.players
    left = [s for s in range(rules.players) if rng.random() < LEAVE_SHARE]
    minutes = sum(rng.uniform(*HAND_MINUTES) for _ in hands)
    return MatchPlayed(
        variant=variant,
        target=target,
        players=players,
        left=left,
        scores=scores,
        winner=scores.index(max(scores)),
        hands=hands,
        created_at=finished_at - timedelta(minutes=minutes),
        finished_at=finished_at,
    )


def _tricks_split(rules: Any, winner: int, tricks: int, *, kot: bool, rng: random.Random) -> list:
    """Tricks per seat: the winning side's seven (or all of them for a Kot), the rest shared."""
    won = tricks if kot else 7
    per_seat = [0] * rules.players
    for _ in range(won):
        per_seat[rng.choice(rules.seats_of(winner))] += 1
    others = [s for s in range(rules.players) if rules.side_of(s) != winner]
    for _ in range(rng.randint(0, tricks - won)):
        per_seat[rng.choice(others)] += 1
    return per_seat


# -- writing -------------------------------------------------------------------------------------


class CopyRows:
    """Rows of one model for ``COPY``: every concrete column, with the model's own defaults where
    a row names no value (so a field added later still gets its default)."""

    def __init__(self, model: Any, **fixed: Any) -> None:
        from django.db.models import JSONField
        from psycopg.types.json import Jsonb

        self._jsonb = Jsonb
        fields = model._meta.concrete_fields
        self.table = model._meta.db_table
        self.columns = [f.column for f in fields]
        self._position = {f.attname: i for i, f in enumerate(fields)}
        self._json = {f.attname for f in fields if isinstance(f, JSONField)}
        template = model(**fixed)
        self._base = [self._value(f.attname, getattr(template, f.attname)) for f in fields]
        self.rows: list[list[Any]] = []

    def _value(self, name: str, value: Any) -> Any:
        return self._jsonb(value) if name in self._json and value is not None else value

    def add(self, **values: Any) -> None:
        row = self._base.copy()
        for name, value in values.items():
            row[self._position[name]] = self._value(name, value)
        self.rows.append(row)

    def write(self, cursor: Any) -> int:
        from psycopg import sql

        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(self.table), sql.SQL(", ").join(map(sql.Identifier, self.columns))
        )
        with cursor.copy(statement) as copy:
            for row in self.rows:
                copy.write_row(row)
        written, self.rows = len(self.rows), []
        return written


def next_ids(*models: Any) -> dict[Any, int]:
    from django.db import connection

    ids = {}
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f'SELECT COALESCE(MAX(id), 0) + 1 FROM "{model._meta.db_table}"')
            ids[model] = cursor.fetchone()[0]
    return ids


def sequences_move(*models: Any) -> None:
    """Move each table's id sequence past the ids given here."""
    from django.db import connection

    with connection.cursor() as cursor:
        for model in models:
            table = model._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                f'(SELECT MAX(id) FROM "{table}"))'
            )


def fill(args: argparse.Namespace) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import connection, transaction
    from django.utils import timezone

    from games.engine import get_variant
    from games.models import Hand, Match, MatchSeat, Rating, RatingChange, Seat, Table
    from games.ratings.model import shown

    User = get_user_model()  # noqa: N806
    rng = random.Random(f"{args.seed}:fill")
    now = timezone.now().replace(microsecond=0)
    start = now - SPAN
    ids = next_ids(User, Table, Seat, Match, MatchSeat, Hand, RatingChange, Rating)
    players = players_make(count=args.users, rng=rng, first_id=ids[User])

    users = CopyRows(User, password=make_password(PASSWORD), is_active=True)
    for p in players:
        users.add(
            id=p.id,
            username=p.name,
            display_name=p.display_name,
            email=f"{p.name}@bench.invalid",
            date_joined=start + timedelta(days=p.first_day) - timedelta(days=1),
        )
    with transaction.atomic(), connection.cursor() as cursor:
        users.write(cursor.cursor)
    print(f"  {len(players)} players", flush=True)

    pools = {v: Pool([p for p in players if v in p.families]) for v in VARIANT_WEIGHTS}
    families = list(VARIANT_WEIGHTS)
    weights = list(VARIANT_WEIGHTS.values())
    skills: dict[tuple[int, str], list[Any]] = {}  # mu, sigma, games, wins, last played
    writer = MatchWriter(ids)
    began = time.perf_counter()
    for batch_start in range(0, args.matches, args.batch):
        batch = range(batch_start, min(batch_start + args.batch, args.matches))
        for index in batch:
            variant = rng.choices(families, weights)[0]
            fraction = (index + rng.random()) / args.matches
            day = fraction * SPAN.days
            taken: set[int] = set()
            chosen = []
            for _ in range(get_variant(variant).players):
                player = pools[variant].draw(rng, day=day, taken=taken)
                taken.add(player.id)
                chosen.append(player)
            played = match_play(
                variant=variant,
                players=chosen,
                finished_at=start + SPAN * fraction,
                rng=rng,
            )
            writer.add(played, ratings_rate(played, skills))
        with transaction.atomic(), connection.cursor() as cursor:
            writer.write(cursor.cursor)
        elapsed = time.perf_counter() - began
        print(
            f"  {batch.stop}/{args.matches} matches, {elapsed:.0f} s, "
            f"about {elapsed / batch.stop * (args.matches - batch.stop):.0f} s to go",
            flush=True,
        )
    ratings = CopyRows(Rating, mu=0.0, sigma=0.0, rating=0)
    for number, ((user_id, variant), (mu, sigma, games, wins, last)) in enumerate(
        sorted(skills.items())
    ):
        ratings.add(
            id=ids[Rating] + number,
            user_id=user_id,
            variant=variant,
            mu=mu,
            sigma=sigma,
            rating=shown(mu, sigma),
            games=games,
            wins=wins,
            last_played_at=last,
        )
    with transaction.atomic(), connection.cursor() as cursor:
        ratings.write(cursor.cursor)
        sequences_move(User, Table, Seat, Match, MatchSeat, Hand, RatingChange, Rating)
    lobby_fill(args=args, players=players, now=now, rng=rng)


def ratings_rate(played: MatchPlayed, skills: dict) -> list[tuple[Any, Any, bool]]:
    """Each seat's skill before and after the match and whether it won, with the site's model;
    ``skills`` moves on to the values after."""
    from games.ratings.model import MU, SIGMA, Skill, match_outcome, rate

    outcome = match_outcome(
        variant=played.variant,
        winner_side=played.winner,
        scores=played.scores,
        left=played.left,
    )
    keys = [(p.id, played.variant) for p in played.players]
    before = [Skill(*skills[key][:2]) if key in skills else Skill(MU, SIGMA) for key in keys]
    after = rate(outcome, before)
    changes = []
    for seat, key in enumerate(keys):
        won = outcome.won(seat)
        row = skills.setdefault(key, [MU, SIGMA, 0, 0, None])
        row[0], row[1] = after[seat].mu, after[seat].sigma
        row[2] += 1
        row[3] += int(won)
        row[4] = played.finished_at
        changes.append((before[seat], after[seat], won))
    return changes


_DECKS: list[str] = []


def deck_text(rng: random.Random) -> str:
    """A deal order: one of a few shuffles (no page measured reads it; the row has its width)."""
    if not _DECKS:
        from games.engine import FULL_DECK

        cards = [card.text for card in FULL_DECK]
        shuffler = random.Random("decks")
        for _ in range(64):
            shuffler.shuffle(cards)
            _DECKS.append(" ".join(cards))
    return rng.choice(_DECKS)


class MatchWriter:
    """The rows of a batch of matches: its tables and their seats, the matches, their seats,
    hands and rating changes; ``write`` sends them with ``COPY``."""

    def __init__(self, ids: dict[Any, int]) -> None:
        from games.engine.court_piece import CourtPieceOptions
        from games.models import Hand, Match, MatchSeat, RatingChange, Seat, Table

        self.ids = dict(ids)
        self.court_piece_options = CourtPieceOptions().to_json()
        self.rng = random.Random("rows")
        self.tables = CopyRows(
            Table,
            status=Table.Status.PLAYING,
            rated=True,
            turn_clock_seconds=CLOCK_SECONDS,
        )
        self.table_seats = CopyRows(Seat, table_id=0, index=0)
        self.matches = CopyRows(
            Match,
            status=Match.Status.FINISHED,
            rated=True,
            clock_seconds=CLOCK_SECONDS,
            target=7,
        )
        self.seats = CopyRows(MatchSeat, match_id=0, index=0, name="")
        self.hands = CopyRows(
            Hand, match_id=0, number=0, hakem=0, dealer=0, deck="", status=Hand.Status.FINISHED
        )
        self.changes = CopyRows(
            RatingChange,
            match_id=0,
            user_id=0,
            variant="",
            seat=0,
            mu_before=0.0,
            sigma_before=0.0,
            mu_after=0.0,
            sigma_after=0.0,
            rating_before=0,
            rating_after=0,
        )

    def _take(self, model: Any) -> int:
        value = self.ids[model]
        self.ids[model] += 1
        return value

    def add(self, played: MatchPlayed, changes: list[tuple[Any, Any, bool]]) -> None:
        from games.models import Hand, Match, MatchSeat, RatingChange, Seat, Table
        from games.ratings.model import shown

        rng = self.rng
        court_piece = played.variant == "court-piece"
        options = self.court_piece_options if court_piece else {}
        table_id = self._take(Table)
        names = [p.played_name for p in played.players]
        self.tables.add(
            id=table_id,
            name=f"{names[0]}'s table",
            variant=played.variant,
            target=played.target,
            options=options,
            created_by_id=played.players[0].id,
            invite_code=secrets.token_urlsafe(16),
            created_at=played.created_at - timedelta(minutes=2),
            seats_changed_at=played.created_at,
        )
        match_id = self._take(Match)
        self.matches.add(
            id=match_id,
            table_id=table_id,
            variant=played.variant,
            target=played.target,
            seed=rng.getrandbits(63),
            options=options,
            status=Match.Status.FINISHED,
            version=len(played.hands) * 55,
            scores=played.scores,
            winner_side=played.winner,
            created_at=played.created_at,
            started_at=played.created_at,
            finished_at=played.finished_at,
        )
        for seat, player in enumerate(played.players):
            self.table_seats.add(
                id=self._take(Seat), table_id=table_id, index=seat, user_id=player.id
            )
            self.seats.add(
                id=self._take(MatchSeat),
                match_id=match_id,
                index=seat,
                user_id=player.id,
                name=names[seat],
                status=MatchSeat.Status.LEFT if seat in played.left else MatchSeat.Status.PLAYING,
            )
        at = played.created_at
        step = (played.finished_at - played.created_at) / len(played.hands)
        players = len(played.players)
        for number, hand in enumerate(played.hands):
            self.hands.add(
                id=self._take(Hand),
                match_id=match_id,
                number=number,
                hakem=hand.hakem,
                dealer=(hand.hakem - 1) % players if court_piece else hand.hakem,
                seed=rng.getrandbits(63),
                deck=deck_text(rng),
                trump=rng.choice("SHDC"),
                tricks_won=hand.tricks_won,
                winner_side=hand.winner,
                points=hand.points,
                kot=hand.kot,
                hakem_kot=hand.hakem_kot,
                outcome=hand.outcome,
                started_at=at,
                finished_at=at + step,
            )
            at += step
        for seat, (before, after, won) in enumerate(changes):
            self.changes.add(
                id=self._take(RatingChange),
                match_id=match_id,
                user_id=played.players[seat].id,
                variant=played.variant,
                seat=seat,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=after.mu,
                sigma_after=after.sigma,
                rating_before=shown(before.mu, before.sigma),
                rating_after=shown(after.mu, after.sigma),
                won=won,
                created_at=played.finished_at,
            )

    def write(self, cursor: Any) -> None:
        for rows in (
            self.tables,
            self.table_seats,
            self.matches,
            self.seats,
            self.hands,
            self.changes,
        ):
            rows.write(cursor)


def lobby_fill(
    *,
    args: argparse.Namespace,
    players: list[Player],
    now: datetime,
    rng: random.Random,
) -> None:
    """Open public tables with some seats taken by active players (most of them rated, the
    newest an hour old at most), and rated matches in play with their players connected."""
    from django.db import transaction

    from games.engine import get_variant
    from games.models import Hand, Match, MatchConnection, MatchSeat, Seat, Table

    active = [p for p in players if p.last_day >= SPAN.days]
    # The regulars sit at tables now, as they play most; the others are drawn from the active.
    # (A small fill seats them again at other tables, as a player may wait at several.)
    sitting = cycle(
        [p for p in active if p.id - players[0].id < REGULARS]
        + rng.sample(active[REGULARS:], len(active) - REGULARS)
    )
    families = list(VARIANT_WEIGHTS)
    weights = list(VARIANT_WEIGHTS.values())
    with transaction.atomic():
        for number in range(args.open_tables + args.playing):
            in_play = number >= args.open_tables
            variant = rng.choices(families, weights)[0]
            rules = get_variant(variant)
            rated = in_play or rng.random() < 0.8
            court_piece = rules.family == "court-piece"
            people = [next(sitting) for _ in range(rules.players)]
            taken = rules.players if in_play else rng.randint(1, rules.players - 1)
            created_at = now - timedelta(minutes=rng.uniform(0, 60))
            table = Table.objects.create(
                name=f"Table {number + 1}",
                variant=variant,
                target=1 if court_piece else 7,
                turn_clock_seconds=CLOCK_SECONDS,
                rated=rated,
                status=Table.Status.PLAYING if in_play else Table.Status.OPEN,
                created_by_id=people[0].id,
                created_at=created_at,
                seats_changed_at=created_at,
            )
            Seat.objects.bulk_create(
                Seat(table=table, index=i, user_id=people[i].id if i < taken else None)
                for i in range(rules.players)
            )
            if not in_play:
                continue
            match = Match.objects.create(
                table=table,
                variant=variant,
                target=table.target,
                seed=rng.getrandbits(63),
                status=Match.Status.PLAYING,
                rated=True,
                clock_seconds=CLOCK_SECONDS,
                scores=[0] * rules.sides,
                created_at=created_at,
                started_at=created_at,
            )
            MatchSeat.objects.bulk_create(
                MatchSeat(
                    match=match,
                    index=i,
                    user_id=p.id,
                    name=p.played_name,
                )
                for i, p in enumerate(people)
            )
            Hand.objects.create(
                match=match, number=0, hakem=0, dealer=0, deck=deck_text(rng), started_at=now
            )
            MatchConnection.objects.bulk_create(
                MatchConnection(
                    match=match,
                    seat=i,
                    user_id=p.id,
                    channel_name=f"bench.ratings.{match.pk}.{i}",
                    connected_at=created_at,
                    seen_at=now,
                )
                for i, p in enumerate(people)
            )
    print(f"  {args.open_tables} open tables, {args.playing} matches in play", flush=True)


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def counts_print() -> None:
    from django.contrib.auth import get_user_model
    from django.db.models import Count, Max, Q
    from django.utils import timezone

    from games.models import Hand, Match, MatchSeat, Rating, RatingChange
    from games.ratings.model import LEADERBOARD_DAYS, LEADERBOARD_MIN_GAMES, PROVISIONAL_SIGMA

    since = timezone.now() - timedelta(days=LEADERBOARD_DAYS)
    print(
        f"rows: {get_user_model().objects.count()} users, "
        f"{Match.objects.filter(rated=True).count()} rated matches, "
        f"{MatchSeat.objects.count()} match seats, {Hand.objects.count()} hands, "
        f"{RatingChange.objects.count()} rating changes, {Rating.objects.count()} ratings"
    )
    boards = (
        Rating.objects.values("variant")
        .annotate(
            players=Count("pk"),
            ranked=Count(
                "pk",
                filter=Q(
                    games__gte=LEADERBOARD_MIN_GAMES,
                    sigma__lt=PROVISIONAL_SIGMA,
                    last_played_at__gte=since,
                ),
            ),
            most=Max("games"),
        )
        .order_by("variant")
    )
    for board in boards:
        print(
            f"  {board['variant']}: {board['players']} rated players, {board['ranked']} on the "
            f"leaderboard, most matches {board['most']}"
        )
    heaviest = (
        RatingChange.objects.values("user__username")
        .annotate(n=Count("pk"), families=Count("variant", distinct=True))
        .order_by("-n")[:3]
    )
    for row in heaviest:
        print(f"  {row['user__username']}: {row['n']} rated matches in {row['families']} families")


# -- checking ------------------------------------------------------------------------------------


def verify(args: argparse.Namespace) -> None:
    """Every rating equals its player's last change in the family and counts his changes; a
    sample of matches, rated again by the site's model from their stored "before" values and
    results, gives the stored "after" values. Exit 1 on a fault."""
    from django.db import connection

    from games.models import Match, MatchSeat, RatingChange
    from games.ratings.model import Skill, rate
    from games.ratings.services import match_outcome_of

    faults: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT r.user_id, r.variant FROM games_rating r
            JOIN (
                SELECT user_id, variant, COUNT(*) AS games, SUM(won::int) AS wins, MAX(id) AS last
                FROM games_ratingchange GROUP BY user_id, variant
            ) c ON c.user_id = r.user_id AND c.variant = r.variant
            JOIN games_ratingchange l ON l.id = c.last
            WHERE r.games <> c.games OR r.wins <> c.wins OR r.mu <> l.mu_after
               OR r.sigma <> l.sigma_after OR r.rating <> l.rating_after
               OR r.last_played_at <> l.created_at
            """
        )
        faults += [f"rating of user {u} in {v} is not his last change" for u, v in cursor]
    ids = list(Match.objects.filter(rated=True, status="finished").values_list("pk", flat=True))
    sample = random.Random(f"{args.seed}:verify").sample(ids, min(args.verify, len(ids)))
    seats: dict[int, list] = {}
    for seat in MatchSeat.objects.filter(match_id__in=sample).order_by("match_id", "index"):
        seats.setdefault(seat.match_id, []).append(seat)
    changes: dict[int, list] = {}
    for change in RatingChange.objects.filter(match_id__in=sample).order_by("seat"):
        changes.setdefault(change.match_id, []).append(change)
    for match in Match.objects.filter(pk__in=sample):
        stored = changes[match.pk]
        before = [Skill(c.mu_before, c.sigma_before) for c in stored]
        after = rate(match_outcome_of(match, seats[match.pk]), before)
        if [(s.mu, s.sigma) for s in after] != [(c.mu_after, c.sigma_after) for c in stored]:
            faults.append(f"match {match.pk}: rated again, other values")
    for fault in faults[:20]:
        print(fault)
    print(
        f"verify: ratings against their last changes, {len(sample)} matches rated again: "
        f"{len(faults)} faults"
    )
    if faults:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
