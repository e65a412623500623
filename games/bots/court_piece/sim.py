"""A fast simulator of Court Piece deals for the search: many deals played out at once as arrays.

The same layout as Hokm's simulator (``games.bots.sim``: a seat's cards are one 52-bit integer,
a batch is a NumPy array of them, one Python step plays a card in every row), with what Court
Piece adds:

- hidden trump (R9.14): each row has its own trump suit and indicator (the search samples them
  where the seat does not know them); before the reveal the indicator lies apart from the
  caller's hand, a trump-suit card counts as a trump only when trump was led, and after it the
  seat that revealed while void must trump (R9.14.4); the caller with nothing but the indicator
  reveals by himself (R9.14.2.3);
- the end of a deal (R9.6): the court chase after a side has won the first 7 tricks, a court
  when it then loses one, a 52-court when it wins all 13;
- Double Sir (R9.12, R9.13, R9.14.6): the pile, collected by two tricks in a row by the same
  player (not both won by aces with ``ace_rule``; from the reveal's trick on under hidden trump),
  the 13th trick collecting what is left, and the deal won at 7 collected against at least 1.

The playout policy is the Court Piece greedy baseline's (``games.bots.court_piece.greedy``):
Hokm's greedy card with the trump as the seat knows it, and asking for trump whenever it may and
cannot follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from games.engine import CourtPieceOptions, HiddenTrump

from ..sim import FULL, SUIT_MASKS, high_bit, low_bit_mask
from .position import COURT_TRICKS, PLAYERS, TRICKS

_U = np.uint64
_SUITS = np.array(SUIT_MASKS, dtype=np.uint64)
_ZERO = _U(0)
_ONE = _U(1)
_TWO = _U(2)
_FULL = _U(FULL)
#: Bit rank index of an ace (bits run (rank - 2) * 4 + suit).
_ACE_RANK = 12

#: How a deal ended (R9.6, R9.12.6).
WON, COURT, FIFTY_TWO = 0, 1, 2


@dataclass(frozen=True)
class Rules:
    """What the simulator needs of the table (R9.11) and the deal."""

    caller: int
    double_sir: bool = False
    ace_rule: bool = False
    hidden: bool = False
    #: The caller sees his indicator before the reveal (``hidden_trump=chosen``).
    caller_sees: bool = False
    goon_court: bool = True

    @classmethod
    def of(cls, options: CourtPieceOptions, caller: int) -> Rules:
        return cls(
            caller=caller,
            double_sir=options.double_sir,
            ace_rule=options.ace_rule,
            hidden=options.hidden,
            caller_sees=options.hidden_trump is HiddenTrump.CHOSEN,
            goon_court=options.goon_court,
        )

    @property
    def dealing_side(self) -> int:
        """R9.3.1: the dealer is caller - 1, on the other side."""
        return (self.caller + 1) % 2


def _highest(x: np.ndarray) -> np.ndarray:
    """The greedy baseline's highest card: the highest rank, of equal ranks the first suit."""
    rank_shift = ((high_bit(x) >> 2) * 4).astype(np.uint64)
    same_rank = x & (_U(15) << rank_shift)
    return high_bit(low_bit_mask(same_rank))


@dataclass
class Deals:
    """N positions of one deal at the same point of play (the same tricks finished and cards in
    the current trick); they differ in who holds what, the trump and the indicator."""

    rules: Rules
    hands: np.ndarray  # (N, 4) uint64
    trump: np.ndarray  # (N,) suit index
    indicator: np.ndarray  # (N,) uint64: the indicator's bit while it lies apart, else 0
    revealed: np.ndarray  # (N,) bool: trump is public (always, without hidden trump)
    reveal_trick: np.ndarray  # (N,) the trick of the reveal, -1 before it
    must_trump: np.ndarray  # (N,) R9.14.4: the seat bound to trump in this trick, or -1
    leader: np.ndarray  # (N,)
    played: int  # tricks finished
    position: int  # cards in the current trick
    led: np.ndarray
    best_bit: np.ndarray
    best_seat: np.ndarray
    best_trump: np.ndarray  # (N,) bool: the winning card counts as a trump (R9.14.5)
    won: np.ndarray  # (N, 4) tricks won per seat
    chase: np.ndarray  # (N,) R9.6.1: the side chasing the court, or -1
    collected: np.ndarray  # (N, 4) Double Sir: tricks collected per seat
    pile: np.ndarray  # (N,) tricks lying in the pile
    prev_winner: np.ndarray  # (N,) winner of the last trick, -1 before the first
    prev_collected: np.ndarray  # (N,) bool: the last trick collected
    prev_ace: np.ndarray  # (N,) bool: the last trick was won by an ace (R9.13.1)
    #: The side whose leads are :meth:`_smart_lead`'s (the searcher's), or -1.
    smart_side: int = -1
    explore: np.ndarray | None = None
    explore_rng: np.random.Generator | None = None
    #: Caches of the row numbers and of the seat on turn (cleared when a card is played).
    _rows: np.ndarray | None = None
    _seat: np.ndarray | None = None

    @classmethod
    def start(
        cls,
        rules: Rules,
        hands: np.ndarray,
        *,
        trump: np.ndarray | int,
        indicator: np.ndarray | int = 0,
        reveal_trick: int | None,
        leader: int,
        played: int = 0,
        current: Sequence[int] = (),
        reveal_at: int | None = None,
        won: Sequence[int] = (0, 0, 0, 0),
        chase: int | None = None,
        collected: Sequence[int] = (0, 0, 0, 0),
        pile: int = 0,
        prev_winner: int = -1,
        prev_collected: bool = False,
        prev_ace: np.ndarray | bool = False,
        smart_side: int = -1,
    ) -> Deals:
        """Positions from their hands and the public state. ``current`` lists the bits of the
        cards already in the trick; ``reveal_at`` is the index in it of the first card played
        after a reveal made during this trick. Without hidden trump, trump is public."""
        n = hands.shape[0]

        def column(value: object, dtype: type) -> np.ndarray:
            return np.broadcast_to(np.asarray(value, dtype=dtype), (n,)).copy()

        revealed = not rules.hidden or reveal_trick is not None
        deals = cls(
            rules=rules,
            hands=hands.astype(np.uint64, copy=True),
            trump=column(trump, np.int64),
            indicator=column(indicator, np.uint64),
            revealed=column(revealed and reveal_at is None, bool),
            reveal_trick=column(-1 if reveal_trick is None else reveal_trick, np.int64),
            must_trump=column(-1, np.int64),
            leader=column(leader, np.int64),
            played=played,
            position=0,
            led=column(0, np.int64),
            best_bit=column(0, np.int64),
            best_seat=column(0, np.int64),
            best_trump=column(False, bool),
            won=np.tile(np.asarray(won, dtype=np.int64), (n, 1)),
            chase=column(-1 if chase is None else chase, np.int64),
            collected=np.tile(np.asarray(collected, dtype=np.int64), (n, 1)),
            pile=column(pile, np.int64),
            prev_winner=column(prev_winner, np.int64),
            prev_collected=column(prev_collected, bool),
            prev_ace=column(prev_ace, bool),
            smart_side=smart_side,
        )
        for index, bit in enumerate(current):
            if index == reveal_at:
                deals.revealed[:] = True
            deals._place(np.full(n, bit, dtype=np.int64), remove=False)
        if reveal_at is not None and reveal_at >= len(current):
            deals.revealed[:] = True
        return deals

    # -- whose turn, what is legal ---------------------------------------------------------

    @property
    def rows(self) -> np.ndarray:
        if self._rows is None or len(self._rows) != self.hands.shape[0]:
            self._rows = np.arange(self.hands.shape[0])
        return self._rows

    @property
    def seat_to_play(self) -> np.ndarray:
        if self._seat is None:
            self._seat = (self.leader + self.position) % PLAYERS
        return self._seat

    def legal(self) -> np.ndarray:
        """The cards each row's seat may play (R4.2, R9.14.3, R9.14.4)."""
        seat = self.seat_to_play
        hand: np.ndarray = self.hands[self.rows, seat]
        if self.position == 0:
            return hand
        follow = hand & _SUITS[self.led]
        trumps = hand & _SUITS[self.trump]
        bound = (self.must_trump == seat) & (trumps != _ZERO)
        legal: np.ndarray = np.where(follow != _ZERO, follow, np.where(bound, trumps, hand))
        return legal

    def may_ask(self) -> np.ndarray:
        """Rows where the seat on turn may reveal (R9.14.2): the caller on any turn, another
        seat when it cannot follow; never once revealed."""
        if not self.rules.hidden:
            return np.zeros(self.hands.shape[0], dtype=bool)
        seat = self.seat_to_play
        open_rows = ~self.revealed
        may: np.ndarray = open_rows & (seat == self.rules.caller)
        if self.position:
            void = (self.hands[self.rows, seat] & _SUITS[self.led]) == _ZERO
            may |= open_rows & void
        return may

    def reveal(self, rows: np.ndarray) -> None:
        """Turn the indicator face up in ``rows`` (a bool mask) before the card of the seat on
        turn (R9.14.2): it joins the caller's hand, and a seat that cannot follow must trump."""
        if not rows.any():
            return
        seat = self.seat_to_play
        if self.position:
            void = (self.hands[self.rows, seat] & _SUITS[self.led]) == _ZERO
        else:
            void = np.zeros(len(rows), dtype=bool)
        caller = self.rules.caller
        self.hands[:, caller] = np.where(
            rows, self.hands[:, caller] | self.indicator, self.hands[:, caller]
        )
        self.indicator = np.where(rows, _ZERO, self.indicator)
        self.revealed = self.revealed | rows
        self.reveal_trick = np.where(rows, self.played, self.reveal_trick)
        self.must_trump = np.where(rows & void, seat, self.must_trump)

    def policy_reveals(self) -> None:
        """The policy's reveals: the greedy baseline's (asked whenever it may and cannot follow)
        and the caller's automatic one with nothing but the indicator left (R9.14.2.3)."""
        if not self.rules.hidden:
            return
        seat = self.seat_to_play
        caller = self.rules.caller
        forced = (seat == caller) & (self.hands[:, caller] == _ZERO) & ~self.revealed
        asks = self.may_ask()
        if self.position:
            asks &= (self.hands[self.rows, seat] & _SUITS[self.led]) == _ZERO
        else:
            asks[:] = False
        self.reveal(forced | asks)

    # -- the policy --------------------------------------------------------------------------

    def policy_choice(self) -> np.ndarray:
        """The bit the playout policy plays in each row (after :meth:`policy_reveals`)."""
        legal = self.legal()
        choice = self._greedy(legal)
        if self.explore is None:
            return choice
        rng = self.explore_rng
        assert rng is not None, "explore and explore_rng are set together"
        n = legal.shape[0]
        wander = (self.seat_to_play % 2 == self.smart_side) & (rng.random(n) < self.explore)
        if not wander.any():
            return choice
        subset = legal & rng.integers(0, 1 << 52, size=n, dtype=np.uint64)
        pick = high_bit(low_bit_mask(np.where(subset != _ZERO, subset, legal)))
        return np.where(wander, pick, choice)

    def _known_trumps(self) -> np.ndarray:
        """Per row, the trump suit's cards as the seat on turn knows them (none while hidden
        from it): the greedy baseline keeps known trumps back."""
        knows = self.revealed.copy()
        if self.rules.caller_sees:
            knows |= self.seat_to_play == self.rules.caller
        known: np.ndarray = np.where(knows, _SUITS[self.trump], _ZERO)
        return known

    def _greedy(self, legal: np.ndarray) -> np.ndarray:
        trumps = self._known_trumps()
        if self.position == 0:
            plain = legal & ~trumps
            greedy = _highest(np.where(plain != _ZERO, plain, legal))
            if self.smart_side < 0:
                return greedy
            smart = self.seat_to_play % 2 == self.smart_side
            return np.where(smart, self._smart_lead(legal, trumps), greedy)
        winners = legal & self._beaters()
        low_from = np.where(winners != _ZERO, winners, legal)
        partner_wins = self.best_seat == (self.seat_to_play + 2) % PLAYERS
        low_from = np.where(partner_wins, legal, low_from)
        plain = low_from & ~trumps
        pick = np.where(plain != _ZERO, plain, low_from)
        return high_bit(low_bit_mask(pick))

    def _beaters(self) -> np.ndarray:
        """The cards that would take the trick now (R4.3, R9.14.5)."""
        above = ~((_TWO << self.best_bit.astype(np.uint64)) - _ONE) & _FULL
        same_above = _SUITS[self.best_bit & 3] & above
        active = np.where(self.revealed, _SUITS[self.trump], _ZERO)
        beaters: np.ndarray = np.where(self.best_trump, same_above, same_above | active)
        return beaters

    def _smart_lead(self, legal: np.ndarray, trumps: np.ndarray) -> np.ndarray:
        """The searcher's side leads better than greedy in its imagined deals (as in Hokm's
        simulator): cash a non-trump no card still out can beat, else lead the lowest non-trump."""
        out = np.bitwise_or.reduce(self.hands, axis=1) | self.indicator
        masters = np.zeros_like(legal)
        for suit in range(4):
            suit_out = out & _SUITS[suit]
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

    # -- playing ------------------------------------------------------------------------------

    def play(self, bits: np.ndarray) -> bool:
        """Play one card in every row; True when it ended a trick."""
        self._place(bits, remove=True)
        if self.position < PLAYERS:
            return False
        self._end_trick()
        return True

    def _place(self, bits: np.ndarray, *, remove: bool) -> None:
        seat = self.seat_to_play
        if remove:
            self.hands[self.rows, seat] &= ~(_ONE << bits.astype(np.uint64))
        suit = bits & 3
        led = suit if self.position == 0 else self.led
        counted = (suit == self.trump) & (self.revealed | (led == self.trump))
        if self.position == 0:
            self.led = suit
            self.best_bit = bits.copy()
            self.best_seat = seat.copy()
            self.best_trump = counted
        else:
            higher = bits > self.best_bit
            better = np.where(
                counted, ~self.best_trump | higher, ~self.best_trump & (suit == self.led) & higher
            )
            self.best_bit = np.where(better, bits, self.best_bit)
            self.best_seat = np.where(better, seat, self.best_seat)
            self.best_trump = np.where(better, counted, self.best_trump)
        self.must_trump = np.where(self.must_trump == seat, -1, self.must_trump)
        self.position += 1
        self._seat = None

    def _end_trick(self) -> None:
        winner = self.best_seat
        self.won[self.rows, winner] += 1
        if self.rules.double_sir:
            self._pile_up(winner)
        self.leader = winner.copy()
        self.position = 0
        self._seat = None
        self.played += 1
        self.must_trump = np.full_like(self.must_trump, -1)
        if not self.rules.double_sir and self.played == COURT_TRICKS:
            sides = self.won[:, 0::2].sum(axis=1), self.won[:, 1::2].sum(axis=1)
            self.chase = np.where(sides[1] == 0, 0, np.where(sides[0] == 0, 1, -1))

    def _pile_up(self, winner: np.ndarray) -> None:
        """R9.12.2 to R9.12.4, R9.13.2, R9.14.6."""
        index = self.played
        ace = (self.best_bit >> 2) == _ACE_RANK
        if index == TRICKS - 1:
            collect = np.ones(len(winner), dtype=bool)
        elif index == 0:
            collect = np.zeros(len(winner), dtype=bool)
        else:
            collect = (self.prev_winner == winner) & ~self.prev_collected
            if self.rules.ace_rule:
                collect &= ~(self.prev_ace & ace)
            if self.rules.hidden:
                collect &= (self.reveal_trick >= 0) & (index - 1 >= self.reveal_trick)
        size = self.pile + 1
        self.collected[self.rows, winner] += np.where(collect, size, 0)
        self.pile = np.where(collect, 0, size)
        self.prev_winner = winner.copy()
        self.prev_collected = collect
        self.prev_ace = ace

    def side_tricks(self) -> np.ndarray:
        """(N, 2): the tricks that decide the deal, won or (Double Sir) collected."""
        counts = self.collected if self.rules.double_sir else self.won
        sides: np.ndarray = np.stack([counts[:, 0] + counts[:, 2], counts[:, 1] + counts[:, 3]], 1)
        return sides

    def decide(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """R9.6 / R9.12.5 after a trick: (decided, winning side, how: WON, COURT, FIFTY_TWO)."""
        sides = self.side_tricks()
        if self.rules.double_sir:
            last = self.played == TRICKS
            wins = [(sides[:, s] >= 7) & ((sides[:, 1 - s] >= 1) | last) for s in (0, 1)]
            decided = wins[0] | wins[1]
            winner = np.where(wins[0], 0, 1)
            court = decided & (sides[np.arange(len(winner)), 1 - winner] == 0)
            return decided, winner, np.where(court, COURT, WON)
        chasing = self.chase >= 0
        lost_one = chasing & (self.prev_side() != self.chase)
        all_13 = chasing & ~lost_one & (self.played == TRICKS)
        plain = ~chasing & (sides.max(axis=1) >= 7)
        decided = lost_one | all_13 | plain
        winner = np.where(chasing, self.chase, sides.argmax(axis=1))
        how = np.where(lost_one, COURT, np.where(all_13, FIFTY_TWO, WON))
        return decided, winner, how

    def prev_side(self) -> np.ndarray:
        side: np.ndarray = self.leader % 2
        return side  # the last trick's winner leads the next


@dataclass(frozen=True)
class Outcome:
    """How each row's deal ended: the winning side, how (WON, COURT, FIFTY_TWO), the courts it
    scores by itself (R9.7) and the side tricks then."""

    winner: np.ndarray
    how: np.ndarray
    courts: np.ndarray
    sides: np.ndarray


def courts_of(rules: Rules, winner: np.ndarray, how: np.ndarray) -> np.ndarray:
    """R9.7: 52 for a 52-court, 3 for a goon court (1 with ``goon_court`` off), 1 for a court."""
    goon = 3 if rules.goon_court else 1
    court = np.where(winner == rules.dealing_side, goon, 1)
    courts: np.ndarray = np.where(how == FIFTY_TWO, 52, np.where(how == COURT, court, 0))
    return courts


def playout(
    deals: Deals, first: np.ndarray | None = None, first_reveal: np.ndarray | None = None
) -> Outcome:
    """Play every row to the end of the deal by the policy. ``first`` forces the next card
    (the candidate being scored); in rows of ``first_reveal`` the seat reveals instead and then
    plays the policy's card. The positions are used up."""
    n = deals.hands.shape[0]
    winner = np.full(n, -1, dtype=np.int64)
    how = np.zeros(n, dtype=np.int64)
    sides = deals.side_tricks()
    open_rows = np.ones(n, dtype=bool)
    bits = None
    if first is not None:
        if first_reveal is not None and first_reveal.any():
            deals.reveal(first_reveal)
            bits = np.where(first_reveal, deals.policy_choice(), first)
        else:
            bits = first
    while deals.played < TRICKS:
        if bits is None:
            deals.policy_reveals()
            bits = deals.policy_choice()
        over = deals.play(bits)
        bits = None
        if not over:
            continue
        decided, side, kind = deals.decide()
        fresh = decided & open_rows
        winner = np.where(fresh, side, winner)
        how = np.where(fresh, kind, how)
        sides = np.where(fresh[:, None], deals.side_tricks(), sides)
        open_rows &= ~decided
        if not open_rows.any():
            break
    return Outcome(winner, how, courts_of(deals.rules, winner, how), sides)
