"""Measuring strength: duplicate duels between two computer players (issue 7).

Pure Python like the engine and the bots (no Django), so tests and scripts call it directly;
``python manage.py bot_duel`` is a thin wrapper around :func:`run_duel` and :func:`format_report`.

Luck of the deal dominates single hands of Hokm, so every deal is played once per seat arrangement:
in ``hokm4`` player A takes seats 0 and 2 and B seats 1 and 3, then the teams swap seats on the same
deck with the same Hakem (a *duplicate* pair); in ``hokm2`` and ``hokm2-draw`` A and B swap seats 0
and 1. In ``hokm3`` every player is alone (R1.4): A takes one seat, B the other two, and the deal is
played three times with A in each seat (a *triplicate*), so A's fair share is 1/3. Court Piece
(``court-piece``, R9) is played as ``hokm4``, on the same deck, dealer and table settings
(:func:`court_piece_deal`), and reports courts (R9.7) instead of Kots. Two equal players
then score exactly the baseline on every deal, and the spread between deals, which is what the
confidence interval measures, comes only from the difference in play.

    >>> report = run_duel(DuelConfig(a="greedy", b="greedy", variant="hokm4", pairs=3)).report
    >>> report["hands"]["a_win_rate"]
    0.5

Everything follows from the seeds: deal ``i`` of a run is :func:`deal_deck` of ``seed + i`` with
the Hakem :func:`deal_hakem` names, match ``j`` is ``new_match(variant, seed=seed + j)``. The bots
decide the same for the same view, so a seed range gives the same results on every run, with any
number of worker processes; only the timings differ.
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from games.bots import DUEL_ONLY, LEVELS, bot_action
from games.engine import (
    DEFAULT_TARGET,
    FULL_DECK,
    Action,
    CallTrump,
    Card,
    ChooseIndicator,
    CourtPieceDeal,
    CourtPieceOptions,
    HandState,
    PlayCard,
    RevealTrump,
    Variant,
    apply,
    bot_facts,
    court_piece_apply,
    court_piece_view,
    deal_apply,
    deal_deck,
    derive_seed,
    get_variant,
    match_apply,
    new_court_piece_match,
    new_deal,
    new_hand,
    new_match,
    next_deal,
    next_hand,
    view,
)
from games.engine.court_piece import DEFAULT_TARGET as COURT_PIECE_TARGET
from games.engine.court_piece.deal import CourtPieceAction, blind_pick_for
from games.engine.seeding import shuffled

T = TypeVar("T")
G = TypeVar("G", "HandRecord", "MatchRecord")
A = TypeVar("A", Action, CourtPieceAction)

#: Every player a duel can seat: the table levels and the two duel-only baselines.
PLAYERS: tuple[str, ...] = DUEL_ONLY + LEVELS

#: The Court Piece variant (R9), whose deals and matches its own engine plays.
COURT_PIECE = "court-piece"

#: z for a two-sided 95% interval; small samples use Student's t instead (:func:`t95`).
Z95 = 1.959964

#: Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


class DuelError(RuntimeError):
    """A bot failed during a duel; the message names the deal, so it can be replayed alone."""


@dataclass(frozen=True, slots=True)
class DuelConfig:
    """One duel: player ``a`` against player ``b`` on ``pairs`` seeded deals (and matches)."""

    a: str
    b: str
    variant: str = "hokm4"
    pairs: int = 400
    seed: int = 100_000
    matches: int = 0
    #: The match target; None: the variant's default (7 in Hokm, R7.1; 1 in Court Piece, R9.10.1).
    target: int | None = None
    jobs: int = 1
    #: Court Piece's table settings (R9.11); None: the defaults. Refused for Hokm.
    options: CourtPieceOptions | None = None

    def __post_init__(self) -> None:
        for player in (self.a, self.b):
            if player not in PLAYERS:
                raise ValueError(f"unknown player {player!r} (known: {', '.join(PLAYERS)})")
        get_variant(self.variant)  # raises UnknownVariantError, a ValueError
        if self.pairs < 0 or self.matches < 0 or self.pairs + self.matches == 0:
            raise ValueError("a duel needs at least one deal or one match, and no negative count")
        if self.target is not None and self.target < 1:
            raise ValueError("the match target must be at least 1")
        if self.jobs < 1:
            raise ValueError("a duel needs at least one job")
        if self.options is not None and not self.court_piece:
            raise ValueError(f"table settings are Court Piece's, not {self.variant}'s")

    @property
    def court_piece(self) -> bool:
        return self.variant == COURT_PIECE

    @property
    def match_target(self) -> int:
        if self.target is not None:
            return self.target
        return COURT_PIECE_TARGET if self.court_piece else DEFAULT_TARGET

    @property
    def table_options(self) -> CourtPieceOptions:
        """Court Piece's settings for this duel (the defaults when none are given)."""
        return self.options or CourtPieceOptions()

    @property
    def arrangements(self) -> int:
        """Games per deal: one per side A can take (2, or 3 in hokm3)."""
        return get_variant(self.variant).sides

    @property
    def baseline(self) -> float:
        """A's share of wins against an equal player."""
        return 1 / self.arrangements


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One game of a duplicate deal: the deck and Hakem are the deal's, the seats A held vary."""

    a_side: int  # the scoring side A plays; its seats are ``variant.seats_of(a_side)``
    seats: tuple[str, ...]  # the player at each seat, "a" or "b"
    hakem: int  # in Court Piece the caller (R9.3.1)
    deck: tuple[str, ...]  # the deal order (R1.2 notation), so a test can compare the games
    winner: int  # the winning side (R5; R9.6)
    points: int  # in Court Piece the courts the deal scores by itself (R9.7)
    kot: bool  # in Court Piece a court of any kind (R9.7.1, R9.7.2)
    hakem_kot: bool  # in Court Piece a goon court: by the dealing side (R9.7.2)
    fifty_two: bool = False  # Court Piece: a 52-court (R9.7.1)

    @property
    def a_won(self) -> bool:
        return self.winner == self.a_side


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match of a duplicate match set: A plays ``a_side`` from the first hand to the end."""

    a_side: int
    seats: tuple[str, ...]
    winner: int
    scores: tuple[int, ...]
    hands: int

    @property
    def a_won(self) -> bool:
        return self.winner == self.a_side


@dataclass(frozen=True, slots=True)
class _Outcome(Generic[G]):
    """One deal or match set played once per arrangement, with each side's decision times in
    seconds."""

    index: int
    seed: int
    games: tuple[G, ...]
    times_a: tuple[float, ...]
    times_b: tuple[float, ...]

    @property
    def a_score(self) -> float:
        """A's share of the set's games: the independent unit of the confidence interval."""
        return sum(game.a_won for game in self.games) / len(self.games)


@dataclass(frozen=True, slots=True)
class DealOutcome(_Outcome[HandRecord]):
    """Deal ``index`` (seed ``seed``) played once per arrangement."""


@dataclass(frozen=True, slots=True)
class MatchOutcome(_Outcome[MatchRecord]):
    """Match set ``index`` (seed ``seed``): the same match once per arrangement."""


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a running duel stands, passed to the ``progress`` callback after each chunk."""

    phase: str  # "deals" or "matches"
    done: int
    total: int
    a_wins: int  # games of this phase won by A so far
    games: int
    elapsed: float  # seconds since the phase began

    @property
    def a_rate(self) -> float | None:
        return self.a_wins / self.games if self.games else None

    @property
    def eta(self) -> float | None:
        """Seconds left at the pace so far."""
        if not self.done:
            return None
        return self.elapsed / self.done * (self.total - self.done)


@dataclass(frozen=True)
class DuelResult:
    config: DuelConfig
    deals: tuple[DealOutcome, ...]
    matches: tuple[MatchOutcome, ...]
    elapsed: float
    report: dict[str, Any] = field(repr=False)


# Playing ------------------------------------------------------------------------------------


def deal_hakem(variant: Variant, seed: int) -> int:
    """The Hakem of a duel deal, from its seed (every arrangement of the deal keeps him)."""
    return derive_seed(seed, "hakem") % variant.players


def seating(variant: Variant, a_side: int) -> tuple[str, ...]:
    """Who sits where when A plays ``a_side``: ``"a"`` on that side's seats, ``"b"`` elsewhere."""
    return tuple("a" if variant.side_of(seat) == a_side else "b" for seat in range(variant.players))


@functools.cache
def warm_up(variant_name: str, level: str) -> None:
    """Two untimed decisions of ``level`` in this process, so that the first timed one does not
    pay for importing the search (``bot_action`` imports it lazily) or building its tables."""
    if variant_name == COURT_PIECE:
        deal = court_piece_deal(CourtPieceOptions(), 0)
        for _ in range(2):
            assert deal.to_act is not None
            action = bot_action(court_piece_view(deal, deal.to_act), level=level)
            deal = deal_apply(deal, _court_piece_action(action))
        return
    variant = get_variant(variant_name)
    state = new_hand(variant, hakem=0, deck=deal_deck(variant, 0))
    for _ in range(2):
        assert state.to_act is not None
        state = apply(state, bot_action(view(state, state.to_act), level=level))


def court_piece_deal(options: CourtPieceOptions, seed: int) -> CourtPieceDeal:
    """A Court Piece duel deal (R9.4.1): the deck shuffled from ``seed``, the dealer and under
    ``blind`` the indicator (R9.14.1) drawn from it too; every arrangement keeps them."""
    deck: list[Card] = shuffled(FULL_DECK, seed)
    dealer = derive_seed(seed, "dealer") % 4
    return new_deal(options, dealer=dealer, deck=deck, blind_pick=blind_pick_for(seed))


def _court_piece_action(action: Action) -> CourtPieceAction:
    """The bots answer a Court Piece view with one of its four kinds of action."""
    if isinstance(action, CallTrump | ChooseIndicator | RevealTrump | PlayCard):
        return action
    raise DuelError(f"{action!r} is not a Court Piece action")


class _Clock:
    """Decision times per player, and the call into the bot with its context for errors."""

    def __init__(self, variant: str, levels: Mapping[str, str]) -> None:
        for level in levels.values():
            warm_up(variant, level)
        self.levels = levels
        self.times: dict[str, list[float]] = {"a": [], "b": []}

    def decide(
        self,
        state: HandState | CourtPieceDeal,
        seats: Sequence[str],
        facts: Mapping[str, Any],
        where: str,
    ) -> Action:
        seat = state.to_act
        assert seat is not None
        player = seats[seat]
        if isinstance(state, CourtPieceDeal):
            seen = court_piece_view(state, seat)
        else:
            seen = view(state, seat)
        start = time.perf_counter()
        try:
            action = bot_action(seen, level=self.levels[player], match=facts)
        except Exception as error:
            level = self.levels[player]
            raise DuelError(f"{level} ({player}) at seat {seat}, {where}: {error!r}") from error
        self.times[player].append(time.perf_counter() - start)
        return action


def play_deal(config: DuelConfig, index: int) -> DealOutcome:
    """Deal ``index`` of the duel, played once with A on each side."""
    if config.court_piece:
        return _play_court_piece_deal(config, index)
    variant = get_variant(config.variant)
    seed = config.seed + index
    deck = deal_deck(variant, seed)
    hakem = deal_hakem(variant, seed)
    # A hand played alone starts a match at 0 to 0 as far as the bots' utility goes.
    facts = {"scores": [0] * variant.sides, "target": config.match_target}
    clock = _Clock(config.variant, {"a": config.a, "b": config.b})
    games = []
    for a_side in range(variant.sides):
        seats = seating(variant, a_side)
        state = new_hand(variant, hakem=hakem, deck=deck)
        where = f"deal seed {seed}, A on side {a_side}"
        while not state.is_over:
            state = _checked(apply, state, clock.decide(state, seats, facts, where), where)
        result = state.result
        assert result is not None
        games.append(
            HandRecord(
                a_side=a_side,
                seats=seats,
                hakem=hakem,
                deck=tuple(card.text for card in deck),
                winner=result.winner,
                points=result.points,
                kot=result.kot,
                hakem_kot=result.hakem_kot,
            )
        )
    return DealOutcome(index, seed, tuple(games), tuple(clock.times["a"]), tuple(clock.times["b"]))


def _play_court_piece_deal(config: DuelConfig, index: int) -> DealOutcome:
    """A Court Piece deal (R9) played with A on each side: the same deck, dealer and caller."""
    variant = get_variant(config.variant)
    seed = config.seed + index
    first = court_piece_deal(config.table_options, seed)
    # A deal played alone starts a match at 0 to 0, with no streak (R9.8).
    facts = {
        "scores": [0, 0],
        "target": config.match_target,
        "streak": {"side": None, "count": 0},
        "max_deals": None,
    }
    clock = _Clock(config.variant, {"a": config.a, "b": config.b})
    games = []
    for a_side in range(variant.sides):
        seats = seating(variant, a_side)
        deal = first
        where = f"deal seed {seed}, A on side {a_side}"
        while not deal.is_over:
            action = _court_piece_action(clock.decide(deal, seats, facts, where))
            deal = _checked(deal_apply, deal, action, where)
        result = deal.result
        assert result is not None
        games.append(
            HandRecord(
                a_side=a_side,
                seats=seats,
                hakem=deal.caller,
                deck=tuple(card.text for card in deal.deck),
                winner=result.winner,
                points=result.courts,
                kot=result.courts > 0,
                hakem_kot=result.goon,
                fifty_two=result.courts == 52,
            )
        )
    return DealOutcome(index, seed, tuple(games), tuple(clock.times["a"]), tuple(clock.times["b"]))


def play_match_set(config: DuelConfig, index: int) -> MatchOutcome:
    """Match set ``index``: the match of seed ``config.seed + index`` once with A on each side.
    Every match of a set has the same first Hakem and the same deck for its n-th hand; who is
    Hakem later depends on the results (R6). Court Piece likewise (R9.2, R9.9)."""
    if config.court_piece:
        return _play_court_piece_match_set(config, index)
    variant = get_variant(config.variant)
    seed = config.seed + index
    clock = _Clock(config.variant, {"a": config.a, "b": config.b})
    games = []
    for a_side in range(variant.sides):
        seats = seating(variant, a_side)
        match = new_match(variant, seed=seed, target=config.match_target)
        while True:
            facts = {"scores": list(match.scores), "target": match.target}
            where = f"match seed {seed}, hand {match.hand_number}, A on side {a_side}"
            while not match.hand.is_over:
                action = clock.decide(match.hand, seats, facts, where)
                match = _checked(match_apply, match, action, where)
            if match.is_over:
                break
            match = next_hand(match)
        assert match.winner is not None
        games.append(
            MatchRecord(a_side, seats, match.winner, tuple(match.scores), len(match.results))
        )
    return MatchOutcome(index, seed, tuple(games), tuple(clock.times["a"]), tuple(clock.times["b"]))


def _play_court_piece_match_set(config: DuelConfig, index: int) -> MatchOutcome:
    variant = get_variant(config.variant)
    seed = config.seed + index
    clock = _Clock(config.variant, {"a": config.a, "b": config.b})
    games = []
    for a_side in range(variant.sides):
        seats = seating(variant, a_side)
        match = new_court_piece_match(config.table_options, seed=seed, target=config.match_target)
        while True:
            facts = bot_facts(match)
            where = f"match seed {seed}, deal {match.deal_number}, A on side {a_side}"
            while not match.deal.is_over:
                action = _court_piece_action(clock.decide(match.deal, seats, facts, where))
                match = _checked(court_piece_apply, match, action, where)
            if match.is_over:
                break
            match = next_deal(match)
        assert match.winner is not None
        games.append(
            MatchRecord(a_side, seats, match.winner, tuple(match.scores), len(match.summaries))
        )
    return MatchOutcome(index, seed, tuple(games), tuple(clock.times["a"]), tuple(clock.times["b"]))


def _checked(step: Callable[[T, A], T], state: T, action: A, where: str) -> T:
    try:
        return step(state, action)
    except ValueError as error:  # an illegal action is a bug in a bot: say where to replay it
        raise DuelError(f"illegal action {action!r}, {where}: {error}") from error


def _run_chunk(task: tuple[str, DuelConfig, range]) -> list[DealOutcome] | list[MatchOutcome]:
    """One unit of work for a worker process (module level, so that spawn can pickle it)."""
    kind, config, indices = task
    if kind == "deals":
        return [play_deal(config, index) for index in indices]
    return [play_match_set(config, index) for index in indices]


# Running ------------------------------------------------------------------------------------


def run_duel(
    config: DuelConfig, *, progress: Callable[[Progress], None] | None = None
) -> DuelResult:
    """Play the whole duel and summarize it. ``progress`` is called after every chunk of work.

    With ``config.jobs > 1`` the deals are shared out to a pool of worker processes (spawned, so
    nothing of the caller's state leaks in); each deal's result depends only on its seed, and the
    results are put back in seed order, so the report is the same for any number of jobs.
    """
    start = time.perf_counter()
    if config.jobs > 1:
        context = multiprocessing.get_context("spawn")
        with context.Pool(config.jobs) as pool:
            deals = _phase(config, "deals", config.pairs, pool.imap_unordered, progress)
            matches = _phase(config, "matches", config.matches, pool.imap_unordered, progress)
    else:
        deals = _phase(config, "deals", config.pairs, map, progress)
        matches = _phase(config, "matches", config.matches, map, progress)
    elapsed = time.perf_counter() - start
    deal_outcomes = tuple(sorted(deals, key=lambda outcome: outcome.index))
    match_outcomes = tuple(sorted(matches, key=lambda outcome: outcome.index))
    report = summarize(config, deal_outcomes, match_outcomes, elapsed=elapsed)
    return DuelResult(config, deal_outcomes, match_outcomes, elapsed, report)


def _phase(
    config: DuelConfig,
    kind: str,
    total: int,
    mapper: Callable[..., Iterable[Any]],
    progress: Callable[[Progress], None] | None,
) -> list[Any]:
    if total == 0:
        return []
    start = time.perf_counter()
    # Small chunks keep the progress line moving and the two workers evenly loaded; the cost of
    # sending a chunk is negligible next to playing even one greedy hand.
    size = max(1, min(8, total // (config.jobs * 50)))
    tasks = [(kind, config, range(i, min(i + size, total))) for i in range(0, total, size)]
    outcomes: list[Any] = []
    a_wins = games = 0
    for chunk in mapper(_run_chunk, tasks):
        outcomes += chunk
        for outcome in chunk:
            a_wins += sum(game.a_won for game in outcome.games)
            games += len(outcome.games)
        if progress is not None:
            elapsed = time.perf_counter() - start
            progress(Progress(kind, len(outcomes), total, a_wins, games, elapsed))
    return outcomes


# Statistics ---------------------------------------------------------------------------------


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom: from the table up
    to 30, then the Cornish-Fisher expansion around :data:`Z95` (within 1e-4 from there on)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_interval(
    scores: Sequence[float], *, bounds: tuple[float, float] | None = (0.0, 1.0)
) -> dict[str, Any]:
    """Mean of independent unit scores with its standard error and 95% confidence interval.

    The unit is the deal (or match set), not the hand: the games of one deal share its cards and
    are strongly correlated, so counting them as independent would make the interval too narrow.
    """
    n = len(scores)
    if n < 2:
        return {"mean": statistics.fmean(scores) if n else None, "stderr": None, "ci95": None}
    mean = statistics.fmean(scores)
    stderr = statistics.stdev(scores) / math.sqrt(n)
    half = t95(n - 1) * stderr
    low, high = mean - half, mean + half
    if bounds is not None:  # a rate stays within 0 and 1, a count of courts above 0
        low, high = max(bounds[0], low), min(bounds[1], high)
    return {"mean": mean, "stderr": stderr, "ci95": [low, high]}


def wilson_interval(successes: int, trials: int) -> list[float] | None:
    """Wilson's 95% score interval for ``successes`` out of ``trials`` taken as independent.

    Shown beside :func:`mean_interval` because it stays honest where that one collapses: when every
    deal scores the same (0 matches won out of 10, say) the standard error is 0 and the interval
    over deals shrinks to a point. Over duplicate hands it is wider than it need be, as it ignores
    the pairing that cancels the luck of the deal.
    """
    if not trials:
        return None
    rate, z2 = successes / trials, Z95**2
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials**2)) / (1 + z2 / trials)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of values already sorted ascending."""
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def timing_summary(level: str, times: Iterable[float]) -> dict[str, Any]:
    """Decision times of one side, in milliseconds."""
    values = sorted(times)
    if not values:
        return {"level": level, "decisions": 0, "median_ms": None, "p95_ms": None, "max_ms": None}
    return {
        "level": level,
        "decisions": len(values),
        "mean_ms": statistics.fmean(values) * 1000,
        "median_ms": statistics.median(values) * 1000,
        "p95_ms": percentile(values, 0.95) * 1000,
        "max_ms": values[-1] * 1000,
    }


def _share(count: int, total: int) -> float | None:
    return count / total if total else None


def summarize(
    config: DuelConfig,
    deals: Sequence[DealOutcome],
    matches: Sequence[MatchOutcome],
    *,
    elapsed: float,
) -> dict[str, Any]:
    """The JSON-ready report of a duel (the ``--json`` output of ``bot_duel``)."""
    report: dict[str, Any] = {
        "a": config.a,
        "b": config.b,
        "variant": config.variant,
        "seed": config.seed,
        "pairs": config.pairs,
        "games_per_deal": config.arrangements,
        "baseline": config.baseline,
        "hands": _hand_stats(config, deals) if deals else None,
        "matches": _match_stats(config, matches) if matches else None,
        "timing": {
            "a": timing_summary(config.a, _all_times(deals, matches, "a")),
            "b": timing_summary(config.b, _all_times(deals, matches, "b")),
        },
        "jobs": config.jobs,
        "elapsed_s": elapsed,
    }
    if config.court_piece:
        report["options"] = config.table_options.to_json()
        if deals:
            hands = report["hands"]
            del hands["kot"]  # Court Piece has courts instead (R9.7)
            hands["courts"] = _court_stats(deals)
    return report


def _all_times(
    deals: Sequence[DealOutcome], matches: Sequence[MatchOutcome], player: str
) -> Iterator[float]:
    outcomes: list[DealOutcome | MatchOutcome] = [*deals, *matches]
    for outcome in outcomes:
        yield from outcome.times_a if player == "a" else outcome.times_b


def _hand_stats(config: DuelConfig, deals: Sequence[DealOutcome]) -> dict[str, Any]:
    games = [game for deal in deals for game in deal.games]
    hands = len(games)
    a_wins = sum(game.a_won for game in games)
    won = [game for game in games if game.a_won]
    lost = [game for game in games if not game.a_won]
    a_kots = sum(game.kot for game in won)
    b_kots = sum(game.kot for game in lost)
    a_hakem_kots = sum(game.hakem_kot for game in won)
    b_hakem_kots = sum(game.hakem_kot for game in lost)
    interval = mean_interval([deal.a_score for deal in deals])
    return {
        "deals": len(deals),
        "hands": hands,
        "a_wins": a_wins,
        "a_win_rate": interval["mean"],
        "stderr": interval["stderr"],
        "ci95": interval["ci95"],
        "wilson95": wilson_interval(a_wins, hands),
        "above_baseline": bool(interval["ci95"] and interval["ci95"][0] > config.baseline),
        "kot": {
            # Kots A made (R5.2 / R5.3.1): as a share of A's wins and of all hands.
            "a_kots": a_kots,
            "a_kot_share_of_wins": _share(a_kots, len(won)),
            "a_kot_rate": _share(a_kots, hands),
            # Kots A suffered: made by B (in hokm3 by either B seat).
            "b_kots": b_kots,
            "b_kot_share_of_wins": _share(b_kots, len(lost)),
            "b_kot_rate": _share(b_kots, hands),
            # Hakem Kots (R5.2): a Kot against the Hakem's side, worth 3.
            "a_hakem_kots": a_hakem_kots,
            "a_hakem_kot_rate": _share(a_hakem_kots, hands),
            "b_hakem_kots": b_hakem_kots,
            "b_hakem_kot_rate": _share(b_hakem_kots, hands),
        },
        "points_per_hand": {
            "a": _share(sum(game.points for game in won), hands),
            "b": _share(sum(game.points for game in lost), hands),
        },
    }


def _court_stats(deals: Sequence[DealOutcome]) -> dict[str, Any]:
    """Court Piece's courts (R9.7) made by each player, as shares of all games with intervals
    over deals (the unit, as for the win rate) and by Wilson, and courts per game."""
    stats: dict[str, Any] = {}
    for player in ("a", "b"):

        def made(game: HandRecord, player: str = player) -> bool:
            return game.kot and game.a_won == (player == "a")

        games = [game for deal in deals for game in deal.games]
        mine = [game for game in games if made(game)]
        per_deal = [sum(map(made, deal.games)) / len(deal.games) for deal in deals]
        interval = mean_interval(per_deal)
        courts = [
            sum(game.points for game in deal.games if made(game)) / len(deal.games)
            for deal in deals
        ]
        per_game = mean_interval(courts, bounds=(0.0, math.inf))
        stats[player] = {
            "courts": len(mine),
            "court_rate": interval["mean"],
            "ci95": interval["ci95"],
            "wilson95": wilson_interval(len(mine), len(games)),
            "goon_courts": sum(game.hakem_kot for game in mine),
            "fifty_two_courts": sum(game.fifty_two for game in mine),
            "courts_per_game": per_game["mean"],
            "courts_per_game_ci95": per_game["ci95"],
        }
    return stats


def _match_stats(config: DuelConfig, matches: Sequence[MatchOutcome]) -> dict[str, Any]:
    games = [game for outcome in matches for game in outcome.games]
    interval = mean_interval([outcome.a_score for outcome in matches])
    a_wins = sum(game.a_won for game in games)
    return {
        "sets": len(matches),
        "played": len(games),
        "target": config.match_target,
        "a_wins": a_wins,
        "a_win_rate": interval["mean"],
        "stderr": interval["stderr"],
        "ci95": interval["ci95"],
        "wilson95": wilson_interval(a_wins, len(games)),
        "above_baseline": bool(interval["ci95"] and interval["ci95"][0] > config.baseline),
        "hands_per_match": statistics.fmean(game.hands for game in games),
    }


# Text ---------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _ci(interval: Sequence[float] | None) -> str:
    return "-" if interval is None else f"{_pct(interval[0])} to {_pct(interval[1])}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} ms" if value < 1 else f"{value:.1f} ms"


def format_clock(seconds: float) -> str:
    """``1:02:03`` or ``2:03``."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def format_progress(progress: Progress) -> str:
    """One line of progress: ``deals 120/400  A 63.8%  elapsed 0:42  ETA 1:38``."""
    eta = "-" if progress.eta is None else format_clock(progress.eta)
    return (
        f"{progress.phase} {progress.done}/{progress.total}  A {_pct(progress.a_rate)}"
        f"  elapsed {format_clock(progress.elapsed)}  ETA {eta}"
    )


def format_report(report: Mapping[str, Any]) -> str:
    """The report as a readable table (the default output of ``bot_duel``)."""
    even = f"(even: {_pct(report['baseline'])})"
    rows: list[tuple[str, str]] = []
    hands = report["hands"]
    court_piece = report["variant"] == COURT_PIECE
    if hands and court_piece:
        rows += _court_piece_rows(report)
    elif hands:
        first, games = report["seed"], report["games_per_deal"]
        how = "seats swapped" if games == 2 else "A in each seat"
        kot, points = hands["kot"], hands["points_per_hand"]
        rate = f"{_pct(hands['a_win_rate'])}  95% CI {_ci(hands['ci95'])} over deals  {even}"
        rows += [
            ("deals", f"{hands['deals']} (seeds {first} to {first + hands['deals'] - 1}), "
                      f"{games} games each, {how}"),
            ("hands", str(hands["hands"])),
            ("A hand win rate", rate),
            ("  Wilson 95% CI", f"{_ci(hands['wilson95'])}  (hands taken as independent)"),
            ("A Kots / A's wins", _pct(kot["a_kot_share_of_wins"])),
            ("Kots made by A", f"{_pct(kot['a_kot_rate'])} of hands, "
                               f"Hakem Kots {_pct(kot['a_hakem_kot_rate'])}"),
            ("Kots suffered by A", f"{_pct(kot['b_kot_rate'])} of hands, "
                                   f"Hakem Kots {_pct(kot['b_hakem_kot_rate'])}"),
            ("points per hand", f"A {points['a']:.3f}, B {points['b']:.3f}"),
        ]  # fmt: skip
    matches = report["matches"]
    if matches:
        rate = f"{_pct(matches['a_win_rate'])}  95% CI {_ci(matches['ci95'])} over sets  {even}"
        rows += [
            ("matches", f"{matches['played']} to {matches['target']} "
                        f"({_count(matches['sets'], 'set')}), "
                        f"{matches['hands_per_match']:.1f} "
                        f"{'deals' if court_piece else 'hands'} each"),
            ("A match win rate", rate),
            ("  Wilson 95% CI", f"{_ci(matches['wilson95'])}  (matches taken as independent)"),
        ]  # fmt: skip
    width = max(len(label) for label, _ in rows)
    title = f"{report['a']} (A) against {report['b']} (B), {report['variant']}"
    if court_piece:
        title += f" ({format_options(report['options'])})"
    lines = [title, ""]
    lines += [f"{label:<{width}}  {value}" for label, value in rows]
    lines += ["", "time per decision    decisions     median        p95        max"]
    for player in ("a", "b"):
        timing = report["timing"][player]
        name = f"{player.upper()} {timing['level']}"
        lines.append(
            f"{name:<18} {timing['decisions']:>11} {_ms(timing['median_ms']):>10}"
            f" {_ms(timing['p95_ms']):>10} {_ms(timing['max_ms']):>10}"
        )
    jobs = report["jobs"]
    lines += ["", f"elapsed {format_clock(report['elapsed_s'])} with {_count(jobs, 'job')}"]
    return "\n".join(lines)


def _court_piece_rows(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    even = f"(even: {_pct(report['baseline'])})"
    hands, first = report["hands"], report["seed"]
    rate = f"{_pct(hands['a_win_rate'])}  95% CI {_ci(hands['ci95'])} over deals  {even}"
    rows = [
        ("deals", f"{hands['deals']} (seeds {first} to {first + hands['deals'] - 1}), "
                  "2 games each, seats swapped"),
        ("games", str(hands["hands"])),
        ("A deal win rate", rate),
        ("  Wilson 95% CI", f"{_ci(hands['wilson95'])}  (games taken as independent)"),
    ]  # fmt: skip
    for player, verb in (("a", "made by A"), ("b", "made by B")):
        courts = hands["courts"][player]
        rows += [
            (f"courts {verb}", f"{_pct(courts['court_rate'])} of games  95% CI "
                               f"{_ci(courts['ci95'])} over deals  ({courts['courts']}: "
                               f"{courts['goon_courts']} goon, "
                               f"{courts['fifty_two_courts']} 52-courts)"),
            ("  per game", f"{courts['courts_per_game']:.3f} courts  95% CI "
                           f"{_ci_plain(courts['courts_per_game_ci95'])}"),
        ]  # fmt: skip
    return rows


def _ci_plain(interval: Sequence[float] | None) -> str:
    return "-" if interval is None else f"{interval[0]:.3f} to {interval[1]:.3f}"


def format_options(options: Mapping[str, Any]) -> str:
    """Court Piece's settings as the command takes them: ``double_sir=true hidden_trump=off``."""
    return " ".join(f"{key}={json.dumps(value).strip(chr(34))}" for key, value in options.items())
