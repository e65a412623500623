"""The examples and rules of shared/RULES.md, one test per rule, named by its number."""

from dataclasses import replace

import pytest

from games.engine import (
    HOKM2,
    HOKM2_DRAW,
    HOKM3,
    HOKM4,
    CallTrump,
    CardNotHeldError,
    Discard,
    DrawError,
    InvalidDiscardError,
    KeepOrThrow,
    MustFollowSuitError,
    NotYourTurnError,
    Phase,
    PlayCard,
    Suit,
    Trick,
    apply,
    deal_deck,
    default_trump,
    draw_hakem,
    first_ace_hakem,
    high_card_hakem,
    legal_actions,
    match_apply,
    new_hand,
    new_match,
    trick_winner_index,
    view,
)
from games.engine.hand import decide

from .helpers import cards, dealt_hand, play

SPADES = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
DIAMONDS = "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"
CLUBS = "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"


# -- R2: the Hakem and the dealer ----------------------------------------------------------------


def test_first_ace_makes_the_hakem_R2_2():
    # RECORD.md's example: flips to seats 1, 2, 3; the ace reaches seat 3.
    assert first_ace_hakem(cards("7H KD AS"), 1, 4) == 3
    assert first_ace_hakem(cards("AC"), 2, 3) == 2
    assert first_ace_hakem(cards("2H 3H 4H 5H AD"), 0, 2) == 0


@pytest.mark.parametrize("flips", ["7H AS KD", "7H KD 2S", "AS AH"])
def test_first_ace_draw_stops_at_the_first_ace_R2_2(flips):
    with pytest.raises(DrawError):
        first_ace_hakem(cards(flips), 0, 4)


def test_draw_of_a_match_is_public_and_seeded_R2_2_R2_6():
    for seed in range(50):
        draw = draw_hakem(HOKM4, seed)
        assert draw.cards[-1].rank == 14 and all(c.rank != 14 for c in draw.cards[:-1])
        assert first_ace_hakem(draw.cards, draw.first_seat, 4) == draw.hakem
        assert draw == draw_hakem(HOKM4, seed)
        assert new_match(HOKM4, seed=seed).hand.hakem == draw.hakem


def test_partner_draw_seats_partners_opposite_R2_3():
    for seed in range(200):
        draw = draw_hakem(HOKM4, seed, partner_draw=True)
        assert draw.partner_cards[-1].rank == 14
        assert all(c.rank != 14 for c in draw.partner_cards[:-1])
        assert draw.hakem not in draw.partner_seats  # the flips skip the Hakem
        partner = draw.partner_seats[-1]
        # seating[new_seat] is the old seat: the partner now sits opposite the Hakem.
        assert sorted(draw.seating) == [0, 1, 2, 3]
        assert draw.seating[draw.hakem] == draw.hakem
        assert draw.seating[(draw.hakem + 2) % 4] == partner


def test_higher_card_makes_the_hakem_in_classic_two_player_R2_4():
    assert high_card_hakem(cards("KD 3C"), 1) == 1
    assert high_card_hakem(cards("3C KD"), 1) == 0
    # Equal ranks flip again: the second pair decides.
    assert high_card_hakem(cards("9H 9S 2D AH"), 0) == 1
    with pytest.raises(DrawError):
        high_card_hakem(cards("9H 9S"), 0)  # a tie cannot end the draw
    with pytest.raises(DrawError):
        high_card_hakem(cards("9H 8S 2D AH"), 0)  # the draw went on after a decided pair
    for seed in range(50):
        draw = draw_hakem(HOKM2, seed)
        assert high_card_hakem(draw.cards, draw.first_seat) == draw.hakem


def test_dealer_is_left_of_the_hakem_R2_5():
    assert [HOKM4.dealer_for(h) for h in range(4)] == [3, 0, 1, 2]
    assert [HOKM3.dealer_for(h) for h in range(3)] == [2, 0, 1]
    assert [HOKM2.dealer_for(h) for h in range(2)] == [1, 0]


# -- R3: the deal and the trump call ------------------------------------------------------------


@pytest.mark.parametrize("variant", [HOKM4, HOKM3, HOKM2])
def test_only_the_hakem_holds_cards_before_the_call_R3_1(variant):
    state = new_hand(variant, hakem=1, deck=deal_deck(variant, 7))
    assert [len(h) for h in state.holdings] == [5 if s == 1 else 0 for s in range(variant.players)]
    assert state.to_act == 1 and state.phase is Phase.CALL
    for seat in range(variant.players):
        if seat != 1:
            assert view(state, seat)["hand"] == []
            assert view(state, seat)["legal"] == []


@pytest.mark.parametrize(
    ("variant", "sizes"),
    [(HOKM4, [13, 13, 13, 13]), (HOKM3, [17, 17, 17]), (HOKM2, [13, 13])],
)
def test_deal_after_the_call_R3_2_R3_3_R3_4(variant, sizes):
    state = new_hand(variant, hakem=0, deck=deal_deck(variant, 11))
    first5 = state.first5
    state = apply(state, CallTrump(0, Suit.HEARTS))
    assert [len(h) for h in state.holdings] == sizes
    assert state.holdings[0][:5] == first5
    dealt = {c for h in state.holdings for c in h}
    assert len(dealt) == sum(sizes)
    if variant is HOKM3:
        assert cards("2C")[0] not in dealt
    if variant is HOKM2:
        assert len(set(variant.deck) - dealt) == 26  # R3.4: 26 stay face down


def test_four_player_deal_order_R3_2():
    deck = deal_deck(HOKM4, 3)
    state = apply(new_hand(HOKM4, hakem=2, deck=deck), CallTrump(2, Suit.SPADES))
    # The Hakem's 5, the others' 5 from his right, then 4 each twice from the Hakem to the dealer.
    assert state.holdings[2] == deck[0:5] + deck[20:24] + deck[36:40]
    assert state.holdings[3] == deck[5:10] + deck[24:28] + deck[40:44]
    assert state.holdings[0] == deck[10:15] + deck[28:32] + deck[44:48]
    assert state.holdings[1] == deck[15:20] + deck[32:36] + deck[48:52]


def test_the_draw_of_hokm2_draw_R3_5():
    deck = deal_deck(HOKM2_DRAW, 5)
    state = new_hand(HOKM2_DRAW, hakem=1, deck=deck)
    assert state.dealer == 0
    assert state.holdings[1] == deck[0:5] and state.holdings[0] == deck[5:10]
    state = apply(state, CallTrump(1, Suit.CLUBS))
    assert state.phase is Phase.DISCARD and state.to_act == 1
    with pytest.raises(InvalidDiscardError):
        apply(state, Discard(1, deck[0:2]))  # the Hakem discards 3
    with pytest.raises(InvalidDiscardError):
        apply(state, Discard(1, (deck[0], deck[1], deck[5])))  # not one of his own 5
    state = apply(state, Discard(1, deck[0:3]))
    assert state.to_act == 0
    state = apply(state, Discard(0, deck[5:7]))
    assert state.phase is Phase.DRAW and state.to_act == 1
    # Turn 0: the Hakem looks at the top card; only he sees it.
    assert view(state, 1)["draw"]["top"] == deck[10].text
    assert view(state, 0)["draw"]["top"] is None
    state = apply(state, KeepOrThrow(1, True))  # keeps it, must discard the next
    assert deck[10] in state.holdings[1] and deck[11] in state.discards[1]
    assert state.to_act == 0
    state = apply(state, KeepOrThrow(0, False))  # throws it, must keep the next
    assert deck[12] in state.discards[0] and deck[13] in state.holdings[0]
    while state.phase is Phase.DRAW:
        state = apply(state, KeepOrThrow(state.to_act, state.draw_turn % 3 == 0))
    assert len(state.keep_first) == 21 and state.stock_left == 0
    assert [len(h) for h in state.holdings] == [13, 13]
    assert state.phase is Phase.PLAY and state.to_act == 1  # the Hakem leads (R4.1)
    # Discards are never shown to the opponent during the hand.
    text = str(view(state, 0))
    assert all(c.text not in text for c in state.discards[1])
    assert view(state, 1)["draw"]["own_discards"] == [c.text for c in state.discards[1]]


@pytest.mark.parametrize(
    ("first5", "trump"),
    [
        ("AS 2H 3H 4H KD", "H"),  # the suit held most
        ("AS 2H 3H KD QD", "D"),  # tie on count: the higher cards (K beats 3)
        ("AS KS 2H 3H 4C", "S"),
        ("AH 9S 8S 9D 8D", "S"),  # tie on count and on the highest card: the next card decides
    ],
)
def test_default_call_R3_6(first5, trump):
    # The last case ties S and D on both cards: the fixed suit order S, H, D, C breaks it.
    assert default_trump(cards(first5)) == Suit(trump)


# -- R4: playing the tricks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("2D AS 3D KH", "H", 3),  # the highest trump wins
        ("2D AS 3D KH", "C", 2),  # no trump: the highest of the suit led; AS never wins
        ("2D 3H 5H 4D", "H", 2),
        ("AD KD QD JD", "S", 0),
    ],
)
def test_trick_winner_R4_3(trick, trump, winner):
    assert trick_winner_index(cards(trick), Suit(trump)) == winner


def _two_player_hand():
    # Seat 0: twelve spades and 2D; seat 1: twelve hearts and 3D; trump hearts.
    return dealt_hand(
        HOKM2,
        hakem=0,
        holdings=[SPADES.replace(" 2S", " 2D"), HEARTS.replace(" 2H", " 3D")],
        trump="H",
    )


def test_must_follow_suit_R4_2():
    state = play(_two_player_hand(), "2D")
    with pytest.raises(MustFollowSuitError, match="you hold a diamond and diamonds were led"):
        apply(state, PlayCard(1, cards("AH")[0]))
    assert [a.card.text for a in legal_actions(state)] == ["3D"]
    state = play(state, "3D")
    assert state.tricks[-1] == Trick(0, tuple(cards("2D 3D")), 1)
    # Seat 1 leads trump (allowed at any time, R4.2) and seat 0, void, may play anything.
    state = play(state, "AH")
    assert len(legal_actions(state)) == 12


def test_illegal_cards_are_refused_and_change_nothing_R4_4():
    state = _two_player_hand()
    before = state
    with pytest.raises(NotYourTurnError):
        apply(state, PlayCard(1, cards("AH")[0]))
    with pytest.raises(CardNotHeldError, match="you do not hold AH"):
        apply(state, PlayCard(0, cards("AH")[0]))
    state = play(state, "2D", "3D")
    with pytest.raises(CardNotHeldError, match="2D was already played"):
        apply(state, PlayCard(1, cards("2D")[0]))
    assert before == _two_player_hand()


def test_hakem_leads_and_the_winner_leads_next_R4_1():
    state = _two_player_hand()
    assert state.to_act == 0
    state = play(state, "2D", "3D")
    assert state.to_act == 1


# -- R5: the end of the hand and points ------------------------------------------------------------


def test_kot_by_the_hakems_side_scores_two_R5_2():
    state = dealt_hand(HOKM4, hakem=0, holdings=[SPADES, HEARTS, DIAMONDS, CLUBS], trump="S")
    for trick in range(7):
        spade = SPADES.split()[trick]
        state = play(
            state, spade, HEARTS.split()[trick], DIAMONDS.split()[trick], CLUBS.split()[trick]
        )
    assert state.is_over and len(state.tricks) == 7  # the rest are not played (R5.1)
    result = state.result
    assert (result.winner, result.points, result.kot, result.hakem_kot) == (0, 2, True, False)
    assert result.next_hakem == 0  # R6.1


def test_hakem_kot_scores_three_R5_2():
    # Seat 1 holds every spade (trump); the Hakem, seat 0, cannot take a trick.
    state = dealt_hand(HOKM4, hakem=0, holdings=[HEARTS, SPADES, DIAMONDS, CLUBS], trump="S")
    state = play(state, "AH", "2S", "AD", "AC")
    for trick in range(6):
        state = play(
            state,
            SPADES.split()[trick],
            DIAMONDS.split()[trick + 1],
            CLUBS.split()[trick + 1],
            HEARTS.split()[trick + 1],
        )
    result = state.result
    assert result.tricks_won == (0, 7, 0, 0)
    assert (result.winner, result.points, result.kot, result.hakem_kot) == (1, 3, True, True)
    assert result.next_hakem == 1  # R6.2: old Hakem + 1


def _with_tricks(variant, hakem, won):
    """A hand whose tricks so far were won as ``won`` says (for the scoring rules alone)."""
    state = new_hand(variant, hakem=hakem, deck=deal_deck(variant, 1))
    dummy = Trick(0, (), 0)
    return replace(state, tricks=(dummy,) * sum(won), tricks_won=tuple(won))


def test_side_reaching_seven_wins_one_point_R5_1():
    result = decide(_with_tricks(HOKM4, 1, (4, 3, 3, 0)))  # team A 7, team B 3
    assert (result.winner, result.points, result.kot) == (0, 1, False)
    assert result.next_hakem == 2  # the Hakem's side lost: R6.2
    assert decide(_with_tricks(HOKM4, 1, (3, 3, 3, 3))) is None
    result = decide(_with_tricks(HOKM2, 0, (6, 7)))
    assert (result.winner, result.points, result.next_hakem) == (1, 1, 1)  # R6.3


@pytest.mark.parametrize(
    ("won", "decided"),
    [
        ((7, 4, 4), True),  # R5.3.2: 7-4-4 with 2 left wins
        ((7, 4, 3), False),  # 7-4-3 with 3 left does not
        ((8, 3, 1), False),  # 8-3-1 with 5 left does not
        ((4, 7, 4), True),
        ((9, 3, 2), True),  # 3 left: 9 > 3 + 3
    ],
)
def test_three_player_lead_that_cannot_be_equalled_R5_3_2(won, decided):
    result = decide(_with_tricks(HOKM3, 0, won))
    if decided:
        assert result.winner == won.index(max(won)) and result.points == 1
        assert not result.kot
    else:
        assert result is None


def test_three_player_tie_at_the_top_goes_to_the_third_R5_3_3():
    result = decide(_with_tricks(HOKM3, 0, (7, 7, 3)))
    assert (result.winner, result.points, result.kot) == (2, 1, False)
    assert result.next_hakem == 1  # R6.2: Hakem + 1, even though seat 1 did not win
    result = decide(_with_tricks(HOKM3, 2, (3, 7, 7)))
    assert result.winner == 0 and result.next_hakem == 0


@pytest.mark.parametrize(("hakem", "points"), [(1, 2), (0, 3)])
def test_three_player_kot_R5_3_1(hakem, points):
    result = decide(_with_tricks(HOKM3, hakem, (0, 7, 0)))
    assert (result.winner, result.points, result.kot) == (1, points, True)


def test_three_player_kot_played_out_R5_3_1():
    # Seat 1 holds every spade (trump) and four hearts; the Hakem is seat 0.
    seat0 = "TH 9H 8H 7H 6H 5H 4H 3H 2H AD KD QD JD TD 9D 8D 7D"
    seat1 = SPADES + " AH KH QH JH"
    seat2 = "6D 5D 4D 3D 2D AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C"
    state = dealt_hand(HOKM3, hakem=0, holdings=[seat0, seat1, seat2], trump="S")
    assert "2C" not in str(view(state, 2))  # R3.3
    state = play(state, "AD", "2S", "2D")
    clubs, hearts = seat2.split()[5:], seat0.split()
    for trick in range(6):
        state = play(state, SPADES.split()[trick], clubs[trick], hearts[trick])
    result = state.result
    assert result.tricks_won == (0, 7, 0)
    assert (result.winner, result.points, result.kot, result.next_hakem) == (1, 3, True, 1)


# -- R6: rotation in each variant ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "hakem", "won", "next_hakem"),
    [
        (HOKM4, 3, (0, 7, 0, 0), 3),  # R6.1: the Hakem's side (seats 1 and 3) won
        (HOKM4, 3, (7, 0, 0, 0), 0),  # R6.2: seat to his right
        (HOKM3, 2, (0, 0, 7), 2),  # R6.1
        (HOKM3, 2, (0, 7, 0), 0),  # R6.2: 2 + 1 = 0, who did not win
        (HOKM2, 1, (0, 7), 1),  # R6.1
        (HOKM2, 1, (7, 0), 0),  # R6.3
        (HOKM2_DRAW, 0, (0, 7), 1),  # R6.3
    ],
)
def test_rotation_R6(variant, hakem, won, next_hakem):
    assert decide(_with_tricks(variant, hakem, won)).next_hakem == next_hakem


# -- R7: the match ---------------------------------------------------------------------------------


def test_points_can_pass_the_target_R7_1():
    match = new_match(HOKM4, seed=3)
    assert match.target == 7  # the default target
    hand = dealt_hand(HOKM4, hakem=0, holdings=[HEARTS, SPADES, DIAMONDS, CLUBS], trump="S")
    match = replace(match, scores=(0, 6), hand=hand)
    plays = ["AH", "2S", "AD", "AC"]
    for trick in range(6):
        plays += [
            SPADES.split()[trick],
            DIAMONDS.split()[trick + 1],
            CLUBS.split()[trick + 1],
            HEARTS.split()[trick + 1],
        ]
    for text in plays:
        match = match_apply(match, PlayCard(match.hand.to_act, cards(text)[0]))
    assert match.scores == (0, 9)  # 6 + 3 = 9
    assert match.is_over and match.winner == 1


def test_target_must_be_positive_R7_1():
    with pytest.raises(ValueError):
        new_match(HOKM4, seed=1, target=0)
    assert new_match(HOKM4, seed=1, target=1).target == 1
