"""Determinized search for Court Piece: the hard and expert computer players.

As in Hokm (``games.bots.search``): at each decision the bot imagines deals of what it has not
seen (``games.bots.court_piece.sampling``), the indicator and so the trump included where it does
not know them, and scores each choice in the same imagined deals by playing them out with the
simulator (``games.bots.court_piece.sim``), or once few tricks are left by solving each exactly
(``games.bots.court_piece.solver``). The choices of a turn in play are its legal cards and, under
hidden trump, asking for trump (R9.14.2; the seat then plays the model's card, or in the solver
its best one). The expert also searches the call (R9.4.2) and under ``chosen`` the indicator
(R9.14.1): every suit, or every one of the first 5 cards, played out over the same deals of the
47 unseen cards.

The utility of a deal's result for the bot's side is +1 for a deal won and -1 for a deal lost,
and each court (R9.7; the streak's court of R9.8.2 when this win would be the seventh in a row)
adds :data:`COURT_WEIGHT`; with the match in view courts past what the side needs to reach the
target count for nothing, and without it past 3 (a 52-court weighs as a goon court).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from math import comb
from typing import Any, cast

import numpy as np

from games.engine import (
    Action,
    CallTrump,
    ChooseIndicator,
    PlayCard,
    RevealTrump,
    action_from_json,
    parse_cards,
)
from games.engine.court_piece import DEFAULT_TARGET

from ..greedy import lowest_key
from ..sampling import masks_of_rows, shuffled_unknown
from ..search import SearchSettings
from ..sim import SUIT_INDEX, SUIT_MASKS, bit_of, mask_of
from .greedy import court_piece_greedy_action
from .position import PLAYERS, TRICKS, Position, winner_index
from .sampling import Knowledge, Sample, sample_deals
from .sim import WON, Deals, Outcome, Rules, playout
from .solver import REVEAL, Solver, SolverTimeout, Table, Trick

#: What a court adds to the worth of a deal won (R9.7): a deal won is 1, a court 1 + this.
COURT_WEIGHT = 1.0
#: Courts that count without the match in view (so a 52-court weighs as a goon court).
COURTS_CAP = 3
#: R9.8.2: the win that makes seven in a row scores a court.
STREAK_LENGTH = 7
#: Deals drawn together from the weighed pool of candidates.
POOL_BATCH = 320
#: Playouts at most in one round of the search, between two looks at the clock.
ROUND_ROWS = 2048
#: The call is one decision a deal and decides much: it gets this many times the level's deals
#: (whole deals from the first lead are quick: its time limit still holds).
CALL_SAMPLES = 4


@dataclass(frozen=True)
class Context:
    rules: Rules
    seat: int
    side: int
    #: Courts each side still needs (for the cap), and the streak (side, count).
    needed: tuple[int, int]
    streak: tuple[int, int]
    margin_weight: float

    @classmethod
    def of(
        cls,
        position: Position,
        settings: SearchSettings,
        match: Mapping[str, Any] | None,
    ) -> Context:
        needed = (COURTS_CAP, COURTS_CAP)
        streak = (-1, 0)
        if settings.match_aware and match:
            scores = match.get("scores")
            target = match.get("target") or DEFAULT_TARGET
            if scores is not None:
                needed = (max(1, target - scores[0]), max(1, target - scores[1]))
            found = match.get("streak") or {}
            if found.get("side") is not None:
                streak = (int(found["side"]), int(found.get("count") or 0))
        return cls(
            rules=Rules.of(position.options, position.caller),
            seat=position.seat,
            side=position.seat % 2,
            needed=needed,
            streak=streak,
            margin_weight=settings.margin_weight,
        )

    def utility(self, outcome: Outcome) -> np.ndarray:
        winner = np.maximum(outcome.winner, 0)
        courts = outcome.courts
        side, count = self.streak
        if side >= 0 and count + 1 >= STREAK_LENGTH:
            courts = np.where((outcome.how == WON) & (winner == side), 1, courts)
        courts = np.minimum(courts, np.asarray(self.needed)[winner])
        worth = 1.0 + COURT_WEIGHT * courts
        value: np.ndarray = np.where(winner == self.side, worth, -worth)
        if self.margin_weight:
            margin = outcome.sides[:, self.side] - outcome.sides[:, 1 - self.side]
            value = value + self.margin_weight * margin / 7.0
        return value

    def worth(self, winner: int, courts: int) -> float:
        how = WON if courts == 0 else 1
        outcome = Outcome(
            winner=np.array([winner]),
            how=np.array([how]),
            courts=np.array([courts]),
            sides=np.zeros((1, 2), dtype=np.int64),
        )
        return float(self.utility(outcome)[0])


def court_piece_search_action(
    view: Mapping[str, Any],
    *,
    settings: SearchSettings,
    match: Mapping[str, Any] | None,
    deadline: float,
    rng: random.Random,
) -> Action:
    legal = [action_from_json(data) for data in view.get("legal") or ()]
    if len(legal) <= 1:
        return legal[0] if legal else court_piece_greedy_action(view)  # raises NoDecisionError
    position = Position.from_view(view)
    context = Context.of(position, settings, match)
    first = legal[0]
    if isinstance(first, CallTrump | ChooseIndicator):
        if not settings.search_bidding:
            return court_piece_greedy_action(view)
        return _call(view, legal, context, settings, deadline, rng)
    return _play(view, position, legal, context, settings, deadline, rng)


def _best(actions: Sequence[Action], totals: np.ndarray, preferred: Action) -> Action:
    """The action of highest total; between equal totals the greedy baseline's, then the first
    listed (cards lowest first, asking for trump last)."""
    top = totals.max()
    best = [a for a, total in zip(actions, totals, strict=True) if total >= top - 1e-9]
    return preferred if preferred in best else best[0]


def _rounds(settings: SearchSettings, deadline: float, width: int = 1) -> Iterator[int]:
    """Sizes of the rounds of sampled deals, stopping at the deadline (after one round). A
    round plays at most :data:`ROUND_ROWS` playouts (``width`` per deal), so that it stops soon
    after the deadline however many choices there are."""
    done = 0
    per_round = max(8, min(settings.round_size, ROUND_ROWS // width))
    while done < settings.samples:
        size = min(per_round, settings.samples - done)
        yield size
        done += size
        if time.perf_counter() >= deadline:
            return


# -- playing a card, or asking for trump ---------------------------------------------------------


@dataclass(frozen=True)
class _Start:
    """The public state the imagined deals start from."""

    current: list[int]
    reveal_at: int | None
    prev_winner: int
    prev_collected: bool
    #: Whether the last trick was won by an ace: known, or None when it lies face down.
    prev_ace: bool | None

    @classmethod
    def of(cls, position: Position) -> _Start:
        reveal_at = None
        if position.reveal_trick == position.played:
            reveal_at = position.reveal_index(position.played, position.leader)
        prev_winner, prev_collected, prev_ace = -1, False, None
        if position.tricks:
            last = position.tricks[-1]
            prev_winner, prev_collected = last.winner, last.collected_by is not None
            if last.cards is not None:
                counted = position.counted(position.played - 1, last.leader, last.cards)
                prev_ace = last.cards[winner_index(last.cards, counted)].rank == 14
        return cls(
            current=[bit_of(card) for card in position.current],
            reveal_at=reveal_at,
            prev_winner=prev_winner,
            prev_collected=prev_collected,
            prev_ace=prev_ace,
        )


def _prev_aces(position: Position, start: _Start, size: int, rng: random.Random) -> np.ndarray:
    """R9.13: whether the last trick was won by an ace, per deal. Face down, it is drawn: an
    even chance for each ace this seat does not see, out of the four."""
    if start.prev_ace is not None or not position.options.ace_rule:
        return np.full(size, bool(start.prev_ace))
    seen = [card for card in (*position.hand, *position.current) if card.rank == 14]
    chance = (4 - len(seen)) / 8
    nprng = np.random.default_rng(rng.getrandbits(63))
    drawn: np.ndarray = nprng.random(size) < chance
    return drawn


def _play(
    view: Mapping[str, Any],
    position: Position,
    legal: Sequence[Action],
    context: Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    knowledge = Knowledge.from_position(position)
    if settings.reading:
        knowledge = knowledge.with_reading(position)
    trump = position.trump
    cards = sorted(
        (a for a in legal if isinstance(a, PlayCard)), key=lambda a: lowest_key(a.card, trump)
    )
    candidates: list[Action] = [*cards]
    if any(isinstance(a, RevealTrump) for a in legal):
        candidates.append(RevealTrump(position.seat))
    k = len(candidates)
    asks = np.array([isinstance(a, RevealTrump) for a in candidates])
    bits = np.array(
        [bit_of(a.card) if isinstance(a, PlayCard) else bit_of(cards[0].card) for a in candidates],
        dtype=np.int64,
    )
    moves = [bit_of(a.card) if isinstance(a, PlayCard) else REVEAL for a in candidates]
    start = _Start.of(position)
    tricks_left = TRICKS - position.played
    solver = None
    if settings.solve_tricks and tricks_left <= settings.solve_tricks:
        solver = Solver(context.rules, side=context.side, worth=context.worth, deadline=deadline)
    totals = np.zeros(k)
    pending: Sample | None = None
    for size in _rounds(settings, deadline, k * settings.explore_copies):
        if pending is None or len(pending) < size:
            fresh = _draw(position, knowledge, context, settings, rng)
            pending = fresh if pending is None else _concat(pending, fresh)
        deals, pending = pending.take(slice(0, size)), pending.take(slice(size, None))
        prev_ace = _prev_aces(position, start, size, rng)
        if solver is not None:
            try:
                for row in range(size):
                    table, trick = _solver_start(position, start, deals, row, bool(prev_ace[row]))
                    totals += solver.values(table, trick, moves)
                continue
            except SolverTimeout:
                solver = None  # out of time: this round by playouts
        copies = settings.explore_copies
        repeat = k * copies
        batch = Deals.start(
            context.rules,
            np.repeat(deals.hands, repeat, axis=0),
            trump=np.repeat(deals.trump, repeat),
            indicator=np.repeat(_indicator_masks(deals.indicator), repeat),
            reveal_trick=position.reveal_trick,
            leader=position.leader,
            played=position.played,
            current=start.current,
            reveal_at=start.reveal_at,
            won=position.tricks_won,
            chase=position.chase_side,
            collected=position.collected,
            pile=position.pile,
            prev_winner=start.prev_winner,
            prev_collected=start.prev_collected,
            prev_ace=np.repeat(prev_ace, repeat),
            smart_side=context.side if settings.smart_leads else -1,
        )
        if copies > 1:
            batch.explore = np.tile(
                np.where(np.arange(copies) > 0, settings.explore_rate, 0.0), size * k
            )
            batch.explore_rng = np.random.default_rng(rng.getrandbits(63))
        outcome = playout(
            batch,
            first=np.tile(np.repeat(bits, copies), size),
            first_reveal=np.tile(np.repeat(asks, copies), size),
        )
        values = context.utility(outcome).reshape(size, k, copies).max(axis=2)
        totals += values.sum(axis=0)
    return _best(candidates, totals, court_piece_greedy_action(view))


def _concat(a: Sample, b: Sample) -> Sample:
    return Sample(
        np.concatenate([a.hands, b.hands]),
        np.concatenate([a.indicator, b.indicator]),
        np.concatenate([a.trump, b.trump]),
    )


def _indicator_masks(bits: np.ndarray) -> np.ndarray:
    masks: np.ndarray = np.where(
        bits >= 0, np.left_shift(np.uint64(1), np.maximum(bits, 0).astype(np.uint64)), 0
    ).astype(np.uint64)
    return masks


def _draw(
    position: Position,
    knowledge: Knowledge,
    context: Context,
    settings: SearchSettings,
    rng: random.Random,
) -> Sample:
    """A batch of deals; with evidence, drawn from a larger pool in proportion to how well
    each explains the call (R9.4.2, R9.14.1): the caller chose his trump from 5 of his cards."""
    count = max(settings.round_size, min(settings.samples, POOL_BATCH))
    caller = position.caller
    weighed = (
        settings.evidence
        and position.seat != caller
        and position.options.hidden_trump.value != "blind"
    )
    if not weighed:
        return sample_deals(knowledge, count, rng)
    pool = sample_deals(knowledge, count * settings.pool_factor, rng)
    played = 0
    for _number, trick in position.visible_tricks():
        assert trick.cards is not None
        for index, card in enumerate(trick.cards):
            if (trick.leader + index) % PLAYERS == caller:
                played |= 1 << bit_of(card)
    cards = pool.hands[:, caller] | _indicator_masks(pool.indicator) | np.uint64(played)
    held = np.bitwise_count(cards & np.array(SUIT_MASKS, dtype=np.uint64)[pool.trump])
    weights = _CALL_LIKELIHOOD[np.minimum(held.astype(np.int64), 13)]
    nprng = np.random.default_rng(rng.getrandbits(63))
    chosen = nprng.choice(len(pool), size=count, replace=True, p=weights / weights.sum())
    return pool.take(chosen)


def _at_least_two(n: int) -> float:
    """The chance that a random 5 of 13 cards hold at least 2 of a suit held ``n`` times."""
    total = comb(13, 5)
    return 1.0 - (comb(13 - n, 5) + n * comb(13 - n, 4)) / total


#: How likely a caller holding n cards of a suit was to call it (floored: nobody is ruled out).
_CALL_LIKELIHOOD = np.array([max(0.03, _at_least_two(n)) for n in range(14)])


def _solver_start(
    position: Position, start: _Start, deals: Sample, row: int, prev_ace: bool
) -> tuple[Table, Trick]:
    trump = int(deals.trump[row])
    indicator = int(deals.indicator[row])
    sides = position.collected if position.options.double_sir else position.tricks_won
    revealed = position.revealed
    table = Table(
        hands=tuple(int(h) for h in deals.hands[row]),
        trump=trump,
        leader=position.leader,
        played=position.played,
        sides=(sides[0] + sides[2], sides[1] + sides[3]),
        chase=-1 if position.chase_side is None else position.chase_side,
        indicator=1 << indicator if indicator >= 0 else 0,
        revealed=revealed,
        reveal_trick=-1 if position.reveal_trick is None else position.reveal_trick,
        pile=position.pile,
        prev_winner=start.prev_winner,
        prev_collected=start.prev_collected,
        prev_ace=prev_ace,
    )
    trick = Trick()
    for index, bit in enumerate(start.current):
        suit = bit & 3
        led = trick.cards[0] & 3 if trick.cards else suit
        live = revealed and (start.reveal_at is None or index >= start.reveal_at)
        counted = suit == trump and (live or led == trump)
        if not trick.cards:
            better = True
        elif counted:
            better = not trick.best_trump or bit > trick.best_bit
        else:
            better = not trick.best_trump and suit == led and bit > trick.best_bit
        seat = (position.leader + index) % PLAYERS
        trick = Trick(
            cards=(*trick.cards, bit),
            best_bit=bit if better else trick.best_bit,
            best_seat=seat if better else trick.best_seat,
            best_trump=counted if better else trick.best_trump,
        )
    return table, trick


# -- the call (R9.4.2) and the indicator (R9.14.1) ------------------------------------------------


def _call(
    view: Mapping[str, Any],
    legal: Sequence[Action],
    context: Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    """Each choice scored over the same deals of the 47 unseen cards: the caller's other 8 and
    every other seat's 13, played out from his lead (R9.5.1)."""
    seat = context.seat
    first5 = parse_cards(view["hand"][:5])
    own = mask_of(first5)
    unknown = (1 << 52) - 1 & ~own
    k = len(legal)
    mine = np.zeros(k, dtype=np.uint64)
    trumps = np.zeros(k, dtype=np.int64)
    indicators = np.zeros(k, dtype=np.uint64)
    for index, action in enumerate(legal):
        if isinstance(action, ChooseIndicator):
            laid = 1 << bit_of(action.card)
            mine[index], trumps[index], indicators[index] = (
                own & ~laid,
                SUIT_INDEX[action.card.suit],
                laid,
            )
        else:
            call = cast(CallTrump, action)
            mine[index], trumps[index] = own, SUIT_INDEX[call.suit]
    totals = np.zeros(k)
    more = replace(settings, samples=settings.samples * CALL_SAMPLES)
    for size in _rounds(more, deadline, k):
        order = shuffled_unknown(unknown, size, rng)
        hands = np.zeros((size, PLAYERS), dtype=np.uint64)
        start = 0
        for offset in range(PLAYERS):
            other = (seat + offset) % PLAYERS
            need = 8 if other == seat else 13
            hands[:, other] = masks_of_rows(order[:, start : start + need])
            start += need
        dealt = np.repeat(hands, k, axis=0)
        dealt[:, seat] |= np.tile(mine, size)
        batch = Deals.start(
            context.rules,
            dealt,
            trump=np.tile(trumps, size),
            indicator=np.tile(indicators, size),
            reveal_trick=None,
            leader=seat,
        )
        totals += context.utility(playout(batch)).reshape(size, k).sum(axis=0)
    return _best(legal, totals, court_piece_greedy_action(view))


__all__ = ["COURT_WEIGHT", "court_piece_search_action"]
