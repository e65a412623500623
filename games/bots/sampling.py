"""What a seat knows, and deals of the unseen cards consistent with it (determinization).

Everything here is read from the seat's view (``games.engine.view``): its own cards and discards,
the cards played, who could not follow suit (a void), how many cards each seat holds, and which
trump the Hakem called. A sampled deal gives every other seat exactly as many cards as it holds,
never a card of a suit it has shown it lacks, and never a card this seat has seen elsewhere.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from math import comb
from typing import Any

import numpy as np

from games.engine import Card, Suit, get_variant

from .reading import deal_possible, greedy_exclusions
from .sim import SUIT_INDEX, SUIT_MASKS, Batch, Rules, bit_of, cards_of, mask_of

#: The seat index standing for the cards nobody holds: the undealt half of classic hokm2 (R3.4),
#: the discards and the rest of the stock in hokm2-draw (R3.5).
PILE = -1


class NoConsistentDealError(RuntimeError):
    """No deal fits the view: the view contradicts itself (it cannot come from the engine)."""


@dataclass(frozen=True)
class Knowledge:
    """One seat's knowledge of a hand in play."""

    seat: int
    players: int
    own: int  # mask of the seat's cards
    unknown: int  # mask of the cards it has not seen
    counts: tuple[int, ...]  # cards held per seat (its own included)
    pile: int  # how many unseen cards nobody holds
    voids: tuple[int, ...]  # per seat, a mask of the suits it has shown it lacks (suit masks)
    played_by: tuple[int, ...]  # per seat, the cards it has played (mask)
    hakem: int
    trump: Suit | None
    hand_size: int  # cards dealt to each seat (13, or 17 in hokm3)
    #: Per seat, a mask of the cards it is taken not to hold because of how it played
    #: (:func:`read_plays`); unlike a void, an inference that may be wrong.
    excluded: tuple[int, ...] = ()

    def barred(self, holder: int) -> int:
        """The cards a sampled deal never gives ``holder``: the suits it lacks and the cards it
        is taken not to hold (none for the pile)."""
        if holder == PILE:
            return 0
        return self.voids[holder] | (self.excluded[holder] if self.excluded else 0)

    def room(self, holder: int) -> int:
        """How many unseen cards ``holder`` (a seat, or the pile) gets in a deal."""
        return self.pile if holder == PILE else self.counts[holder]

    def holders(self) -> list[int]:
        """Who gets the unseen cards: every other seat, and the pile when there is one."""
        others = [s for s in range(self.players) if s != self.seat]
        return others + ([PILE] if self.pile else [])

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Knowledge:
        variant = get_variant(view["variant"])
        seat = view["seat"]
        players = variant.players
        own = mask_of(Card.parse(text) for text in view["hand"])
        seen = own
        draw = view.get("draw") or {}
        for text in draw.get("own_discards") or ():
            seen |= 1 << bit_of(Card.parse(text))
        if draw.get("top"):
            seen |= 1 << bit_of(Card.parse(draw["top"]))
        voids = [0] * players
        played_by = [0] * players
        tricks = list(view["tricks"]) + [view["trick"]]
        for trick in tricks:
            cards = [Card.parse(text) for text in trick["cards"]]
            if not cards:
                continue
            led = cards[0].suit
            for index, card in enumerate(cards):
                who = (trick["leader"] + index) % players
                bit = 1 << bit_of(card)
                seen |= bit
                played_by[who] |= bit
                if card.suit != led:
                    voids[who] |= SUIT_MASKS[SUIT_INDEX[led]]  # R4.2: he could not follow
        deck = mask_of(variant.deck)
        unknown = deck & ~seen
        counts = tuple(view["hand_counts"])
        others = sum(count for s, count in enumerate(counts) if s != seat)
        pile = unknown.bit_count() - others
        if pile < 0:
            raise NoConsistentDealError("the view counts more hidden cards than there are")
        return cls(
            seat=seat,
            players=players,
            own=own,
            unknown=unknown,
            counts=counts,
            pile=pile,
            voids=tuple(voids),
            played_by=tuple(played_by),
            hakem=view["hakem"],
            trump=Suit(view["trump"]) if view.get("trump") else None,
            hand_size=variant.hand_size,
        )


def sample_deals(
    knowledge: Knowledge,
    count: int,
    rng: random.Random,
    *,
    evidence: bool = False,
    history: Sequence[tuple[int, int]] = (),
    rules: Rules | None = None,
    mistake: float = 0.25,
    pool_factor: int = 4,
    reading: bool = False,
) -> np.ndarray:
    """``count`` deals of the unseen cards, as an array (count, players) of hand masks (the
    seat's own hand included).

    With ``evidence``, deals are drawn in proportion to how well they explain what the other
    players did: the Hakem's trump call (he called from 5 of his cards) and, given ``history``
    (every card played this hand, as (seat, bit) in order) and ``rules``, each opponent's plays
    as the greedy baseline would have made them with the cards the deal gives him. A play the
    model would not have made multiplies a deal's weight by ``mistake`` rather than ruling it
    out, since real players are not the model.

    With ``reading`` (and ``history`` and ``rules``), no deal gives an opponent a card that the
    greedy model says he would have played instead of one he did (:func:`read_plays`).
    """
    if reading and history and rules is not None and knowledge.trump is not None:
        knowledge = read_plays(knowledge, history, rules)
    if not evidence:
        return _draw(knowledge, count, rng)
    pool = _draw(knowledge, count * pool_factor, rng)
    weights = np.ones(len(pool), dtype=np.float64)
    if knowledge.trump is not None and knowledge.hakem != knowledge.seat:
        hakem_cards = pool[:, knowledge.hakem] | np.uint64(knowledge.played_by[knowledge.hakem])
        weights *= _call_likelihood(hakem_cards, knowledge.trump, knowledge.hand_size)
    if history and rules is not None and knowledge.trump is not None:
        misses = _model_misses(knowledge, pool, history, rules)
        weights *= mistake**misses
    nprng = np.random.default_rng(rng.getrandbits(63))
    chosen = nprng.choice(len(pool), size=count, replace=True, p=weights / weights.sum())
    deals: np.ndarray = pool[chosen]
    return deals


def read_plays(knowledge: Knowledge, history: Sequence[tuple[int, int]], rules: Rules) -> Knowledge:
    """``knowledge`` with the opponents' plays read as the greedy model's
    (``games.bots.reading``): the cards each is taken not to hold, as long as some deal of the
    unseen cards still fits them all; else the plain knowledge. Plays come after the call."""
    assert knowledge.trump is not None, "cards are played only after the trump is called"
    excluded = greedy_exclusions(
        history, rules=rules, trump=SUIT_INDEX[knowledge.trump], reader=knowledge.seat
    )
    read = replace(knowledge, excluded=tuple(mask & knowledge.unknown for mask in excluded))
    holders = knowledge.holders()
    barred = [read.barred(h) for h in holders]
    room = [knowledge.room(h) for h in holders]
    return read if deal_possible(barred, room, knowledge.unknown) else knowledge


def _model_misses(
    knowledge: Knowledge, deals: np.ndarray, history: Sequence[tuple[int, int]], rules: Rules
) -> np.ndarray:
    """Per deal, how many of the opponents' plays the greedy baseline would not have made:
    the hand is replayed from its first trick with each seat holding, in that deal, the cards
    it holds now and the cards it has played since."""
    assert knowledge.trump is not None, "cards are played only after the trump is called"
    start = deals.copy()
    for seat in range(knowledge.players):
        start[:, seat] |= np.uint64(knowledge.played_by[seat])
    batch = Batch.start(
        rules,
        start,
        trump=SUIT_INDEX[knowledge.trump],
        leader=history[0][0],
        hakem_side=rules.side_of(knowledge.hakem),
    )
    my_side = rules.side_of(knowledge.seat)
    misses = np.zeros(len(deals), dtype=np.int64)
    for seat, bit in history:
        if rules.side_of(seat) != my_side:
            misses += batch.greedy_choice() != bit
        batch.play(np.full(len(deals), bit, dtype=np.int64))
    return misses


def _call_likelihood(hakem_cards: np.ndarray, trump: Suit, hand_size: int) -> np.ndarray:
    """How likely a Hakem with these cards was to call ``trump`` from 5 of them: the chance that
    a random 5 of his cards hold at least 2 of the suit (the most-held suit of 5 usually has 2
    or more), with a floor so that no deal is ruled out."""
    suit_mask = np.uint64(SUIT_MASKS[SUIT_INDEX[trump]])
    held = _popcount(hakem_cards & suit_mask)
    table = np.array([max(0.03, _at_least_two(n, hand_size)) for n in range(14)], dtype=np.float64)
    likelihoods: np.ndarray = table[np.minimum(held, 13)]
    return likelihoods


def _at_least_two(n: int, size: int) -> float:
    n = min(n, size)
    total = comb(size, 5)
    none = comb(size - n, 5)
    one = n * comb(size - n, 4)
    return 1.0 - (none + one) / total


def _popcount(x: np.ndarray) -> np.ndarray:
    counts: np.ndarray = np.bitwise_count(x)
    return counts.astype(np.int64)


def _draw(knowledge: Knowledge, count: int, rng: random.Random) -> np.ndarray:
    players = knowledge.players
    hands = np.zeros((count, players), dtype=np.uint64)
    hands[:, knowledge.seat] = np.uint64(knowledge.own)
    unknown = cards_of(knowledge.unknown)
    bits = [bit_of(card) for card in unknown]
    others = [s for s in range(players) if s != knowledge.seat]
    if not any(knowledge.barred(s) & knowledge.unknown for s in others):
        # Nothing constrains who holds what: a plain shuffle of the unseen cards per deal.
        nprng = np.random.default_rng(rng.getrandbits(63))
        order = np.argsort(nprng.random((count, len(bits))), axis=1)
        shifted = np.left_shift(np.uint64(1), np.array(bits, dtype=np.uint64))[order]
        start = 0
        for s in others:
            size = knowledge.counts[s]
            if size:
                hands[:, s] = np.bitwise_or.reduce(shifted[:, start : start + size], axis=1)
            start += size
        return hands
    return _constrained_draw(knowledge, bits, hands, rng)


def _constrained_draw(
    knowledge: Knowledge,
    bits: Sequence[int],
    hands: np.ndarray,
    rng: random.Random,
) -> np.ndarray:
    """Deals where some seat may not hold some cards (a void, or a reading), all rows at once:
    the unseen cards are given out one by one, the most constrained first, each to a seat that
    may hold it (or the pile) chosen in proportion to the room it has left. Rows that run into a
    dead end are dealt again the same way, a few times; the rare row still failing then by
    :func:`_one_constrained_deal`."""
    holders = knowledge.holders()
    allowed = {
        bit: np.array(
            [not knowledge.barred(h) >> bit & 1 for h in holders],
            dtype=bool,
        )
        for bit in bits
    }
    order = list(bits)
    rng.shuffle(order)
    order.sort(key=lambda bit: int(allowed[bit].sum()))
    nprng = np.random.default_rng(rng.getrandbits(63))
    todo = np.arange(hands.shape[0])
    for _attempt in range(VECTOR_ATTEMPTS):
        dealt, failed = _vector_deal(knowledge, holders, allowed, order, len(todo), nprng)
        good = todo[~failed]
        for column, holder in enumerate(holders):
            if holder != PILE:
                hands[good, holder] = dealt[~failed, column]
        todo = todo[failed]
        if not len(todo):
            return hands
    # One at a time is slow (a millisecond or more a deal): tight readings can leave thousands
    # of rows here, so only a few are dealt that way and the rest copy rows already dealt.
    done = np.setdiff1d(np.arange(hands.shape[0]), todo)
    for row in todo[:ONE_BY_ONE]:
        for holder, mask in _one_constrained_deal(knowledge, bits, rng).items():
            hands[row, holder] = np.uint64(mask)
    rest = todo[ONE_BY_ONE:]
    if len(rest):
        sources = np.concatenate([done, todo[:ONE_BY_ONE]])
        hands[rest] = hands[nprng.choice(sources, size=len(rest))]
    return hands


#: Rounds of the all-rows-at-once deal before the rows still failing are dealt one at a time.
VECTOR_ATTEMPTS = 6
#: Rows at most dealt one at a time after those rounds; any others copy a row already dealt.
ONE_BY_ONE = 24


def _vector_deal(
    knowledge: Knowledge,
    holders: Sequence[int],
    allowed: Mapping[int, np.ndarray],
    order: Sequence[int],
    count: int,
    nprng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """One attempt for ``count`` rows: the masks per holder (count, holders) and the rows that
    ran into a dead end."""
    room = np.tile(
        np.array(
            [knowledge.room(h) for h in holders],
            dtype=np.int64,
        ),
        (count, 1),
    )
    owner = np.zeros((count, len(order)), dtype=np.int64)
    failed = np.zeros(count, dtype=bool)
    draws = nprng.random((count, len(order)))
    for index, bit in enumerate(order):
        weight = room * allowed[bit]
        total = weight.sum(axis=1)
        failed |= total == 0
        cumulative = np.cumsum(weight, axis=1)
        pick = (cumulative <= (draws[:, index] * np.maximum(total, 1))[:, None]).sum(axis=1)
        pick = np.minimum(pick, len(holders) - 1)
        owner[:, index] = pick
        room[np.arange(count), pick] -= 1
    order_bits = np.left_shift(np.uint64(1), np.array(order, dtype=np.uint64))
    dealt = np.zeros((count, len(holders)), dtype=np.uint64)
    for column in range(len(holders)):
        chosen = np.where(owner == column, order_bits, np.uint64(0))
        dealt[:, column] = np.bitwise_or.reduce(chosen, axis=1)
    return dealt, failed


#: Plain random attempts at one deal before it is built with every step checked (slower).
RANDOM_ATTEMPTS = 4


def _one_constrained_deal(
    knowledge: Knowledge, bits: Sequence[int], rng: random.Random
) -> dict[int, int]:
    """Give each unseen card to a seat that may hold it (or to the pile), the most constrained
    cards first, each to a seat chosen in proportion to the room it has left."""
    holders = knowledge.holders()

    def allowed(bit: int) -> list[int]:
        return [h for h in holders if not knowledge.barred(h) >> bit & 1]

    options = {bit: allowed(bit) for bit in bits}
    for _attempt in range(RANDOM_ATTEMPTS):
        room = {h: knowledge.room(h) for h in holders}
        order = list(bits)
        rng.shuffle(order)
        order.sort(key=lambda bit: len(options[bit]))
        dealt = dict.fromkeys(holders, 0)
        for bit in order:
            open_holders = [h for h in options[bit] if room[h] > 0]
            if not open_holders:
                break
            weights = [room[h] for h in open_holders]
            holder = rng.choices(open_holders, weights)[0]
            room[holder] -= 1
            dealt[holder] |= 1 << bit
        else:
            dealt.pop(PILE, None)
            return dealt
    return _checked_deal(knowledge, options, holders, rng)


def _checked_deal(
    knowledge: Knowledge,
    options: Mapping[int, Sequence[int]],
    holders: Sequence[int],
    rng: random.Random,
) -> dict[int, int]:
    """A consistent deal built card by card, each card given to a random allowed holder (in
    proportion to its room) that leaves the rest still possible to deal. Hall's condition
    (:func:`games.bots.reading.deal_possible`) says exactly when it is, so no choice is ever
    undone: a few thousand steps, where a search that backs up can take exponential time."""
    room = {h: knowledge.room(h) for h in holders}
    barred = {h: knowledge.barred(h) for h in holders}
    rest = sum(1 << bit for bit in options)

    def possible() -> bool:
        return deal_possible([barred[h] for h in holders], [room[h] for h in holders], rest)

    if not possible():
        raise NoConsistentDealError("no deal of the unseen cards fits the view")
    order = list(options)
    rng.shuffle(order)
    order.sort(key=lambda bit: len(options[bit]))
    dealt = dict.fromkeys(holders, 0)
    for bit in order:
        rest &= ~(1 << bit)
        choices = [h for h in options[bit] if room[h] > 0]
        while True:  # one of the choices keeps the deal possible, since it was before
            holder = rng.choices(choices, [room[h] for h in choices])[0]
            room[holder] -= 1
            if possible():
                break
            room[holder] += 1
            choices.remove(holder)
        dealt[holder] |= 1 << bit
    dealt.pop(PILE, None)
    return dealt


def shuffled_unknown(unknown: int, count: int, rng: random.Random) -> np.ndarray:
    """``count`` random orders of the cards of ``unknown``, as bits (count, cards)."""
    bits = np.array([bit_of(card) for card in cards_of(unknown)], dtype=np.int64)
    nprng = np.random.default_rng(rng.getrandbits(63))
    order = np.argsort(nprng.random((count, len(bits))), axis=1)
    orders: np.ndarray = bits[order]
    return orders


def masks_of_rows(bits: np.ndarray) -> np.ndarray:
    """Each row of bits as one mask."""
    if bits.shape[1] == 0:
        return np.zeros(bits.shape[0], dtype=np.uint64)
    masks: np.ndarray = np.bitwise_or.reduce(
        np.left_shift(np.uint64(1), bits.astype(np.uint64)), axis=1
    )
    return masks
