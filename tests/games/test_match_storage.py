"""The database itself refuses rows that break the storage rules."""

import pytest
from django.db import IntegrityError, transaction

from games.engine import FULL_DECK, HOKM4, deal_deck
from games.models import CardPlay, Hand, Match, Seat, Trick, deck_from_text, deck_to_text
from tests.games.factories import MatchFactory, SeatFactory, TableFactory, UserFactory

pytestmark = pytest.mark.django_db


def refused(create) -> bool:
    try:
        with transaction.atomic():
            create()
    except IntegrityError:
        return True
    return False


def test_seat_is_a_user_or_a_computer_or_empty():
    table = TableFactory()
    SeatFactory(table=table, index=0)
    SeatFactory(table=table, index=1, user=None, computer_level="easy")
    SeatFactory(table=table, index=2, user=None)
    assert refused(lambda: SeatFactory(table=table, index=3, computer_level="hard"))
    assert refused(lambda: SeatFactory(table=table, index=0, user=UserFactory()))
    assert Seat.objects.filter(table=table).count() == 3


def test_table_draws_for_partners_only_with_four_players_R2_3():
    TableFactory(variant="hokm4", partner_draw=True)
    assert refused(lambda: TableFactory(variant="hokm3", partner_draw=True))
    assert refused(lambda: TableFactory(target=0))
    match = MatchFactory(variant="hokm3", seed=1)
    assert refused(lambda: Match.objects.filter(pk=match.pk).update(partner_draw=True))


def test_a_card_is_played_once_per_hand_and_a_trick_place_once():
    match = MatchFactory(seed=1)
    hand = Hand.objects.get(match=match)
    trick = Trick.objects.create(hand=hand, number=0, leader=hand.hakem)
    CardPlay.objects.create(hand=hand, trick=trick, seat=0, order=0, card="AS")
    assert refused(
        lambda: CardPlay.objects.create(hand=hand, trick=trick, seat=1, order=1, card="AS")
    )
    assert refused(
        lambda: CardPlay.objects.create(hand=hand, trick=trick, seat=1, order=0, card="KS")
    )
    assert refused(lambda: Trick.objects.create(hand=hand, number=0, leader=0))
    assert refused(lambda: Hand.objects.create(match=match, number=0, hakem=0, dealer=3))


def test_deck_text_round_trips_R1_2():
    deck = deal_deck(HOKM4, 123)
    text = deck_to_text(deck)
    assert len(text) == Hand._meta.get_field("deck").max_length
    assert deck_from_text(text) == deck
    assert deck_to_text(FULL_DECK).startswith("2S 3S 4S")


def test_match_variant_titles_are_translatable():
    match = MatchFactory(variant="hokm2-draw", seed=1)
    assert match.get_variant_display() == "Hokm, two players with the draw"
    assert str(match) == f"Hokm, two players with the draw #{match.pk}"
    assert Match._meta.verbose_name == "match"
