"""Deals of what a Court Piece seat has not seen, consistent with its view (determinization).

The seat sees its own hand, the current trick, the finished tricks' cards unless they lie face
down (Double Sir, R9.12.1), who won and collected each trick, each seat's card count, and the
indicator only when R9.14.1 shows it. Everything else is sampled:

- every other seat's hand, at its count, never with a card of a suit it has shown it lacks
  (R4.2; for the caller before the reveal, his hand without the indicator, R9.14.3) nor, after a
  reveal while void, a trump when it did not trump (R9.14.4);
- the indicator, while it lies face down and unseen (hidden trump before the reveal; under
  ``blind`` even for the caller): one unseen card, whose suit is then that deal's trump;
- under Double Sir, the face-down cards of finished tricks (the seat's own included: the view
  does not show them either) go to a pile of played cards, and the revealed indicator, not
  seen played, is in the caller's hand or in that pile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from games.engine import Card

from ..reading import deal_possible, greedy_exclusions
from ..sim import FULL, SUIT_INDEX, SUIT_MASKS, bit_of, mask_of
from ..sim import Rules as HokmRules
from .position import PLAYERS, Position

#: Holders of unseen cards besides the seats: the face-down indicator, and (Double Sir) the
#: face-down cards of finished tricks.
INDICATOR = -2
PLAYED = -1
#: Hokm's simulator rules for four players in partnerships: the card play of Court Piece
#: without hidden trump is Hokm's (R9.1.2), which is what the reading of plays needs.
PLAIN_PLAY = HokmRules(
    players=4, partnerships=True, three_players=False, tricks_per_hand=13, tricks_to_win=7
)
#: Deal again rows that ran into a dead end this many times, then build them one by one.
VECTOR_ATTEMPTS = 6


class NoConsistentDealError(RuntimeError):
    """No deal fits the view: the view contradicts itself (it cannot come from the engine)."""


@dataclass(frozen=True)
class Knowledge:
    """Who may hold each card this seat has not seen."""

    seat: int
    own: int
    unknown: int
    holders: tuple[int, ...]  # seats, INDICATOR, PLAYED
    room: tuple[int, ...]  # cards each holder gets
    barred: tuple[int, ...]  # per holder, the cards it never gets
    #: The indicator's bit when the seat knows where it lies face down, else -1.
    indicator_bit: int
    #: The trump when this seat knows it; else each deal's is its indicator's suit.
    trump: int | None

    @classmethod
    def from_position(cls, position: Position) -> Knowledge:
        seat = position.seat
        own = mask_of(position.hand)
        seen = own | mask_of(position.current)
        voids = [0] * PLAYERS
        for number, trick in position.visible_tricks():
            assert trick.cards is not None
            seen |= mask_of(trick.cards)
            _read_voids(position, number, trick.leader, trick.cards, voids)
        _read_voids(position, position.played, position.leader, position.current, voids)
        indicator = position.indicator
        lying_apart = position.hidden and not position.revealed
        indicator_bit = -1
        if indicator is not None:
            if lying_apart:  # the caller's own indicator under ``chosen``
                indicator_bit = bit_of(indicator)
                seen |= 1 << indicator_bit
            elif not seen >> bit_of(indicator) & 1:
                # Revealed and not seen played: in the caller's hand (or, face down, played).
                for other in range(PLAYERS):
                    if other != position.caller:
                        voids[other] |= 1 << bit_of(indicator)
        unknown = FULL & ~seen
        holders = [s for s in range(PLAYERS) if s != seat]
        room = [position.hand_counts[s] for s in holders]
        barred = [voids[s] for s in holders]
        if lying_apart and indicator is None:
            holders.append(INDICATOR)
            room.append(1)
            barred.append(0)
        gone = unknown.bit_count() - sum(room)
        if gone < 0:
            raise NoConsistentDealError("the view counts more hidden cards than there are")
        if gone:
            holders.append(PLAYED)
            room.append(gone)
            barred.append(0)
        return cls(
            seat=seat,
            own=own,
            unknown=unknown,
            holders=tuple(holders),
            room=tuple(room),
            barred=tuple(barred),
            indicator_bit=indicator_bit,
            trump=SUIT_INDEX[position.trump] if position.trump is not None else None,
        )

    def with_reading(self, position: Position) -> Knowledge:
        """The opponents' plays read as the greedy model's (``games.bots.reading``), when the
        card play is Hokm's (no hidden trump, every card face up) and some deal still fits."""
        if position.hidden or position.options.double_sir or self.trump is None:
            return self
        tricks = [(trick.leader, trick.cards or ()) for trick in position.tricks]
        tricks.append((position.leader, position.current))
        history = [
            ((leader + i) % PLAYERS, bit_of(card))
            for leader, cards in tricks
            for i, card in enumerate(cards)
        ]
        if not history:
            return self
        excluded = greedy_exclusions(history, rules=PLAIN_PLAY, trump=self.trump, reader=self.seat)
        barred = tuple(
            mask | (excluded[h] & self.unknown if h >= 0 else 0)
            for h, mask in zip(self.holders, self.barred, strict=True)
        )
        read = replace(self, barred=barred)
        return read if deal_possible(barred, self.room, self.unknown) else self


def _read_voids(
    position: Position, number: int, leader: int, cards: Sequence[Card], voids: list[int]
) -> None:
    """R4.2: a seat that did not follow lacks the suit led; R9.14.4: a seat that revealed while
    void and did not trump lacks trumps (the caller's void before the reveal leaves out the
    indicator, which was not in his hand then, R9.14.3)."""
    if not cards:
        return
    led = cards[0].suit
    after = position.reveal_index(number, leader)
    indicator = 1 << bit_of(position.indicator) if position.indicator is not None else 0
    for index, card in enumerate(cards):
        who = (leader + index) % PLAYERS
        if card.suit == led:
            continue
        lacks = SUIT_MASKS[SUIT_INDEX[led]]
        before_reveal = after is None or index < after
        if who == position.caller and position.hidden and before_reveal:
            lacks &= ~indicator
        voids[who] |= lacks
        trump = position.trump
        if (
            trump is not None
            and number == position.reveal_trick
            and who == position.reveal_seat
            and card.suit != trump
        ):
            voids[who] |= SUIT_MASKS[SUIT_INDEX[trump]]


@dataclass(frozen=True)
class Sample:
    """Sampled deals: hands (N, 4) with the seat's own, and per row the indicator's bit (-1
    when it is not lying apart) and the trump suit index."""

    hands: np.ndarray
    indicator: np.ndarray
    trump: np.ndarray

    def __len__(self) -> int:
        return int(self.hands.shape[0])

    def take(self, rows: np.ndarray | slice) -> Sample:
        return Sample(self.hands[rows], self.indicator[rows], self.trump[rows])


def sample_deals(knowledge: Knowledge, count: int, rng: random.Random) -> Sample:
    """``count`` deals of the unseen cards fitting ``knowledge``."""
    holders = knowledge.holders
    columns = _deal(knowledge, count, rng)
    hands = np.zeros((count, PLAYERS), dtype=np.uint64)
    hands[:, knowledge.seat] = np.uint64(knowledge.own)
    indicator = np.full(count, knowledge.indicator_bit, dtype=np.int64)
    for column, holder in enumerate(holders):
        if holder >= 0:
            hands[:, holder] = columns[:, column]
        elif holder == INDICATOR:
            indicator = _single_bit(columns[:, column])
    if knowledge.trump is not None:
        trump = np.full(count, knowledge.trump, dtype=np.int64)
    else:
        trump = indicator & 3
    return Sample(hands, indicator, trump)


def _single_bit(masks: np.ndarray) -> np.ndarray:
    bits: np.ndarray = np.frexp(masks.astype(np.float64))[1].astype(np.int64) - 1
    return bits


def _deal(knowledge: Knowledge, count: int, rng: random.Random) -> np.ndarray:
    """(count, holders) masks: every unseen card given to a holder that may take it, each
    holder getting exactly its room. Cards go out most constrained first, each to an allowed
    holder in proportion to the room it has left, all rows at once; rows that run into a dead
    end are dealt again, and the last few built card by card with Hall's condition checked."""
    holders = knowledge.holders
    bits = [b for b in range(52) if knowledge.unknown >> b & 1]
    allowed = {
        bit: np.array([not barred >> bit & 1 for barred in knowledge.barred], dtype=bool)
        for bit in bits
    }
    order = list(bits)
    rng.shuffle(order)
    order.sort(key=lambda bit: int(allowed[bit].sum()))
    nprng = np.random.default_rng(rng.getrandbits(63))
    result = np.zeros((count, len(holders)), dtype=np.uint64)
    todo = np.arange(count)
    for _attempt in range(VECTOR_ATTEMPTS):
        dealt, failed = _vector_deal(knowledge, allowed, order, len(todo), nprng)
        result[todo[~failed]] = dealt[~failed]
        todo = todo[failed]
        if not len(todo):
            return result
    for row in todo:
        result[row] = _checked_deal(knowledge, bits, rng)
    return result


def _vector_deal(
    knowledge: Knowledge,
    allowed: dict[int, np.ndarray],
    order: Sequence[int],
    count: int,
    nprng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    width = len(knowledge.holders)
    room = np.tile(np.array(knowledge.room, dtype=np.int64), (count, 1))
    owner = np.zeros((count, len(order)), dtype=np.int64)
    failed = np.zeros(count, dtype=bool)
    draws = nprng.random((count, len(order)))
    for index, bit in enumerate(order):
        weight = room * allowed[bit]
        total = weight.sum(axis=1)
        failed |= total == 0
        cumulative = np.cumsum(weight, axis=1)
        pick = (cumulative <= (draws[:, index] * np.maximum(total, 1))[:, None]).sum(axis=1)
        pick = np.minimum(pick, width - 1)
        owner[:, index] = pick
        room[np.arange(count), pick] -= 1
    order_bits = np.left_shift(np.uint64(1), np.array(order, dtype=np.uint64))
    dealt = np.zeros((count, width), dtype=np.uint64)
    for column in range(width):
        chosen = np.where(owner == column, order_bits, np.uint64(0))
        dealt[:, column] = np.bitwise_or.reduce(chosen, axis=1)
    return dealt, failed


def _checked_deal(knowledge: Knowledge, bits: Sequence[int], rng: random.Random) -> np.ndarray:
    """One deal built card by card, each card given to an allowed holder (in proportion to its
    room) that leaves the rest possible to deal (Hall's condition), so it never backs up."""
    room = list(knowledge.room)
    barred = knowledge.barred
    rest = sum(1 << bit for bit in bits)
    if not deal_possible(barred, room, rest):
        raise NoConsistentDealError("no deal of the unseen cards fits the view")
    order = list(bits)
    rng.shuffle(order)
    dealt = [0] * len(room)
    for bit in order:
        rest &= ~(1 << bit)
        choices = [h for h in range(len(room)) if room[h] > 0 and not barred[h] >> bit & 1]
        while True:  # one of the choices keeps the deal possible, since it was before
            holder = rng.choices(choices, [room[h] for h in choices])[0]
            room[holder] -= 1
            if deal_possible(barred, room, rest):
                break
            room[holder] += 1
            choices.remove(holder)
        dealt[holder] |= 1 << bit
    return np.array(dealt, dtype=np.uint64)
