"""One hand of Hokm as an immutable state machine (R3 to R5).

``new_hand`` deals the Hakem's first cards from a deck order; ``legal_actions``, ``apply`` and
``outcome`` run the hand. ``apply`` returns a new state and never changes the old one, so a refused
action leaves everything as it was. The whole deck order lives in the state, but cards reach a
seat's holding only when the rules deal them, so the trump call is made on the first 5 cards alone
(R3.1) and :func:`games.engine.view.view` can only ever show what has been dealt to that seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations

from .actions import Action, CallTrump, Discard, KeepOrThrow, PlayCard
from .cards import Card, Suit
from .errors import (
    CardNotHeldError,
    HandOverError,
    IllegalActionError,
    InvalidDiscardError,
    InvalidTrumpError,
    MustFollowSuitError,
    NotYourTurnError,
    WrongPhaseError,
)
from .seeding import shuffled
from .variants import Scoring, Variant


class Phase(StrEnum):
    CALL = "call"  # the Hakem names trump (R3.1)
    DISCARD = "discard"  # hokm2-draw discards (R3.5)
    DRAW = "draw"  # hokm2-draw keep-or-throw turns (R3.5)
    PLAY = "play"  # tricks (R4)
    DONE = "done"  # decided (R5)


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who led, the cards in the order played, who won it."""

    leader: int
    cards: tuple[Card, ...]
    winner: int

    def seat_of(self, index: int, players: int) -> int:
        return (self.leader + index) % players


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a decided hand ended (R5) and who is Hakem next (R6)."""

    tricks_won: tuple[int, ...]
    winner: int  # the winning side
    points: int
    kot: bool  # R5.2 / R5.3.1
    hakem_kot: bool  # R5.2: a Kot against the Hakem's side
    next_hakem: int


@dataclass(frozen=True, slots=True)
class HandState:
    variant: Variant
    hakem: int
    dealer: int
    deck: tuple[Card, ...]  # the whole deal order, top first; hidden from every view
    dealt: int  # how many cards of ``deck`` have been dealt or turned
    phase: Phase
    holdings: tuple[tuple[Card, ...], ...]  # per seat, in the order received
    trump: Suit | None = None
    first5: tuple[Card, ...] = ()
    dealer5: tuple[Card, ...] = ()
    discards: tuple[tuple[Card, ...], ...] = ()  # per seat, face down (R3.5)
    keep_first: tuple[bool, ...] = ()  # one per draw turn taken (R3.5)
    discarded_by: tuple[int, ...] = ()  # seats that have made their R3.5 discard
    tricks: tuple[Trick, ...] = ()
    leader: int = 0
    current: tuple[Card, ...] = ()  # the trick being played, from its leader
    tricks_won: tuple[int, ...] = ()
    result: HandResult | None = None

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand waits for, or None once it is decided."""
        if self.phase is Phase.CALL:
            return self.hakem
        if self.phase is Phase.DISCARD:
            return self.hakem if self.hakem not in self.discarded_by else self.dealer
        if self.phase is Phase.DRAW:
            return self.hakem if len(self.keep_first) % 2 == 0 else self.dealer
        if self.phase is Phase.PLAY:
            return (self.leader + len(self.current)) % self.players
        return None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def draw_turn(self) -> int:
        """R3.5: the index of the current keep-or-throw turn (0 to 20)."""
        return len(self.keep_first)

    @property
    def stock_top(self) -> Card | None:
        """The card the seat on turn looks at in the draw (R3.5); only its view shows it."""
        if self.phase is not Phase.DRAW:
            return None
        return self.deck[self.dealt]

    @property
    def stock_left(self) -> int:
        return len(self.deck) - self.dealt if self.variant.has_draw else 0

    @property
    def led_suit(self) -> Suit | None:
        return self.current[0].suit if self.current else None

    @property
    def played(self) -> frozenset[Card]:
        cards = [card for trick in self.tricks for card in trick.cards]
        return frozenset(cards + list(self.current))

    def side_tricks(self) -> tuple[int, ...]:
        totals = [0] * self.variant.sides
        for seat, won in enumerate(self.tricks_won):
            totals[self.variant.side_of(seat)] += won
        return tuple(totals)


class DeckError(ValueError):
    """A deck order that is not exactly the variant's cards."""


def new_hand(variant: Variant, *, hakem: int, deck: Sequence[Card]) -> HandState:
    """Start a hand from a deck order (top first): the Hakem's first cards are dealt (R3.1).

    In ``hokm2-draw`` the dealer's own 5 are dealt too (R3.5); every other card waits for the call.
    """
    if sorted(deck) != sorted(variant.deck):
        raise DeckError(f"a {variant.name} deal needs exactly its {len(variant.deck)} cards")
    if not 0 <= hakem < variant.players:
        raise ValueError(f"the Hakem must be a seat from 0 to {variant.players - 1}")
    state = HandState(
        variant=variant,
        hakem=hakem,
        dealer=variant.dealer_for(hakem),
        deck=tuple(deck),
        dealt=0,
        phase=Phase.CALL,
        holdings=tuple(() for _ in range(variant.players)),
        discards=tuple(() for _ in range(variant.players)),
        tricks_won=tuple(0 for _ in range(variant.players)),
        leader=hakem,
    )
    state = _deal(state, variant.before_call)
    first5 = state.holdings[hakem][:5]
    dealer5 = state.holdings[state.dealer][:5] if variant.has_draw else ()
    return replace(state, first5=first5, dealer5=dealer5)


def _deal(state: HandState, steps: Sequence[tuple[int, int]]) -> HandState:
    holdings = [list(h) for h in state.holdings]
    position = state.dealt
    for offset, count in steps:
        seat = (state.hakem + offset) % state.players
        holdings[seat].extend(state.deck[position : position + count])
        position += count
    return replace(state, holdings=tuple(tuple(h) for h in holdings), dealt=position)


def legal_actions(state: HandState) -> list[Action]:
    """Every action the rules allow now, in a stable order; empty only when the hand is over."""
    seat = state.to_act
    if seat is None:
        return []
    if state.phase is Phase.CALL:
        return [CallTrump(seat, suit) for suit in Suit]
    if state.phase is Phase.DISCARD:
        own5 = state.first5 if seat == state.hakem else state.dealer5
        count = discard_count(state, seat)
        return [Discard(seat, combo) for combo in combinations(own5, count)]
    if state.phase is Phase.DRAW:
        return [KeepOrThrow(seat, True), KeepOrThrow(seat, False)]
    return [PlayCard(seat, card) for card in playable_cards(state)]


def playable_cards(state: HandState) -> list[Card]:
    """The cards the seat on turn may play (R4.2), in holding order."""
    seat = state.to_act
    if state.phase is not Phase.PLAY or seat is None:
        return []
    hand = state.holdings[seat]
    led = state.led_suit
    if led is not None:
        following = [card for card in hand if card.suit == led]
        if following:
            return following
    return list(hand)


def discard_count(state: HandState, seat: int) -> int:
    """How many cards ``seat`` puts down from its first five in a draw variant (R3.5): the
    Hakem's count or the other player's."""
    discards = state.variant.draw_discards
    return discards[0] if seat == state.hakem else discards[1]


def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises an :class:`IllegalActionError` and changes nothing if
    the rules refuse it."""
    if state.phase is Phase.DONE:
        raise HandOverError(seat=action.seat)
    if action.seat != state.to_act:
        raise NotYourTurnError(seat=action.seat, to_act=state.to_act)
    if isinstance(action, CallTrump):
        return _call_trump(state, action)
    if isinstance(action, Discard):
        return _discard(state, action)
    if isinstance(action, KeepOrThrow):
        return _keep_or_throw(state, action)
    if isinstance(action, PlayCard):
        return _play_card(state, action)
    raise IllegalActionError(f"{action!r} is not an action", seat=getattr(action, "seat", None))


def _require_phase(state: HandState, action: Action, phase: Phase, verb: str) -> None:
    if state.phase is not phase:
        raise WrongPhaseError(seat=action.seat, action=verb, phase=state.phase.value)


def _call_trump(state: HandState, action: CallTrump) -> HandState:
    _require_phase(state, action, Phase.CALL, "call trump")
    if not isinstance(action.suit, Suit):
        raise InvalidTrumpError(action.suit, seat=action.seat)
    state = replace(state, trump=action.suit)
    if state.variant.has_draw:
        return replace(state, phase=Phase.DISCARD)
    return replace(_deal(state, state.variant.after_call), phase=Phase.PLAY)


def _discard(state: HandState, action: Discard) -> HandState:
    _require_phase(state, action, Phase.DISCARD, "discard")
    seat = action.seat
    count = discard_count(state, seat)
    own5 = state.first5 if seat == state.hakem else state.dealer5
    chosen = tuple(action.cards)
    if len(chosen) != count or len(set(chosen)) != count:
        raise InvalidDiscardError(f"discard exactly {count} different cards", seat=seat)
    outside = [card for card in chosen if card not in own5]
    if outside:
        raise InvalidDiscardError(
            f"you can only discard from your first 5 cards, and {outside[0]} is not one", seat=seat
        )
    holdings = list(state.holdings)
    holdings[seat] = tuple(card for card in holdings[seat] if card not in chosen)
    discards = list(state.discards)
    discards[seat] = discards[seat] + chosen
    done = state.discarded_by + (seat,)
    phase = Phase.DRAW if len(done) == 2 else Phase.DISCARD
    return replace(
        state,
        holdings=tuple(holdings),
        discards=tuple(discards),
        discarded_by=done,
        phase=phase,
    )


def _keep_or_throw(state: HandState, action: KeepOrThrow) -> HandState:
    _require_phase(state, action, Phase.DRAW, "draw")
    if not isinstance(action.keep, bool):
        raise IllegalActionError("say keep or throw", seat=action.seat)
    seat = action.seat
    first, second = state.deck[state.dealt], state.deck[state.dealt + 1]
    kept, thrown = (first, second) if action.keep else (second, first)
    holdings = list(state.holdings)
    holdings[seat] = holdings[seat] + (kept,)
    discards = list(state.discards)
    discards[seat] = discards[seat] + (thrown,)
    state = replace(
        state,
        holdings=tuple(holdings),
        discards=tuple(discards),
        dealt=state.dealt + 2,
        keep_first=state.keep_first + (action.keep,),
    )
    if state.dealt >= len(state.deck):
        state = replace(state, phase=Phase.PLAY, leader=state.hakem)
    return state


def _play_card(state: HandState, action: PlayCard) -> HandState:
    _require_phase(state, action, Phase.PLAY, "play a card")
    seat, card = action.seat, action.card
    hand = state.holdings[seat]
    if card not in hand:
        raise CardNotHeldError(seat=seat, card=card, already_played=card in state.played)
    led = state.led_suit
    if led is not None and card.suit != led and any(c.suit == led for c in hand):
        raise MustFollowSuitError(seat=seat, card=card, led=led)
    holdings = list(state.holdings)
    holdings[seat] = tuple(c for c in hand if c != card)
    current = state.current + (card,)
    state = replace(state, holdings=tuple(holdings), current=current)
    if len(current) < state.players:
        return state
    winner = (state.leader + trick_winner_index(current, state.trump)) % state.players
    won = list(state.tricks_won)
    won[winner] += 1
    state = replace(
        state,
        tricks=state.tricks + (Trick(state.leader, current, winner),),
        current=(),
        leader=winner,  # R4.1
        tricks_won=tuple(won),
    )
    result = decide(state)
    if result is not None:
        state = replace(state, phase=Phase.DONE, result=result)
    return state


def trick_winner_index(cards: Sequence[Card], trump: Suit | None) -> int:
    """R4.3: the index of the highest trump, or else of the highest card of the suit led."""
    best = 0
    for index in range(1, len(cards)):
        card, top = cards[index], cards[best]
        if card.suit == top.suit:
            if card.rank > top.rank:
                best = index
        elif card.suit == trump:
            best = index
        # Any other suit (neither the suit of the best card nor trump) never wins (R4.3).
    return best


def decide(state: HandState) -> HandResult | None:
    """R5: whether the tricks taken so far decide the hand, and how. Checked after every trick."""
    variant = state.variant
    if variant.scoring is Scoring.THREE_PLAYERS:
        return _decide_three_players(state)
    sides = state.side_tricks()
    for side, total in enumerate(sides):
        if total >= variant.tricks_to_win:
            kot = all(other == 0 for s, other in enumerate(sides) if s != side)
            return _result(state, side, kot)
    return None


def _decide_three_players(state: HandState) -> HandResult | None:
    won = state.tricks_won
    played = len(state.tricks)
    left = state.variant.tricks_per_hand - played
    # R5.3.1: one player took each of the first 7 tricks.
    if played == 7 and max(won) == 7:
        return _result(state, won.index(7), kot=True)
    # R5.3.2: a lead that no other player can equal with the tricks left.
    for seat, count in enumerate(won):
        if all(count > other + left for s, other in enumerate(won) if s != seat):
            return _result(state, seat, kot=False)
    # R5.3.3: after the last trick, a tie at the top makes the third player the winner.
    if left == 0:
        ranked = sorted(range(len(won)), key=lambda s: won[s])
        return _result(state, ranked[0], kot=False)
    return None


def _result(state: HandState, side: int, kot: bool) -> HandResult:
    variant = state.variant
    hakem_side = variant.side_of(state.hakem)
    points = (2 if side == hakem_side else 3) if kot else 1
    # R6.1 to R6.3: the Hakem stays when his side won; else the seat to his right (+1), which
    # with two players is the other player.
    next_hakem = state.hakem if side == hakem_side else (state.hakem + 1) % variant.players
    return HandResult(
        tricks_won=state.tricks_won,
        winner=side,
        points=points,
        kot=kot,
        hakem_kot=kot and side != hakem_side,
        next_hakem=next_hakem,
    )


def outcome(state: HandState) -> HandResult | None:
    """The result once the hand is decided, else None."""
    return state.result


def default_trump(first5: Sequence[Card]) -> Suit:
    """R3.6: the suit held most among the first 5; ties go to the suit with the higher ranks
    (highest card first, then the next)."""

    def strength(suit: Suit) -> tuple[int, list[int]]:
        ranks = sorted((card.rank for card in first5 if card.suit == suit), reverse=True)
        return (len(ranks), ranks)

    # A complete tie (two lone aces, say) goes to the first in the fixed order S, H, D, C, so
    # the call made for a player is always the same for the same cards.
    return max(Suit, key=strength)


def deal_deck(variant: Variant, seed: int) -> tuple[Card, ...]:
    """The deck order of a hand from its seed: a full fresh shuffle every hand (R6.4)."""
    return tuple(shuffled(variant.deck, seed))


def deck_from_deal(
    variant: Variant,
    *,
    hakem: int,
    first5: Sequence[Card],
    holdings: Sequence[Sequence[Card]],
    rest: Sequence[Card] = (),
) -> tuple[Card, ...]:
    """A deck order that the variant's deal turns into these holdings (the inverse of the deal).

    Used to replay a hand known only by its holdings, as in a game record. For ``hokm2-draw``
    ``holdings`` are the Hakem's and dealer's first 5 and ``rest`` is the stock, top first; for
    ``hokm2`` ``rest`` is the undealt cards (any order; the missing ones are added). Raises
    :class:`DeckError` when no deal gives these holdings.
    """
    queues = [list(cards) for cards in holdings]
    hakem_cards = queues[hakem]
    if len(set(first5)) != 5 or not set(first5) <= set(hakem_cards):
        raise DeckError("the first 5 must be 5 of the Hakem's cards")
    queues[hakem] = list(first5) + [card for card in hakem_cards if card not in first5]
    deck: list[Card] = []
    for offset, count in variant.before_call + variant.after_call:
        queue = queues[(hakem + offset) % variant.players]
        if len(queue) < count:
            raise DeckError("the holdings are too small for the deal")
        deck += queue[:count]
        del queue[:count]
    if any(queues):
        raise DeckError("the holdings are too large for the deal")
    deck += list(rest)
    missing = [card for card in variant.deck if card not in set(deck)]
    deck += missing
    if sorted(deck) != sorted(variant.deck):
        raise DeckError(f"a {variant.name} deal needs exactly its {len(variant.deck)} cards")
    return tuple(deck)
