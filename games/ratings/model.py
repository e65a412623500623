"""The rating model: OpenSkill's Plackett-Luce model (Weng and Lin, 2011), and what a match's
result means to it. docs/ratings.md says why these parameters and how the number shown is made.

Nothing here reads the database: :func:`match_outcome` takes a match's facts, :func:`rate` the
ratings before, so the finishing transaction and ``ratings_rebuild`` compute exactly alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from games.engine import get_variant

#: OpenSkill's own defaults: a new player is 25 +- 25/3, and ``beta`` (the spread of one
#: performance) is half the starting uncertainty. ``tau`` keeps every rating able to move: it
#: adds a little uncertainty before each match, so a long-settled player still rises or falls.
MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0

#: The number shown is a conservative estimate, ``mu - Z * sigma`` (the player is at least this
#: good with 99.9% confidence), scaled so a new player starts at ``BASE`` and one point of
#: ``mu`` is ``SCALE`` rating points, about lichess's spread between players.
Z = 3.0
SCALE = 20.0
BASE = 1500

#: A rating is provisional (shown with "?") until its uncertainty is below this: about 10 matches
#: of one against one, 15 of two against two (docs/ratings.md has the measurements).
PROVISIONAL_SIGMA = 6.5

#: Leaderboards list the players with at least this many rated matches, active in the last
#: ``LEADERBOARD_DAYS`` days, whose rating is no longer provisional.
LEADERBOARD_MIN_GAMES = 10
LEADERBOARD_DAYS = 30
LEADERBOARD_SIZE = 100

#: Smallest uncertainty a void or a restore may leave (they move sigma by the match's change).
_SIGMA_FLOOR = 0.01

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


def shown(mu: float, sigma: float) -> int:
    """The rating shown for an estimate: ``BASE + SCALE * (mu - Z * sigma)``, rounded."""
    return round(BASE + SCALE * (mu - Z * sigma))


def is_provisional(sigma: float) -> bool:
    return sigma >= PROVISIONAL_SIGMA


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def rating(self) -> int:
        return shown(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.sigma)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished match as the model reads it: ``teams`` are seat numbers, ``ranks`` their places
    (1 first, equal ranks a tie), and ``left`` the seats whose players left the match: each of
    them is rated as if his team had come last (his partner and opponents keep the result)."""

    teams: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]
    left: frozenset[int] = frozenset()

    def won(self, seat: int) -> bool:
        """A seat won: its team is alone in first place, and its player did not leave."""
        if seat in self.left:
            return False
        team = next(i for i, members in enumerate(self.teams) if seat in members)
        return self.ranks[team] == 1 and self.ranks.count(1) == 1


def match_outcome(
    *, variant: str, winner_side: int | None, scores: Sequence[int], left: Sequence[int] = ()
) -> Outcome:
    """The outcome of a finished match of ``variant``.

    Partnership games (``hokm4``, ``court-piece``) rate the two teams, seats 0 and 2 against 1 and
    3 (R1.4); ``hokm3`` ranks its three players, the match winner first and the others by their
    points, equal points tied; the two-player games rank the winner first. Without a winner (never
    for a finished match of the rules today) every team ties.
    """
    rules = get_variant(variant)
    teams = tuple(rules.seats_of(side) for side in range(rules.sides))
    if winner_side is None:
        ranks = tuple(1 for _ in teams)
    else:
        # Points decide the places after the winner's; the winner is first whatever his points
        # (Court Piece's tie-breaks of R9.10.2 can make a winner with no more courts).
        others = sorted(
            {scores[side] for side in range(rules.sides) if side != winner_side}, reverse=True
        )
        ranks = tuple(
            1 if side == winner_side else 2 + others.index(scores[side])
            for side in range(rules.sides)
        )
    return Outcome(teams=teams, ranks=ranks, left=frozenset(left))


def rate(outcome: Outcome, before: Sequence[Skill]) -> list[Skill]:
    """Every seat's skill after the match, from ``before`` (one per seat)."""
    after = _rate(outcome.teams, outcome.ranks, before)
    last = max(outcome.ranks) + 1
    for seat in outcome.left:
        team = next(i for i, members in enumerate(outcome.teams) if seat in members)
        if outcome.ranks[team] == last - 1 and outcome.ranks.count(last - 1) == 1:
            continue  # his team came last on its own: the result stands for him as it is
        # Leaving counts as a loss: his team placed last, alone; only his own row is kept.
        ranks = tuple(last if i == team else rank for i, rank in enumerate(outcome.ranks))
        after[seat] = _rate(outcome.teams, ranks, before)[seat]
    return after


def _rate(
    teams: tuple[tuple[int, ...], ...], ranks: Sequence[int], before: Sequence[Skill]
) -> list[Skill]:
    rated = _MODEL.rate(
        [[_MODEL.rating(mu=before[s].mu, sigma=before[s].sigma) for s in team] for team in teams],
        ranks=list(ranks),
    )
    after: list[Skill] = list(before)
    for team, new in zip(teams, rated, strict=True):
        for seat, rating in zip(team, new, strict=True):
            after[seat] = Skill(mu=float(rating.mu), sigma=float(rating.sigma))
    return after


def take_back(current: Skill, before: Skill, after: Skill) -> Skill:
    """``current`` without one match's change (from ``before`` to ``after``): a void."""
    return Skill(
        mu=current.mu - (after.mu - before.mu),
        sigma=min(SIGMA, max(_SIGMA_FLOOR, current.sigma - (after.sigma - before.sigma))),
    )


def give_again(current: Skill, before: Skill, after: Skill) -> Skill:
    """``current`` with one match's change made again: a void lifted."""
    return Skill(
        mu=current.mu + (after.mu - before.mu),
        sigma=min(SIGMA, max(_SIGMA_FLOOR, current.sigma + (after.sigma - before.sigma))),
    )
