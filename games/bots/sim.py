"""A fast simulator for the bots' search: thousands of hands played out at once as arrays.

The engine (``games.engine``) is the authority and is built for clarity; the search needs to play
out hundreds of sampled deals per decision. Here a seat's cards are one 52-bit integer and a batch
of deals is a NumPy array of them, so one Python step plays a card in every deal of the batch.

Bit layout: bit ``(rank - 2) * 4 + s`` where ``s`` is the suit's place in ``SUIT_BITS_ORDER``
(spades, hearts, diamonds, clubs: the greedy baseline's tie order). Ranks run upward, so within
one suit a higher bit is a higher card, and the lowest set bit of a hand is its lowest rank.
Bits stay below 2**53, so ``float64`` holds them exactly and ``frexp`` finds the highest bit.

The playout policy is the greedy baseline's (``games.bots.greedy``), card for card: lead the
highest non-trump, play low when the partner is winning, else the lowest card that wins the trick
now, else the lowest card. It is the model the search has of every player in the deals it
imagines; the searcher's own side may lead better (:meth:`Batch._smart_lead`) and try other
cards now and then (``Batch.explore``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from games.engine import Card, Suit, Variant
from games.engine.variants import Scoring

SUIT_BITS_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
SUIT_INDEX: dict[Suit, int] = {suit: index for index, suit in enumerate(SUIT_BITS_ORDER)}
FULL: int = (1 << 52) - 1
#: Every card of one suit, by suit index.
SUIT_MASKS: tuple[int, ...] = tuple(
    sum(1 << (rank * 4 + s) for rank in range(13)) for s in range(4)
)

_U = np.uint64
_SUIT_MASKS_NP = np.array(SUIT_MASKS, dtype=np.uint64)
_ZERO = _U(0)
_ONE = _U(1)
_TWO = _U(2)
_FULL_NP = _U(FULL)


def bit_of(card: Card) -> int:
    return (card.rank - 2) * 4 + SUIT_INDEX[card.suit]


def card_of(bit: int) -> Card:
    return Card(bit // 4 + 2, SUIT_BITS_ORDER[bit % 4])


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << bit_of(card)
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, lowest bit first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(card_of(low.bit_length() - 1))
        mask ^= low
    return cards


def high_bit(x: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each non-zero entry (int64)."""
    return np.frexp(x.astype(np.float64))[1].astype(np.int64) - 1


def low_bit_mask(x: np.ndarray) -> np.ndarray:
    return x & (~x + _ONE)


def _highest(x: np.ndarray) -> np.ndarray:
    """The greedy baseline's highest card: the highest rank, and of equal ranks the suit first
    in ``SUIT_BITS_ORDER`` (the lowest bit among that rank's four)."""
    rank_shift = ((high_bit(x) >> 2) * 4).astype(np.uint64)
    same_rank = x & (_U(15) << rank_shift)
    return high_bit(low_bit_mask(same_rank))


# -- how a hand ends (R5), for a batch -------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """What the simulator needs of a variant."""

    players: int
    partnerships: bool
    three_players: bool
    tricks_per_hand: int
    tricks_to_win: int

    @classmethod
    def of(cls, variant: Variant) -> Rules:
        return cls(
            players=variant.players,
            partnerships=variant.partnerships,
            three_players=variant.scoring is Scoring.THREE_PLAYERS,
            tricks_per_hand=variant.tricks_per_hand,
            tricks_to_win=variant.tricks_to_win,
        )

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnerships else seat

    @property
    def sides(self) -> int:
        return 2 if self.partnerships else self.players


def decide_batch(
    rules: Rules, won: np.ndarray, played: int, hakem_side: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R5 for every row of ``won`` (tricks per seat, shape (N, players)) after ``played`` tricks.

    Returns ``(decided, winner_side, points)``; rows not decided have winner -1 and 0 points.
    """
    n = won.shape[0]
    winner = np.full(n, -1, dtype=np.int64)
    points = np.zeros(n, dtype=np.int64)
    if rules.three_players:
        left = rules.tricks_per_hand - played
        if played == 7:  # R5.3.1
            kot_rows = won.max(axis=1) == 7
            seat = won.argmax(axis=1)
            winner = np.where(kot_rows, seat, winner)
            points = np.where(kot_rows, np.where(seat == hakem_side, 2, 3), points)
        # R5.3.2: a lead no other player can equal with ``left`` tricks to go.
        order = np.sort(won, axis=1)
        top, second = order[:, -1], order[:, -2]
        clear = (top > second + left) & (winner < 0)
        winner = np.where(clear, won.argmax(axis=1), winner)
        points = np.where(clear, 1, points)
        if left == 0:  # R5.3.3: a tie at the top: the third player wins
            tie = winner < 0
            winner = np.where(tie, won.argmin(axis=1), winner)
            points = np.where(tie, 1, points)
        return winner >= 0, winner, points
    if rules.partnerships:
        sides = np.stack([won[:, 0] + won[:, 2], won[:, 1] + won[:, 3]], axis=1)
    else:
        sides = won
    best = sides.argmax(axis=1)
    decided = sides.max(axis=1) >= rules.tricks_to_win
    kot = decided & (sides.sum(axis=1) == sides.max(axis=1))  # R5.2: the other side has none
    points = np.where(decided, np.where(kot, np.where(best == hakem_side, 2, 3), 1), 0)
    winner = np.where(decided, best, -1)
    return decided, winner, points


# -- a batch of positions and its playout ----------------------------------------------------------


@dataclass
class Batch:
    """N positions of the same hand, all at the same point of the play: the same number of
    tricks played and of cards in the current trick (they differ in who holds what, who leads
    and, for the trump-call search, the trump)."""

    rules: Rules
    hands: np.ndarray  # (N, players) uint64
    trump: np.ndarray  # (N,) suit index
    leader: np.ndarray  # (N,) seat leading the current trick
    won: np.ndarray  # (N, players) tricks taken per seat
    played: int  # tricks completed
    position: int  # cards in the current trick
    led: np.ndarray  # (N,) suit led (valid when position > 0)
    best_bit: np.ndarray  # (N,) bit of the card winning the current trick
    best_seat: np.ndarray  # (N,) who played it
    hakem_side: int
    #: The side whose leads follow :meth:`_smart_lead` (the searcher's own side), or -1.
    smart_side: int = -1
    #: Per row, the chance that a card of ``smart_side`` is a random legal one instead of the
    #: policy's (exploring other lines of play; see ``games.bots.search``), and its generator.
    explore: np.ndarray | None = None
    explore_rng: np.random.Generator | None = None

    @classmethod
    def start(
        cls,
        rules: Rules,
        hands: np.ndarray,
        *,
        trump: np.ndarray | int,
        leader: int,
        hakem_side: int,
        won: Sequence[int] | None = None,
        played: int = 0,
        current: Sequence[int] = (),
        smart_side: int = -1,
    ) -> Batch:
        """Positions from their hands and the public state: ``current`` lists the bits of the
        cards already in the trick, from its leader."""
        n = hands.shape[0]
        trump_arr = np.broadcast_to(np.asarray(trump, dtype=np.int64), (n,)).copy()
        won_arr = np.tile(np.asarray(won or [0] * rules.players, dtype=np.int64), (n, 1))
        batch = cls(
            rules=rules,
            hands=hands.astype(np.uint64, copy=True),
            trump=trump_arr,
            leader=np.full(n, leader, dtype=np.int64),
            won=won_arr,
            played=played,
            position=0,
            led=np.zeros(n, dtype=np.int64),
            best_bit=np.zeros(n, dtype=np.int64),
            best_seat=np.zeros(n, dtype=np.int64),
            hakem_side=hakem_side,
            smart_side=smart_side,
        )
        for bit in current:
            batch._place(np.full(n, bit, dtype=np.int64), remove=False)
        return batch

    @property
    def seat_to_play(self) -> np.ndarray:
        return (self.leader + self.position) % self.rules.players

    def legal(self) -> np.ndarray:
        """The legal cards of the seat to play in each row (R4.2)."""
        rows = np.arange(self.hands.shape[0])
        hand: np.ndarray = self.hands[rows, self.seat_to_play]
        if self.position == 0:
            return hand
        follow: np.ndarray = hand & _SUIT_MASKS_NP[self.led]
        return np.where(follow != _ZERO, follow, hand)

    def greedy_choice(self) -> np.ndarray:
        """The bit the playout policy plays in each row."""
        legal = self.legal()
        choice = self._policy_choice(legal)
        if self.explore is None:
            return choice
        seat = self.seat_to_play
        sides = seat % 2 if self.rules.partnerships else seat
        rng = self.explore_rng
        assert rng is not None, "explore and explore_rng are set together"
        n = legal.shape[0]
        wander = (sides == self.smart_side) & (rng.random(n) < self.explore)
        if not wander.any():
            return choice
        # A random legal card: the lowest of a random subset of the legal cards (or the lowest).
        subset = legal & rng.integers(0, 1 << 52, size=n, dtype=np.uint64)
        pick = high_bit(low_bit_mask(np.where(subset != _ZERO, subset, legal)))
        return np.where(wander, pick, choice)

    def _policy_choice(self, legal: np.ndarray) -> np.ndarray:
        trumps = _SUIT_MASKS_NP[self.trump]
        if self.position == 0:
            plain = legal & ~trumps
            greedy = _highest(np.where(plain != _ZERO, plain, legal))
            if self.smart_side < 0:
                return greedy
            seat = self.seat_to_play
            sides = seat % 2 if self.rules.partnerships else seat
            return np.where(sides == self.smart_side, self._smart_lead(legal, trumps), greedy)
        best_suit = self.best_bit & 3
        above = ~((_TWO << self.best_bit.astype(np.uint64)) - _ONE) & _FULL_NP
        beats = (_SUIT_MASKS_NP[best_suit] & above) | np.where(
            best_suit != self.trump, trumps, _ZERO
        )
        winners = legal & beats
        low_from = np.where(winners != _ZERO, winners, legal)
        if self.rules.partnerships:
            seat = self.seat_to_play
            partner_wins = self.best_seat == (seat + 2) % self.rules.players
            low_from = np.where(partner_wins, legal, low_from)
        plain = low_from & ~trumps
        pick = np.where(plain != _ZERO, plain, low_from)
        return high_bit(low_bit_mask(pick))

    def _smart_lead(self, legal: np.ndarray, trumps: np.ndarray) -> np.ndarray:
        """A better lead than greedy's for the searcher's own side in its imagined deals: cash a
        non-trump that no card still out can beat (a master); else lead the lowest non-trump
        rather than a high card an ace may catch; trumps only when nothing else is left."""
        out = np.bitwise_or.reduce(self.hands, axis=1)
        masters = np.zeros_like(legal)
        for suit in range(4):
            suit_out = out & _SUIT_MASKS_NP[suit]
            top = np.where(
                suit_out != _ZERO,
                _ONE << np.maximum(high_bit(suit_out), 0).astype(np.uint64),
                _ZERO,
            )
            masters |= top
        plain = legal & ~trumps
        cash = masters & plain
        low = low_bit_mask(plain)
        pick = np.where(cash != _ZERO, cash, np.where(plain != _ZERO, low, legal))
        return _highest(pick)

    def play(self, bits: np.ndarray) -> np.ndarray | None:
        """Play one card in every row. Returns the trick winners when this card ends a trick."""
        self._place(bits, remove=True)
        if self.position < self.rules.players:
            return None
        winners = self.best_seat
        rows = np.arange(self.hands.shape[0])
        self.won[rows, winners] += 1
        self.leader = winners.copy()
        self.position = 0
        self.played += 1
        return winners

    def _place(self, bits: np.ndarray, *, remove: bool) -> None:
        seat = self.seat_to_play
        if remove:
            rows = np.arange(self.hands.shape[0])
            self.hands[rows, seat] &= ~(_ONE << bits.astype(np.uint64))
        suit = bits & 3
        if self.position == 0:
            self.led = suit
            self.best_bit = bits.copy()
            self.best_seat = seat.copy()
        else:
            best_suit = self.best_bit & 3
            better = ((suit == best_suit) & (bits > self.best_bit)) | (
                (suit == self.trump) & (best_suit != self.trump)
            )
            self.best_bit = np.where(better, bits, self.best_bit)
            self.best_seat = np.where(better, seat, self.best_seat)
        self.position += 1


@dataclass(frozen=True)
class Outcome:
    """How each row's hand ended: the winning side and its points (R5)."""

    winner: np.ndarray
    points: np.ndarray
    #: Tricks per seat when the hand was decided (None where unknown).
    won: np.ndarray | None = None


def playout(batch: Batch, first: np.ndarray | None = None) -> Outcome:
    """Play every row to the end of the hand with the greedy policy; ``first`` forces the bits of
    the next card (the candidate the search is scoring). The batch is used up."""
    rules = batch.rules
    n = batch.hands.shape[0]
    winner = np.full(n, -1, dtype=np.int64)
    points = np.zeros(n, dtype=np.int64)
    open_rows = np.ones(n, dtype=bool)
    final_won = batch.won.copy()
    bits = first
    while batch.played < rules.tricks_per_hand:
        if bits is None:
            bits = batch.greedy_choice()
        trick_over = batch.play(bits)
        bits = None
        if trick_over is None:
            continue
        decided, side, pts = decide_batch(rules, batch.won, batch.played, batch.hakem_side)
        fresh = decided & open_rows
        winner = np.where(fresh, side, winner)
        points = np.where(fresh, pts, points)
        final_won = np.where(fresh[:, None], batch.won, final_won)
        open_rows &= ~decided
        if not open_rows.any():
            break
    return Outcome(winner=winner, points=points, won=final_won)


def utility(
    outcome: Outcome,
    *,
    side: int,
    scores: Sequence[int] | None,
    target: int | None,
    kot_weight: float = 0.25,
    margin_weight: float = 0.0,
    partnerships: bool = False,
) -> np.ndarray:
    """What each row's result is worth to ``side``: +1 for a won hand and -1 for a lost one,
    each extra point of a Kot or Hakem Kot (R5.2) adding ``kot_weight``. With the match score in
    view, points beyond what a side needs to reach the target count for nothing."""
    points = outcome.points.astype(np.float64)
    if scores is not None and target is not None:
        needed = np.maximum(1, target - np.asarray(scores, dtype=np.int64))
        points = np.minimum(points, needed[np.maximum(outcome.winner, 0)])
    worth = 1.0 + kot_weight * (points - 1.0)
    value = np.where(outcome.winner == side, worth, -worth)
    if margin_weight and outcome.won is not None:
        # How close the hand was, as a tie-breaker between choices that win (or lose) alike.
        won = outcome.won
        if partnerships:
            won = np.stack([won[:, 0] + won[:, 2], won[:, 1] + won[:, 3]], axis=1)
        others = np.delete(won, side, axis=1).max(axis=1)
        value = value + margin_weight * (won[:, side] - others) / 7.0
    return value
