"""Determinized search: the hard and expert computer players.

At each decision the bot imagines deals of the cards it has not seen that fit everything it has
seen (``games.bots.sampling``), and scores every choice it has in the same imagined deals by
playing them out with the fast simulator (``games.bots.sim``). Once few cards are left it solves
each imagined deal exactly instead (``games.bots.solver``). The choice with the best average
utility wins: the chance to win the hand, Kots weighed in, with the match score in view.

The same machinery makes the other decisions: the trump call (each suit scored over deals of the
47 unseen cards), and in ``hokm2-draw`` the discards and every keep-or-throw (R3.5).

Time: the search works in rounds of sampled deals and looks at the clock between rounds and
inside the solver; it stops at ``deadline`` with what it has, after at least one round.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from games.engine import (
    Action,
    CallTrump,
    Card,
    Discard,
    KeepOrThrow,
    PlayCard,
    Suit,
    action_from_json,
    get_variant,
)

from .greedy import greedy_action, lowest_key
from .sampling import Knowledge, masks_of_rows, sample_deals, shuffled_unknown
from .sim import (
    SUIT_INDEX,
    Batch,
    Outcome,
    Rules,
    bit_of,
    mask_of,
    playout,
    utility,
)
from .solver import Solver, SolverTimeout

#: Deals drawn together from the weighed pool of candidates (see ``_play``).
POSTERIOR_BATCH = 320


@dataclass(frozen=True)
class SearchSettings:
    """How hard one level searches."""

    #: Sampled deals per decision (the search stops earlier at its deadline).
    samples: int
    #: Deals per round between two looks at the clock.
    round_size: int = 64
    #: Solve exactly once at most this many tricks are left to play (0: never).
    solve_tricks: int = 0
    #: Weigh the Hakem's trump call as evidence of his cards.
    evidence: bool = False
    #: Search the trump call, the discards and the draw (else the greedy baseline makes them).
    search_bidding: bool = False
    #: Weigh the match score (points beyond what is needed count for nothing).
    match_aware: bool = False
    #: In the imagined deals, the searcher's own side leads better than greedy (sim._smart_lead).
    smart_leads: bool = False
    #: What an opponent's play the greedy model would not have made does to a deal's weight.
    mistake: float = 0.25
    #: Candidate deals drawn per deal kept, when weighing the evidence.
    pool_factor: int = 4
    #: Weight of the trick margin at the hand's end in the utility (a tie-breaker).
    margin_weight: float = 0.0
    #: Deal no opponent a card the greedy model says he would have played instead
    #: (``games.bots.reading``).
    reading: bool = False
    #: Playouts per deal and choice, all but one exploring (the best counts), and how often an
    #: exploring playout's own-side card is a random one.
    explore_copies: int = 1
    explore_rate: float = 0.0


def search_action(
    view: Mapping[str, Any],
    *,
    settings: SearchSettings,
    match: Mapping[str, Any] | None,
    deadline: float,
    rng: random.Random,
) -> Action:
    legal = [action_from_json(data) for data in view.get("legal") or ()]
    if not legal:
        return greedy_action(view)  # raises NoDecisionError
    if len(legal) == 1:
        return legal[0]
    # The phase decides the kind of action: every legal action is of the first one's kind.
    first = legal[0]
    context = _Context.of(view, settings, match)
    if isinstance(first, PlayCard):
        return _play(view, cast(list[PlayCard], legal), context, settings, deadline, rng)
    if not settings.search_bidding:
        return greedy_action(view)
    if isinstance(first, CallTrump):
        return _call(view, cast(list[CallTrump], legal), context, settings, deadline, rng)
    if isinstance(first, Discard):
        return _discard(view, cast(list[Discard], legal), context, settings, deadline, rng)
    if isinstance(first, KeepOrThrow):
        legal_draws = cast(list[KeepOrThrow], legal)
        return _keep_or_throw(view, legal_draws, context, settings, deadline, rng)
    return greedy_action(view)


@dataclass(frozen=True)
class _Context:
    rules: Rules
    seat: int
    side: int
    hakem: int
    hakem_side: int
    scores: Sequence[int] | None
    target: int | None
    margin_weight: float = 0.0

    @classmethod
    def of(
        cls, view: Mapping[str, Any], settings: SearchSettings, match: Mapping[str, Any] | None
    ) -> _Context:
        rules = Rules.of(get_variant(view["variant"]))
        scores = target = None
        if settings.match_aware and match and match.get("scores") is not None:
            scores, target = list(match["scores"]), match.get("target")
        return cls(
            rules=rules,
            seat=view["seat"],
            side=rules.side_of(view["seat"]),
            hakem=view["hakem"],
            hakem_side=rules.side_of(view["hakem"]),
            scores=scores,
            target=target,
            margin_weight=settings.margin_weight,
        )

    def utility(self, outcome: Outcome) -> np.ndarray:
        return utility(
            outcome,
            side=self.side,
            scores=self.scores,
            target=self.target,
            margin_weight=self.margin_weight,
            partnerships=self.rules.partnerships,
        )

    def worth(self, winner: int, points: int) -> float:
        outcome = Outcome(winner=np.array([winner]), points=np.array([points]))
        return float(self.utility(outcome)[0])


def _best(actions: Sequence[Action], totals: np.ndarray, preferred: Action) -> Action:
    """The action of highest total; between equal totals the greedy baseline's choice, then the
    first listed (candidates are listed lowest first)."""
    top = totals.max()
    best = [a for a, total in zip(actions, totals, strict=True) if total >= top - 1e-9]
    return preferred if preferred in best else best[0]


def _rounds(settings: SearchSettings, deadline: float) -> Iterator[int]:
    """Sizes of the rounds of sampled deals, stopping at the deadline (after one round)."""
    done = 0
    while done < settings.samples:
        size = min(settings.round_size, settings.samples - done)
        yield size
        done += size
        if time.perf_counter() >= deadline:
            return


# -- playing a card ----------------------------------------------------------------------------


def _play(
    view: Mapping[str, Any],
    legal: Sequence[PlayCard],
    context: _Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    knowledge = Knowledge.from_view(view)
    trump = SUIT_INDEX[Suit(view["trump"])]
    candidates = sorted(legal, key=lambda a: lowest_key(a.card, Suit(view["trump"])))
    bits = np.array([bit_of(a.card) for a in candidates], dtype=np.int64)
    current = [bit_of(Card.parse(text)) for text in view["trick"]["cards"]]
    leader = view["trick"]["leader"]
    won = list(view["tricks_won"])
    played = len(view["tricks"])
    tricks_left = max(view["hand_counts"])
    solve = settings.solve_tricks and tricks_left <= settings.solve_tricks
    history = _history(view, context.rules.players)
    totals = np.zeros(len(candidates))
    solver = None
    if solve:
        solver = Solver(
            context.rules,
            trump=trump,
            hakem_side=context.hakem_side,
            side=context.side,
            worth=context.worth,
            deadline=deadline,
        )
    # The deals in large batches: weighing the evidence needs a large pool of candidates to keep
    # enough different deals that fit it (few fit once several tricks have been played). A batch
    # is drawn only when a round needs it, so the deadline holds.
    batch_size = max(settings.round_size, min(settings.samples, POSTERIOR_BATCH))
    pending = np.zeros((0, context.rules.players), dtype=np.uint64)
    for size in _rounds(settings, deadline):
        if len(pending) < size:
            fresh = sample_deals(
                knowledge,
                batch_size,
                rng,
                evidence=settings.evidence,
                history=history,
                rules=context.rules,
                mistake=settings.mistake,
                pool_factor=settings.pool_factor,
                reading=settings.reading,
            )
            pending = np.concatenate([pending, fresh])
        deals, pending = pending[:size], pending[size:]
        if solver is not None:
            try:
                for row in deals:
                    totals += solver.values(
                        [int(h) for h in row],
                        leader=leader,
                        current=current,
                        won=won,
                        played=played,
                        candidates=[int(b) for b in bits],
                    )
                continue
            except SolverTimeout:
                solver = None  # out of time: finish this round with playouts
        k = len(candidates)
        copies = settings.explore_copies
        batch = Batch.start(
            context.rules,
            np.repeat(deals, k * copies, axis=0),
            trump=trump,
            leader=leader,
            hakem_side=context.hakem_side,
            won=won,
            played=played,
            current=current,
            smart_side=context.side if settings.smart_leads else -1,
        )
        if copies > 1:
            # Each (deal, choice) is played out once by the policy and copies - 1 times with the
            # own side trying other cards now and then; the best of them stands for the line of
            # play the side would find.
            batch.explore = np.tile(
                np.where(np.arange(copies) > 0, settings.explore_rate, 0.0), size * k
            )
            batch.explore_rng = np.random.default_rng(rng.getrandbits(63))
        outcome = playout(batch, first=np.tile(np.repeat(bits, copies), size))
        values = context.utility(outcome).reshape(size, k, copies).max(axis=2)
        totals += values.sum(axis=0)
    return _best(candidates, totals, greedy_action(view))


def _history(view: Mapping[str, Any], players: int) -> list[tuple[int, int]]:
    """Every card played this hand, in order, as (seat, bit)."""
    plays = []
    for trick in [*view["tricks"], view["trick"]]:
        for index, text in enumerate(trick["cards"]):
            plays.append(((trick["leader"] + index) % players, bit_of(Card.parse(text))))
    return plays


# -- the trump call (R3.1) -----------------------------------------------------------------------


def _call(
    view: Mapping[str, Any],
    legal: Sequence[CallTrump],
    context: _Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    """Each suit scored over the same deals of the unseen cards (47 in hokm4): the rest of the
    Hakem's hand, every other seat's, and the cards nobody gets (classic hokm2)."""
    variant = get_variant(view["variant"])
    rules = context.rules
    players = rules.players
    own = mask_of(Card.parse(text) for text in view["hand"])
    if variant.has_draw:
        return _call_with_draw(view, legal, context, settings, deadline, rng)
    unknown = mask_of(variant.deck) & ~own
    suits = [a.suit for a in legal]
    totals = np.zeros(len(suits))
    for size in _rounds(settings, deadline):
        order = shuffled_unknown(unknown, size, rng)
        hands = np.zeros((size, players), dtype=np.uint64)
        start = 0
        for seat in range(players):
            need = variant.hand_size - (5 if seat == context.seat else 0)
            hands[:, seat] = masks_of_rows(order[:, start : start + need])
            start += need
        hands[:, context.seat] |= np.uint64(own)
        totals += _score_trumps(context, hands, suits, size)
    return _best(legal, totals, greedy_action(view))


def _score_trumps(
    context: _Context, hands: np.ndarray, suits: Sequence[Suit], size: int
) -> np.ndarray:
    k = len(suits)
    trumps = np.tile(np.array([SUIT_INDEX[s] for s in suits], dtype=np.int64), size)
    batch = Batch.start(
        context.rules,
        np.repeat(hands, k, axis=0),
        trump=trumps,
        leader=context.hakem,
        hakem_side=context.hakem_side,
    )
    totals: np.ndarray = context.utility(playout(batch)).reshape(size, k).sum(axis=0)
    return totals


def _call_with_draw(
    view: Mapping[str, Any],
    legal: Sequence[CallTrump],
    context: _Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    """hokm2-draw (R3.5): each suit scored as if the Hakem then discarded as the greedy baseline
    would and filled his hand from the stock at random (both players' draws are imagined alike)."""
    own_cards = [Card.parse(text) for text in view["hand"]]
    suits = [a.suit for a in legal]
    totals = np.zeros(len(suits))
    unknown = mask_of(get_variant(view["variant"]).deck) & ~mask_of(own_cards)
    for size in _rounds(settings, deadline):
        order = shuffled_unknown(unknown, size, rng)
        for index, suit in enumerate(suits):
            kept = sorted(own_cards, key=lambda c: lowest_key(c, suit))[3:]
            hands = _fill(context, mask_of(kept), order, opponent_known=0)
            totals[index] += _worth_from_first_lead(context, hands, SUIT_INDEX[suit])
    return _best(legal, totals, greedy_action(view))


def _worth_from_first_lead(context: _Context, hands: np.ndarray, trump: int) -> float:
    """The total utility of playing out these whole hands from the Hakem's first lead."""
    batch = Batch.start(
        context.rules, hands, trump=trump, leader=context.hakem, hakem_side=context.hakem_side
    )
    return float(context.utility(playout(batch)).sum())


def _fill(context: _Context, own: int, order: np.ndarray, *, opponent_known: int) -> np.ndarray:
    """Two-player hands: this seat's ``own`` cards topped up to 13 from each row of ``order``
    (random unseen cards), the opponent's 13 from the next ones."""
    size = order.shape[0]
    seat, other = context.seat, 1 - context.seat
    mine = 13 - own.bit_count()
    hands = np.zeros((size, 2), dtype=np.uint64)
    hands[:, seat] = masks_of_rows(order[:, :mine]) | np.uint64(own)
    hands[:, other] = masks_of_rows(order[:, mine : mine + 13]) | np.uint64(opponent_known)
    return hands


# -- hokm2-draw: the discards and the keep-or-throw (R3.5) ---------------------------------------


def _discard(
    view: Mapping[str, Any],
    legal: Sequence[Discard],
    context: _Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    own5 = set()
    for action in legal:
        own5 |= set(action.cards)
    hand = mask_of(Card.parse(text) for text in view["hand"])
    unknown = mask_of(get_variant(view["variant"]).deck) & ~hand
    trump = SUIT_INDEX[Suit(view["trump"])]
    totals = np.zeros(len(legal))
    for size in _rounds(settings, deadline):
        order = shuffled_unknown(unknown, size, rng)
        for index, action in enumerate(legal):
            kept = hand & ~mask_of(action.cards)
            hands = _fill(context, kept, order, opponent_known=0)
            totals[index] += _worth_from_first_lead(context, hands, trump)
    return _best(legal, totals, greedy_action(view))


def _keep_or_throw(
    view: Mapping[str, Any],
    legal: Sequence[KeepOrThrow],
    context: _Context,
    settings: SearchSettings,
    deadline: float,
    rng: random.Random,
) -> Action:
    """Keep the card on top, or throw it and keep the next one unseen: both scored over the same
    imagined rest of the draw (the next card, then random cards to 13 for both players)."""
    draw = view["draw"]
    top = bit_of(Card.parse(draw["top"]))
    hand = mask_of(Card.parse(text) for text in view["hand"])
    seen = hand | (1 << top) | mask_of(Card.parse(text) for text in draw["own_discards"])
    unknown = mask_of(get_variant(view["variant"]).deck) & ~seen
    trump = SUIT_INDEX[Suit(view["trump"])]
    keep = next(a for a in legal if a.keep)
    throw = next(a for a in legal if not a.keep)
    totals = np.zeros(2)
    for size in _rounds(settings, deadline):
        order = shuffled_unknown(unknown, size, rng)
        following = order[:, 0]
        rest = order[:, 1:]
        for index, kept in enumerate((None, following)):
            own = np.full(size, hand, dtype=np.uint64)
            if kept is None:
                own |= np.uint64(1 << top)
            else:
                own |= np.left_shift(np.uint64(1), kept.astype(np.uint64))
            mine = 12 - hand.bit_count()  # cards still to come after this turn's one
            hands = np.zeros((size, 2), dtype=np.uint64)
            hands[:, context.seat] = own | masks_of_rows(rest[:, :mine])
            hands[:, 1 - context.seat] = masks_of_rows(rest[:, mine : mine + 13])
            totals[index] += _worth_from_first_lead(context, hands, trump)
    return _best([keep, throw], totals, greedy_action(view))


__all__ = ["SearchSettings", "search_action"]
