"""The exact endgame solver: with every hand known (one sampled deal), the best result each side
can force from here, by alpha-beta search over the remaining cards.

The question it answers is "can my side still reach 7?" and with what points (R5): the value of
a position is the searching side's utility of the hand's result, the side to play maximising it
when it is the searcher's side and minimising it otherwise. With two sides this is exact minimax;
in hokm3 every other player is assumed to play against the searcher (the "paranoid" model).

Positions at the start of a trick go into a transposition table. Cards of one seat that are
neighbours among the cards still out (no other card of that suit lies between them) win and lose
the same tricks, so only the lowest of each such run is searched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from .sim import SUIT_MASKS, Rules

#: How often (in nodes) the solver looks at the clock.
CLOCK_EVERY = 128

#: A position at the start of a trick: each seat's hand, the leader, the tricks each side has won.
TableKey = tuple[tuple[int, ...], int, tuple[int, ...]]


class SolverTimeout(Exception):
    """The deadline passed before the solver finished."""


class Solver:
    def __init__(
        self,
        rules: Rules,
        *,
        trump: int,
        hakem_side: int,
        side: int,
        worth: Callable[[int, int], float],
        deadline: float,
    ) -> None:
        """``worth(winner_side, points)`` is the searcher's utility of a result; ``side`` is the
        searcher's side; ``deadline`` is a ``time.perf_counter()`` value."""
        self.rules = rules
        self.trump = trump
        self.trump_mask = SUIT_MASKS[trump]
        self.hakem_side = hakem_side
        self.side = side
        self.worth = worth
        self.deadline = deadline
        self.table: dict[TableKey, tuple[float, float, float]] = {}
        self.nodes = 0

    # -- public --------------------------------------------------------------------------------

    def values(
        self,
        hands: Sequence[int],
        *,
        leader: int,
        current: Sequence[int],
        won: Sequence[int],
        played: int,
        candidates: Sequence[int],
    ) -> list[float]:
        """The exact value for the searcher of playing each candidate bit now (the seat to play
        is ``leader + len(current)``). Raises :class:`SolverTimeout` past the deadline."""
        players = self.rules.players
        seat = (leader + len(current)) % players
        results = []
        for bit in candidates:
            after = list(hands)
            after[seat] &= ~(1 << bit)
            results.append(
                self._after_card(after, leader, [*current, bit], list(won), played, -2.0e9, 2.0e9)
            )
        return results

    # -- search --------------------------------------------------------------------------------

    def _after_card(
        self,
        hands: list[int],
        leader: int,
        current: list[int],
        won: list[int],
        played: int,
        alpha: float,
        beta: float,
    ) -> float:
        players = self.rules.players
        if len(current) < players:
            return self._search(hands, leader, current, won, played, alpha, beta)
        winner = (leader + self._trick_winner(current)) % players
        won = won.copy()
        won[winner] += 1
        played += 1
        result = self._decided(won, played)
        if result is not None:
            return self.worth(*result)
        return self._search(hands, winner, [], won, played, alpha, beta)

    def _search(
        self,
        hands: list[int],
        leader: int,
        current: list[int],
        won: list[int],
        played: int,
        alpha: float,
        beta: float,
    ) -> float:
        self.nodes += 1
        if self.nodes % CLOCK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise SolverTimeout
        key = None
        if not current:
            key = (tuple(hands), leader, tuple(won))
            entry = self.table.get(key)
            if entry is not None:
                low, high, _ = entry
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                if low == high:
                    return low
                alpha, beta = max(alpha, low), min(beta, high)
        original_alpha, original_beta = alpha, beta
        players = self.rules.players
        seat = (leader + len(current)) % players
        maximising = self.rules.side_of(seat) == self.side
        best = -2.0e9 if maximising else 2.0e9
        for bit in self._moves(hands, seat, current):
            after = hands.copy()
            after[seat] &= ~(1 << bit)
            value = self._after_card(after, leader, [*current, bit], won, played, alpha, beta)
            if maximising:
                if value > best:
                    best = value
                alpha = max(alpha, best)
            else:
                if value < best:
                    best = value
                beta = min(beta, best)
            if alpha >= beta:
                break
        if key is not None:
            low, high = -2.0e9, 2.0e9
            if best <= original_alpha:
                high = best
            elif best >= original_beta:
                low = best
            else:
                low = high = best
            old = self.table.get(key)
            if old is not None:
                low, high = max(low, old[0]), min(high, old[1])
            self.table[key] = (low, high, best)
        return best

    def _moves(self, hands: list[int], seat: int, current: list[int]) -> list[int]:
        hand = hands[seat]
        legal = hand
        if current:
            follow = hand & SUIT_MASKS[current[0] & 3]
            if follow:
                legal = follow
        out = 0
        for h in hands:
            out |= h
        for bit in current:
            out |= 1 << bit
        moves = []
        for suit in range(4):
            mine = legal & SUIT_MASKS[suit]
            if not mine:
                continue
            suit_out = out & SUIT_MASKS[suit]
            previous_mine = False
            bit = suit
            while bit < 52:
                flag = 1 << bit
                if suit_out & flag:
                    if mine & flag:
                        if not previous_mine:
                            moves.append(bit)  # the lowest of a run of neighbours
                        previous_mine = True
                    else:
                        previous_mine = False
                bit += 4
        # High cards first: they settle tricks soonest, which prunes sooner.
        moves.sort(reverse=True)
        return moves

    def _trick_winner(self, cards: Sequence[int]) -> int:
        best = 0
        for index in range(1, len(cards)):
            card, top = cards[index], cards[best]
            if card & 3 == top & 3:
                if card > top:
                    best = index
            elif card & 3 == self.trump:
                best = index
        return best

    def _decided(self, won: Sequence[int], played: int) -> tuple[int, int] | None:
        """R5 for one position: (winning side, points) or None."""
        rules = self.rules
        if rules.three_players:
            left = rules.tricks_per_hand - played
            if played == 7 and max(won) == 7:
                seat = won.index(7)
                return seat, 2 if seat == self.hakem_side else 3
            for seat, count in enumerate(won):
                if all(count > other + left for s, other in enumerate(won) if s != seat):
                    return seat, 1
            if left == 0:
                return min(range(len(won)), key=lambda s: won[s]), 1
            return None
        sides = [won[0] + won[2], won[1] + won[3]] if rules.partnerships else list(won)
        for side, total in enumerate(sides):
            if total >= rules.tricks_to_win:
                kot = all(other == 0 for s, other in enumerate(sides) if s != side)
                points = (2 if side == self.hakem_side else 3) if kot else 1
                return side, points
        return None
