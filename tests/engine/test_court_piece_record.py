"""The court-piece record checker (RECORD.md, "Variant court-piece"): output and every fault."""

from __future__ import annotations

import copy
import json

import pytest

from games.engine import Card, PlayCard
from games.engine.court_piece import (
    CourtPieceOptions,
    HiddenTrump,
    build_court_piece_record,
    deal_apply,
    deal_record,
    playable_cards,
)
from games.engine.record import check_record
from games.management.commands.hokm_check import check_file
from tests.engine.court_piece_deals import (
    CHOSEN,
    OFF,
    PLAN,
    SIDE0_ALL,
    hidden_deal,
    play,
    play_until_done,
    scripted_deal,
)

PLAYERS = ["a", "b", "c", "d"]


def record(*states, options=OFF, target=1, max_deals=None) -> dict:
    return build_court_piece_record(
        options=options,
        target=target,
        max_deals=max_deals,
        players=PLAYERS,
        draw=None,
        deals=list(states),
    )


def fault_at(document) -> tuple:
    verdict = check_record(document)
    assert verdict["valid"] is False, verdict
    assert set(verdict) == {"valid", "error", "hand", "trick", "seat"}
    assert isinstance(verdict["error"], str) and verdict["error"]
    return verdict["hand"], verdict["trick"], verdict["seat"]


def fifty_two():
    return play_until_done(*scripted_deal(PLAN, SIDE0_ALL))


def won_by_side_1():
    """Dealer 3, caller 0; side 1 wins 7-1 in 8 tricks: next dealer 0, caller 1."""
    winners = [0, 1, 3, 1, 3, 1, 3, 1, 1, 1, 1, 1]
    return scripted_deal(PLAN, winners)


# -- valid records -------------------------------------------------------------------------------


def test_exact_output_of_a_finished_record():
    verdict = check_record(record(fifty_two()))
    assert verdict == {
        "valid": True,
        "complete": True,
        "score": [52, 0],
        "winner": 0,
        "hands": [
            {
                "dealer": 3,
                "caller": 0,
                "tricks_won": [7, 0, 6, 0],
                "collected": None,
                "side_tricks": [13, 0],
                "winner": 0,
                "result": "52-court",
                "goon": False,
                "courts": 52,
                "streak_court": False,
                "streak": {"side": None, "count": 0},
                "score": [52, 0],
                "next_dealer": 1,
                "next_caller": 2,
                "reveal": None,
            }
        ],
    }
    assert list(verdict["hands"][0]) == [
        "dealer", "caller", "tricks_won", "collected", "side_tricks", "winner", "result",
        "goon", "courts", "streak_court", "streak", "score", "next_dealer", "next_caller",
        "reveal",
    ]  # fmt: skip


def test_unfinished_records_are_valid_and_leave_the_last_hand_out():
    assert check_record(record()) == {
        "valid": True, "complete": False, "score": [0, 0], "winner": None, "hands": []
    }  # fmt: skip
    state, tricks = scripted_deal(PLAN, SIDE0_ALL)
    mid_chase = play_until_done(state, tricks[:9])
    verdict = check_record(record(mid_chase))
    assert verdict["valid"] and not verdict["complete"] and verdict["hands"] == []
    first = play_until_done(*won_by_side_1())
    next_state, next_tricks = scripted_deal(PLAN, SIDE0_ALL, dealer=0)
    partial = play(next_state, next_tricks[0][0])
    verdict = check_record(record(first, partial, target=1))
    assert verdict["valid"] and verdict["hands"][0]["result"] == "won"
    assert verdict["hands"][0]["streak"] == {"side": 1, "count": 1}
    assert (verdict["hands"][0]["next_dealer"], verdict["hands"][0]["next_caller"]) == (0, 1)


def test_hidden_reveal_is_copied_and_hokm_check_reads_the_file(tmp_path):
    state = play(hidden_deal(), "AH", "KS", "?", "3S", "2H")
    document = record(state, options=CHOSEN)
    assert document["hands"][0]["hidden"] == {"card": "2S", "reveal": {"trick": 0, "seat": 2}}
    path = tmp_path / "cp.json"
    path.write_text(json.dumps(document))
    assert check_file(str(path)) == check_record(document)
    assert check_record(document)["valid"]


def test_max_deals_ends_the_match_in_the_record():
    first = play_until_done(*won_by_side_1())
    verdict = check_record(record(first, max_deals=1, target=5))
    assert verdict["complete"] and verdict["winner"] == 1 and verdict["score"] == [0, 0]


# -- faults of the whole document ----------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"format": "hokm-record/2"},
        {"target": 0},
        {"target": True},
        {"max_deals": 0},
        {"max_deals": "3"},
        {"options": {"double_sir": True, "colour": "red"}},
        {"options": {"double_sir": "yes"}},
        {"options": {"ace_rule": True}},
        {"options": {"hidden_trump": "sometimes"}},
        {"players": ["a", "b", "c"]},
        {"hands": {}},
        {"dealer_draw": {"first_seat": 0, "cards": ["AS", "AH"]}},
        {"dealer_draw": {"first_seat": 0, "cards": ["2S", "3H"]}},
        {"dealer_draw": {"first_seat": 4, "cards": ["AS"]}},
    ],
)
def test_document_faults_have_no_position(change):
    document = record(fifty_two())
    document.update(change)
    assert fault_at(document) == (None, None, None)


def test_not_a_json_object_is_a_document_fault():
    assert check_record(["court-piece"])["valid"] is False


def test_dealer_draw_naming_another_dealer_is_a_fault_of_hand_0():
    document = record(fifty_two())
    document["dealer_draw"] = {"first_seat": 1, "cards": ["2S", "AH"]}  # seat 2 deals
    assert fault_at(document) == (0, None, None)
    document["dealer_draw"] = {"first_seat": 2, "cards": ["2S", "AH"]}  # seat 3 deals
    assert check_record(document)["valid"]
    document["options"]["ace_caller"] = "H"  # seat 3 receives AH: the first caller, dealer 2
    assert fault_at(document) == (0, None, None)
    document["dealer_draw"] = {"first_seat": 3, "cards": ["2S", "AH"]}
    assert check_record(document)["valid"]


# -- set-up faults of a hand ---------------------------------------------------------------------


def hand_fault(change, state=None, options=OFF):
    document = record(state or fifty_two(), options=options)
    change(document["hands"][0])
    return fault_at(document)


@pytest.mark.parametrize(
    "change",
    [
        lambda h: h.update(caller=2),
        lambda h: h.update(dealer=4),
        lambda h: h.update(first5=h["first5"][:4]),
        lambda h: h.update(first5=h["first5"][:4] + [h["cards"][1][0]]),
        lambda h: h["cards"][1].__setitem__(0, "XX"),
        lambda h: h["cards"][1].__setitem__(0, h["cards"][2][0]),
        lambda h: h["cards"][1].pop(),
        lambda h: h.update(trump="Z"),
        lambda h: h.update(hidden={"card": h["first5"][0], "reveal": None}),
        lambda h: h.update(tricks="none"),
    ],
)
def test_hand_setup_faults_give_the_hand_only(change):
    assert hand_fault(change) == (0, None, None)


def test_dealer_breaking_R9_9_is_a_fault_of_that_hand():
    first = play_until_done(*won_by_side_1())
    second = play(scripted_deal(PLAN, SIDE0_ALL, dealer=0)[0])
    document = record(first, second, target=3)
    assert check_record(document)["valid"]
    document["hands"][1].update(dealer=2, caller=3)
    assert fault_at(document) == (1, None, None)


@pytest.mark.parametrize(
    "change",
    [
        lambda h: h.update(hidden=None),
        lambda h: h.update(hidden={"card": "5D", "reveal": None}),  # not in first5
        lambda h: h.update(hidden={"card": "AH", "reveal": None}),  # not of suit trump
        lambda h: h.update(hidden={"card": "2S", "reveal": {"trick": -1, "seat": 0}}),
    ],
)
def test_hidden_setup_faults_give_the_hand_only(change):
    assert hand_fault(change, play(hidden_deal(), "AH"), CHOSEN) == (0, None, None)


# -- faults in tricks ----------------------------------------------------------------------------


def trick_fault(change, state=None, options=OFF):
    document = record(state or fifty_two(), options=options)
    change(document["hands"][0])
    return fault_at(document)


def test_card_faults_in_tricks():
    # Trick 0 is led by seat 0: S block 0, seats 0..3.
    assert trick_fault(lambda h: h["tricks"][0].__setitem__(1, "ZZ")) == (0, 0, 1)
    assert trick_fault(lambda h: h["tricks"][0].__setitem__(2, "AS")) == (0, 0, 2)  # not held
    # Seat 1 plays a heart while holding spades.
    document = record(fifty_two())
    hand = document["hands"][0]
    heart = next(c for c in hand["cards"][1] if c.endswith("H"))
    hand["tricks"][0][1] = heart
    assert fault_at(document) == (0, 0, 1)
    # A card played twice.
    document = record(fifty_two())
    document["hands"][0]["tricks"][4][0] = document["hands"][0]["tricks"][0][0]
    assert fault_at(document)[1:] == (4, 2)  # trick 4 is led by seat 2


def test_short_trick_before_the_end_is_a_fault_at_the_seat_due():
    document = record(fifty_two())
    document["hands"][0]["tricks"][3] = document["hands"][0]["tricks"][3][:2]
    assert fault_at(document) == (0, 3, 2)  # trick 3 led by seat 0


def test_trick_after_the_court_chase_ended_R9_6_1():
    winners = [0, 2, 0, 2, 0, 2, 0, 2, 1, 0, 0, 0]
    state, tricks = scripted_deal(PLAN, winners)
    document = record(play_until_done(state, tricks))
    document["hands"][0]["tricks"].append(tricks[9])
    assert fault_at(document) == (0, 9, 1)


def test_hand_stopping_mid_chase_followed_by_another_is_a_short_trick_R9_6_1():
    state, tricks = scripted_deal(PLAN, SIDE0_ALL)
    stopped = play_until_done(state, tricks[:8])
    later = play(scripted_deal(PLAN, SIDE0_ALL, dealer=1)[0])
    document = record(stopped, later)
    assert fault_at(document) == (0, 8, 2)  # seat 2 won trick 7 and is due to lead


def test_double_sir_play_must_go_on_R9_12_5():
    options = CourtPieceOptions(double_sir=True)
    state, tricks = scripted_deal(PLAN, [0] * 12, options=options)
    stopped = play_until_done(state, tricks[:8])  # 8 collected against none: not decided
    assert not stopped.is_over and stopped.collected == (8, 0, 0, 0)
    later = play(scripted_deal(PLAN, SIDE0_ALL, dealer=1, options=options)[0])
    assert fault_at(record(stopped, later, options=options)) == (0, 8, 0)


def test_hand_after_an_undecided_hand_is_a_fault_of_the_next_hand():
    state, tricks = scripted_deal(PLAN, SIDE0_ALL)
    early = play_until_done(state, tricks[:3])
    later = play(scripted_deal(PLAN, SIDE0_ALL, dealer=1)[0])
    assert fault_at(record(early, later)) == (1, None, None)


def test_hand_after_the_match_was_decided():
    later = play(scripted_deal(PLAN, SIDE0_ALL, dealer=1)[0])
    assert fault_at(record(fifty_two(), later, target=52)) == (1, None, None)


# -- hidden trump faults (R9.14) -----------------------------------------------------------------


def hidden_record(state):
    return record(state, options=CHOSEN)


def test_indicator_played_before_its_reveal_R9_14_3():
    document = hidden_record(play(hidden_deal(), "AH"))
    document["hands"][0]["tricks"] = [["2S"]]
    assert fault_at(document) == (0, 0, 0)


def test_reveal_by_a_seat_holding_the_suit_led_R9_14_2():
    document = hidden_record(play(hidden_deal(), "AH", "KS", "?", "3S", "2H"))
    document["hands"][0]["hidden"]["reveal"] = {"trick": 0, "seat": 3}
    assert fault_at(document) == (0, 0, 3)


def test_reveal_by_a_non_caller_leading_R9_14_2_1():
    holdings = [
        "2S KH QH JH TH 9H 8H 7H 6H 5H 4H 3H AS",
        "KS AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
        "3S AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D",
        "AH 2H 2C 2D QS JS TS 9S 8S 7S 6S 5S 4S",
    ]
    document = hidden_record(play(hidden_deal(holdings=holdings), "KH", "AC", "AD", "AH", "QS"))
    document["hands"][0]["hidden"]["reveal"] = {"trick": 1, "seat": 3}
    assert fault_at(document) == (0, 1, 3)


def test_reveal_at_a_turn_never_reached():
    document = hidden_record(play(hidden_deal(), "AH", "KS", "?", "3S", "2H"))
    document["hands"][0]["hidden"]["reveal"] = {"trick": 5, "seat": 1}
    assert fault_at(document) == (0, 5, 1)


def test_revealing_seat_must_trump_R9_14_4():
    document = hidden_record(play(hidden_deal(), "AH", "KS", "?", "3S", "2H"))
    document["hands"][0]["tricks"][0][2] = "AD"
    assert fault_at(document) == (0, 0, 2)


def play_hearts_to_the_indicator():
    state = hidden_deal()
    keep = {Card.parse(c) for c in ("AC", "AD", "2C")}
    for lead in ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"]:
        state = play(state, lead)
        while state.current:
            options = sorted(playable_cards(state), key=lambda c: (c in keep, c.suit == "S"))
            state = deal_apply(state, PlayCard(state.to_act, options[0]))
    return state


def test_callers_automatic_reveal_must_be_recorded_R9_14_2_3():
    state = play(play_hearts_to_the_indicator(), "2S", "AC", "AD", "2C")
    document = hidden_record(state)
    assert document["hands"][0]["hidden"]["reveal"] == {"trick": 12, "seat": 0}
    assert check_record(document)["hands"][0]["result"] == "52-court"
    for wrong in (None, {"trick": 12, "seat": 1}):
        broken = copy.deepcopy(document)
        broken["hands"][0]["hidden"]["reveal"] = wrong
        assert fault_at(broken) == (0, 12, 0)


def test_blind_records_check_the_indicator_like_chosen():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    state = play(hidden_deal(options), "AH", "KS", "?", "3S", "2H")
    document = record(state, options=options)
    assert check_record(document)["valid"]
    assert deal_record(state)["hidden"]["card"] == "2S"


def test_the_checker_names_what_the_table_may_not_R9_14_3_R9_15_1():
    """The checker knows every card: a blind caller's indicator played early and a card played
    twice under Double Sir are named as such, though the table tells the seat only "you do not
    hold" of either (R8.3)."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    document = record(play(hidden_deal(options), "AH"), options=options)
    document["hands"][0]["tricks"] = [["2S"]]
    verdict = check_record(document)
    assert fault_at(document) == (0, 0, 0)
    assert "indicator 2S before its reveal" in verdict["error"]

    double_sir = CourtPieceOptions(double_sir=True)
    winners = [0, 2, 0, 0, 1, 3, 1, 3, 2, 2, 0, 0]
    state, tricks = scripted_deal(PLAN, winners, options=double_sir)
    document = record(play_until_done(state, tricks), options=double_sir)
    document["hands"][0]["tricks"][4][0] = document["hands"][0]["tricks"][0][0]
    verdict = check_record(document)
    assert "which was already played" in verdict["error"], verdict
