"""Rated matches for the ratings tests: played through the services to their end (any variant, a
player leaving on the way), or stored finished at once and rated as the finishing transaction
rates them (``finished_match_rate``), which is what a few hundred matches for the rebuild need.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from io import StringIO

from django.core.management import call_command
from django.db import transaction

from accounts.models import User
from games.engine import (
    awaiting_next,
    game_apply,
    game_legal_actions,
    game_next,
    get_variant,
    to_act,
)
from games.models import Match, MatchSeat, Rating, RatingChange
from games.play.selectors import match_state_build
from games.play.services import (
    SeatSpec,
    match_apply_action,
    match_create,
    match_deal_next_hand,
    match_seat_leave,
    match_step,
)
from games.ratings.services import match_ratings_apply

#: The ratings a test compares: each player's whole row in one family.
RatingRow = tuple[float, float, int, int, int]


def rated_match_create(variant: str, players: Sequence[User], *, seed: int = 1) -> Match:
    """A rated match of ``players`` in seat order, to one point, with a clock; Court Piece's ends
    after three deals at most (R9.10.2), as a court is rare in random play."""
    court_piece = get_variant(variant).family == "court-piece"
    return match_create(
        variant=variant,
        target=1,
        seats=[SeatSpec(name=p.username, user=p) for p in players],
        seed=seed,
        clock_seconds=30,
        max_deals=3 if court_piece else None,
        rated=True,
    )


def match_play_out(match: Match, *, rng_seed: int = 0, leaver: int | None = None) -> Match:
    """Play ``match`` to its end through the services, the people's moves chosen at random among
    the legal ones. ``leaver``'s seat is left at once (R8.1): the computer plays it on, as it plays
    its own seats, through ``match_step`` as the worker would; the person stays away to the end.
    Returns the match as stored."""
    rng = random.Random(rng_seed)
    if leaver is not None:
        match_seat_leave(match=match, seat=leaver)
    computers = {s.index for s in match.seats.all() if s.computer_level is not None}
    state = match_state_build(match=match)
    while not state.is_over:
        if awaiting_next(state):
            match_deal_next_hand(match=match.pk)
            state = game_next(state)
        elif to_act(state) == leaver or to_act(state) in computers:
            assert match_step(match=match.pk, rush=True)
            state = match_state_build(match=Match.objects.get(pk=match.pk))
        else:
            action = rng.choice(game_legal_actions(state))
            match_apply_action(match=match.pk, seat=action.seat, action=action)
            state = game_apply(state, action)
    return Match.objects.get(pk=match.pk)


def finished_match_store(
    variant: str,
    players: Sequence[User],
    *,
    winner_side: int,
    scores: Sequence[int],
    left: Sequence[int] = (),
) -> tuple[Match, list[MatchSeat]]:
    """A finished rated match stored at once, without its hands: what ``match_ratings_apply`` and
    the rebuild read of a match is its result and its seats."""
    rules = get_variant(variant)
    assert len(players) == rules.players and len(scores) == rules.sides
    match = Match.objects.create(
        variant=variant,
        target=1,
        rated=True,
        clock_seconds=30,
        status=Match.Status.FINISHED,
        winner_side=winner_side,
        scores=list(scores),
    )
    seats = MatchSeat.objects.bulk_create(
        MatchSeat(
            match=match,
            index=index,
            name=player.username,
            user=player,
            status=MatchSeat.Status.LEFT if index in left else MatchSeat.Status.PLAYING,
        )
        for index, player in enumerate(players)
    )
    return match, seats


def finished_match_rate(match: Match) -> list[dict]:
    """Rate a finished match as ``games.play.services._apply_locked`` does: in one transaction,
    the match's row locked, then ``match_ratings_apply`` with its seats."""
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        seats = list(MatchSeat.objects.filter(match=locked).order_by("index"))
        return match_ratings_apply(match=locked, seats=seats)


def ratings_of(variant: str, players: Sequence[User]) -> list[RatingRow | None]:
    """Each player's stored rating in ``variant`` (mu, sigma, rating, games, wins), or None."""
    rows = {
        r.user_id: (r.mu, r.sigma, r.rating, r.games, r.wins)
        for r in Rating.objects.filter(variant=variant, user__in=players)
    }
    return [rows.get(p.pk) for p in players]


def changes_of(match: Match, kind: str = RatingChange.Kind.MATCH) -> list[RatingChange]:
    """The match's rating changes of ``kind``, in seat order."""
    return list(RatingChange.objects.filter(match=match, kind=kind).order_by("seat"))


def rebuild_check() -> str:
    """The report of ``manage.py ratings_rebuild --check``, which fails on a difference."""
    out = StringIO()
    call_command("ratings_rebuild", "--check", stdout=out)
    return out.getvalue()
