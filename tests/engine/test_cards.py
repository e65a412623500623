import pytest

from games.engine import FULL_DECK, HOKM3, HOKM4, Card, CardTextError, Suit, sorted_hand

from .helpers import cards


def test_notation_R1_2():
    assert Card.parse("AS") == Card(14, Suit.SPADES)
    assert Card.parse("TD") == Card(10, Suit.DIAMONDS)
    assert Card.parse("2C").text == "2C"
    assert [c.text for c in FULL_DECK] == [Card.parse(c.text).text for c in FULL_DECK]


@pytest.mark.parametrize("text", ["10S", "as", "A", "ASS", "1H", "XS", "", " AS", 14, None, ["AS"]])
def test_notation_is_strict_R1_2(text):
    with pytest.raises(CardTextError, match="not a card"):
        Card.parse(text)


def test_deck_R1_1_and_hokm3_deck_R3_3():
    assert len(set(FULL_DECK)) == 52
    assert len(HOKM4.deck) == 52
    assert len(HOKM3.deck) == 51
    assert Card.parse("2C") not in HOKM3.deck


def test_ranks_ace_high_R1_1():
    ranks = sorted(cards("2H TH JH QH KH AH 9H"), key=lambda c: c.rank)
    assert [c.text for c in ranks] == ["2H", "9H", "TH", "JH", "QH", "KH", "AH"]


def test_sorted_hand_puts_trump_first():
    hand = cards("2S AH KD 3C TH")
    assert [c.text for c in sorted_hand(hand, Suit.DIAMONDS)][0] == "KD"
    assert [c.text for c in sorted_hand(hand)] == ["2S", "AH", "TH", "3C", "KD"]
