"""Reading the cards: what the other players' plays say about the cards they still hold.

The greedy baseline (``games.bots.greedy``) is the model the search has of its opponents. Each
of its choices is the first card of some set in some order (the highest non-trump to lead; the
lowest card that wins the trick; else the lowest card), so a play of card ``c`` says that the
player held no card of that set before ``c`` in that order: a set of cards it did not hold then,
and so does not hold now. Like a void (R4.2), that is a mask of cards per seat that a sampled
deal never gives the seat; unlike a void, it is an inference, right only while the player plays
like the model. So a seat whose own later plays contradict it (a card it held after all) is not
read at all, and when the readings of several seats leave no deal of the unseen cards possible,
none is used.

Only opponents are read: the partner is the same program as the reader, not the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .sim import FULL, SUIT_MASKS, Rules

#: Per rank index (0 for a two .. 12 for an ace), the cards of all higher ranks.
_ABOVE_RANK: tuple[int, ...] = tuple(FULL & ~((1 << ((rank + 1) * 4)) - 1) for rank in range(13))
#: Per rank index, the cards of all lower ranks.
_BELOW_RANK: tuple[int, ...] = tuple((1 << (rank * 4)) - 1 for rank in range(13))


def _same_rank_before(bit: int) -> int:
    """The cards of the same rank as ``bit`` in a suit that comes first in the tie order
    (spades, hearts, diamonds, clubs: lower bits within a rank)."""
    rank_base = bit & ~3
    return ((1 << bit) - 1) & ~((1 << rank_base) - 1)


def lower_than(bit: int, trump: int) -> int:
    """The cards before ``bit`` in the greedy baseline's "lowest" order (``lowest_key``): a
    non-trump before a trump, then the lower rank, then the suit first in the tie order."""
    trumps = SUIT_MASKS[trump]
    rank = bit >> 2
    same_class = trumps if bit & 3 == trump else FULL & ~trumps
    before = (_BELOW_RANK[rank] | _same_rank_before(bit)) & same_class
    if bit & 3 == trump:
        before |= FULL & ~trumps  # every non-trump comes before any trump
    return before


def higher_than(bit: int) -> int:
    """The cards before ``bit`` in the greedy baseline's "highest" order (``highest_key``): the
    higher rank, and of equal ranks the suit first in the tie order."""
    return _ABOVE_RANK[bit >> 2] | _same_rank_before(bit)


def _beaters(best_bit: int, trump: int) -> int:
    """The cards that would take the trick from ``best_bit`` (R4.3)."""
    suit = best_bit & 3
    above = SUIT_MASKS[suit] & ~((2 << best_bit) - 1)
    return above if suit == trump else above | SUIT_MASKS[trump]


def greedy_exclusions(
    history: Sequence[tuple[int, int]],
    *,
    rules: Rules,
    trump: int,
    reader: int,
) -> list[int]:
    """Per seat, the cards it cannot hold now if it played every card of ``history`` (the hand's
    plays in order, as (seat, bit)) as the greedy baseline would. The reader's own side gets 0,
    and so does a seat whose later plays show that it did not play as the model."""
    players = rules.players
    reader_side = rules.side_of(reader)
    trumps = SUIT_MASKS[trump]
    excluded = [0] * players
    # Per seat, the cards it played from the current play on: it held them at every earlier play.
    still_to_play = [0] * players
    for seat, bit in history:
        still_to_play[seat] |= 1 << bit
    broken = [False] * players
    position = 0
    led = best_bit = best_seat = 0
    for seat, bit in history:
        still_to_play[seat] &= ~(1 << bit)
        beaters = _beaters(best_bit, trump) if position else 0
        if position == 0:
            if bit & 3 != trump:
                ruled_out = higher_than(bit) & ~trumps
            else:  # a trump led: he held nothing else, and no higher trump
                ruled_out = (FULL & ~trumps) | (higher_than(bit) & trumps)
        else:
            follows = SUIT_MASKS[led] if bit & 3 == led else FULL
            lower = lower_than(bit, trump) & follows
            partner_wins = rules.partnerships and best_seat == (seat + 2) % players
            if partner_wins:
                ruled_out = lower
            elif beaters >> bit & 1:  # the lowest card that wins
                ruled_out = lower & beaters
            else:  # nothing that wins, and nothing lower
                ruled_out = (follows & beaters) | lower
        if rules.side_of(seat) != reader_side:
            if ruled_out & still_to_play[seat]:
                broken[seat] = True
            excluded[seat] |= ruled_out
        if position == 0:
            led, best_bit, best_seat = bit & 3, bit, seat
        elif beaters >> bit & 1:
            best_bit, best_seat = bit, seat
        position = (position + 1) % players
    return [0 if broken[seat] else mask for seat, mask in enumerate(excluded)]


def deal_possible(barred: Sequence[int], room: Sequence[int], unknown: int) -> bool:
    """Whether the ``unknown`` cards can be given out so that holder ``i`` gets exactly
    ``room[i]`` cards, none of ``barred[i]``. Hall's condition for this transport problem: every
    set of holders has room for the cards that no other holder may take."""
    holders = range(len(room))
    if unknown.bit_count() != sum(room):
        return False
    for size in range(len(room)):
        for group in combinations(holders, size):
            outside = [h for h in holders if h not in group]
            # Cards that every holder outside the group is barred from must go into the group.
            only_inside = unknown
            for h in outside:
                only_inside &= barred[h]
            if only_inside.bit_count() > sum(room[h] for h in group):
                return False
    return True
