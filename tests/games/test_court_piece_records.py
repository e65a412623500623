"""Court Piece records (RECORD.md, "Variant court-piece"; games.history.records): a stored match
exports as a record the checker accepts, a record imports as the rows live play writes, import
then export gives the same document back under every mix of table settings (R9.11), and a faulty
record is refused with the checker's own fault and nothing stored."""

from __future__ import annotations

import copy
import json
import random

import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    CourtPieceDeal,
    CourtPieceMatch,
    CourtPieceOptions,
    HiddenTrump,
    Suit,
    check_court_piece_record,
    court_piece_apply,
    new_court_piece_match,
    next_deal,
)
from games.engine.court_piece import build_court_piece_record
from games.history.records import RecordImportError, match_export_record, match_import_record
from games.models import CardPlay, Hand, Match, MatchSeat, Trick
from games.play.selectors import court_piece_deals, match_state_build, positions
from tests.games.factories import UserFactory
from tests.games.test_court_piece_history import (
    NAMES,
    OPTION_MIXES,
    SIDE0_WON,
    court_piece_choice,
    court_piece_match,
    court_piece_play,
    scripted_record,
)

pytestmark = pytest.mark.django_db


def _stored_rows() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Match, MatchSeat, Hand, Trick, CardPlay))


# -- export ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["plain", "double-sir-ace-rule", "chosen", "blind-double-sir-ace"])
def test_export_of_a_played_match_passes_the_checker_and_round_trips(name):
    """A match played through the services exports as a valid, complete record whose results are
    the stored ones (R9.7 to R9.10); importing it and exporting again gives the same document."""
    options = OPTION_MIXES[name]
    match = court_piece_match(options, seed=17, target=2, max_deals=2)
    played = court_piece_play(match, rng_seed=17)
    document = match_export_record(match=played.match)
    verdict = check_court_piece_record(document)
    assert verdict["valid"] is True and verdict["complete"] is True
    assert verdict["score"] == played.match.scores and verdict["winner"] == played.match.winner_side
    assert document["options"] == options.to_json() and document["max_deals"] == 2
    assert document["players"] == NAMES
    assert document["dealer_draw"] == played.match.hakem_draw
    hands = list(Hand.objects.filter(match=played.match).order_by("number"))
    for hand, entry in zip(hands, verdict["hands"], strict=True):
        assert (hand.dealer, hand.hakem) == (entry["dealer"], entry["caller"])
        assert hand.points == entry["courts"] and hand.outcome == entry["result"]
        assert hand.reveal == entry["reveal"]

    imported = match_import_record(document=json.loads(json.dumps(document)))
    assert match_export_record(match=imported) == document
    positions.clear()
    assert match_state_build(match=imported).summaries == played.shadow.summaries


def test_export_leaves_out_a_deal_at_its_call_R9_4_2(django_assert_num_queries):
    """The chosen indicator is not laid yet: that deal has no record form (its cards are not all
    dealt), and the export makes three queries (seats, deals, plays)."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    match = court_piece_match(options, seed=2)
    with django_assert_num_queries(3):
        document = match_export_record(match=match)
    assert document["hands"] == []
    assert check_court_piece_record(document)["valid"] is True


def test_record_download_of_a_court_piece_match(client):
    match = court_piece_match(OPTION_MIXES["blind"], seed=3)
    url = reverse("games:match_record", kwargs={"match_id": match.pk})
    # R8.3, R9.15.1: not while it is played, its record names the indicator and every hand.
    assert client.get(url).status_code == 403
    court_piece_play(match, rng_seed=3)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="hokm-court-piece-')
    document = json.loads(response.content)
    assert check_court_piece_record(document)["valid"] is True
    assert document["hands"][0]["hidden"]["card"] == Hand.objects.get(match=match).indicator


# -- import then export, under every mix of settings (R9.11) ---------------------------------------

OPTIONS = st.builds(
    lambda double_sir, ace_rule, hidden, goon, ace_caller: CourtPieceOptions(
        double_sir=double_sir,
        ace_rule=double_sir and ace_rule,  # R9.11: the ace rule needs Double Sir
        hidden_trump=hidden,
        goon_court=goon,
        ace_caller=ace_caller,
    ),
    st.booleans(),
    st.booleans(),
    st.sampled_from(list(HiddenTrump)),
    st.booleans(),
    st.none() | st.sampled_from(list(Suit)),
)


def _engine_match(
    options: CourtPieceOptions, *, seed: int, target: int, max_deals: int | None, stop: int | None
) -> tuple[CourtPieceMatch, list[CourtPieceDeal]]:
    """A match played at random in the engine, to its end or for ``stop`` steps, and the latest
    state of each of its deals."""
    state = new_court_piece_match(options, seed=seed, target=target, max_deals=max_deals)
    deals = [state.deal]
    rng = random.Random(seed)
    steps = 0
    while not state.is_over and (stop is None or steps < stop):
        action = court_piece_choice(state, rng)
        if action is None:
            state = next_deal(state)
            deals.append(state.deal)
        else:
            state = court_piece_apply(state, action)
            deals[-1] = state.deal
        steps += 1
    return state, deals


@settings(max_examples=25, deadline=None)
@given(
    options=OPTIONS,
    seed=st.integers(0, 2**32),
    target=st.integers(1, 3),
    max_deals=st.none() | st.integers(1, 3),
    stop=st.none() | st.integers(0, 120),
)
def test_import_then_export_gives_the_same_document_under_every_option_mix_R9_11(
    options, seed, target, max_deals, stop
):
    state, deals = _engine_match(options, seed=seed, target=target, max_deals=max_deals, stop=stop)
    document = build_court_piece_record(
        options=options,
        target=target,
        max_deals=max_deals,
        players=NAMES,
        draw=state.draw,
        deals=deals,
    )
    verdict = check_court_piece_record(document)
    assert verdict["valid"] is True, verdict
    match = match_import_record(document=copy.deepcopy(document))
    assert match.imported and match.seed is None
    assert match.status == (Match.Status.FINISHED if state.is_over else Match.Status.ABANDONED)
    assert match.scores == verdict["score"] and match.winner_side == verdict["winner"]
    assert match.options == options.to_json() and match.max_deals == max_deals
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    assert len(hands) == len(document["hands"])
    assert all(hand.seed is None for hand in hands)
    for hand, entry in zip(hands, verdict["hands"], strict=False):
        assert hand.points == entry["courts"] and hand.streak_court == entry["streak_court"]
        assert hand.goon == entry["goon"] and hand.reveal == entry["reveal"]
    # The deals rebuilt from the rows are the engine's, played or not to their end.
    rebuilt = court_piece_deals(match=match)
    played = [deal for deal in deals if deal.phase.value != "call"]
    assert [deal.tricks for deal in rebuilt] == [deal.tricks for deal in played]
    assert [deal.result for deal in rebuilt] == [deal.result for deal in played]
    assert match_export_record(match=match) == document


def test_unfinished_record_round_trips_mid_trick_after_a_reveal_R9_14_2():
    """A record that stops right after a seat asked for trump, before its card: the reveal is
    stored and exported where it was (RECORD.md: the reveal comes before that seat's card)."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    for seed in range(200):
        state = new_court_piece_match(options, seed=seed)
        rng = random.Random(seed)
        while not state.is_over and not state.deal.revealed:
            state = court_piece_apply(state, court_piece_choice(state, rng))
        if state.deal.revealed and not state.deal.is_over:
            break
    document = build_court_piece_record(
        options=options, target=1, players=NAMES, draw=state.draw, deals=[state.deal]
    )
    match = match_import_record(document=copy.deepcopy(document))
    assert match.status == Match.Status.ABANDONED
    reveal = state.deal.reveal
    assert Hand.objects.get(match=match).reveal == {"trick": reveal.trick, "seat": reveal.seat}
    assert match_export_record(match=match) == document


# -- faulty records: the checker's fault, and nothing stored -------------------------------------


def _valid() -> dict:
    return scripted_record([SIDE0_WON], target=1, max_deals=1)


def _hidden_valid() -> dict:
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    return scripted_record([SIDE0_WON], target=1, max_deals=1, options=options)


def _faulty(name: str) -> dict:
    if name == "ace_rule_without_double_sir":
        document = _valid()
        document["options"]["ace_rule"] = True
    elif name == "unknown_setting":
        document = _valid()
        document["options"]["trumps"] = 2
    elif name == "caller_not_dealer_plus_1":
        document = _valid()
        document["hands"][0]["caller"] = 2
    elif name == "not_following_suit":
        document = _valid()
        trick = document["hands"][0]["tricks"][0]
        trick[1], document["hands"][0]["tricks"][1][1] = (
            document["hands"][0]["tricks"][1][1],
            trick[1],
        )
    elif name == "indicator_played_before_its_reveal":
        document = _hidden_valid()
        hand = document["hands"][0]
        hand["tricks"] = [[hand["hidden"]["card"]]]  # the caller leads it
    elif name == "hidden_missing":
        document = _hidden_valid()
        document["hands"][0]["hidden"] = None
    elif name == "trick_after_the_deal_was_decided":
        document = _valid()
        document["hands"][0]["tricks"].append(["2S", "2H", "2D", "2C"])
    else:
        raise AssertionError(name)
    return document


FAULTS = [
    "ace_rule_without_double_sir",
    "unknown_setting",
    "caller_not_dealer_plus_1",
    "not_following_suit",
    "indicator_played_before_its_reveal",
    "hidden_missing",
    "trick_after_the_deal_was_decided",
]


@pytest.mark.parametrize("name", FAULTS)
def test_faulty_record_is_refused_with_the_checker_fault_and_nothing_stored(name):
    document = _faulty(name)
    verdict = check_court_piece_record(document)
    assert verdict["valid"] is False
    before = _stored_rows()
    with pytest.raises(RecordImportError) as refused:
        match_import_record(document=document)
    assert refused.value.to_json() == verdict
    assert _stored_rows() == before


def test_the_import_page_shows_a_court_piece_fault_and_stores_nothing(client):
    client.force_login(UserFactory())
    document = _faulty("indicator_played_before_its_reveal")
    verdict = check_court_piece_record(document)
    before = _stored_rows()
    response = client.post(reverse("games:record_import"), {"text": json.dumps(document)})
    assert response.status_code == 200
    html = response.content.decode()
    assert "This record cannot be imported" in html
    assert f"trick {verdict['trick'] + 1}" in html and "R9.14.3" in html
    assert _stored_rows() == before


def test_the_import_page_opens_a_court_piece_record_in_its_replay(client):
    user = UserFactory()
    client.force_login(user)
    document = _hidden_valid()
    response = client.post(reverse("games:record_import"), {"text": json.dumps(document)})
    assert response.status_code == 302
    match = Match.objects.get(imported_by=user)
    assert response["Location"] == reverse("games:replay", kwargs={"match_id": match.pk})
    assert match.variant == "court-piece" and match.status == Match.Status.FINISHED
    assert client.get(response["Location"]).status_code == 200


def test_a_max_deals_too_large_to_store_is_refused():
    document = _valid()
    document["max_deals"] = 2**31
    before = _stored_rows()
    with pytest.raises(RecordImportError, match="max_deals"):
        match_import_record(document=document)
    assert _stored_rows() == before
