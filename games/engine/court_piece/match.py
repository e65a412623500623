"""A Court Piece match: the first-dealer draw (R9.2, R9.16), deals one after another, the
streak (R9.8), the next dealer (R9.9) and the end of the match (R9.10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..cards import ACE, FULL_DECK, Card, Suit
from ..draw import DrawError
from ..errors import IllegalActionError, MatchOverError
from ..seeding import derive_seed, shuffled
from .deal import (
    CourtPieceAction,
    CourtPieceDeal,
    DealOutcome,
    DealResult,
    blind_pick_for,
    deal_apply,
    deal_legal_actions,
    new_deal,
    side_of,
)
from .options import PLAYERS, CourtPieceOptions

DEFAULT_TARGET = 1  # R9.10.1
STREAK_LENGTH = 7  # R9.8.2


@dataclass(frozen=True, slots=True)
class DealerDraw:
    """R9.2.1: flips turned to ``first_seat``, ``first_seat + 1``, ... up to the first ace (or
    with R9.16 the ace of ``ace_caller``); its receiver is the first dealer (or caller)."""

    first_seat: int
    cards: tuple[Card, ...]
    ace_caller: Suit | None = None

    @property
    def receiver(self) -> int:
        return (self.first_seat + len(self.cards) - 1) % PLAYERS

    @property
    def dealer(self) -> int:
        """The first dealer: the receiver, or with R9.16.1 the caller - 1."""
        return self.receiver if self.ace_caller is None else (self.receiver - 1) % PLAYERS

    def to_json(self) -> dict[str, object]:
        return {"first_seat": self.first_seat, "cards": [card.text for card in self.cards]}


def check_dealer_draw(cards: Sequence[Card], first_seat: int, ace_caller: Suit | None) -> None:
    """Raises :class:`DrawError` when the flips break R9.2.1 / R9.16.1."""
    if not 0 <= first_seat < PLAYERS:
        raise DrawError("first_seat must be a seat from 0 to 3")
    if not cards:
        raise DrawError("the draw has no cards")
    if len(set(cards)) != len(cards):
        raise DrawError("the draw turns the same card twice, but it comes from one shuffle")

    def stops(card: Card) -> bool:
        return card.rank == ACE and (ace_caller is None or card.suit == ace_caller)

    wanted = "the first ace" if ace_caller is None else f"the ace of {ace_caller.plural}"
    for index, card in enumerate(cards[:-1]):
        if stops(card):
            raise DrawError(f"the draw goes on after {wanted} ({card}, flip {index})")
    if not stops(cards[-1]):
        raise DrawError(f"the draw must stop at {wanted}, and {cards[-1]} is not it")


def draw_dealer(seed: int, ace_caller: Suit | None = None) -> DealerDraw:
    """R9.2.1 / R9.16.1 from the draw's own shuffle (R2.6)."""
    deck = shuffled(FULL_DECK, derive_seed(seed, "dealer-draw"))
    first_seat = derive_seed(seed, "first-seat") % PLAYERS
    stop = next(
        i
        for i, card in enumerate(deck)
        if card.rank == ACE and (ace_caller is None or card.suit == ace_caller)
    )
    return DealerDraw(first_seat, tuple(deck[: stop + 1]), ace_caller)


@dataclass(frozen=True, slots=True)
class Streak:
    """R9.8.1: a side and a count; no side and 0 when cleared."""

    side: int | None = None
    count: int = 0


@dataclass(frozen=True, slots=True)
class DealSummary:
    """A finished deal as the match counts it: R9.7, R9.8 and R9.9 applied."""

    dealer: int
    caller: int
    result: DealResult
    courts: int  # R9.7 plus R9.8.2
    streak_court: bool
    streak: Streak  # after this deal
    scores: tuple[int, int]  # after this deal
    next_dealer: int

    @property
    def next_caller(self) -> int:
        return (self.next_dealer + 1) % PLAYERS


def summarise(deal: CourtPieceDeal, streak: Streak, scores: Sequence[int]) -> DealSummary:
    """Apply R9.7 to R9.9 to a finished deal."""
    result = deal.result
    if result is None:
        raise ValueError("the deal is not finished")
    courts, streak_court = result.courts, False
    if result.outcome is not DealOutcome.WON:
        streak = Streak()  # R9.8.3
    else:
        count = streak.count + 1 if streak.side == result.winner else 1  # R9.8.1
        streak = Streak(result.winner, count)
        if count >= STREAK_LENGTH:
            courts, streak_court, streak = 1, True, Streak()  # R9.8.2
    new_scores = list(scores)
    new_scores[result.winner] += courts
    calling_side = side_of(deal.caller)
    if result.winner != calling_side:
        next_dealer = deal.caller  # R9.9.3
    elif courts:
        next_dealer = (deal.dealer + 2) % PLAYERS  # R9.9.2
    else:
        next_dealer = deal.dealer  # R9.9.1
    return DealSummary(
        dealer=deal.dealer,
        caller=deal.caller,
        result=result,
        courts=courts,
        streak_court=streak_court,
        streak=streak,
        scores=(new_scores[0], new_scores[1]),
        next_dealer=next_dealer,
    )


def match_winner(
    summaries: Sequence[DealSummary], target: int, max_deals: int | None
) -> int | None:
    """R9.10: the side whose courts reach the target; or after ``max_deals`` deals the most
    courts, then the most deals won, then the winner of the last deal."""
    if not summaries:
        return None
    scores = summaries[-1].scores
    for side in (0, 1):
        if scores[side] >= target:
            return side
    if max_deals is None or len(summaries) < max_deals:
        return None
    if scores[0] != scores[1]:
        return 0 if scores[0] > scores[1] else 1
    wins = [sum(1 for s in summaries if s.result.winner == side) for side in (0, 1)]
    if wins[0] != wins[1]:
        return 0 if wins[0] > wins[1] else 1
    return summaries[-1].result.winner


@dataclass(frozen=True, slots=True)
class CourtPieceMatch:
    options: CourtPieceOptions
    target: int
    max_deals: int | None
    seed: int | None
    draw: DealerDraw | None
    summaries: tuple[DealSummary, ...]
    deal: CourtPieceDeal
    deal_seed: int | None

    @property
    def scores(self) -> tuple[int, int]:
        return self.summaries[-1].scores if self.summaries else (0, 0)

    @property
    def streak(self) -> Streak:
        return self.summaries[-1].streak if self.summaries else Streak()

    @property
    def winner(self) -> int | None:
        return match_winner(self.summaries, self.target, self.max_deals)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def deal_number(self) -> int:
        return len(self.summaries) - (1 if self.deal.is_over else 0)

    @property
    def awaiting_next_deal(self) -> bool:
        return self.deal.is_over and not self.is_over


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def deal_seed(match_seed: int, number: int) -> int:
    return derive_seed(match_seed, "deal", number)


def _seeded_deal(options: CourtPieceOptions, dealer: int, seed: int) -> CourtPieceDeal:
    deck = shuffled(FULL_DECK, seed)  # R9.4.1: a full fresh shuffle every deal
    return new_deal(options, dealer=dealer, deck=deck, blind_pick=blind_pick_for(seed))


def new_court_piece_match(
    options: CourtPieceOptions,
    *,
    seed: int,
    target: int = DEFAULT_TARGET,
    max_deals: int | None = None,
) -> CourtPieceMatch:
    """Draw the first dealer (R9.2, R9.16) and deal the first deal, everything from ``seed``."""
    if not _positive(target):
        raise ValueError("the target must be a positive whole number of courts")
    if max_deals is not None and not _positive(max_deals):
        raise ValueError("max_deals must be None or a positive whole number")
    draw = draw_dealer(seed, options.ace_caller)
    first_seed = deal_seed(seed, 0)
    return CourtPieceMatch(
        options=options,
        target=target,
        max_deals=max_deals,
        seed=seed,
        draw=draw,
        summaries=(),
        deal=_seeded_deal(options, draw.dealer, first_seed),
        deal_seed=first_seed,
    )


def court_piece_legal_actions(match: CourtPieceMatch) -> list[CourtPieceAction]:
    return [] if match.is_over else deal_legal_actions(match.deal)


def court_piece_apply(match: CourtPieceMatch, action: CourtPieceAction) -> CourtPieceMatch:
    """Apply an action to the current deal; a deal that ends is scored (R9.7 to R9.9)."""
    if match.is_over:
        raise MatchOverError()
    deal = deal_apply(match.deal, action)
    if deal.result is None:
        return replace(match, deal=deal)
    summary = summarise(deal, match.streak, match.scores)
    return replace(match, deal=deal, summaries=match.summaries + (summary,))


def next_deal(
    match: CourtPieceMatch, *, deck: Sequence[Card] | None = None, blind_pick: int = 0
) -> CourtPieceMatch:
    """Deal the next deal with the dealer R9.9 names: from the match seed, or a given deck."""
    if match.is_over:
        raise MatchOverError()
    if not match.deal.is_over:
        raise IllegalActionError("the current deal is still being played")
    dealer = match.summaries[-1].next_dealer
    if deck is not None:
        deal = new_deal(match.options, dealer=dealer, deck=deck, blind_pick=blind_pick)
        return replace(match, deal=deal, deal_seed=None)
    if match.seed is None:
        raise ValueError("a match without a seed needs the next deal's deck")
    seed = deal_seed(match.seed, len(match.summaries))
    return replace(match, deal=_seeded_deal(match.options, dealer, seed), deal_seed=seed)
