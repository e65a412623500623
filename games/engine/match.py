"""A match: hands one after another until a side reaches the target (R6, R7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .actions import Action
from .cards import Card
from .draw import HakemDraw, draw_hakem
from .errors import IllegalActionError, MatchOverError
from .hand import HandResult, HandState, apply, deal_deck, legal_actions, new_hand
from .seeding import derive_seed
from .variants import Variant

DEFAULT_TARGET = 7  # R7.1


@dataclass(frozen=True, slots=True)
class MatchState:
    variant: Variant
    target: int
    seed: int | None  # None for a match known only from a record: it is never dealt further
    draw: HakemDraw | None
    scores: tuple[int, ...]
    results: tuple[HandResult, ...]  # one per finished hand
    hand: HandState
    hand_seed: int | None  # the seed the current hand was dealt from, None if given as a deck

    @property
    def hand_number(self) -> int:
        """Zero-based index of the current hand."""
        return len(self.results) - (1 if self.hand.is_over else 0)

    @property
    def winner(self) -> int | None:
        """The side that reached the target (R7.1), or None while the match goes on."""
        for side, score in enumerate(self.scores):
            if score >= self.target:
                return side
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def awaiting_next_hand(self) -> bool:
        return self.hand.is_over and not self.is_over


def hand_seed(match_seed: int, number: int) -> int:
    return derive_seed(match_seed, "hand", number)


def new_match(
    variant: Variant,
    *,
    seed: int,
    target: int = DEFAULT_TARGET,
    partner_draw: bool = False,
) -> MatchState:
    """Draw the first Hakem (R2) and deal the first hand, everything from ``seed``."""
    if variant.family != "hokm":
        raise ValueError(f"{variant.name} is not a Hokm variant: games.engine.game plays it")
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise ValueError("the target must be a positive whole number of points")
    draw = draw_hakem(variant, seed, partner_draw=partner_draw)
    first_seed = hand_seed(seed, 0)
    hand = new_hand(variant, hakem=draw.hakem, deck=deal_deck(variant, first_seed))
    return MatchState(
        variant=variant,
        target=target,
        seed=seed,
        draw=draw,
        scores=tuple(0 for _ in range(variant.sides)),
        results=(),
        hand=hand,
        hand_seed=first_seed,
    )


def match_legal_actions(match: MatchState) -> list[Action]:
    return [] if match.is_over else legal_actions(match.hand)


def match_apply(match: MatchState, action: Action) -> MatchState:
    """Apply an action to the current hand; a hand that ends adds its points (R5, R7)."""
    if match.is_over:
        raise MatchOverError()
    hand = apply(match.hand, action)
    if hand.result is None:
        return replace(match, hand=hand)
    scores = list(match.scores)
    scores[hand.result.winner] += hand.result.points
    return replace(match, hand=hand, scores=tuple(scores), results=match.results + (hand.result,))


def next_hand(match: MatchState, *, deck: Sequence[Card] | None = None) -> MatchState:
    """Deal the next hand with the Hakem R6 names: from the match seed, or from a given deck."""
    if match.is_over:
        raise MatchOverError()
    if not match.hand.is_over:
        raise IllegalActionError("the current hand is still being played")
    number = len(match.results)
    seed = None
    if deck is None:
        if match.seed is None:
            raise ValueError("a match without a seed needs the next hand's deck")
        seed = hand_seed(match.seed, number)
        deck = deal_deck(match.variant, seed)
    hakem = match.results[-1].next_hakem
    return replace(match, hand=new_hand(match.variant, hakem=hakem, deck=deck), hand_seed=seed)
