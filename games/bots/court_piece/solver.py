"""The exact endgame solver for Court Piece: with every card of one sampled deal known, the best
result each side can force from here, by alpha-beta over the cards left (as Hokm's
``games.bots.solver``), with Court Piece's rules:

- the end of a deal (R9.6): the chase after the first 7 tricks, a court, a 52-court; under
  Double Sir (R9.12, R9.13, R9.14.6) the pile and who collects it;
- hidden trump (R9.14): asking for trump is a move of its own, the caller's on any of his turns
  and another seat's when it cannot follow; before the reveal a trump-suit card counts as a
  trump only when trump was led; after it the seat that revealed while void must trump.

The side to play maximises the searcher's utility when it is the searcher's side and minimises
it otherwise. Positions at the start of a trick go into a transposition table; cards of one seat
that are neighbours among the cards still out are searched once (not an ace next to a king
under ``ace_rule``: a trick won by an ace collects differently, R9.13).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..sim import SUIT_MASKS
from .position import COURT_TRICKS, PLAYERS, TRICKS
from .sim import COURT, FIFTY_TWO, WON, Rules

#: How often (in nodes) the solver looks at the clock.
CLOCK_EVERY = 128
#: The move that reveals the indicator (R9.14.2) instead of playing a card.
REVEAL = -1
_ACE_RANK = 12


class SolverTimeout(Exception):
    """The deadline passed before the solver finished."""


class Table(NamedTuple):
    """A position between two cards, apart from the trick in progress; at the start of a trick
    it is the transposition table's key."""

    hands: tuple[int, ...]
    trump: int
    leader: int
    played: int
    sides: tuple[int, int]  # tricks won, or collected under Double Sir
    chase: int  # R9.6.1: the side chasing the court, or -1
    indicator: int  # the indicator's mask while it lies apart, else 0
    revealed: bool
    reveal_trick: int
    pile: int
    prev_winner: int
    prev_collected: bool
    prev_ace: bool


class Trick(NamedTuple):
    """The trick in progress: its cards' bits, the winning card so far, who must trump."""

    cards: tuple[int, ...] = ()
    best_bit: int = 0
    best_seat: int = 0
    best_trump: bool = False
    must_trump: int = -1


class Solver:
    def __init__(
        self,
        rules: Rules,
        *,
        side: int,
        worth: Callable[[int, int], float],
        deadline: float,
    ) -> None:
        """``worth(winner_side, courts)`` is the searcher's utility of a deal's result (R9.7's
        courts); ``side`` is the searcher's side; ``deadline`` a ``time.perf_counter()``."""
        self.rules = rules
        self.side = side
        self.worth = worth
        self.deadline = deadline
        self.table: dict[Table, tuple[float, float]] = {}
        self.nodes = 0

    def values(self, table: Table, trick: Trick, candidates: Sequence[int]) -> list[float]:
        """The exact value for the searcher of each candidate move of the seat on turn: a card's
        bit, or :data:`REVEAL` (then its best card). Raises :class:`SolverTimeout`."""
        return [self._move(table, trick, move, -2.0e9, 2.0e9) for move in candidates]

    # -- search ------------------------------------------------------------------------------

    def _search(self, table: Table, trick: Trick, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes % CLOCK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise SolverTimeout
        key = table if not trick.cards else None
        if key is not None:
            entry = self.table.get(key)
            if entry is not None:
                low, high = entry
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                if low == high:
                    return low
                alpha, beta = max(alpha, low), min(beta, high)
        original = alpha, beta
        seat = (table.leader + len(trick.cards)) % PLAYERS
        maximising = seat % 2 == self.side
        best = -2.0e9 if maximising else 2.0e9
        for move in self._moves(table, trick, seat):
            value = self._move(table, trick, move, alpha, beta)
            if maximising:
                best = max(best, value)
                alpha = max(alpha, best)
            else:
                best = min(best, value)
                beta = min(beta, best)
            if alpha >= beta:
                break
        if key is not None:
            low, high = -2.0e9, 2.0e9
            if best <= original[0]:
                high = best
            elif best >= original[1]:
                low = best
            else:
                low = high = best
            old = self.table.get(key)
            if old is not None:
                low, high = max(low, old[0]), min(high, old[1])
            self.table[key] = (low, high)
        return best

    def _move(self, table: Table, trick: Trick, move: int, alpha: float, beta: float) -> float:
        if move == REVEAL:
            table, trick = self._reveal(table, trick)
            return self._search(table, trick, alpha, beta)
        return self._card(table, trick, move, alpha, beta)

    def _moves(self, table: Table, trick: Trick, seat: int) -> list[int]:
        hand = table.hands[seat]
        rules = self.rules
        may_reveal = rules.hidden and not table.revealed
        if may_reveal and seat == rules.caller and not hand:
            return [REVEAL]  # R9.14.2.3
        legal = hand
        void = False
        if trick.cards:
            led = trick.cards[0] & 3
            follow = hand & SUIT_MASKS[led]
            void = not follow
            trumps = hand & SUIT_MASKS[table.trump]
            if follow:
                legal = follow
            elif trick.must_trump == seat and trumps:
                legal = trumps
        moves = self._runs(table, trick, legal)
        if may_reveal and (seat == rules.caller or void):
            moves.append(REVEAL)
        return moves

    def _runs(self, table: Table, trick: Trick, legal: int) -> list[int]:
        """The lowest card of each run of neighbours among the cards still out, high first."""
        out = table.indicator
        for hand in table.hands:
            out |= hand
        for bit in trick.cards:
            out |= 1 << bit
        ace_apart = self.rules.ace_rule
        moves = []
        for suit in range(4):
            mine = legal & SUIT_MASKS[suit]
            if not mine:
                continue
            suit_out = out & SUIT_MASKS[suit]
            previous_mine = False
            for bit in range(suit, 52, 4):
                flag = 1 << bit
                if not suit_out & flag:
                    continue
                if mine & flag:
                    if not previous_mine or (ace_apart and bit >> 2 == _ACE_RANK):
                        moves.append(bit)
                    previous_mine = True
                else:
                    previous_mine = False
        moves.sort(reverse=True)
        return moves

    def _reveal(self, table: Table, trick: Trick) -> tuple[Table, Trick]:
        """R9.14.2 before the card of the seat on turn; R9.14.3, R9.14.4."""
        seat = (table.leader + len(trick.cards)) % PLAYERS
        void = bool(trick.cards) and not table.hands[seat] & SUIT_MASKS[trick.cards[0] & 3]
        hands = list(table.hands)
        hands[self.rules.caller] |= table.indicator
        table = table._replace(
            hands=tuple(hands), indicator=0, revealed=True, reveal_trick=table.played
        )
        return table, trick._replace(must_trump=seat if void else trick.must_trump)

    def _card(self, table: Table, trick: Trick, bit: int, alpha: float, beta: float) -> float:
        seat = (table.leader + len(trick.cards)) % PLAYERS
        hands = list(table.hands)
        hands[seat] &= ~(1 << bit)
        table = table._replace(hands=tuple(hands))
        suit = bit & 3
        led = suit if not trick.cards else trick.cards[0] & 3
        counted = suit == table.trump and (table.revealed or led == table.trump)
        if not trick.cards:
            better = True
        elif counted:
            better = not trick.best_trump or bit > trick.best_bit
        else:
            better = not trick.best_trump and suit == led and bit > trick.best_bit
        trick = Trick(
            cards=(*trick.cards, bit),
            best_bit=bit if better else trick.best_bit,
            best_seat=seat if better else trick.best_seat,
            best_trump=counted if better else trick.best_trump,
            must_trump=-1 if trick.must_trump == seat else trick.must_trump,
        )
        if len(trick.cards) < PLAYERS:
            return self._search(table, trick, alpha, beta)
        table, result = self._end_trick(table, trick)
        if result is not None:
            return self.worth(*result)
        return self._search(table, Trick(), alpha, beta)

    def _end_trick(self, table: Table, trick: Trick) -> tuple[Table, tuple[int, int] | None]:
        rules = self.rules
        winner = trick.best_seat
        side = winner % 2
        index = table.played
        played = index + 1
        sides = list(table.sides)
        chase = table.chase
        pile, prev_collected = table.pile, table.prev_collected
        ace = trick.best_bit >> 2 == _ACE_RANK
        if rules.double_sir:
            if index == TRICKS - 1:
                collect = True
            elif index == 0:
                collect = False
            else:
                collect = table.prev_winner == winner and not table.prev_collected
                if rules.ace_rule and table.prev_ace and ace:
                    collect = False
                if rules.hidden and not (0 <= table.reveal_trick <= index - 1):
                    collect = False
            if collect:
                sides[side] += pile + 1
                pile = 0
            else:
                pile += 1
            prev_collected = collect
        else:
            sides[side] += 1
            if played == COURT_TRICKS and min(sides) == 0:
                chase = side
        after = table._replace(
            leader=winner,
            played=played,
            sides=(sides[0], sides[1]),
            chase=chase,
            pile=pile,
            prev_winner=winner,
            prev_collected=prev_collected,
            prev_ace=ace,
        )
        return after, self._decided(sides, played, chase, side)

    def _decided(
        self, sides: Sequence[int], played: int, chase: int, last_side: int
    ) -> tuple[int, int] | None:
        """R9.6 / R9.12.5: (winning side, courts by R9.7) or None."""
        rules = self.rules
        if rules.double_sir:
            for side in (0, 1):
                other = sides[1 - side]
                if sides[side] >= 7 and (other >= 1 or played == TRICKS):
                    return side, self._courts(side, COURT if other == 0 else WON)
            return None
        if chase >= 0:
            if last_side != chase:
                return chase, self._courts(chase, COURT)
            if played == TRICKS:
                return chase, self._courts(chase, FIFTY_TWO)
            return None
        for side in (0, 1):
            if sides[side] >= 7:
                return side, 0
        return None

    def _courts(self, side: int, how: int) -> int:
        if how == FIFTY_TWO:
            return 52
        if how == COURT:
            goon = side == self.rules.dealing_side
            return 3 if goon and self.rules.goon_court else 1
        return 0
