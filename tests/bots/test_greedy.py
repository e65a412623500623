"""The greedy baseline of issue 3, one test per rule of its wording (docs/bots.md), on hand-made
positions built with the engine; then many random hands of every variant played by it alone."""

import doctest
import json
import os
import random
import time
from dataclasses import replace
from pathlib import Path

import pytest

import games.bots
import games.bots.greedy
from games.bots import (
    DEFAULT_LEVEL,
    LEVELS,
    NoDecisionError,
    UnknownLevelError,
    bot_action,
    greedy_action,
)
from games.engine import (
    HOKM2,
    HOKM2_DRAW,
    HOKM3,
    HOKM4,
    VARIANTS,
    CallTrump,
    Discard,
    HandState,
    KeepOrThrow,
    Phase,
    PlayCard,
    Suit,
    Variant,
    apply,
    deal_deck,
    default_trump,
    legal_actions,
    new_hand,
    to_json,
    view,
)
from games.models import ComputerLevel
from tests.engine.helpers import cards, dealt_hand, play, seeded_hand
from tests.pure_imports import forbidden_imports

# Thousands of random hands of each variant in CI; fewer for a quick local run.
HANDS = int(os.environ.get("HOKM_BOT_HANDS") or (2000 if os.environ.get("CI") else 500))


def position(
    variant: Variant, *, trump: str, holdings: dict[int, str], plays: str = "", hakem: int = 0
) -> HandState:
    """A hand in play: the listed seats hold exactly these cards (a seat whose decision or void
    matters is listed in full); the other cards fill the other seats; ``plays`` are played."""
    chosen = {seat: cards(text) for seat, text in holdings.items()}
    used = {card for hand in chosen.values() for card in hand}
    spare = [card for card in variant.deck if card not in used]
    full = []
    for seat in range(variant.players):
        own = chosen.get(seat, [])
        need = variant.hand_size - len(own)
        full.append(" ".join(card.text for card in own + spare[:need]))
        spare = spare[need:]
    state = dealt_hand(
        variant,
        hakem=hakem,
        holdings=full,
        trump=trump,
        rest=" ".join(card.text for card in spare),
    )
    return play(state, *plays.split())


def decide(state: HandState):
    return greedy_action(view(state, state.to_act))


def played(state: HandState, card: str) -> PlayCard:
    return PlayCard(state.to_act, cards(card)[0])


# -- Leading ---------------------------------------------------------------------------------------


def test_leads_the_highest_card_that_is_not_a_trump():
    state = position(HOKM4, trump="H", holdings={0: "AH KH QH JH KS 2S 9D QD 3C 4C JC TC 5D"})
    assert state.to_act == 0
    assert decide(state) == played(state, "KS")  # not AH, the trump


def test_leads_the_highest_trump_when_only_trumps_are_left():
    state = position(HOKM4, trump="H", holdings={0: "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"})
    assert decide(state) == played(state, "AH")


def test_leads_the_highest_trump_once_the_non_trumps_are_gone():
    holdings = {0: "AS KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", 1: "AH " + "2S 3S 4S 5S 6S"}
    state = position(HOKM2, trump="H", holdings=holdings)
    assert decide(state) == played(state, "AS")
    state = play(state, "AS", "2S")  # seat 0 wins and leads again (R4.1)
    assert state.to_act == 0
    assert decide(state) == played(state, "KH")


# -- Following -------------------------------------------------------------------------------------


def test_partner_winning_plays_the_lowest_legal_card():
    state = position(
        HOKM4,
        trump="H",
        holdings={0: "TS", 1: "3S", 2: "KS 5S 2H 3H 4H 5H 6H 9D TD JD QD KD AD"},
        plays="TS 3S",
    )
    assert decide(state) == played(state, "5S")  # KS would win, but the partner (seat 0) does


def test_partner_winning_does_not_trump_in_when_void():
    # The "lowest legal card" with its "a non-trump before a trump": the partner wins,
    # so no trump is spent on his trick (the glossary's "rad kardan").
    state = position(
        HOKM4,
        trump="H",
        holdings={0: "TS", 1: "3S", 2: "2H 3H 4H 5H 6H 9D TD JD QD KD AD 7C 8C"},
        plays="TS 3S",
    )
    assert decide(state) == played(state, "7C")


def test_partner_winning_with_a_trump_is_not_over_trumped():
    state = position(
        HOKM4,
        trump="H",
        holdings={
            0: "4S",
            1: "2H 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            2: "5S",
            3: "3H AH 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        },
        plays="4S 2H 5S",
    )
    assert state.to_act == 3
    assert decide(state) == played(state, "4C")


def test_can_win_plays_the_lowest_winning_card_when_following_suit():
    state = position(
        HOKM4,
        trump="H",
        holdings={0: "9S", 1: "3S TS QS AS 2H 3H 4H 5H 6H 7H 8H 9H TH"},
        plays="9S",
    )
    assert decide(state) == played(state, "TS")  # 3S is lower but loses


def test_can_win_trumps_in_when_void_R4_2():
    state = position(
        HOKM4,
        trump="H",
        holdings={0: "KS", 1: "9H 2H 3D 4D 5D 6D 7D 8D 9D 4C 5C 6C 7C"},
        plays="KS",
    )
    assert decide(state) == played(state, "2H")  # the lowest trump; 3D cannot win (R4.3)


def test_can_win_over_trumps():
    state = position(
        HOKM4,
        trump="H",
        holdings={
            0: "AS",
            1: "5H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
            2: "3H 7H QH 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
        },
        plays="AS 5H",
    )
    assert state.to_act == 2
    assert decide(state) == played(state, "7H")  # beats 5H; 3H does not; QH is higher than needed


def test_cannot_win_plays_the_lowest_card_of_the_suit_led():
    state = position(
        HOKM4,
        trump="H",
        holdings={0: "AS", 1: "9S 4S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"},
        plays="AS",
    )
    assert decide(state) == played(state, "4S")


def test_cannot_win_plays_a_non_trump_before_a_lower_trump():
    state = position(
        HOKM4,
        trump="H",
        holdings={
            0: "AS",
            1: "AH 2D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            2: "2H 3D 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        },
        plays="AS AH",
    )
    assert decide(state) == played(state, "3D")  # 2H is lower but a trump, and cannot beat AH


def test_cannot_win_with_only_trumps_plays_the_lowest_trump():
    state = position(
        HOKM2,
        trump="H",
        holdings={0: "AH", 1: "9H 2H 5H 2S 3S 4S 5S 6S 7S 8S 9S TS JS"},
        plays="AH",
    )
    assert decide(state) == played(state, "2H")


# -- Ties between equal ranks: spades, hearts, diamonds, clubs ---------------------------------


@pytest.mark.parametrize(
    ("trump", "hand", "expected"),
    [
        ("H", "AD AC 2S 3S 4S 5S 6S 7S 8S 9S TS JS AH", "AD"),
        ("D", "AC AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS AD", "AH"),
        ("C", "AH AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD AC", "AS"),
    ],
)
def test_leading_tie_goes_to_the_suit_first_in_S_H_D_C(trump, hand, expected):
    state = position(HOKM4, trump=trump, holdings={0: hand})
    assert decide(state) == played(state, expected)


@pytest.mark.parametrize(
    ("trump", "hand", "expected"),
    [
        ("S", "3C 3D 5D 6D 7D 8D 9D TD JD QD KD AD 4C", "3D"),
        ("D", "2C 2S 5S 6S 7S 8S 9S TS JS QS KS AS 3C", "2S"),
    ],
)
def test_following_tie_goes_to_the_suit_first_in_S_H_D_C(trump, hand, expected):
    # Seat 1 holds no heart and no trump: it cannot win, so it plays its lowest card.
    state = position(HOKM4, trump=trump, holdings={0: "AH", 1: hand}, plays="AH")
    assert decide(state) == played(state, expected)


# -- No partner with three or two players (R1.4) ---------------------------------------------------


def test_hokm3_has_no_partner_R1_4():
    # Seat 1's seat + 2 is seat 0 in hokm3: not a partner, so seat 1 beats it.
    holdings = {0: "TS", 1: "KS 5S 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 3C 4C"}
    state = position(HOKM3, trump="H", holdings=holdings, plays="TS")
    assert decide(state) == played(state, "KS")
    # Seat 2's seat + 2 is seat 1, winning here: seat 2 still plays to win.
    holdings = {0: "3S", 1: "TS", 2: "KS 5S 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 3C 4C"}
    state = position(HOKM3, trump="H", holdings=holdings, plays="3S TS")
    assert decide(state) == played(state, "KS")


def test_same_position_in_hokm4_plays_low_for_the_partner_R1_4():
    holdings = {0: "3S", 1: "TS", 2: "7S", 3: "KS 5S 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD"}
    state = position(HOKM4, trump="H", holdings=holdings, plays="3S TS 7S")
    assert decide(state) == played(state, "5S")  # seat 1 is seat 3's partner


def test_hokm2_follower_plays_to_win():
    state = position(HOKM2, trump="H", holdings={0: "TS", 1: "KS 5S 2D 3D 4D"}, plays="TS")
    assert decide(state) == played(state, "KS")


# -- The trump call (R3.6) -------------------------------------------------------------------------


def call_state(variant: Variant, first5: str, hakem: int = 1) -> HandState:
    top = cards(first5)
    deck = top + [card for card in variant.deck if card not in top]
    return new_hand(variant, hakem=hakem, deck=deck)


@pytest.mark.parametrize(
    ("first5", "suit"),
    [
        ("AS 2H 3H 4D 5C", Suit.HEARTS),  # the suit held most
        ("AS KS AH QH 2D", Suit.SPADES),  # a tie: the higher ranks, next card
        ("AH QH AS 2S 3C", Suit.HEARTS),
        ("2S 3H 4D 5C 6C", Suit.CLUBS),
        ("AD 2S 3H 4C KD", Suit.DIAMONDS),
    ],
)
@pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))
def test_trump_call_is_R3_6(variant, first5, suit):
    state = call_state(variant, first5)
    assert decide(state) == CallTrump(1, suit)


@pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))
def test_trump_call_equals_R3_6_on_random_deals(variant):
    for seed in range(200):
        state = seeded_hand(variant, seed)
        assert decide(state) == CallTrump(state.hakem, default_trump(state.first5))


# -- hokm2-draw: the discards and the keep-or-throw draw (R3.5) -----------------------------------


def draw_hand(hakem5: str, dealer5: str, stock_top: str = "", trump: str = "H") -> HandState:
    """A hokm2-draw hand after the call: seat 0 is Hakem, seat 1 dealer; the stock starts with
    ``stock_top``."""
    top = cards(f"{hakem5} {dealer5} {stock_top}")
    deck = top + [card for card in HOKM2_DRAW.deck if card not in top]
    return apply(new_hand(HOKM2_DRAW, hakem=0, deck=deck), CallTrump(0, Suit(trump)))


def discard_through(state: HandState) -> HandState:
    while state.phase is Phase.DISCARD:
        state = apply(state, decide(state))
    return state


@pytest.mark.parametrize(
    ("hakem5", "discarded"),
    [
        ("AS 2H 3D 9C 4H", "3D 9C AS"),  # the non-trumps, however high
        ("7S 8D 2C KH QC", "2C 7S 8D"),
        ("AH KH 2H 3H 4C", "4C 2H 3H"),  # not enough non-trumps: then the lowest trumps
        ("2S 2D 2C AD 3H", "2S 2D 2C"),
    ],
)
def test_hakem_discards_his_three_lowest_non_trumps_R3_5(hakem5, discarded):
    state = draw_hand(hakem5, "9S TS JS QS KS")
    action = decide(state)
    assert isinstance(action, Discard) and action.seat == 0
    assert set(action.cards) == set(cards(discarded))


@pytest.mark.parametrize(
    ("dealer5", "discarded"),
    [
        ("2S 2C KD 5H 7H", "2S 2C"),
        ("2S 2D 2C AH KH", "2S 2D"),  # equal ranks: spades, then hearts, diamonds, clubs
        ("3C 3H 9D JH KH", "3C 9D"),  # trump hearts: 3H is kept over 9D
    ],
)
def test_dealer_discards_his_two_lowest_non_trumps_R3_5(dealer5, discarded):
    state = draw_hand("AS KS QS JS TS", dealer5)
    state = apply(state, decide(state))  # the Hakem's discard
    assert state.to_act == 1
    action = decide(state)
    assert isinstance(action, Discard) and action.seat == 1
    assert set(action.cards) == set(cards(discarded))


@pytest.mark.parametrize(
    ("top", "keep"),
    [
        ("2H", True),  # a trump, however low
        ("JD", True),  # a jack or higher
        ("QC", True),
        ("AS", True),
        ("TD", False),
        ("2C", False),
        ("9S", False),
    ],
)
def test_draw_keeps_a_trump_or_a_jack_or_higher_R3_5(top, keep):
    state = discard_through(draw_hand("3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D", stock_top=top))
    assert state.phase is Phase.DRAW and state.to_act == 0
    assert view(state, 0)["draw"]["top"] == top
    assert decide(state) == KeepOrThrow(0, keep)


def test_dealer_draw_follows_the_same_rule_R3_5():
    state = discard_through(draw_hand("3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D", stock_top="9C 8C 3H"))
    state = apply(state, decide(state))  # the Hakem throws 9C and keeps 8C
    assert state.to_act == 1 and view(state, 1)["draw"]["top"] == "3H"
    assert decide(state) == KeepOrThrow(1, True)


# -- Whole hands of every variant, the bot in every seat -------------------------------------------


def greedy_hands(variant: Variant, count: int, first_seed: int = 0):
    """Yield ``(state, action)`` for every decision of ``count`` random hands played by greedy."""
    for seed in range(first_seed, first_seed + count):
        state = seeded_hand(variant, seed)
        while not state.is_over:
            action = decide(state)
            yield state, action
            state = apply(state, action)


@pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))
def test_greedy_plays_only_legal_actions_and_finishes_every_hand(variant):
    decisions = finished = 0
    for seed in range(HANDS):
        state = seeded_hand(variant, seed)
        for _ in range(100):  # a hand takes at most 53 decisions (hokm4: the call, 52 cards)
            if state.is_over:
                break
            seen = view(state, state.to_act)
            action = greedy_action(seen)
            assert to_json(action) in seen["legal"]  # the view's list is legal_actions(state)
            state = apply(state, action)  # and the engine refuses anything illegal (R4.4)
            decisions += 1
        assert state.is_over and state.result is not None
        finished += 1
    assert finished == HANDS and decisions > HANDS * 10


def hidden_reshuffle(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same hand as ``seat`` sees it, with the other seats' unseen cards dealt anew: their
    holdings and their face-down discards are pooled, shuffled and refilled at the same sizes.
    (Voids shown by earlier tricks may be broken; greedy does not use them.)"""
    others = [s for s in range(state.players) if s != seat]
    pool = [card for s in others for card in state.holdings[s] + state.discards[s]]
    rng.shuffle(pool)
    holdings, discards = list(state.holdings), list(state.discards)
    for s in others:
        size = len(holdings[s])
        holdings[s], pool = tuple(pool[:size]), pool[size:]
        size = len(discards[s])
        discards[s], pool = tuple(pool[:size]), pool[size:]
    deck = state.deck
    if state.phase is Phase.DRAW:  # the stock under the top card is unseen too
        below = list(deck[state.dealt + 1 :])
        rng.shuffle(below)
        deck = deck[: state.dealt + 1] + tuple(below)
    return replace(state, holdings=tuple(holdings), discards=tuple(discards), deck=deck)


@pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))
def test_no_peeking_other_hidden_cards_do_not_change_the_decision_R8_3(variant):
    rng = random.Random(variant.name)
    changed = 0
    for state, action in greedy_hands(variant, max(HANDS // 5, 20), first_seed=10_000):
        seat = state.to_act
        other = hidden_reshuffle(state, seat, rng)
        changed += other.holdings != state.holdings or other.deck != state.deck
        seen = view(other, seat)
        assert seen == view(state, seat)
        assert greedy_action(seen) == action
        assert action in legal_actions(other)
    assert changed > 100  # the check is not vacuous


@pytest.mark.parametrize("variant", VARIANTS.values(), ids=list(VARIANTS))
def test_deterministic_and_decides_from_the_json_view_alone(variant):
    for state, action in greedy_hands(variant, 20, first_seed=20_000):
        wire = json.loads(json.dumps(view(state, state.to_act)))
        assert greedy_action(wire) == action
        assert greedy_action(wire) == greedy_action(wire)


def test_a_seat_not_on_turn_has_nothing_to_decide():
    state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 1))
    with pytest.raises(NoDecisionError):
        greedy_action(view(state, 1))


# -- Levels, purity, speed -------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["medium", "greedy"])
def test_medium_is_the_greedy_baseline(level):
    for state, action in greedy_hands(HOKM4, 3, first_seed=30_000):
        assert bot_action(view(state, state.to_act), level=level) == action


def test_easy_mostly_plays_greedy_and_sometimes_errs():
    """Easy: the greedy baseline with about one decision in three a random legal one."""
    same = total = 0
    for state, action in greedy_hands(HOKM4, 40, first_seed=31_000):
        seen = view(state, state.to_act)
        if len(seen["legal"]) < 2:
            continue
        chosen = bot_action(seen, level="easy")
        assert to_json(chosen) in seen["legal"]
        same += chosen == action
        total += 1
    assert 0.55 < same / total < 0.9


def test_levels_match_the_table_choices():
    assert set(LEVELS) == set(ComputerLevel.values)
    assert DEFAULT_LEVEL in LEVELS


def test_unknown_level_is_refused():
    state = new_hand(HOKM4, hakem=0, deck=deal_deck(HOKM4, 1))
    with pytest.raises(UnknownLevelError):
        bot_action(view(state, 0), level="grandmaster")


def test_bots_import_neither_django_nor_channels():
    bots_dir = Path(games.bots.__file__).parent
    files = sorted(bots_dir.rglob("*.py"))
    assert files
    offenders = {
        path.name: hits
        for path in files
        if (hits := forbidden_imports(path.read_text(encoding="utf-8"), str(path)))
    }
    assert offenders == {}


def test_docstring_examples():
    for module in (games.bots, games.bots.greedy):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


def test_a_decision_takes_well_under_a_millisecond():
    views = [view(state, state.to_act) for state, _ in greedy_hands(HOKM3, 20, first_seed=40_000)]
    start = time.perf_counter()
    for seen in views:
        greedy_action(seen)
    mean = (time.perf_counter() - start) / len(views)
    assert mean < 0.001  # about 10 microseconds measured; the margin absorbs slow CI machines
