"""Court Piece / Rang (R9): the engine's state machine, rule by rule, on hand-built deals."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    CallTrump,
    Card,
    CardNotHeldError,
    ChooseIndicator,
    HandOverError,
    IndicatorHiddenError,
    MustFollowSuitError,
    MustTrumpError,
    NotYourTurnError,
    PlayCard,
    RevealNotAllowedError,
    RevealTrump,
    Suit,
)
from games.engine.cards import FULL_DECK, cards_text
from games.engine.court_piece import (
    CourtPieceDeal,
    CourtPieceOptions,
    DealerDraw,
    DealOutcome,
    DealPhase,
    DealResult,
    DealSummary,
    HiddenTrump,
    OptionsError,
    Streak,
    build_court_piece_record,
    check_court_piece_record,
    check_dealer_draw,
    court_piece_apply,
    court_piece_legal_actions,
    court_piece_match_view,
    court_piece_view,
    deal_apply,
    deal_legal_actions,
    default_call,
    draw_dealer,
    match_winner,
    new_court_piece_match,
    new_deal,
    next_deal,
    playable_cards,
    summarise,
)
from games.engine.draw import DrawError
from games.engine.record import check_record
from games.engine.seeding import derive_seed, shuffled
from games.engine.view import RevealError
from tests.engine.court_piece_deals import (
    ACE_RULE,
    BLIND,
    CHOSEN,
    DOUBLE_SIR,
    OFF,
    PLAN,
    SIDE0_ALL,
    any_deal,
    cards,
    finished,
    hidden_deal,
    play,
    play_until_done,
    scripted_deal,
)

# -- R9.11 options -------------------------------------------------------------------------------


def test_ace_rule_needs_double_sir_R9_11():
    with pytest.raises(OptionsError):
        CourtPieceOptions(ace_rule=True)
    assert CourtPieceOptions(double_sir=True, ace_rule=True).ace_rule


def test_options_defaults_and_json_round_trip_R9_11():
    options = CourtPieceOptions.from_json({})
    assert options == CourtPieceOptions()
    assert options.goon_court and not options.double_sir and options.ace_caller is None
    mix = CourtPieceOptions(True, True, HiddenTrump.BLIND, False, Suit.CLUBS)
    assert CourtPieceOptions.from_json(mix.to_json()) == mix


@pytest.mark.parametrize(
    "data",
    [
        {"double_sirr": True},
        {"double_sir": 1},
        {"hidden_trump": "yes"},
        {"ace_caller": "X"},
        {"ace_rule": True},
        [],
    ],
)
def test_bad_options_are_refused_R9_11(data):
    with pytest.raises(OptionsError):
        CourtPieceOptions.from_json(data)


# -- R9.2, R9.16 the first dealer ----------------------------------------------------------------


def test_first_dealer_is_the_receiver_of_the_first_ace_R9_2_1():
    for seed in range(30):
        draw = draw_dealer(seed)
        assert [c.rank for c in draw.cards].count(14) == 1 and draw.cards[-1].rank == 14
        assert draw.dealer == (draw.first_seat + len(draw.cards) - 1) % 4
        check_dealer_draw(draw.cards, draw.first_seat, None)
        assert draw_dealer(seed) == draw  # seeded


def test_first_deal_from_a_fresh_shuffle_not_the_draw_R9_2_2():
    match = new_court_piece_match(OFF, seed=5)
    assert match.deal.dealer == match.draw.dealer
    draw_deck = shuffled(FULL_DECK, derive_seed(5, "dealer-draw"))
    assert list(match.draw.cards) == draw_deck[: len(match.draw.cards)]
    assert list(match.deal.deck) != draw_deck
    assert new_court_piece_match(OFF, seed=5) == match  # deterministic from the seed


def test_match_settings_are_validated_R9_10_1_R9_10_2():
    for target, max_deals in ((0, None), (True, None), (1, 0), (1, "3")):
        with pytest.raises(ValueError):
            new_court_piece_match(OFF, seed=1, target=target, max_deals=max_deals)


def test_a_deal_is_revealed_only_once_over_R9_15_1():
    state = any_deal()
    with pytest.raises(RevealError):
        court_piece_view(state, None, reveal=True)
    done = play_until_done(*scripted_deal(PLAN, SIDE0_ALL))
    assert len(court_piece_view(done, None, reveal=True)["revealed"]["cards"][0]) == 13


def test_ace_caller_draw_finds_the_named_ace_and_the_first_caller_R9_16_1():
    for seed in range(20):
        draw = draw_dealer(seed, Suit.HEARTS)
        assert draw.cards[-1] == Card.parse("AH")
        assert Card.parse("AH") not in draw.cards[:-1]
        assert draw.dealer == (draw.receiver - 1) % 4
        match = new_court_piece_match(CourtPieceOptions(ace_caller=Suit.HEARTS), seed=seed)
        assert match.deal.caller == match.draw.receiver


def test_broken_draws_are_refused_R9_2_1():
    with pytest.raises(DrawError):
        check_dealer_draw(cards("AS 2H"), 0, None)  # goes on after an ace
    with pytest.raises(DrawError):
        check_dealer_draw(cards("2H 3H"), 0, None)  # stops without an ace
    with pytest.raises(DrawError):
        check_dealer_draw(cards("AS"), 0, Suit.HEARTS)  # not the named ace
    with pytest.raises(DrawError):
        check_dealer_draw(cards("AH AH"), 0, Suit.HEARTS)
    check_dealer_draw(cards("AS KD AH"), 1, Suit.HEARTS)


# -- R9.3, R9.4 dealer, caller, deal and call ----------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_caller_is_the_dealers_right_on_the_other_side_R9_3_1(dealer):
    state = any_deal(dealer)
    assert state.caller == (dealer + 1) % 4
    assert state.caller % 2 != state.dealer % 2


def test_caller_calls_on_his_first_five_only_R9_4_2():
    deck = shuffled(FULL_DECK, 11)
    state = new_deal(OFF, dealer=2, deck=deck)
    assert state.phase is DealPhase.CALL and state.to_act == 3
    assert state.holdings[3] == tuple(deck[:5]) and not any(state.holdings[s] for s in (0, 1, 2))
    assert court_piece_view(state, 0)["hand"] == []
    with pytest.raises(NotYourTurnError):
        deal_apply(state, CallTrump(0, Suit.SPADES))


def test_deal_is_5_4_4_from_the_caller_R9_4_1():
    deck = shuffled(FULL_DECK, 12)
    state = deal_apply(new_deal(OFF, dealer=0, deck=deck), CallTrump(1, Suit.HEARTS))
    # C 5; C+1, C+2, C+3 five each; then two rounds of 4 from C.
    order = [1, 2, 3, 0]
    position = 5
    expected = {1: list(deck[:5]), 2: [], 3: [], 0: []}
    for seat in order[1:]:
        expected[seat] += deck[position : position + 5]
        position += 5
    for _ in range(2):
        for seat in order:
            expected[seat] += deck[position : position + 4]
            position += 4
    assert all(list(state.holdings[s]) == expected[s] for s in range(4))
    assert state.phase is DealPhase.PLAY and state.to_act == 1  # R9.5.1
    assert court_piece_view(state, None)["trump"] == "H"  # R9.4.4


def test_default_call_is_the_R3_6_suit_R9_4_3():
    deck = cards("2H 9H AS 3D 4H") + [c for c in FULL_DECK if c not in cards("2H 9H AS 3D 4H")]
    assert default_call(new_deal(OFF, dealer=0, deck=deck)) == CallTrump(1, Suit.HEARTS)
    # R9.14.1: under chosen the lowest card of that suit is laid.
    chosen = new_deal(CHOSEN, dealer=0, deck=deck)
    assert default_call(chosen) == ChooseIndicator(1, Card.parse("2H"))


# -- R9.5 play -----------------------------------------------------------------------------------


def test_follow_suit_and_refusals_change_nothing_R9_5_2():
    state, tricks = scripted_deal(PLAN, SIDE0_ALL)
    before = state
    with pytest.raises(NotYourTurnError):
        deal_apply(state, PlayCard(1, Card.parse(tricks[0][1])))
    state = play(state, tricks[0][0])
    seat1 = state.holdings[1]
    off_suit = next(c for c in seat1 if c.suit != Suit.SPADES)
    with pytest.raises(MustFollowSuitError):
        deal_apply(state, PlayCard(1, off_suit))
    with pytest.raises(RevealNotAllowedError):
        deal_apply(state, RevealTrump(1))  # trump not hidden at this table
    assert before == play(before)


# -- R9.6 end of a deal --------------------------------------------------------------------------


def test_court_chase_goes_on_after_seven_R9_6_1():
    state, tricks = scripted_deal(PLAN, SIDE0_ALL)
    state = play_until_done(state, tricks[:7])
    assert not state.is_over and len(state.tricks) == 7


def test_court_chase_ends_at_the_first_lost_trick_R9_6_1():
    winners = [0, 2, 0, 2, 0, 2, 0, 2, 1, 0, 0, 0]
    state = play_until_done(*scripted_deal(PLAN, winners))
    assert state.is_over and len(state.tricks) == 9
    result = state.result
    assert result.outcome is DealOutcome.COURT and result.winner == 0
    assert result.side_tricks == (8, 1) and result.courts == 1 and not result.goon


def test_court_chase_lost_at_trick_13_is_a_court_R9_6_1_1():
    # Seat 1 holds the 2 of trump and wins the last trick.
    state = play_until_done(*scripted_deal(PLAN, SIDE0_ALL, leftovers="HSDC"))
    assert len(state.tricks) == 13
    assert state.result.outcome is DealOutcome.COURT and state.result.side_tricks == (12, 1)


def test_all_thirteen_is_a_52_court_R9_6_1_2_R9_7_1():
    state = play_until_done(*scripted_deal(PLAN, SIDE0_ALL))
    assert state.result.outcome is DealOutcome.FIFTY_TWO
    assert state.result.courts == 52 and state.result.side_tricks == (13, 0)


def test_seven_without_court_stops_at_once_R9_6_2_R9_6_3():
    winners = [1, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0]
    state = play_until_done(*scripted_deal(PLAN, winners))
    assert len(state.tricks) == 8 and state.result.outcome is DealOutcome.WON
    assert state.result.courts == 0 and state.result.side_tricks == (7, 1)
    with pytest.raises(HandOverError):
        deal_apply(state, PlayCard(0, state.holdings[0][0]))


def test_dealing_side_court_is_a_goon_court_worth_3_R9_7_2():
    # Dealer 0, caller 1: side 0 deals and sweeps the first 7, then loses trick 8.
    winners = [0, 2, 0, 2, 0, 2, 0, 1, 1, 1, 1, 1]
    state = play_until_done(*scripted_deal(PLAN, winners, dealer=0))
    assert state.result.outcome is DealOutcome.COURT and state.result.goon
    assert state.result.courts == 3


def test_goon_court_off_is_worth_1_R9_7_2():
    winners = [0, 2, 0, 2, 0, 2, 0, 1, 1, 1, 1, 1]
    options = CourtPieceOptions(goon_court=False)
    state = play_until_done(*scripted_deal(PLAN, winners, dealer=0, options=options))
    assert state.result.goon and state.result.courts == 1


def test_52_court_by_the_dealing_side_is_52_not_55_R9_7_4():
    state = play_until_done(*scripted_deal(PLAN, SIDE0_ALL, dealer=0))
    assert state.result.outcome is DealOutcome.FIFTY_TWO and state.result.goon
    assert state.result.courts == 52


# -- R9.8 the streak, R9.9 next dealer -----------------------------------------------------------


def test_streak_to_seven_scores_one_court_and_clears_R9_8_1_R9_8_2():
    streak, scores = Streak(), (0, 0)
    deal = any_deal(3)  # caller 0: side 0 calls
    for count in range(1, 7):
        summary = summarise(finished(deal, 0, DealOutcome.WON), streak, scores)
        streak, scores = summary.streak, summary.scores
        assert streak == Streak(0, count) and summary.courts == 0
    summary = summarise(finished(deal, 0, DealOutcome.WON), streak, scores)
    assert summary.streak_court and summary.courts == 1 and summary.scores == (1, 0)
    assert summary.streak == Streak()
    assert summary.next_dealer == 1  # R9.9.2: the 7-deal court passes the deal


def test_streak_passes_to_the_other_side_at_one_R9_8_1():
    summary = summarise(finished(any_deal(3), 1, DealOutcome.WON), Streak(0, 5), (0, 0))
    assert summary.streak == Streak(1, 1)


def test_a_court_clears_the_streak_and_does_not_count_R9_8_3_R9_7_4():
    for outcome, courts in ((DealOutcome.COURT, 1), (DealOutcome.FIFTY_TWO, 52)):
        for winner in (0, 1):
            deal = finished(any_deal(3), winner, outcome, courts)
            summary = summarise(deal, Streak(winner, 6), (0, 0))
            assert summary.streak == Streak() and not summary.streak_court
            assert summary.courts == courts


def test_streak_lives_across_dealers_R9_8_4():
    streak, summary = Streak(1, 3), None
    for dealer in range(4):
        summary = summarise(finished(any_deal(dealer), 1, DealOutcome.WON), streak, (0, 0))
        streak = summary.streak
    assert summary.streak_court and streak == Streak()  # 3 + 4 deals across four dealers


def test_calling_side_wins_without_court_same_dealer_R9_9_1():
    summary = summarise(finished(any_deal(3), 0, DealOutcome.WON), Streak(), (0, 0))
    assert (summary.next_dealer, summary.next_caller) == (3, 0)


def test_calling_side_court_passes_to_the_dealers_partner_R9_9_2():
    for outcome in (DealOutcome.COURT, DealOutcome.FIFTY_TWO):
        summary = summarise(finished(any_deal(3), 0, outcome, 1), Streak(), (0, 0))
        assert (summary.next_dealer, summary.next_caller) == (1, 2)


@pytest.mark.parametrize("outcome", [DealOutcome.WON, DealOutcome.COURT])
def test_dealing_side_wins_the_caller_deals_R9_9_3(outcome):
    summary = summarise(finished(any_deal(3), 1, outcome, 3), Streak(), (0, 0))
    assert (summary.next_dealer, summary.next_caller) == (0, 1)
    assert summary.next_dealer % 2 != 1  # the dealer is on the side that lost


# -- R9.10 the match -----------------------------------------------------------------------------


def summary_of(winner: int, scores: tuple[int, int]) -> DealSummary:
    result = DealResult((0, 0, 0, 0), None, (7, 0), winner, DealOutcome.WON, False, 0)
    return DealSummary(3, 0, result, 0, False, Streak(), scores, 3)


def test_first_to_target_wins_R9_10_1():
    assert match_winner([summary_of(0, (0, 0))], 1, None) is None
    assert match_winner([summary_of(1, (0, 3))], 3, None) == 1
    assert match_winner([summary_of(0, (52, 0))], 7, None) == 0


def test_max_deals_courts_then_deals_won_then_last_R9_10_2():
    assert match_winner([summary_of(0, (0, 0))], 5, 2) is None
    assert match_winner([summary_of(0, (0, 0)), summary_of(1, (0, 1))], 5, 2) == 1
    deals = [summary_of(1, (0, 0)), summary_of(1, (0, 0)), summary_of(0, (0, 0))]
    assert match_winner(deals, 5, 3) == 1
    assert match_winner(deals[1:], 5, 2) == 0


def test_match_plays_deals_to_the_target_and_names_the_next_dealer_R9_10_1_R9_9():
    match = new_court_piece_match(OFF, seed=3, target=2, max_deals=12)
    rng = random.Random(3)
    while not match.is_over:
        if match.deal.is_over:
            expected = match.summaries[-1].next_dealer
            match = next_deal(match)
            assert match.deal.dealer == expected
        match = court_piece_apply(match, rng.choice(court_piece_legal_actions(match)))
    assert match.winner is not None and court_piece_legal_actions(match) == []


# -- R9.12, R9.13 Double Sir ---------------------------------------------------------------------


def test_tricks_go_to_the_pile_and_two_in_a_row_collect_R9_12_1_R9_12_2():
    winners = [0, 2, 0, 0, 1, 3, 1, 3, 2, 2, 0, 0]
    state, tricks = scripted_deal(PLAN, winners, options=DOUBLE_SIR)
    state = play_until_done(state, tricks[:3])
    assert state.pile == (0, 1, 2) and state.collected == (0, 0, 0, 0)  # partners never combine
    state = play(state, *tricks[3])
    assert state.pile == () and state.collected == (4, 0, 0, 0)
    assert state.tricks[3].collected_by == 0


def test_after_a_collection_the_next_pile_needs_two_more_R9_12_3():
    # P (seat 0) wins tricks 2, 3, 4 and 5: collects at 3 and at 5, not at 4.
    winners = [1, 0, 0, 0, 0, 3, 1, 3, 1, 2, 3, 1]
    state, tricks = scripted_deal(PLAN, winners, options=DOUBLE_SIR)
    state = play_until_done(state, tricks[:5])
    assert [t.collected_by for t in state.tricks] == [None, None, 0, None, 0]
    assert state.collected == (5, 0, 0, 0)


def test_trick_13_collects_whatever_trick_12_was_R9_12_4():
    winners = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    state = play_until_done(*scripted_deal(PLAN, winners, options=DOUBLE_SIR))
    assert len(state.tricks) == 13 and state.tricks[12].collected_by == 0
    assert state.collected == (13, 0, 0, 0)
    assert state.result.outcome is DealOutcome.COURT and state.result.courts == 1  # R9.12.6


def test_double_sir_stops_at_seven_collected_against_one_R9_12_5():
    winners = [1, 1, 0, 0, 0, 0, 2, 2, 0, 0, 3, 3]
    state = play_until_done(*scripted_deal(PLAN, winners, options=DOUBLE_SIR))
    # 1,1 -> seat 1 collects 2; seat 0 collects 2 at trick 4 and 2 at trick 6; seat 2 collects 2
    # at trick 8 (side 0 on 6); seat 0 collects 2 at trick 10: 8 against 2.
    assert len(state.tricks) == 10
    assert state.result.side_tricks == (8, 2) and state.result.outcome is DealOutcome.WON


def test_double_sir_all_thirteen_is_a_court_not_52_R9_12_6():
    state = play_until_done(*scripted_deal(PLAN, SIDE0_ALL[:11] + [0], options=DOUBLE_SIR))
    assert state.result.outcome is DealOutcome.COURT and state.result.courts == 1
    state = play_until_done(*scripted_deal(PLAN, SIDE0_ALL, dealer=0, options=DOUBLE_SIR))
    assert state.result.goon and state.result.courts == 3


def test_two_ace_tricks_do_not_collect_R9_13_2():
    # Tricks 4, 5, 6 by seat 0 with AS, AH, KD (block 2 of S and H is J-Q-K-A).
    plan = "S0 S1 H0 S2 H2 D1 H1 D0 D2 C0 C1 C2"
    winners = [1, 3, 1, 0, 0, 0, 1, 3, 1, 3, 2, 2]
    state, tricks = scripted_deal(plan, winners, options=ACE_RULE)
    state = play_until_done(state, tricks[:6])
    assert [t.won_by_ace for t in state.tricks[3:6]] == [True, True, False]
    assert [t.collected_by for t in state.tricks] == [None, None, None, None, None, 0]
    assert state.collected == (6, 0, 0, 0)
    # Without the ace rule the same tricks collect at 5.
    plain, _ = scripted_deal(plan, winners, options=DOUBLE_SIR)
    plain = play_until_done(plain, tricks[:6])
    assert [t.collected_by for t in plain.tricks][3:6] == [None, 0, None]


def test_ace_rule_trick_13_still_collects_R9_13_3():
    plan = "S0 H0 D0 C0 S1 H1 D1 C1 S2 H2 D2 C2"
    winners = [0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 0, 0]
    state = play_until_done(*scripted_deal(plan, winners, options=ACE_RULE))
    # Tricks 11 and 12 are both won by aces (DA, CA): no collection; trick 13 takes the pile.
    assert state.tricks[11].collected_by is None and state.tricks[12].collected_by == 0
    assert sum(state.collected) == 13


# -- R9.14 hidden trump --------------------------------------------------------------------------


@pytest.mark.parametrize("options", [CHOSEN, BLIND])
def test_indicator_lies_apart_from_the_callers_hand_R9_14_1_R9_14_3(options):
    state = hidden_deal(options)
    assert state.indicator == Card.parse("2S") and state.trump is Suit.SPADES
    assert Card.parse("2S") not in state.holdings[0] and len(state.holdings[0]) == 12
    assert state.phase is DealPhase.PLAY
    # Under chosen the caller knows his indicator and hears why it cannot be played; under
    # blind he does not, and hears what any card he does not hold gets (R8.3).
    expected = IndicatorHiddenError if options is CHOSEN else CardNotHeldError
    with pytest.raises(expected) as refused:
        deal_apply(state, PlayCard(0, Card.parse("2S")))
    assert type(refused.value) is expected


def test_blind_indicator_comes_from_the_deal_seed_R9_14_1():
    a = new_court_piece_match(BLIND, seed=9)
    assert a.deal.indicator in a.deal.first5 and a.deal.phase is DealPhase.PLAY
    assert new_court_piece_match(BLIND, seed=9).deal.indicator == a.deal.indicator


def test_trump_suit_discard_before_the_reveal_cannot_win_R9_14_5():
    state = play(hidden_deal(), "AH", "KS")  # KS is a discard: trump is not revealed
    assert state.current_trumps == (False, False)
    state = play(state, "?")  # seat 2 asks (R9.14.2.1) and must trump (R9.14.4)
    assert state.reveal.trick == 0 and state.reveal.seat == 2
    assert Card.parse("2S") in state.holdings[0]  # R9.14.3: an ordinary card from now on
    with pytest.raises(MustTrumpError):
        deal_apply(state, PlayCard(2, Card.parse("AD")))
    assert playable_cards(state) == [Card.parse("3S")]
    state = play(state, "3S", "2H")
    assert state.tricks[0].winner == 2  # the lower trump after the reveal beats the discard


def test_no_reveal_means_no_trumps_R9_14_5():
    state = play(hidden_deal(), "AH", "KS", "AD", "2H")
    assert state.tricks[0].winner == 0 and state.tricks[0].trumps == (False,) * 4


def test_trump_led_before_the_reveal_counts_R9_14_5():
    holdings = [
        "2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H AS",
        "KS AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
        "3S AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
        "2H 2C 2D 3H QS JS TS 9S 8S 7S 6S 5S 4S",
    ]
    state = play(hidden_deal(holdings=holdings), "AS", "KS", "3S", "QS")
    assert state.tricks[0].trumps == (True,) * 4 and state.tricks[0].winner == 0


def test_who_may_ask_for_trump_R9_14_2():
    state = hidden_deal()
    assert RevealTrump(0) in deal_legal_actions(state)  # the caller, on any of his turns
    state = play(state, "AH")
    assert RevealTrump(1) in deal_legal_actions(state)  # void in hearts
    state = play(state, "KS", "AD")
    with pytest.raises(RevealNotAllowedError):
        deal_apply(state, RevealTrump(3))  # holds the suit led
    state = play(state, "2H")
    with pytest.raises(NotYourTurnError):
        deal_apply(state, RevealTrump(1))  # on its turn only
    state = play(state, "KH")
    assert state.to_act == 1 and RevealTrump(1) in deal_legal_actions(state)
    state = play(state, "?")
    with pytest.raises(RevealNotAllowedError):
        deal_apply(state, RevealTrump(1))  # once per deal


def test_a_leader_other_than_the_caller_may_not_ask_R9_14_2_1():
    holdings = [
        "2S KH QH JH TH 9H 8H 7H 6H 5H 4H 3H AS",
        "KS AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
        "3S AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
        "AH 2H 2C 2D QS JS TS 9S 8S 7S 6S 5S 4S",
    ]
    state = play(hidden_deal(holdings=holdings), "KH", "AC", "AD", "AH")
    assert state.to_act == 3
    with pytest.raises(RevealNotAllowedError):
        deal_apply(state, RevealTrump(3))
    assert RevealTrump(3) not in deal_legal_actions(state)


def test_caller_may_reveal_on_his_lead_R9_14_2_2():
    state = play(hidden_deal(), "?")
    assert state.reveal.seat == 0 and state.must_trump is None
    state = play(state, "2S", "KS", "3S", "AS")
    assert state.tricks[0].winner == 3


def test_caller_holding_only_the_indicator_reveals_automatically_R9_14_2_3():
    state = hidden_deal()
    leads = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"]
    keep = {Card.parse(c) for c in ("AC", "AD", "2C")}
    for lead in leads:
        state = play(state, lead)
        while state.current:
            options = sorted(playable_cards(state), key=lambda c: (c in keep, c.suit == "S"))
            state = deal_apply(state, PlayCard(state.to_act, options[0]))
    assert len(state.tricks) == 12 and state.to_act == 0
    assert state.reveal.trick == 12 and state.reveal.seat == 0
    state = play(state, "2S", "AC", "AD", "2C")
    assert state.result.outcome is DealOutcome.FIFTY_TWO


def test_double_sir_collects_only_from_the_reveal_trick_R9_14_6():
    options = CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN)
    winners = [0, 0, 0, 0, 2, 1, 3, 1, 3, 1, 3, 1]
    state, tricks = scripted_deal(PLAN, winners, options=options, indicator_of_caller=True)
    state = play_until_done(state, tricks[:2])
    assert state.collected == (0, 0, 0, 0)  # no reveal yet: tricks 1 and 2 do not collect
    state = play(state, "?", *tricks[2])
    assert state.reveal.trick == 2 and state.collected == (0, 0, 0, 0)
    state = play(state, *tricks[3])
    assert state.collected == (4, 0, 0, 0)


def test_double_sir_without_reveal_only_trick_13_collects_R9_14_6():
    options = CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.CHOSEN)
    state = play_until_done(
        *scripted_deal(PLAN, [0] * 12, options=options, indicator_of_caller=True)
    )
    assert [t.collected_by for t in state.tricks[:12]] == [None] * 12
    assert state.reveal.trick == 12  # the caller's automatic reveal
    assert state.tricks[12].collected_by == 0 and state.collected == (13, 0, 0, 0)


# -- R9.15 views ---------------------------------------------------------------------------------


def test_indicator_seen_only_by_the_caller_under_chosen_R9_15_1():
    state = hidden_deal()
    assert court_piece_view(state, 0)["indicator"]["card"] == "2S"
    assert court_piece_view(state, 0)["trump"] == "S"
    for seat in (1, 2, 3, None):
        shown = court_piece_view(state, seat)
        assert shown["indicator"] == {"laid": True, "card": None, "reveal": None}
        assert shown["trump"] is None
    state = play(state, "AH", "?")
    assert all(court_piece_view(state, s)["indicator"]["card"] == "2S" for s in (1, None))


def test_blind_indicator_unseen_even_by_the_caller_R9_15_1():
    state = hidden_deal(BLIND)
    for seat in (0, 1, None):
        assert court_piece_view(state, seat)["indicator"]["card"] is None
        assert "2S" not in str(court_piece_view(state, seat))


def test_spectators_see_no_hand_and_pile_is_face_down_R9_15_1():
    winners = [0, 2, 0, 0, 1, 3, 1, 3, 2, 2, 0, 0]
    state, tricks = scripted_deal(PLAN, winners, options=DOUBLE_SIR)
    state = play_until_done(state, tricks[:4])
    shown = court_piece_view(state, None)
    assert "hand" not in shown and shown["pile"] == 0
    # The trick just taken lies in the middle until the next is led; the others are face down.
    assert [t["cards"] for t in shown["tricks"]][:3] == [None] * 3
    assert shown["tricks"][3]["cards"] == cards_text(state.tricks[3].cards)
    state = deal_apply(state, deal_legal_actions(state)[0])
    assert [t["cards"] for t in court_piece_view(state, None)["tricks"]] == [None] * 4
    assert [t["winner"] for t in shown["tricks"]] == [0, 2, 0, 0]
    assert [t["collected_by"] for t in shown["tricks"]] == [None, None, None, 0]


# -- hypothesis: random matches under every option mix --------------------------------------------

OPTION_MIXES = st.builds(
    CourtPieceOptions,
    double_sir=st.booleans(),
    hidden_trump=st.sampled_from(list(HiddenTrump)),
    goon_court=st.booleans(),
    ace_caller=st.none() | st.sampled_from(list(Suit)),
).flatmap(lambda o: st.sampled_from([o, replace(o, ace_rule=True)] if o.double_sir else [o]))


def seat_may_see(state: CourtPieceDeal, seat: int | None) -> set[str]:
    """R8.3, R9.15: the cards played (not those of a Double Sir pile: only the trick just
    finished, until the next is led), the seat's own cards, the indicator once revealed or to the
    caller under chosen."""
    allowed = {c.text for c in state.current}
    if not state.options.double_sir:
        allowed |= {c.text for t in state.tricks for c in t.cards}
    elif state.tricks and not state.current:
        allowed |= {c.text for c in state.tricks[-1].cards}
    if seat is not None:
        allowed |= {c.text for c in state.holdings[seat]}
    if state.indicator is not None and (
        state.revealed
        or (seat == state.caller and state.options.hidden_trump is HiddenTrump.CHOSEN)
    ):
        allowed.add(state.indicator.text)
    return allowed


CARD_TEXTS = frozenset(c.text for c in FULL_DECK)


def shown_cards(data: object) -> set[str]:
    found: set[str] = set()
    if isinstance(data, dict):
        for value in data.values():
            found |= shown_cards(value)
    elif isinstance(data, list):
        for value in data:
            found |= shown_cards(value)
    elif isinstance(data, str) and data in CARD_TEXTS:
        found.add(data)
    return found


@settings(max_examples=25)
@given(
    options=OPTION_MIXES,
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    target=st.integers(min_value=1, max_value=3),
    # A match without max_deals ends only by courts, which random play seldom makes: it can run
    # to hundreds of deals. test_match_plays_deals_to_the_target... covers R9.10.1 alone.
    max_deals=st.integers(min_value=1, max_value=4),
)
def test_random_matches_end_legally_and_check_valid_R9(options, seed, target, max_deals):
    rng = random.Random(seed)
    match = new_court_piece_match(options, seed=seed, target=target, max_deals=max_deals)
    deals: list[CourtPieceDeal] = []
    cut_at, steps, snapshot = rng.randrange(60), 0, None
    while True:
        steps += 1
        if steps == cut_at and not match.deal.is_over:
            snapshot = [*deals, match.deal]
        for seat in (0, 1, 2, 3, None):
            shown = shown_cards(court_piece_view(match.deal, seat))
            assert shown <= seat_may_see(match.deal, seat)
        actions = court_piece_legal_actions(match)
        if not actions:
            deals.append(match.deal)
            if match.is_over:
                break
            match = next_deal(match)
            continue
        match = court_piece_apply(match, rng.choice(actions))
    court_piece_match_view(match, None)
    deal = match.deal
    assert 7 <= len(deal.tricks) <= 13 and max(deal.result.side_tricks) >= 7
    document = build_court_piece_record(
        options=options,
        target=target,
        max_deals=max_deals,
        players=["a", "b", "c", "d"],
        draw=match.draw,
        deals=deals,
    )
    verdict = check_record(document)
    assert verdict["valid"] and verdict["complete"], verdict
    assert verdict["score"] == list(match.scores) and verdict["winner"] == match.winner
    assert len(verdict["hands"]) == len(match.summaries)
    assert check_court_piece_record(document) == verdict
    if snapshot is not None:  # a record cut mid-deal: valid, unfinished
        cut = build_court_piece_record(
            options=options, target=target, players=list("abcd"), draw=None, deals=snapshot
        )
        cut["max_deals"] = max_deals
        partial = check_record(cut)
        assert partial["valid"] and not partial["complete"], partial
        assert len(partial["hands"]) == len(snapshot) - 1
    assert isinstance(match.draw, DealerDraw)


def test_a_card_in_the_face_down_pile_is_refused_as_not_held_R9_15_1():
    """Under Double Sir "already played" would tell which cards lie in the pile: a seat hears
    "you do not hold" of any card but those face up on the table."""
    winners = [0, 2, 0, 0, 1, 3, 1, 3, 2, 2, 0, 0]
    state, tricks = scripted_deal(PLAN, winners, options=DOUBLE_SIR)
    state = play_until_done(state, tricks[:2])
    state = deal_apply(state, deal_legal_actions(state)[0])  # trick 3 is led
    seat = state.to_act
    in_pile = next(c for t in state.tricks for c in t.cards)
    with pytest.raises(CardNotHeldError) as refused:
        deal_apply(state, PlayCard(seat, in_pile))
    assert not refused.value.already_played and "do not hold" in str(refused.value)
    on_table = state.current[0]
    with pytest.raises(CardNotHeldError) as refused:
        deal_apply(state, PlayCard(seat, on_table))
    assert refused.value.already_played  # everyone sees that one
