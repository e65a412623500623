"""Fill a database with matches for the history benchmark (``bench/history_bench.py``).

    .venv/bin/python -m bench.fill_history            # 10,000 finished matches + 20 in play
    .venv/bin/python -m bench.fill_history --reset    # drop the bench database and fill afresh

The database is ``BENCH_DATABASE_URL``, by default ``postgres://postgres@127.0.0.1:5432/hokm_bench``
(created when missing, then migrated; its name must contain "bench"). Every match is played in
memory by the engine, each seat deciding with the greedy computer player on its own view, and
stored as the site stores it: the rows that ``games.play.services.match_seats_store``,
``hand_store_new`` and ``hand_store_progress`` write (the whole hand at once, as a record import
does), built here and written with one ``bulk_create`` per table and batch. The check at the end
stores a sample again through those helpers themselves and compares every row.

What it makes, all from ``--seed`` (the same arguments give the same matches):

- ``--users`` players (``player001`` ...) and one ``bench`` user (password ``bench``) who sits in
  ``--bench-share`` of the matches, so his "My games" runs to hundreds of pages;
- mostly ``hokm4`` matches, some ``hokm3``, ``hokm2`` and ``hokm2-draw``, about one in three
  with computer players, one ``hokm4`` match in ten with partners drawn (R2.3);
- small targets (1, 2 or 3 points) for most matches, so that the fill takes minutes, and the
  default 7 points (R7.1) for one match in ten: those have 10 to 20 hands, the long match pages
  and replays the benchmark needs;
- ``created_at`` spread over the two years before the fill, in id order, for the date filters;
- ``--playing`` matches still being played (left mid-hand), the bench user in each.

It resumes where it stopped: matches are written in batches of ``--batch``, one transaction
each, and a second run adds only the matches missing. At the end it runs ``VACUUM ANALYZE`` (so
the planner has statistics, as autovacuum would give a live site) and checks a sample: each
sampled match must rebuild with ``match_state_build`` to its stored scores, and its
``hokm-record/1`` export must pass the engine's record checker.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bench._django import database_create, database_describe, is_postgresql, settings_prepare

VARIANT_WEIGHTS = {"hokm4": 70, "hokm3": 10, "hokm2": 10, "hokm2-draw": 10}
TARGET_WEIGHTS = {1: 45, 2: 25, 3: 20, 7: 10}
COMPUTER_SHARE = 0.3
PARTNER_DRAW_SHARE = 0.1
SPAN = timedelta(days=730)
#: Seconds a decision takes, for plausible timestamps (started, played, finished).
ACTION_SECONDS = 3
BENCH_USERNAME = "bench"
BENCH_PASSWORD = "bench"  # noqa: S105 - a throwaway account in a throwaway database


@dataclass
class PlayedHand:
    number: int
    seed: int | None
    dealt: Any  # HandState as dealt, before any action
    last: Any  # HandState after its last action (the dealt state when none was taken)
    actions: int
    started_at: datetime
    finished_at: datetime


@dataclass
class PlayedMatch:
    index: int
    variant: str
    target: int
    seed: int
    partner_draw: bool
    draw_json: dict
    seats: list  # SeatSpec, in play order
    hands: list[PlayedHand]
    scores: list[int]
    winner: int | None
    version: int
    created_at: datetime
    finished_at: datetime | None
    clock_seconds: int | None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fill_history", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--matches", type=int, default=10_000, help="finished matches (10000)")
    parser.add_argument("--playing", type=int, default=20, help="matches in play (20)")
    parser.add_argument("--users", type=int, default=200, help="players besides bench (200)")
    parser.add_argument(
        "--bench-share", type=float, default=0.35, help="share of matches with bench (0.35)"
    )
    parser.add_argument("--batch", type=int, default=250, help="matches per transaction (250)")
    parser.add_argument("--seed", type=int, default=5, help="seed of everything generated (5)")
    parser.add_argument("--verify", type=int, default=100, help="matches checked at the end (100)")
    parser.add_argument(
        "--reset", action="store_true", help="drop and recreate the (bench) database first"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings_prepare()
    database_create(reset=args.reset)
    import django

    django.setup()
    from django.core.management import call_command

    began = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    print(f"database: {database_describe()}")
    users = users_ensure(count=args.users, seed=args.seed)
    filled = fill(args=args, users=users)
    fill_seconds = time.perf_counter() - began
    if filled:
        vacuum_analyze()
    total_seconds = time.perf_counter() - began
    counts_print()
    print(
        f"fill: {filled} matches written in {fill_seconds:.1f} s "
        f"({total_seconds:.1f} s with VACUUM ANALYZE)"
    )
    verify(args=args, users=users)


# -- users ---------------------------------------------------------------------------------------


def users_ensure(*, count: int, seed: int) -> list:
    """The bench user first, then the pool; created once (the password hashed once for all)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    User = get_user_model()  # noqa: N806
    names = [BENCH_USERNAME] + [f"player{i:03d}" for i in range(1, count + 1)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    missing = [name for name in names if name not in existing]
    if missing:
        from django.utils import timezone

        joined = timezone.now().replace(microsecond=0)
        password = make_password(BENCH_PASSWORD)
        rng = random.Random(f"{seed}:users")
        User.objects.bulk_create(
            User(
                username=name,
                password=password,
                # Half the players chose a display name, which is the name they play under.
                display_name=f"Player {name[6:]}"
                if name != BENCH_USERNAME and rng.random() < 0.5
                else "",
                email=f"{name}@bench.invalid",
                date_joined=joined,
            )
            for name in missing
        )
    by_name = {user.username: user for user in User.objects.filter(username__in=names)}
    _EPOCH[:] = [by_name[BENCH_USERNAME].date_joined]
    return [by_name[name] for name in names]


# -- playing matches in memory -------------------------------------------------------------------


def match_play(*, index: int, total: int, users: list, args: argparse.Namespace, playing: bool):
    """Play match number ``index`` with the engine; a match ``playing`` stops mid-hand."""
    from games.bots import greedy_action
    from games.engine import get_variant, match_apply, new_match, next_hand, view
    from games.lobby.selectors import computer_player_name, player_name
    from games.models import ComputerLevel
    from games.play.services import SeatSpec

    rng = random.Random(f"{args.seed}:match:{index}")
    variant = get_variant(_weighted(rng, VARIANT_WEIGHTS))
    target = _weighted(rng, TARGET_WEIGHTS)
    partner_draw = variant.partner_draw_allowed and rng.random() < PARTNER_DRAW_SHARE
    players = variant.players

    # Who sits where (play order, as stored after any R2.3 re-seating).
    bench, pool = users[0], users[1:]
    people: list = [None] * players
    if playing or rng.random() < args.bench_share:
        people[rng.randrange(players)] = bench
    computers: set[int] = set()
    if rng.random() < COMPUTER_SHARE:
        free = [seat for seat in range(players) if people[seat] is None]
        wanted = rng.randint(1, players - 1)
        computers = set(rng.sample(free, min(wanted, len(free))))
    chosen = {id(bench)}
    for seat in range(players):
        if people[seat] is None and seat not in computers:
            # Some players play far more than others: a few regular partners and opponents.
            while True:
                user = pool[min(int(rng.paretovariate(1.2)) - 1, len(pool) - 1)]
                user = user if rng.random() < 0.5 else rng.choice(pool)
                if id(user) not in chosen:
                    break
            chosen.add(id(user))
            people[seat] = user
    seats = []
    for seat in range(players):
        if seat in computers:
            level = rng.choice(ComputerLevel.values)
            seats.append(
                SeatSpec(
                    name=str(computer_player_name(level=level, index=seat)), computer_level=level
                )
            )
        else:
            seats.append(SeatSpec(name=player_name(people[seat]), user=people[seat]))

    # When: spread over SPAN in index order, so ids and dates grow together.
    now = _fill_epoch()
    step = SPAN / total
    created_at = now - SPAN + step * index + step * 0.5 * rng.random()
    clock = created_at

    match_seed = rng.getrandbits(63)
    state = new_match(variant, seed=match_seed, target=target, partner_draw=partner_draw)
    draw_json = state.draw.to_json()
    hands: list[PlayedHand] = []
    version = 0
    stop_at = None
    while True:
        dealt, actions, started = state.hand, 0, clock
        if playing and (state.scores != tuple(0 for _ in state.scores) or target == 1):
            # A match still in play: stop somewhere in this hand (perhaps before any action).
            stop_at = rng.randrange(0, 30)
        while not state.hand.is_over and (stop_at is None or actions < stop_at):
            seat = state.hand.to_act
            state = match_apply(state, greedy_action(view(state.hand, seat)))
            actions += 1
            clock += timedelta(seconds=ACTION_SECONDS)
        version += actions
        hands.append(
            PlayedHand(
                number=len(hands),
                seed=state.hand_seed,
                dealt=dealt,
                last=state.hand,
                actions=actions,
                started_at=started,
                finished_at=clock,
            )
        )
        if stop_at is not None or state.is_over:
            break
        state = next_hand(state)
        version += 1  # match_deal_next_hand bumps the version
        clock += timedelta(seconds=ACTION_SECONDS)
    if stop_at is not None and state.hand.is_over and not state.is_over:
        # The hand ended exactly at the stop: the next one is dealt, as the worker would.
        state = next_hand(state)
        version += 1
        hands.append(
            PlayedHand(len(hands), state.hand_seed, state.hand, state.hand, 0, clock, clock)
        )
    return PlayedMatch(
        index=index,
        variant=variant.name,
        target=target,
        seed=match_seed,
        partner_draw=partner_draw,
        draw_json=draw_json,
        seats=seats,
        hands=hands,
        scores=list(state.scores),
        winner=state.winner,
        version=version,
        created_at=created_at,
        finished_at=clock if state.is_over else None,
        clock_seconds=rng.choice([None, None, 20, 30, 60]),
    )


#: "Now" for the fill: the end of SPAN. It is the bench user's ``date_joined``, so a resumed fill
#: (or the check, in a later run) dates every match as the first run did.
_EPOCH: list[datetime] = []


def _fill_epoch() -> datetime:
    return _EPOCH[0]


def _weighted(rng: random.Random, weights: dict) -> Any:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


# -- storing ---------------------------------------------------------------------------------------


def matches_store(played: list[PlayedMatch], *, helpers: bool = False) -> list:
    """Store a batch of played matches in one transaction; returns the match rows.

    The rows are those the services write: the match as ``match_create`` and ``_apply_locked``
    leave it, its seats as ``match_seats_store``, each hand as ``hand_store_new`` then
    ``hand_store_progress`` (the whole hand at once, as a record import does). With ``helpers``
    those very helpers write them, about four queries a hand; by default the same rows are built
    here and written with one ``bulk_create`` per table, a few queries a batch.
    :func:`verify` stores sampled matches both ways and compares the rows.
    """
    from django.db import transaction

    from games.models import CardPlay, Hand, Match, MatchSeat, Trick
    from games.play.services import hand_store_new, hand_store_progress, match_seats_store

    with transaction.atomic():
        rows = Match.objects.bulk_create(match_row(p) for p in played)
        if helpers:
            for match, p in zip(rows, played, strict=True):
                match_seats_store(match=match, seats=p.seats)
                for hand in p.hands:
                    row = hand_store_new(
                        match=match,
                        number=hand.number,
                        state=hand.dealt,
                        seed=hand.seed,
                        at=hand.started_at,
                    )
                    if hand.actions:
                        hand_store_progress(
                            hand=row, before=hand.dealt, after=hand.last, at=hand.finished_at
                        )
            return rows
        seats, hands, tricks, plays = [], [], [], []
        for match, p in zip(rows, played, strict=True):
            seats += [
                MatchSeat(
                    match=match,
                    index=index,
                    user=spec.user,
                    computer_level=spec.computer_level,
                    name=spec.name,
                )
                for index, spec in enumerate(p.seats)
            ]
            for hand in p.hands:
                hand_row, hand_tricks = hand_rows(match, hand)
                hands.append(hand_row)
                for trick_row, trick_plays in hand_tricks:
                    tricks.append(trick_row)
                    plays += trick_plays
        MatchSeat.objects.bulk_create(seats)
        Hand.objects.bulk_create(hands)
        Trick.objects.bulk_create(tricks, batch_size=5000)
        CardPlay.objects.bulk_create(plays, batch_size=5000)
    return rows


def match_row(p: PlayedMatch):
    """The match row as ``match_create`` stores it and the last action leaves it."""
    from games.models import Match

    return Match(
        variant=p.variant,
        target=p.target,
        seed=p.seed,
        partner_draw=p.partner_draw,
        hakem_draw=p.draw_json,
        status=Match.Status.FINISHED if p.winner is not None else Match.Status.PLAYING,
        version=p.version,
        scores=p.scores,
        winner_side=p.winner,
        clock_seconds=p.clock_seconds,
        created_at=p.created_at,
        started_at=p.created_at,
        finished_at=p.finished_at,
    )


def hand_rows(match, hand: PlayedHand) -> tuple[Any, list[tuple[Any, list]]]:
    """The unsaved rows ``hand_store_new`` and ``hand_store_progress`` write for one hand: the
    hand, and each trick with its plays. The same fields from the same engine states; the
    services' own ``_tricks_of`` and the engine's ``discard_count`` split the tricks and the
    discards."""
    from games.engine import discard_count
    from games.models import CardPlay, Hand, Trick, deck_to_text
    from games.play.services import _tricks_of

    dealt, last = hand.dealt, hand.last
    variant = dealt.variant
    row = Hand(
        match=match,
        number=hand.number,
        hakem=dealt.hakem,
        dealer=dealt.dealer,
        seed=hand.seed,
        deck=deck_to_text(dealt.deck),
        discards=[[] for _ in range(variant.players)] if variant.has_draw else [],
        keep_first=[],
        tricks_won=list(dealt.tricks_won),
        started_at=hand.started_at,
    )
    if not hand.actions:
        return row, []
    row.trump = last.trump.value if last.trump else None
    if variant.has_draw:
        row.discards = [
            [card.text for card in last.discards[seat][: discard_count(last, seat)]]
            if seat in last.discarded_by
            else []
            for seat in range(variant.players)
        ]
        row.keep_first = list(last.keep_first)
    row.tricks_won = list(last.tricks_won)
    result = last.result
    if result is not None:
        row.status = Hand.Status.FINISHED
        row.winner_side = result.winner
        row.points = result.points
        row.kot = result.kot
        row.hakem_kot = result.hakem_kot
        row.finished_at = hand.finished_at
    tricks = []
    for number, trick in enumerate(_tricks_of(last)):
        trick_row = Trick(hand=row, number=number, leader=trick.leader, winner=trick.winner)
        tricks.append(
            (
                trick_row,
                [
                    CardPlay(
                        hand=row,
                        trick=trick_row,
                        seat=(trick.leader + order) % variant.players,
                        order=order,
                        card=card.text,
                        played_at=hand.finished_at,
                    )
                    for order, card in enumerate(trick.cards)
                ],
            )
        )
    return row, tricks


def fill(*, args: argparse.Namespace, users: list) -> int:
    """Write the matches missing; returns how many were written."""
    from games.models import Match

    total = args.matches + args.playing
    playing = _playing_indices(args)
    existing = Match.objects.count()
    if existing >= total:
        print(f"already filled: {existing} matches (use --reset to fill afresh)")
        return 0
    if existing:
        print(f"resuming after {existing} matches")
    began = time.perf_counter()
    for start in range(existing, total, args.batch):
        indices = range(start, min(start + args.batch, total))
        played = [
            match_play(index=i, total=total, users=users, args=args, playing=i in playing)
            for i in indices
        ]
        matches_store(played)
        done = indices.stop - existing
        elapsed = time.perf_counter() - began
        print(
            f"  {indices.stop}/{total} matches, {elapsed:.0f} s, "
            f"about {elapsed / done * (total - indices.stop):.0f} s to go",
            flush=True,
        )
    return total - existing


def _playing_indices(args: argparse.Namespace) -> set[int]:
    """The matches left in play: spread over the most recent ones, as unfinished matches are."""
    total = args.matches + args.playing
    return {total - 1 - 37 * k for k in range(args.playing)}


def vacuum_analyze() -> None:
    from django.db import connection

    if is_postgresql():
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def counts_print() -> None:
    from games.models import CardPlay, Hand, Match, MatchSeat, Trick

    bench_matches = MatchSeat.objects.filter(user__username=BENCH_USERNAME).count()
    finished = Match.objects.filter(status=Match.Status.FINISHED).count()
    print(
        f"rows: {Match.objects.count()} matches ({finished} finished), "
        f"{Hand.objects.count()} hands, {Trick.objects.count()} tricks, "
        f"{CardPlay.objects.count()} card plays; {BENCH_USERNAME!r} plays {bench_matches}"
    )


# -- checking ------------------------------------------------------------------------------------


def verify(*, args: argparse.Namespace, users: list) -> None:
    """Check a sample of matches; exit 1 on a fault.

    Each sampled match must rebuild with ``match_state_build`` to its stored scores and status,
    and its ``hokm-record/1`` export must pass the engine's record checker. Then the match is
    played again from its index and stored a second time through the services' storage helpers,
    in a transaction rolled back afterwards: every seat, hand, trick and play row must be the
    same as the bulk-written one.
    """
    from django.db import transaction

    from games.engine.record import check_record
    from games.history.records import match_export_record
    from games.models import Match
    from games.play.selectors import match_state_build

    ids = list(Match.objects.order_by("pk").values_list("pk", flat=True))
    index_of = {pk: index for index, pk in enumerate(ids)}
    total = args.matches + args.playing
    rng = random.Random(f"{args.seed}:verify")
    chosen = set(rng.sample(ids, min(args.verify, len(ids))))
    chosen |= set(Match.objects.filter(status=Match.Status.PLAYING).values_list("pk", flat=True))
    playing = _playing_indices(args)
    faults = []
    for match in Match.objects.filter(pk__in=chosen).order_by("pk"):
        state = match_state_build(match=match)
        finished = match.status == Match.Status.FINISHED
        verdict = check_record(match_export_record(match=match))
        problems = []
        if list(state.scores) != match.scores or state.winner != match.winner_side:
            problems.append(f"rebuilt scores {list(state.scores)}, stored {match.scores}")
        if state.is_over != finished:
            problems.append("rebuilt state and stored status disagree")
        if not verdict.get("valid"):
            problems.append(f"record fault: {verdict}")
        elif verdict["complete"] != finished or (finished and verdict["score"] != match.scores):
            problems.append(f"record verdict {verdict['complete']}, {verdict['score']}")
        index = index_of[match.pk]
        again = match_play(
            index=index, total=total, users=users, args=args, playing=index in playing
        )
        if again.seed != match.seed:
            problems.append("played again from its index, it is another match")
        else:
            with transaction.atomic():
                (twin,) = matches_store([again], helpers=True)
                if rows_snapshot(twin) != rows_snapshot(match):
                    problems.append("the storage helpers write other rows")
                transaction.set_rollback(True)
        if problems:
            faults.append(f"match {match.pk}: {'; '.join(problems)}")
    for fault in faults:
        print(fault)
    print(
        f"verify: {len(chosen)} matches rebuilt, records checked and rows compared with the "
        f"storage helpers' own: {len(faults)} faults"
    )
    if faults:
        raise SystemExit(1)


def rows_snapshot(match) -> dict[str, list]:
    """Everything stored for a match below the match row, without ids."""
    from games.models import CardPlay, Hand, MatchSeat, Trick

    hand_fields = [f.attname for f in Hand._meta.concrete_fields if f.name not in ("id", "match")]
    return {
        "seats": list(
            MatchSeat.objects.filter(match=match)
            .order_by("index")
            .values_list("index", "user_id", "computer_level", "name", "status", "timeouts")
        ),
        "hands": list(
            Hand.objects.filter(match=match).order_by("number").values_list(*hand_fields)
        ),
        "tricks": list(
            Trick.objects.filter(hand__match=match)
            .order_by("hand__number", "number")
            .values_list("hand__number", "number", "leader", "winner")
        ),
        "plays": list(
            CardPlay.objects.filter(hand__match=match)
            .order_by("hand__number", "trick__number", "order")
            .values_list("hand__number", "trick__number", "seat", "order", "card", "played_at")
        ),
    }


if __name__ == "__main__":
    main()
