"""Every change of a rating: a rated match finished, a void, a void lifted, the rebuild.

A finished rated match changes its players' ratings in the transaction that finishes it
(``games.play.services``), with the rating rows locked in the order of their users' ids: two
matches finishing at once with a player in common wait for each other instead of one losing the
other's update, and cannot deadlock. ``RatingChange`` keeps each change with the values before and
after; its ids follow the order of the changes to each player, which ``ratings_rebuild`` replays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.engine import get_variant
from games.models import Match, MatchSeat, Rating, RatingChange
from games.ratings.model import (
    MU,
    SIGMA,
    Outcome,
    Skill,
    give_again,
    is_provisional,
    match_outcome,
    rate,
    shown,
    take_back,
)

__all__ = [
    "RatingError",
    "match_outcome_of",
    "match_ratings_apply",
    "match_ratings_restore",
    "match_ratings_void",
    "ratings_rebuild",
]


class RatingError(Exception):
    """A rating change that cannot be made (a void of a match whose changes are taken back)."""


def match_outcome_of(match: Match, seats: Sequence[MatchSeat]) -> Outcome:
    """The rated outcome of a finished match: its result, and who left it (R8.1, a loss).

    A side that resigned is placed last, alone, whatever its points: in ``hokm3`` it may have more
    than the opponent who did not win, who still places above it.
    """
    left = [s.index for s in seats if s.user_id is not None and s.status == MatchSeat.Status.LEFT]
    scores = list(match.scores)
    if match.ended_by == Match.EndedBy.RESIGN and match.resigned_seat is not None:
        scores[get_variant(match.variant).side_of(match.resigned_seat)] = -1  # below any score
    return match_outcome(
        variant=match.variant, winner_side=match.winner_side, scores=scores, left=left
    )


def _locked_ratings(variant: str, user_ids: Iterable[int]) -> dict[int, Rating]:
    """The rating rows of ``user_ids`` in ``variant``, made if missing, locked in id order."""
    ids = sorted(set(user_ids))
    Rating.objects.bulk_create(
        [
            Rating(user_id=uid, variant=variant, mu=MU, sigma=SIGMA, rating=shown(MU, SIGMA))
            for uid in ids
        ],
        ignore_conflicts=True,
    )
    rows = (
        Rating.objects.select_for_update()
        .filter(variant=variant, user_id__in=ids)
        .order_by("user_id")
    )
    return {row.user_id: row for row in rows}


def match_ratings_apply(
    *, match: Match, seats: Sequence[MatchSeat], now: datetime | None = None
) -> list[dict[str, Any]]:
    """Change the ratings of a rated match's players once: call in the transaction that finishes
    it, with its row lock held. Returns each person's change, for the end-of-match event:
    ``{"seat", "before", "after", "provisional"}`` in seat order."""
    return [
        {
            "seat": change.seat,
            "before": change.rating_before,
            "after": change.rating_after,
            "provisional": is_provisional(change.sigma_after),
        }
        for change in _match_rate(match=match, seats=seats, now=now or timezone.now())
    ]


def _match_rate(*, match: Match, seats: Sequence[MatchSeat], now: datetime) -> list[RatingChange]:
    """:func:`match_ratings_apply`'s work: the MATCH changes written, in seat order (none for a
    casual or void match, or one rated already)."""
    if not match.rated or match.voided:
        return []
    seats = sorted(seats, key=lambda s: s.index)
    people = [s for s in seats if s.user_id is not None]
    if (
        not people
        or RatingChange.objects.filter(match=match, kind=RatingChange.Kind.MATCH).exists()
    ):
        return []  # rated already (a retry of the same finish): exactly once
    rows = _locked_ratings(match.variant, (s.user_id for s in people if s.user_id is not None))
    outcome = match_outcome_of(match, seats)
    before = [
        Skill(rows[s.user_id].mu, rows[s.user_id].sigma) if s.user_id is not None else Skill()
        for s in seats
    ]
    after = rate(outcome, before)
    changes: list[RatingChange] = []
    for seat in people:
        assert seat.user_id is not None
        row = rows[seat.user_id]
        old, new = before[seat.index], after[seat.index]
        won = outcome.won(seat.index)
        row.last_played_at = now
        changes.append(
            _rating_move(
                row,
                old,
                new,
                match=match,
                seat=seat.index,
                kind=RatingChange.Kind.MATCH,
                sign=1,
                won=won,
                now=now,
            )
        )
    Rating.objects.bulk_update(
        list(rows.values()), ["mu", "sigma", "rating", "games", "wins", "last_played_at"]
    )
    return RatingChange.objects.bulk_create(changes)


def _rating_move(
    row: Rating,
    old: Skill,
    new: Skill,
    *,
    match: Match,
    seat: int,
    kind: RatingChange.Kind,
    sign: int,
    won: bool,
    now: datetime,
) -> RatingChange:
    """Move ``row`` (locked) from ``old`` to ``new``, counting the match ``sign`` times (1 for
    a match or a restore, -1 for a void), and the change to store for it."""
    row.mu, row.sigma, row.rating = new.mu, new.sigma, new.rating
    row.games += sign
    row.wins += sign * int(won)
    return RatingChange(
        match=match,
        user_id=row.user_id,
        variant=row.variant,
        seat=seat,
        kind=kind,
        mu_before=old.mu,
        sigma_before=old.sigma,
        mu_after=new.mu,
        sigma_after=new.sigma,
        rating_before=old.rating,
        rating_after=new.rating,
        won=won,
        created_at=now,
    )


def _standing(match: Match) -> RatingChange.Kind | None:
    """The latest kind of change the match made: None when it never changed a rating."""
    latest = match.rating_changes.order_by("-id").values_list("kind", flat=True).first()
    return RatingChange.Kind(latest) if latest is not None else None


def match_ratings_void(*, match: Match, now: datetime | None = None) -> list[RatingChange]:
    """Take a voided match's rating changes back from its players' ratings as they are now.

    Call in the moderator's transaction that voids the match, with its row lock held. Returns the
    VOID changes written (none for a match that never changed a rating)."""
    standing = _standing(match)
    if standing is None:
        return []
    if standing == RatingChange.Kind.VOID:
        raise RatingError("the rating changes of this match are taken back already")
    return _move_again(match=match, kind=RatingChange.Kind.VOID, now=now)


def match_ratings_restore(*, match: Match, now: datetime | None = None) -> list[RatingChange]:
    """Give a match's rating changes again once its void is lifted (the reverse of a void).

    Call in the moderator's transaction, with the match's row lock held and ``match.voided``
    false. A rated match voided while it was played changed no rating when it ended: it is rated
    now, from its players' ratings as they stand (the MATCH changes are returned)."""
    standing = _standing(match)
    if standing is None and match.status == Match.Status.FINISHED:
        seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
        return _match_rate(match=match, seats=seats, now=now or timezone.now())
    if standing != RatingChange.Kind.VOID:
        return []
    return _move_again(match=match, kind=RatingChange.Kind.RESTORE, now=now)


def _move_again(
    *, match: Match, kind: RatingChange.Kind, now: datetime | None
) -> list[RatingChange]:
    now = now or timezone.now()
    # A deleted account has no rating left to move.
    original = list(
        match.rating_changes.filter(kind=RatingChange.Kind.MATCH, user__isnull=False).order_by(
            "seat"
        )
    )
    rows = _locked_ratings(match.variant, (c.user_id for c in original if c.user_id is not None))
    step = take_back if kind == RatingChange.Kind.VOID else give_again
    sign = -1 if kind == RatingChange.Kind.VOID else 1
    written: list[RatingChange] = []
    for change in original:
        assert change.user_id is not None  # filtered above
        row = rows[change.user_id]
        current = Skill(row.mu, row.sigma)
        new = step(
            current,
            Skill(change.mu_before, change.sigma_before),
            Skill(change.mu_after, change.sigma_after),
        )
        written.append(
            _rating_move(
                row,
                current,
                new,
                match=match,
                seat=change.seat,
                kind=kind,
                sign=sign,
                won=change.won,
                now=now,
            )
        )
    Rating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "rating", "games", "wins"])
    return RatingChange.objects.bulk_create(written)


@dataclass
class RebuildReport:
    """What ``ratings_rebuild`` found: how many events it replayed and ratings it compared, and the
    ratings and changes whose stored values differed from the replay (written anew unless it only
    checked)."""

    events: int = 0
    ratings: int = 0
    ratings_differing: list[str] = field(default_factory=list)
    changes_differing: int = 0


@dataclass
class _Tally:
    """One player's rating in one family as the replay leaves it: a newcomer's to begin with."""

    skill: Skill = field(default_factory=Skill)
    games: int = 0
    wins: int = 0
    last_played_at: datetime | None = None

    def values(self) -> tuple[Any, ...]:
        """In the order of ``_RATING_FIELDS``."""
        skill = self.skill
        return (skill.mu, skill.sigma, skill.rating, self.games, self.wins, self.last_played_at)


_RATING_FIELDS = ["mu", "sigma", "rating", "games", "wins", "last_played_at"]
_CHANGE_FIELDS = [
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "rating_before",
    "rating_after",
    "won",
]

#: A player's rating in one family: (user id, variant).
_Key = tuple[int, str]


def ratings_rebuild(*, write: bool = True) -> RebuildReport:
    """Recompute every rating from the stored history, in the order the changes were made:
    each rated match from its result and its players' ratings of that moment, each void and
    restore from the match's recomputed change. A rating without a history is a newcomer's. With
    ``write`` the stored numbers that differ are replaced (and the report lists them); without,
    they are only compared."""
    report = RebuildReport()
    with transaction.atomic():
        # Every rating locked first, in the order a finishing match locks its players' (by user,
        # and one variant): a match finishing meanwhile waits for the rebuild, so the history
        # read next holds every change of every row locked, and none is written back older.
        rows = {
            (r.user_id, r.variant): r
            for r in Rating.objects.select_for_update().order_by("user_id", "variant")
        }
        changes = list(RatingChange.objects.select_related("match").order_by("id"))
        tallies, rewritten = _replay(changes, report)
        differing, fresh = _ratings_compare(rows, tallies, report)
        if write:
            RatingChange.objects.bulk_update(rewritten, _CHANGE_FIELDS, batch_size=500)
            Rating.objects.bulk_update(differing, _RATING_FIELDS, batch_size=500)
            Rating.objects.bulk_create(fresh, ignore_conflicts=True)
    return report


def _replay(
    changes: Sequence[RatingChange], report: RebuildReport
) -> tuple[dict[_Key, _Tally], list[RatingChange]]:
    """Replay ``changes`` event by event: every player's rating as it results, and the changes
    whose stored values differ from the replay's (set to the replay's)."""
    seats: dict[int, list[MatchSeat]] = {}
    for seat in MatchSeat.objects.filter(match_id__in={c.match_id for c in changes}).order_by(
        "match_id", "index"
    ):
        seats.setdefault(seat.match_id, []).append(seat)
    tallies: dict[_Key, _Tally] = {}
    rated: dict[int, dict[int, tuple[Skill, Skill, bool]]] = {}  # match -> seat -> its change
    rewritten: list[RatingChange] = []
    for event in _events(changes):
        report.events += 1
        match = event[0].match
        if event[0].kind == RatingChange.Kind.MATCH:
            # A deleted account's rating is gone: its change in the match keeps the one it had.
            kept = {c.seat: Skill(c.mu_before, c.sigma_before) for c in event if c.user_id is None}
            rated[match.pk] = _match_replay(match, seats[match.pk], tallies, kept)
        for change in event:
            if change.user_id is None:
                continue  # a deleted account: no rating left to rebuild
            tally = tallies.setdefault((change.user_id, change.variant), _Tally())
            # A void or a restore moves by the match's change as replayed, and counts its
            # result as the match did (not as the void's row says).
            before, after, won = rated[match.pk][change.seat]
            if change.kind == RatingChange.Kind.MATCH:
                old, new, sign = before, after, 1
                tally.last_played_at = change.created_at
            elif change.kind == RatingChange.Kind.VOID:
                old, new, sign = tally.skill, take_back(tally.skill, before, after), -1
            else:
                old, new, sign = tally.skill, give_again(tally.skill, before, after), 1
            tally.skill = new
            tally.games += sign
            tally.wins += sign * int(won)
            values = (old.mu, old.sigma, new.mu, new.sigma, old.rating, new.rating, won)
            if values != tuple(getattr(change, name) for name in _CHANGE_FIELDS):
                for name, value in zip(_CHANGE_FIELDS, values, strict=True):
                    setattr(change, name, value)
                rewritten.append(change)
    report.changes_differing = len(rewritten)
    return tallies, rewritten


def _match_replay(
    match: Match,
    seats: Sequence[MatchSeat],
    tallies: dict[_Key, _Tally],
    kept: dict[int, Skill] | None = None,
) -> dict[int, tuple[Skill, Skill, bool]]:
    """Each seat's rating before and after the match, and whether it won, from the replay's
    ratings of that moment (``kept``: the stored ones of seats whose account is deleted)."""
    outcome = match_outcome_of(match, seats)
    kept = kept or {}
    before = [
        tallies[(s.user_id, match.variant)].skill
        if s.user_id is not None and (s.user_id, match.variant) in tallies
        else kept.get(s.index, Skill())
        for s in seats
    ]
    after = rate(outcome, before)
    return {s.index: (before[s.index], after[s.index], outcome.won(s.index)) for s in seats}


def _ratings_compare(
    rows: dict[_Key, Rating], tallies: dict[_Key, _Tally], report: RebuildReport
) -> tuple[list[Rating], list[Rating]]:
    """Set each locked rating that differs from the replay to the replay's numbers and report it;
    return those, and the ratings to make for histories whose row is missing."""
    differing: list[Rating] = []
    for key, row in rows.items():
        report.ratings += 1
        old = tuple(getattr(row, name) for name in _RATING_FIELDS)
        new = tallies.get(key, _Tally()).values()
        if old != new:
            report.ratings_differing.append(f"user {key[0]} {key[1]}: {old} -> {new}")
            for name, value in zip(_RATING_FIELDS, new, strict=True):
                setattr(row, name, value)
            differing.append(row)
    missing = tallies.keys() - rows.keys()
    # A row made since the lock is a new player's whose match has finished since: that match
    # may be missing from the history read, so the row is not the replay's to judge.
    made_since = set(
        Rating.objects.filter(user_id__in={user for user, _ in missing}).values_list(
            "user_id", "variant"
        )
    )
    fresh: list[Rating] = []
    for key in sorted(missing - made_since):
        report.ratings += 1
        new = tallies[key].values()
        report.ratings_differing.append(f"user {key[0]} {key[1]}: no rating -> {new}")
        fresh.append(
            Rating(user_id=key[0], variant=key[1], **dict(zip(_RATING_FIELDS, new, strict=True)))
        )
    return differing, fresh


def _events(changes: Sequence[RatingChange]) -> list[list[RatingChange]]:
    """The changes grouped into events (one match finishing, one void, one restore) and ordered
    by their first change's id. A match's events never overlap (each is made under its row lock):
    within one match a new event starts where the kind changes or a seat comes again."""
    by_match: dict[int, list[list[RatingChange]]] = {}
    for change in changes:
        events = by_match.setdefault(change.match_id, [])
        last = events[-1] if events else None
        if last is None or last[0].kind != change.kind or any(c.seat == change.seat for c in last):
            events.append([change])
        else:
            last.append(change)
    return sorted((e for events in by_match.values() for e in events), key=lambda e: e[0].pk)
