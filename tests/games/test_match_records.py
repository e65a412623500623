"""Stored matches export as hokm-record/1 and import back exactly; faulty records write nothing."""

import copy
import json
from pathlib import Path

import pytest

from games.engine import VARIANTS, Card
from games.engine.record import RecordFault, check_record, load_record
from games.history.records import RecordImportError, match_export_record, match_import_record
from games.lobby.selectors import computer_player_name
from games.models import CardPlay, Hand, Match, MatchSeat, Trick
from games.play.selectors import match_hand_states
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, UserFactory, match_play
from tests.record_corpus import CORPUS

pytestmark = pytest.mark.django_db

VALID = sorted(p for p in (CORPUS / "valid").glob("*.json") if ".expected." not in p.name)
FAULTY = sorted(p for p in (CORPUS / "faulty").glob("*.json") if ".expected." not in p.name)


def nothing_stored() -> bool:
    return not (
        Match.objects.exists()
        or MatchSeat.objects.exists()
        or Hand.objects.exists()
        or Trick.objects.exists()
        or CardPlay.objects.exists()
    )


def as_played(states: list) -> list:
    """What a record keeps of each hand: a record lists holdings in any order and so does not
    keep the order of the deck beyond what the deal and the play fix."""
    return [
        (
            state.hakem,
            state.trump,
            state.first5,
            state.dealer5,
            state.keep_first,
            state.tricks,
            state.current,
            state.result,
            [sorted(cards) for cards in state.holdings],
            [sorted(cards) for cards in state.discards],
        )
        for state in states
    ]


def expected_verdict(path: Path) -> dict:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text())


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_export_import_export_gives_the_same_document(variant):
    match = MatchFactory(variant=variant, seed=23, target=3)
    played = match_play(match, rng_seed=23)

    document = match_export_record(match=match)
    assert check_record(document)["complete"] is True
    imported = match_import_record(document=document)

    assert match_export_record(match=imported) == document
    assert as_played(match_hand_states(match=imported)) == as_played(played.hands)
    assert (imported.status, imported.scores, imported.winner_side) == (
        Match.Status.FINISHED,
        list(played.shadow.scores),
        played.shadow.winner,
    )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_unfinished_match_round_trips_mid_trick(variant):
    match = MatchFactory(variant=variant, seed=24)
    match_play(
        match,
        rng_seed=24,
        until=lambda s: s.hand_number == 1 and len(s.hand.tricks) == 2 and len(s.hand.current) == 1,
    )
    document = match_export_record(match=match)
    assert len(document["hands"]) == 2
    assert len(document["hands"][1]["tricks"][-1]) == 1

    imported = match_import_record(document=document)

    assert match_export_record(match=imported) == document
    assert imported.status == Match.Status.ABANDONED
    assert as_played(match_hand_states(match=imported)) == as_played(match_hand_states(match=match))


def test_import_stores_a_match_without_seed_or_users():
    user = UserFactory()
    match = MatchFactory(seed=25)
    match_play(match, rng_seed=25, until=lambda s: s.hand_number == 1 and s.hand.tricks)
    document = match_export_record(match=match)

    imported = match_import_record(document=document, imported_by=user)

    assert imported.imported is True
    assert imported.imported_by == user
    assert imported.seed is None
    assert imported.table is None
    assert imported.version == 0
    seats = list(imported.seats.order_by("index"))
    assert [s.name for s in seats] == document["players"]
    assert all(s.user is None and s.computer_level is None for s in seats)
    assert list(imported.hands.values_list("seed", flat=True)) == [None, None]
    assert imported.hakem_draw["cards"] == document["hakem_draw"]["cards"]


def test_export_leaves_out_a_hand_at_its_trump_call_R3_1(django_assert_num_queries):
    match = MatchFactory(seed=26)
    match_play(match, rng_seed=26, until=lambda s: s.hand_number == 1)
    match = Match.objects.get(pk=match.pk)

    with django_assert_num_queries(3):
        document = match_export_record(match=match)

    assert Hand.objects.filter(match=match).count() == 2
    assert len(document["hands"]) == 1


def test_export_of_partner_drawn_match_has_no_hakem_draw_R2_3():
    match = MatchFactory(seed=27, partner_draw=True)
    match_play(match, rng_seed=27, until=lambda s: s.hand.is_over)
    document = match_export_record(match=match)
    assert "hakem_draw" not in document

    imported = match_import_record(document=document)

    assert imported.hakem_draw is None
    assert match_export_record(match=imported) == document


def test_faulty_record_raises_and_writes_nothing_R4_2():
    match = MatchFactory(seed=28)
    played = match_play(match, rng_seed=28, until=lambda s: s.hand.is_over)
    document = match_export_record(match=match)
    Match.objects.all().delete()
    # Make the second card of some trick a revoke: a card of another suit its player holds.
    hand = played.shadow.hand
    faulty = copy.deepcopy(document)
    for number, trick in enumerate(hand.tricks):
        seat = trick.seat_of(1, 4)
        led = trick.cards[0].suit
        later = [
            c
            for t in hand.tricks[number + 1 :]
            for i, c in enumerate(t.cards)
            if t.seat_of(i, 4) == seat and c.suit != led
        ]
        if trick.cards[1].suit == led and later:
            faulty["hands"][0]["tricks"][number][1] = later[0].text
            break
    else:
        pytest.fail("no trick to spoil")

    with pytest.raises(RecordImportError) as error:
        match_import_record(document=faulty)

    assert (error.value.hand, error.value.trick, error.value.seat) == (0, number, seat)
    assert "were led" in error.value.message
    assert nothing_stored()


def test_record_that_the_columns_cannot_hold_is_refused():
    match = MatchFactory(seed=29)
    document = match_export_record(match=match)
    Match.objects.all().delete()
    too_long = dict(document, players=["x" * 151, "b", "c", "d"])
    with pytest.raises(RecordImportError, match="players"):
        match_import_record(document=too_long)
    with pytest.raises(RecordImportError, match="target"):
        match_import_record(document=dict(document, target=2**40))
    assert nothing_stored()


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_records_of_the_corpus_import(path):
    document = load_record(path.read_text())

    imported = match_import_record(document=document)

    exported = match_export_record(match=imported)
    assert check_record(exported) == expected_verdict(path)
    # The export is the canonical form: importing it again changes nothing.
    assert match_export_record(match=match_import_record(document=exported)) == exported


def _is_json(path) -> bool:
    try:
        load_record(path.read_text())
    except RecordFault:
        return False
    return True


# A file that is not JSON never reaches the import: the caller's parse refuses it (tested with
# hokm_check in tests/engine/test_record.py).
@pytest.mark.parametrize("path", [p for p in FAULTY if _is_json(p)], ids=lambda p: p.stem)
def test_faulty_records_of_the_corpus_write_nothing(path):
    document = load_record(path.read_text())
    expected = expected_verdict(path)

    with pytest.raises(RecordImportError) as error:
        match_import_record(document=document)

    located = (error.value.hand, error.value.trick, error.value.seat)
    assert located == (expected["hand"], expected["trick"], expected["seat"])
    assert nothing_stored()


def test_card_texts_are_stored_as_written_R1_2():
    match = MatchFactory(seed=30)
    match_play(match, rng_seed=30, until=lambda s: len(s.hand.tricks) == 1)
    cards = list(CardPlay.objects.values_list("card", flat=True))
    assert len(cards) == 4
    assert all(Card.parse(text).text == text for text in cards)


# -- the names in an exported record ---------------------------------------------------------------


def test_export_names_computer_players_by_their_seat_after_the_partner_draw_R2_3():
    """RECORD.md: ``players`` are in play order after the re-seating of R2.3. A computer player's
    stored name carries the seat it sat down in; the export gave "Hard bot 2" for
    seat 1 and the other way round. It now names each seat as the replay does."""
    seats = [
        SeatSpec(name=computer_player_name(level="hard", index=i), computer_level="hard")
        for i in range(4)
    ]
    match = MatchFactory(variant="hokm4", target=1, seed=41, partner_draw=True, seats=seats)
    stored = list(match.seats.order_by("index").values_list("name", flat=True))
    # Seed 41 swaps the first two seats (R2.3).
    assert stored[:2] == [computer_player_name(level="hard", index=i) for i in (1, 0)]
    match_play(match, rng_seed=41)

    document = match_export_record(match=match)

    assert document["players"] == [computer_player_name(level="hard", index=i) for i in range(4)]
    assert check_record(document)["valid"] is True
