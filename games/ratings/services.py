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
    """The rated outcome of a finished match: its result, and who left it (R8.1, a loss)."""
    left = [s.index for s in seats if s.user_id is not None and s.status == MatchSeat.Status.LEFT]
    return match_outcome(
        variant=match.variant, winner_side=match.winner_side, scores=match.scores, left=left
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
    if not match.rated or match.voided:
        return []
    now = now or timezone.now()
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
    shown_changes: list[dict[str, Any]] = []
    for seat in people:
        assert seat.user_id is not None
        row = rows[seat.user_id]
        old, new = before[seat.index], after[seat.index]
        won = outcome.won(seat.index)
        row.mu, row.sigma, row.rating = new.mu, new.sigma, new.rating
        row.games += 1
        row.wins += int(won)
        row.last_played_at = now
        changes.append(
            RatingChange(
                match=match,
                user_id=seat.user_id,
                variant=match.variant,
                seat=seat.index,
                kind=RatingChange.Kind.MATCH,
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                rating_before=old.rating,
                rating_after=new.rating,
                won=won,
                created_at=now,
            )
        )
        shown_changes.append(
            {
                "seat": seat.index,
                "before": old.rating,
                "after": new.rating,
                "provisional": new.provisional,
            }
        )
    Rating.objects.bulk_update(
        list(rows.values()), ["mu", "sigma", "rating", "games", "wins", "last_played_at"]
    )
    RatingChange.objects.bulk_create(changes)
    return shown_changes


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
    """Give a match's rating changes again once its void is lifted (the reverse of a void)."""
    if _standing(match) != RatingChange.Kind.VOID:
        return []
    return _move_again(match=match, kind=RatingChange.Kind.RESTORE, now=now)


def _move_again(
    *, match: Match, kind: RatingChange.Kind, now: datetime | None
) -> list[RatingChange]:
    now = now or timezone.now()
    original = list(match.rating_changes.filter(kind=RatingChange.Kind.MATCH).order_by("seat"))
    rows = _locked_ratings(match.variant, (c.user_id for c in original))
    step = take_back if kind == RatingChange.Kind.VOID else give_again
    sign = -1 if kind == RatingChange.Kind.VOID else 1
    written: list[RatingChange] = []
    for change in original:
        row = rows[change.user_id]
        current = Skill(row.mu, row.sigma)
        new = step(
            current,
            Skill(change.mu_before, change.sigma_before),
            Skill(change.mu_after, change.sigma_after),
        )
        row.mu, row.sigma, row.rating = new.mu, new.sigma, new.rating
        row.games += sign
        row.wins += sign * int(change.won)
        written.append(
            RatingChange(
                match=match,
                user_id=change.user_id,
                variant=change.variant,
                seat=change.seat,
                kind=kind,
                mu_before=current.mu,
                sigma_before=current.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                rating_before=current.rating,
                rating_after=new.rating,
                won=change.won,
                created_at=now,
            )
        )
    Rating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "rating", "games", "wins"])
    return RatingChange.objects.bulk_create(written)


@dataclass
class RebuildReport:
    """What ``ratings_rebuild`` found: how many changes it replayed, and the ratings and changes
    whose stored values differed from the replay (written anew unless it only checked)."""

    events: int = 0
    ratings: int = 0
    ratings_differing: list[str] = field(default_factory=list)
    changes_differing: int = 0


def ratings_rebuild(*, write: bool = True) -> RebuildReport:
    """Recompute every rating from the stored history, in the order the changes were made:
    each rated match from its result and its players' ratings of that moment, each void and
    restore from the match's recomputed change. With ``write`` the stored numbers that differ
    are replaced (and the report lists them); without, they are only compared."""
    report = RebuildReport()
    with transaction.atomic():
        changes = list(RatingChange.objects.select_related("match").order_by("id"))
        seats: dict[int, list[MatchSeat]] = {}
        for seat in MatchSeat.objects.filter(match_id__in={c.match_id for c in changes}).order_by(
            "match_id", "index"
        ):
            seats.setdefault(seat.match_id, []).append(seat)
        skills: dict[tuple[int, str], Skill] = {}
        counts: dict[tuple[int, str], list[Any]] = {}  # games, wins, last played
        recomputed: dict[int, dict[int, tuple[Skill, Skill]]] = {}  # match -> seat -> before/after
        to_update: list[RatingChange] = []
        for event in _events(changes):
            report.events += 1
            first = event[0]
            match = first.match
            if first.kind == RatingChange.Kind.MATCH:
                match_seats = seats[match.pk]
                outcome = match_outcome_of(match, match_seats)
                before = [
                    skills.get((s.user_id, match.variant), Skill()) if s.user_id else Skill()
                    for s in match_seats
                ]
                after = rate(outcome, before)
                recomputed[match.pk] = {
                    s.index: (before[s.index], after[s.index]) for s in match_seats
                }
            for change in event:
                key = (change.user_id, change.variant)
                current = skills.get(key, Skill())
                if change.kind == RatingChange.Kind.MATCH:
                    old, new = recomputed[match.pk][change.seat]
                    won = match_outcome_of(match, seats[match.pk]).won(change.seat)
                    tally = counts.setdefault(key, [0, 0, None])
                    tally[0] += 1
                    tally[1] += int(won)
                    tally[2] = change.created_at
                else:
                    pair = recomputed[match.pk][change.seat]
                    old = current
                    step = take_back if change.kind == RatingChange.Kind.VOID else give_again
                    new = step(current, *pair)
                    sign = -1 if change.kind == RatingChange.Kind.VOID else 1
                    won = change.won
                    tally = counts.setdefault(key, [0, 0, None])
                    tally[0] += sign
                    tally[1] += sign * int(won)
                skills[key] = new
                values = (old.mu, old.sigma, new.mu, new.sigma, old.rating, new.rating, won)
                stored = (
                    change.mu_before,
                    change.sigma_before,
                    change.mu_after,
                    change.sigma_after,
                    change.rating_before,
                    change.rating_after,
                    change.won,
                )
                if values != stored:
                    report.changes_differing += 1
                    (
                        change.mu_before,
                        change.sigma_before,
                        change.mu_after,
                        change.sigma_after,
                        change.rating_before,
                        change.rating_after,
                        change.won,
                    ) = values
                    to_update.append(change)
        rows = {(r.user_id, r.variant): r for r in Rating.objects.select_for_update()}
        fresh: list[Rating] = []
        for key, skill in skills.items():
            games, wins, last = counts[key]
            row = rows.get(key)
            if row is None:
                row = Rating(user_id=key[0], variant=key[1], mu=MU, sigma=SIGMA, rating=0)
                fresh.append(row)
            old_values = (row.mu, row.sigma, row.rating, row.games, row.wins, row.last_played_at)
            new_values = (skill.mu, skill.sigma, skill.rating, games, wins, last)
            report.ratings += 1
            if old_values != new_values:
                report.ratings_differing.append(
                    f"user {key[0]} {key[1]}: {old_values} -> {new_values}"
                )
                row.mu, row.sigma, row.rating, row.games, row.wins, row.last_played_at = new_values
        if write:
            RatingChange.objects.bulk_update(
                to_update,
                [
                    "mu_before",
                    "sigma_before",
                    "mu_after",
                    "sigma_after",
                    "rating_before",
                    "rating_after",
                    "won",
                ],
                batch_size=500,
            )
            Rating.objects.bulk_update(
                [r for k, r in rows.items() if k in skills],
                ["mu", "sigma", "rating", "games", "wins", "last_played_at"],
                batch_size=500,
            )
            Rating.objects.bulk_create(fresh)
    return report


def _events(changes: Sequence[RatingChange]) -> list[list[RatingChange]]:
    """The changes grouped into events (one match finishing, one void, one restore) and ordered
    by their first change's id. A match's events never overlap (each is made under its row lock):
    within one match a new event starts where the kind changes or a player comes again."""
    by_match: dict[int, list[list[RatingChange]]] = {}
    for change in changes:
        events = by_match.setdefault(change.match_id, [])
        last = events[-1] if events else None
        if (
            last is None
            or last[0].kind != change.kind
            or any(c.user_id == change.user_id for c in last)
        ):
            events.append([change])
        else:
            last.append(change)
    return sorted((e for events in by_match.values() for e in events), key=lambda e: e[0].pk)


def is_rating_provisional(rating: Rating) -> bool:
    return is_provisional(rating.sigma)
