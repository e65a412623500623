"""Court Piece deals built by hand for the R9 tests: options, scripted holdings, plays."""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.engine import (
    CallTrump,
    Card,
    ChooseIndicator,
    InvalidIndicatorError,
    PlayCard,
    RevealTrump,
    Suit,
    WrongPhaseError,
    parse_cards,
)
from games.engine.cards import FULL_DECK
from games.engine.court_piece import (
    CourtPieceDeal,
    CourtPieceOptions,
    DealOutcome,
    DealPhase,
    DealResult,
    HiddenTrump,
    deal_apply,
    deck_from_court_deal,
    new_deal,
)

OFF = CourtPieceOptions()
DOUBLE_SIR = CourtPieceOptions(double_sir=True)
ACE_RULE = CourtPieceOptions(double_sir=True, ace_rule=True)
CHOSEN = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
BLIND = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)

RANK_TEXT = "23456789TJQKA"


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


# -- building deals ------------------------------------------------------------------------------


def scripted_deal(
    plan: str,
    winners: list[int],
    *,
    dealer: int = 3,
    trump: str = "S",
    leftovers: str = "SHDC",
    options: CourtPieceOptions = OFF,
    indicator_of_caller: bool = False,
) -> tuple[CourtPieceDeal, list[list[str]]]:
    """A deal whose first 12 tricks each use one suit (``plan``: 12 entries "S0", "H2", ...: the
    suit and which block of four ranks, block 2 being J-Q-K-A), won by ``winners[k]``; trick 13
    is the four 2s, seat s playing the 2 of ``leftovers[s]``. Every card follows suit, so any
    order of these tricks is legal. Returns the state after the call and the tricks to play."""
    entries = plan.split()
    assert len(entries) == 12 and len(winners) == 12
    assert sorted(entries) == sorted(f"{s}{b}" for s in "SHDC" for b in range(3))
    holdings: list[list[str]] = [[], [], [], []]
    tricks: list[list[str]] = []
    leader = (dealer + 1) % 4
    for entry, winner in zip(entries, winners, strict=True):
        suit, block = entry[0], int(entry[1])
        ranks = [RANK_TEXT[1 + 4 * block + i] + suit for i in range(4)]
        top, others = ranks[-1], ranks[:-1]
        trick = []
        for position in range(4):
            seat = (leader + position) % 4
            card = top if seat == winner else others.pop()
            holdings[seat].append(card)
            trick.append(card)
        tricks.append(trick)
        leader = winner
    last = []
    for position in range(4):
        seat = (leader + position) % 4
        last.append("2" + leftovers[seat])
    for seat in range(4):
        holdings[seat].append("2" + leftovers[seat])
    tricks.append(last)
    caller = (dealer + 1) % 4
    own = cards(" ".join(holdings[caller]))
    first5 = [own[-1]] + own[:4] if indicator_of_caller else own[:5]
    seats = [cards(" ".join(h)) for h in holdings]
    deck = deck_from_court_deal(caller=caller, first5=first5, holdings=seats)
    state = new_deal(options, dealer=dealer, deck=deck, blind_pick=0)
    if options.hidden_trump is HiddenTrump.CHOSEN:
        state = deal_apply(state, ChooseIndicator(caller, first5[0]))
    elif options.hidden_trump is HiddenTrump.OFF:
        state = deal_apply(state, CallTrump(caller, Suit(trump)))
    return state, tricks


def play(state: CourtPieceDeal, *texts: str) -> CourtPieceDeal:
    """Play cards in order, each by the seat on turn; "?" reveals for the seat on turn."""
    for text in texts:
        seat = state.to_act
        assert seat is not None
        if text == "?":
            state = deal_apply(state, RevealTrump(seat))
        else:
            state = deal_apply(state, PlayCard(seat, Card.parse(text)))
    return state


def play_until_done(state: CourtPieceDeal, tricks: list[list[str]]) -> CourtPieceDeal:
    for trick in tricks:
        if state.is_over:
            break
        state = play(state, *trick)
    return state


def finished(state: CourtPieceDeal, winner: int, outcome: DealOutcome, courts: int = 0):
    """A deal marked as finished, for the match-level rules (R9.8 to R9.10)."""
    result = DealResult((0, 0, 0, 0), None, (7, 0), winner, outcome, False, courts)
    return replace(state, phase=DealPhase.DONE, result=result)


def any_deal(dealer: int = 3, options: CourtPieceOptions = OFF) -> CourtPieceDeal:
    return new_deal(options, dealer=dealer, deck=FULL_DECK)


SIDE0_ALL = [0, 2] * 6
PLAN = "S0 H0 D0 C0 S1 H1 D1 C1 S2 H2 D2 C2"


HIDDEN_HOLDINGS = [
    "2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H",
    "KS AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
    "3S AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
    "2H 2C 2D AS QS JS TS 9S 8S 7S 6S 5S 4S",
]


def hidden_deal(options: CourtPieceOptions = CHOSEN, holdings=None) -> CourtPieceDeal:
    seats = [cards(text) for text in holdings or HIDDEN_HOLDINGS]
    deck = deck_from_court_deal(caller=0, first5=seats[0][:5], holdings=seats)
    state = new_deal(options, dealer=3, deck=deck, blind_pick=0)
    if options.hidden_trump is HiddenTrump.CHOSEN:
        with pytest.raises(InvalidIndicatorError):
            deal_apply(state, ChooseIndicator(0, Card.parse("3H")))
        with pytest.raises(WrongPhaseError):
            deal_apply(state, CallTrump(0, Suit.SPADES))
        state = deal_apply(state, ChooseIndicator(0, Card.parse("2S")))
    return state
