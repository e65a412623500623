"""One deal of Court Piece as an immutable state machine (R9.3 to R9.7, R9.12 to R9.14).

``new_deal`` deals the caller's first 5 from a deck order; ``deal_legal_actions`` and
``deal_apply`` run the deal to its result. As in :mod:`games.engine.hand`, cards reach a holding
only when the rules deal them, and under hidden trump the indicator lies apart from the caller's
hand until it is revealed (R9.14.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ..actions import CallTrump, ChooseIndicator, PlayCard, RevealTrump
from ..cards import ACE, FULL_DECK, Card, Suit
from ..errors import (
    CardNotHeldError,
    HandOverError,
    IllegalActionError,
    IndicatorHiddenError,
    InvalidIndicatorError,
    InvalidTrumpError,
    MustFollowSuitError,
    MustTrumpError,
    NotYourTurnError,
    RevealNotAllowedError,
    WrongPhaseError,
)
from ..hand import DeckError, default_trump
from .options import PLAYERS, TRICKS, CourtPieceOptions, HiddenTrump

CourtPieceAction = CallTrump | ChooseIndicator | RevealTrump | PlayCard

#: R9.4.1: (seat offset from the caller, cards), before and after the call.
BEFORE_CALL: tuple[tuple[int, int], ...] = ((0, 5),)
AFTER_CALL: tuple[tuple[int, int], ...] = ((1, 5), (2, 5), (3, 5)) + tuple(
    (offset, 4) for _ in range(2) for offset in range(PLAYERS)
)


class DealPhase(StrEnum):
    CALL = "call"  # the caller names trump or lays the indicator (R9.4.2, R9.14.1)
    PLAY = "play"
    DONE = "done"


class DealOutcome(StrEnum):
    WON = "won"  # R9.6.2
    COURT = "court"  # R9.6.1.1, R9.12.6
    FIFTY_TWO = "52-court"  # R9.6.1.2


def side_of(seat: int) -> int:
    """R9.1.1: side 0 = seats 0 and 2, side 1 = seats 1 and 3."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class CourtTrick:
    """A completed trick: leader, cards in play order, which of them counted as trumps
    (R9.14.5), the winner, and under Double Sir the seat that collected the pile at it."""

    leader: int
    cards: tuple[Card, ...]
    trumps: tuple[bool, ...]
    winner: int
    collected_by: int | None = None

    def seat_of(self, index: int) -> int:
        return (self.leader + index) % PLAYERS

    @property
    def won_by_ace(self) -> bool:
        """R9.13.1: the winning card is an ace."""
        return self.cards[(self.winner - self.leader) % PLAYERS].rank == ACE


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended (R9.6, R9.12.5) and what it scores by itself (R9.7)."""

    tricks_won: tuple[int, ...]
    collected: tuple[int, ...] | None  # Double Sir: tricks collected per seat
    side_tricks: tuple[int, int]
    winner: int  # the side
    outcome: DealOutcome
    goon: bool
    courts: int  # R9.7 only; the streak court of R9.8.2 is the match's


@dataclass(frozen=True, slots=True)
class Reveal:
    """R9.14.2: the zero-based trick and the seat whose turn it was."""

    trick: int
    seat: int


@dataclass(frozen=True, slots=True)
class CourtPieceDeal:
    options: CourtPieceOptions
    dealer: int
    deck: tuple[Card, ...]  # the whole deal order, top first; hidden from every view
    phase: DealPhase
    holdings: tuple[tuple[Card, ...], ...]
    first5: tuple[Card, ...]
    trump: Suit | None = None
    indicator: Card | None = None  # R9.14.1, apart from the caller's hand until revealed
    reveal: Reveal | None = None
    must_trump: int | None = None  # R9.14.4: the seat bound to trump in the current trick
    tricks: tuple[CourtTrick, ...] = ()
    leader: int = 0
    current: tuple[Card, ...] = ()
    current_trumps: tuple[bool, ...] = ()
    pile: tuple[int, ...] = ()  # Double Sir: indices of the tricks lying in the pile
    collected: tuple[int, ...] = (0, 0, 0, 0)
    tricks_won: tuple[int, ...] = (0, 0, 0, 0)
    result: DealResult | None = None

    @property
    def caller(self) -> int:
        """R9.3.1: the seat to the dealer's right."""
        return (self.dealer + 1) % PLAYERS

    @property
    def players(self) -> int:
        return PLAYERS

    @property
    def is_over(self) -> bool:
        return self.phase is DealPhase.DONE

    @property
    def to_act(self) -> int | None:
        if self.phase is DealPhase.CALL:
            return self.caller
        if self.phase is DealPhase.PLAY:
            return (self.leader + len(self.current)) % PLAYERS
        return None

    @property
    def led_suit(self) -> Suit | None:
        return self.current[0].suit if self.current else None

    @property
    def revealed(self) -> bool:
        return self.reveal is not None

    @property
    def trump_known(self) -> bool:
        """Trump is public: announced (R9.4.4) or, under hidden trump, revealed (R9.14.2)."""
        return self.trump is not None and (not self.options.hidden or self.revealed)

    @property
    def played(self) -> frozenset[Card]:
        cards = [card for trick in self.tricks for card in trick.cards]
        return frozenset(cards + list(self.current))

    def side_tricks(self) -> tuple[int, int]:
        """The tricks that decide the deal: won ones, or collected ones under Double Sir."""
        counts = self.collected if self.options.double_sir else self.tricks_won
        return (counts[0] + counts[2], counts[1] + counts[3])


def new_deal(
    options: CourtPieceOptions,
    *,
    dealer: int,
    deck: Sequence[Card],
    blind_pick: int = 0,
) -> CourtPieceDeal:
    """Start a deal from a deck order: the caller's first 5 are dealt (R9.4.1, R9.4.2).

    Under hidden trump ``blind`` the indicator is ``first5[blind_pick]`` and the rest of the deal
    follows at once (R9.14.1); otherwise the deal waits for the caller.
    """
    if sorted(deck) != sorted(FULL_DECK):
        raise DeckError("a court-piece deal needs exactly the 52 cards")
    if not 0 <= dealer < PLAYERS:
        raise ValueError("the dealer must be a seat from 0 to 3")
    caller = (dealer + 1) % PLAYERS
    holdings: list[tuple[Card, ...]] = [(), (), (), ()]
    holdings[caller] = tuple(deck[:5])
    state = CourtPieceDeal(
        options=options,
        dealer=dealer,
        deck=tuple(deck),
        phase=DealPhase.CALL,
        holdings=tuple(holdings),
        first5=tuple(deck[:5]),
        leader=caller,
    )
    if options.hidden_trump is HiddenTrump.BLIND:
        if not 0 <= blind_pick < 5:
            raise ValueError("the blind indicator is one of the caller's first 5 (0 to 4)")
        return _lay_indicator(state, state.first5[blind_pick])
    return state


def blind_pick_for(seed: int) -> int:
    """R9.14.1: which of the caller's first 5 becomes the blind indicator, from a deal seed."""
    return seed % 5


def _deal_rest(state: CourtPieceDeal) -> CourtPieceDeal:
    holdings = [list(h) for h in state.holdings]
    position = 5
    for offset, count in AFTER_CALL:
        holdings[(state.caller + offset) % PLAYERS] += state.deck[position : position + count]
        position += count
    dealt = replace(state, holdings=tuple(tuple(h) for h in holdings), phase=DealPhase.PLAY)
    return _auto_reveal(dealt)


def _lay_indicator(state: CourtPieceDeal, card: Card) -> CourtPieceDeal:
    holdings = list(state.holdings)
    holdings[state.caller] = tuple(c for c in holdings[state.caller] if c != card)
    laid = replace(state, holdings=tuple(holdings), indicator=card, trump=card.suit)
    return _deal_rest(laid)


# -- legal actions -------------------------------------------------------------------------------


def deal_legal_actions(state: CourtPieceDeal) -> list[CourtPieceAction]:
    """Every action the rules allow now, in a stable order; empty once the deal is over."""
    seat = state.to_act
    if seat is None:
        return []
    if state.phase is DealPhase.CALL:
        if state.options.hidden_trump is HiddenTrump.CHOSEN:
            return [ChooseIndicator(seat, card) for card in state.first5]
        return [CallTrump(seat, suit) for suit in Suit]
    actions: list[CourtPieceAction] = [PlayCard(seat, card) for card in playable_cards(state)]
    if _reveal_refusal(state, seat) is None:
        actions.append(RevealTrump(seat))
    return actions


def playable_cards(state: CourtPieceDeal) -> list[Card]:
    """The cards the seat on turn may play (R4.2, R9.14.3, R9.14.4), in holding order."""
    seat = state.to_act
    if state.phase is not DealPhase.PLAY or seat is None:
        return []
    hand = state.holdings[seat]
    led = state.led_suit
    if led is not None:
        following = [card for card in hand if card.suit == led]
        if following:
            return following
        if state.must_trump == seat:
            trumps = [card for card in hand if card.suit == state.trump]
            if trumps:
                return trumps
    return list(hand)


def default_call(state: CourtPieceDeal) -> CallTrump | ChooseIndicator:
    """The call made for a caller out of time: R3.6's suit (R9.4.3), or under ``chosen`` the
    lowest card of that suit (R9.14.1)."""
    suit = default_trump(state.first5)
    if state.options.hidden_trump is HiddenTrump.CHOSEN:
        lowest = min((c for c in state.first5 if c.suit == suit), key=lambda c: c.rank)
        return ChooseIndicator(state.caller, lowest)
    return CallTrump(state.caller, suit)


def _reveal_refusal(state: CourtPieceDeal, seat: int) -> str | None:
    """Why ``seat`` may not reveal now (R9.14.2), or None when it may."""
    if not state.options.hidden:
        return "trump is not hidden at this table"
    if state.revealed:
        return "trump has already been revealed"
    if seat == state.caller:
        return None
    if not state.current:
        return "you cannot ask for trump when you lead"
    led = state.led_suit
    if any(card.suit == led for card in state.holdings[seat]):
        return "you can ask for trump only when you cannot follow suit"
    return None


# -- applying an action --------------------------------------------------------------------------


def deal_apply(state: CourtPieceDeal, action: CourtPieceAction) -> CourtPieceDeal:
    """The state after ``action``; raises an :class:`IllegalActionError` and changes nothing if
    the rules refuse it."""
    if state.phase is DealPhase.DONE:
        raise HandOverError(seat=action.seat)
    if action.seat != state.to_act:
        raise NotYourTurnError(seat=action.seat, to_act=state.to_act)
    if isinstance(action, CallTrump):
        return _call(state, action)
    if isinstance(action, ChooseIndicator):
        return _choose_indicator(state, action)
    if isinstance(action, RevealTrump):
        return _reveal(state, action.seat)
    if isinstance(action, PlayCard):
        return _play(state, action)
    raise IllegalActionError(f"{action!r} is not an action", seat=getattr(action, "seat", None))


def _require(state: CourtPieceDeal, seat: int, phase: DealPhase, verb: str) -> None:
    if state.phase is not phase:
        raise WrongPhaseError(seat=seat, action=verb, phase=state.phase.value)


def _call(state: CourtPieceDeal, action: CallTrump) -> CourtPieceDeal:
    _require(state, action.seat, DealPhase.CALL, "call trump")
    if state.options.hidden:
        raise WrongPhaseError(seat=action.seat, action="announce trump", phase="indicator")
    if not isinstance(action.suit, Suit):
        raise InvalidTrumpError(action.suit, seat=action.seat)
    return _deal_rest(replace(state, trump=action.suit))


def _choose_indicator(state: CourtPieceDeal, action: ChooseIndicator) -> CourtPieceDeal:
    _require(state, action.seat, DealPhase.CALL, "choose the indicator")
    if state.options.hidden_trump is not HiddenTrump.CHOSEN:
        raise WrongPhaseError(seat=action.seat, action="choose the indicator", phase="call")
    if action.card not in state.first5:
        raise InvalidIndicatorError(action.card, seat=action.seat)
    return _lay_indicator(state, action.card)


def _reveal(state: CourtPieceDeal, seat: int) -> CourtPieceDeal:
    _require(state, seat, DealPhase.PLAY, "reveal trump")
    refusal = _reveal_refusal(state, seat)
    if refusal is not None:
        raise RevealNotAllowedError(refusal, seat=seat)
    led = state.led_suit
    void = led is not None and not any(card.suit == led for card in state.holdings[seat])
    holdings = list(state.holdings)
    if state.indicator is not None:
        caller = state.caller
        holdings[caller] = holdings[caller] + (state.indicator,)  # R9.14.3
    return replace(
        state,
        holdings=tuple(holdings),
        reveal=Reveal(len(state.tricks), seat),
        must_trump=seat if void else None,
    )


def _auto_reveal(state: CourtPieceDeal) -> CourtPieceDeal:
    """R9.14.2.3: a caller whose only card left is the indicator reveals on his turn."""
    if (
        state.phase is DealPhase.PLAY
        and state.options.hidden
        and not state.revealed
        and state.to_act == state.caller
        and not state.holdings[state.caller]
    ):
        return _reveal(state, state.caller)
    return state


def _play(state: CourtPieceDeal, action: PlayCard) -> CourtPieceDeal:
    _require(state, action.seat, DealPhase.PLAY, "play a card")
    seat, card = action.seat, action.card
    hand = state.holdings[seat]
    if card not in hand:
        # Under ``blind`` the caller does not know his indicator either: the error that names
        # it would tell him (and a program probing card by card) which card it is, so he hears
        # what he would hear of any card he does not hold (R9.14.1, R8.3).
        if (
            card == state.indicator
            and seat == state.caller
            and not state.revealed
            and state.options.hidden_trump is HiddenTrump.CHOSEN
        ):
            raise IndicatorHiddenError(seat=seat, card=card)
        raise CardNotHeldError(seat=seat, card=card, already_played=card in _face_up(state))
    led = state.led_suit
    if led is not None and card.suit != led and any(c.suit == led for c in hand):
        raise MustFollowSuitError(seat=seat, card=card, led=led)
    if card not in playable_cards(state):
        assert state.trump is not None
        raise MustTrumpError(seat=seat, card=card, trump=state.trump)
    holdings = list(state.holdings)
    holdings[seat] = tuple(c for c in hand if c != card)
    led_suit = led if led is not None else card.suit
    # R9.14.5: a trump-suit card is a trump once trump is public, or when trump was led.
    is_trump = card.suit == state.trump and (state.trump_known or led_suit == state.trump)
    state = replace(
        state,
        holdings=tuple(holdings),
        current=state.current + (card,),
        current_trumps=state.current_trumps + (is_trump,),
        must_trump=None if state.must_trump == seat else state.must_trump,
    )
    if len(state.current) == PLAYERS:
        state = _end_trick(state)
    return _auto_reveal(state)


def face_down_count(state: CourtPieceDeal) -> int:
    """How many of the finished tricks lie face down now, the first ones (R9.15.1): none without
    Double Sir; under it every finished trick but the one just taken, which stays in sight until
    the next is led (a deal's pile is turned up in its history, not at the table). Views,
    refusals and the event log all read this one rule."""
    if not state.options.double_sir:
        return 0
    return len(state.tricks) if state.current else max(0, len(state.tricks) - 1)


def _face_up(state: CourtPieceDeal) -> frozenset[Card]:
    """The cards played that every seat sees now. A refusal may say a card "was already
    played" only of these: of a card in the face-down pile it would tell what the pile hides."""
    shown = state.tricks[face_down_count(state) :]
    return frozenset([card for trick in shown for card in trick.cards] + list(state.current))


def trick_winner_index(cards: Sequence[Card], trumps: Sequence[bool]) -> int:
    """R4.3 with R9.14.5: the highest card counted as a trump, else the highest of the suit led."""
    candidates = [i for i in range(len(cards)) if trumps[i]]
    if not candidates:
        candidates = [i for i in range(len(cards)) if cards[i].suit == cards[0].suit]
    return max(candidates, key=lambda i: cards[i].rank)


def _end_trick(state: CourtPieceDeal) -> CourtPieceDeal:
    winner = (state.leader + trick_winner_index(state.current, state.current_trumps)) % PLAYERS
    won = list(state.tricks_won)
    won[winner] += 1
    trick = CourtTrick(state.leader, state.current, state.current_trumps, winner)
    state = replace(
        state,
        current=(),
        current_trumps=(),
        must_trump=None,
        leader=winner,  # R9.5.1
        tricks_won=tuple(won),
    )
    if state.options.double_sir:
        state = _pile_up(state, trick)
    else:
        state = replace(state, tricks=state.tricks + (trick,))
    result = decide(state)
    if result is not None:
        state = replace(state, phase=DealPhase.DONE, result=result)
    return state


def _pile_up(state: CourtPieceDeal, trick: CourtTrick) -> CourtPieceDeal:
    """R9.12: the trick goes to the pile; its winner collects when R9.12.2 to R9.14.6 say so."""
    index = len(state.tricks)
    pile = state.pile + (index,)
    if _collects(state, trick, index):
        collected = list(state.collected)
        collected[trick.winner] += len(pile)
        trick = replace(trick, collected_by=trick.winner)
        return replace(state, tricks=state.tricks + (trick,), pile=(), collected=tuple(collected))
    return replace(state, tricks=state.tricks + (trick,), pile=pile)


def _collects(state: CourtPieceDeal, trick: CourtTrick, index: int) -> bool:
    if index == TRICKS - 1:
        return True  # R9.12.4, R9.13.3
    if index == 0:
        return False
    before = state.tricks[index - 1]
    if before.winner != trick.winner or before.collected_by is not None:
        return False  # R9.12.2: the same player, and trick k-1 did not itself collect
    if state.options.ace_rule and before.won_by_ace and trick.won_by_ace:
        return False  # R9.13.2
    if state.options.hidden:
        # R9.14.6: both tricks from the reveal's trick on; without a reveal only R9.12.4.
        return state.reveal is not None and index - 1 >= state.reveal.trick
    return True


def decide(state: CourtPieceDeal) -> DealResult | None:
    """R9.6 (or R9.12.5 under Double Sir), checked after every trick."""
    if state.options.double_sir:
        return _decide_double_sir(state)
    played = len(state.tricks)
    if played >= 7:
        first7 = {side_of(t.winner) for t in state.tricks[:7]}
        if len(first7) == 1:
            side = first7.pop()
            if side_of(state.tricks[-1].winner) != side:
                return _result(state, side, DealOutcome.COURT)  # R9.6.1.1
            if played == TRICKS:
                return _result(state, side, DealOutcome.FIFTY_TWO)  # R9.6.1.2
            return None  # the chase goes on
    for side, total in enumerate(state.side_tricks()):
        if total >= 7:
            return _result(state, side, DealOutcome.WON)  # R9.6.2
    return None


def _decide_double_sir(state: CourtPieceDeal) -> DealResult | None:
    sides = state.side_tricks()
    for side in (0, 1):
        other = sides[1 - side]
        if sides[side] >= 7 and (other >= 1 or len(state.tricks) == TRICKS):
            outcome = DealOutcome.COURT if other == 0 else DealOutcome.WON  # R9.12.6
            return _result(state, side, outcome)
    return None


def _result(state: CourtPieceDeal, side: int, outcome: DealOutcome) -> DealResult:
    dealing_side = side_of(state.dealer)
    goon = outcome is not DealOutcome.WON and side == dealing_side
    if outcome is DealOutcome.FIFTY_TWO:
        courts = 52  # R9.7.1
    elif outcome is DealOutcome.COURT:
        courts = 3 if goon and state.options.goon_court else 1  # R9.7.2
    else:
        courts = 0  # R9.7.3
    return DealResult(
        tricks_won=state.tricks_won,
        collected=state.collected if state.options.double_sir else None,
        side_tricks=state.side_tricks(),
        winner=side,
        outcome=outcome,
        goon=goon,
        courts=courts,
    )


def deck_from_court_deal(
    *, caller: int, first5: Sequence[Card], holdings: Sequence[Sequence[Card]]
) -> tuple[Card, ...]:
    """A deck order that R9.4.1 deals into these holdings (the caller's include his first 5,
    indicator included). Raises :class:`DeckError` when no deal gives them."""
    queues = [list(cards) for cards in holdings]
    own = queues[caller]
    if len(set(first5)) != 5 or not set(first5) <= set(own):
        raise DeckError("the first 5 must be 5 of the caller's cards")
    queues[caller] = list(first5) + [card for card in own if card not in first5]
    deck: list[Card] = []
    for offset, count in BEFORE_CALL + AFTER_CALL:
        queue = queues[(caller + offset) % PLAYERS]
        if len(queue) < count:
            raise DeckError("the holdings are too small for the deal")
        deck += queue[:count]
        del queue[:count]
    if any(queues) or sorted(deck) != sorted(FULL_DECK):
        raise DeckError("a court-piece deal needs exactly the 52 cards, 13 a seat")
    return tuple(deck)
