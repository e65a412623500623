"""Court Piece (R9) through the services: whole matches under every option mix are stored and
rebuilt exactly as the engine plays them, refusals change nothing, and no event names a hidden
indicator (R9.14, R9.15)."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    CallTrump,
    ChooseIndicator,
    CourtPieceOptions,
    Discard,
    HiddenTrump,
    IllegalActionError,
    PlayCard,
    RevealTrump,
    Suit,
    WrongPhaseError,
    court_piece_apply,
    court_piece_legal_actions,
    court_piece_match_view,
    new_court_piece_match,
    next_deal,
)
from games.models import CardPlay, Hand, Match, MatchEvent
from games.play.selectors import match_state_build, positions
from games.play.services import (
    SeatSpec,
    match_apply_action,
    match_create,
    match_deal_next_hand,
)

pytestmark = pytest.mark.django_db

SEATS = [SeatSpec(name=name) for name in ("ali", "sara", "reza", "mina")]

OPTION_MIXES = {
    "plain": CourtPieceOptions(),
    "no-goon": CourtPieceOptions(goon_court=False),
    "double-sir": CourtPieceOptions(double_sir=True),
    "double-sir-ace-rule": CourtPieceOptions(double_sir=True, ace_rule=True),
    "chosen": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
    "blind": CourtPieceOptions(hidden_trump=HiddenTrump.BLIND),
    "chosen-double-sir": CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, double_sir=True),
    "blind-double-sir-ace": CourtPieceOptions(
        hidden_trump=HiddenTrump.BLIND, double_sir=True, ace_rule=True
    ),
    "ace-caller": CourtPieceOptions(ace_caller=Suit.HEARTS),
}


def rebuilt(match: Match):
    positions.clear()  # from the rows, not from this process's memory
    return match_state_build(match=Match.objects.get(pk=match.pk))


def hidden_indicator(shadow) -> str | None:
    """The indicator's text while nobody but (under chosen) the caller may see it."""
    deal = shadow.deal
    if deal.indicator is None or deal.revealed or deal.is_over:
        return None
    return deal.indicator.text


@pytest.mark.parametrize("name", list(OPTION_MIXES))
def test_whole_court_piece_match_is_stored_and_rebuilt_exactly_R9(name):
    options = OPTION_MIXES[name]
    match = match_create(
        variant="court-piece",
        target=2,
        seats=SEATS,
        seed=1234,
        options=options.to_json(),
        max_deals=5,
    )
    assert match.options == options.to_json() and match.max_deals == 5
    shadow = new_court_piece_match(options, seed=1234, target=2, max_deals=5)
    assert rebuilt(match) == shadow
    rng = random.Random(name)
    steps = 0
    while not shadow.is_over:
        if shadow.awaiting_next_deal:
            match_deal_next_hand(match=match)
            shadow = next_deal(shadow)
        else:
            legal = court_piece_legal_actions(shadow)
            # Ask for trump now and then when the rules allow it, so reveals are stored too.
            reveals = [a for a in legal if isinstance(a, RevealTrump)]
            action = reveals[0] if reveals and rng.random() < 0.5 else rng.choice(legal)
            secret = hidden_indicator(shadow)
            before = MatchEvent.objects.filter(match=match).count()
            match_apply_action(match=match, seat=action.seat, action=action)
            shadow = court_piece_apply(shadow, action)
            for event in MatchEvent.objects.filter(match=match)[before:]:
                if secret is not None and hidden_indicator(shadow) is not None:
                    assert secret not in str(event.data), event.data  # R9.14.1, R8.3
        steps += 1
        if steps % 7 == 0 or shadow.deal.is_over:
            assert rebuilt(match) == shadow
    stored = Match.objects.get(pk=match.pk)
    assert stored.status == Match.Status.FINISHED
    assert stored.winner_side == shadow.winner
    assert stored.scores == list(shadow.scores)
    hands = list(Hand.objects.filter(match=match).order_by("number"))
    assert len(hands) == len(shadow.summaries)
    for hand, summary in zip(hands, shadow.summaries, strict=True):
        assert (hand.hakem, hand.dealer) == (summary.caller, summary.dealer)  # R9.3.1
        assert hand.winner_side == summary.result.winner
        assert hand.points == summary.courts
        assert hand.outcome == summary.result.outcome.value
        assert hand.goon == summary.result.goon
        assert hand.streak_court == summary.streak_court
        assert hand.trump is not None  # a finished deal's trump is history (R9.15.1)
    assert rebuilt(match) == shadow
    for seat in (None, 0, 1, 2, 3):
        assert court_piece_match_view(rebuilt(match), seat) == court_piece_match_view(shadow, seat)


def test_hidden_trump_stays_out_of_the_hand_row_until_revealed_R9_14():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    match = match_create(
        variant="court-piece", target=1, seats=SEATS, seed=77, options=options.to_json()
    )
    hand = Hand.objects.get(match=match)
    shadow = new_court_piece_match(options, seed=77)
    assert hand.indicator == shadow.deal.indicator.text
    assert hand.trump is None  # history reads this column: not before the reveal
    data = MatchEvent.objects.get(match=match, version=0).data
    assert data["indicator_laid"] is True and hand.indicator not in str(data)


def test_refused_court_piece_actions_change_nothing_R9_4_R9_14():
    match = match_create(variant="court-piece", target=1, seats=SEATS, seed=5)
    shadow = new_court_piece_match(CourtPieceOptions(), seed=5)
    caller = shadow.deal.caller
    first = shadow.deal.first5[0]
    refused = [
        Discard(caller, (first,)),  # a Hokm action (R3.5) is not part of Court Piece
        ChooseIndicator(caller, first),  # trump is not hidden at this table (R9.14)
        RevealTrump(caller),  # nor can it be revealed
        PlayCard(caller, first),  # trump is not called yet (R9.4.2)
        CallTrump((caller + 1) % 4, Suit.SPADES),  # not the caller (R9.3.1)
    ]
    for action in refused:
        with pytest.raises(IllegalActionError):
            match_apply_action(match=match, seat=action.seat, action=action)
    stored = Match.objects.get(pk=match.pk)
    assert stored.version == 0
    assert CardPlay.objects.filter(hand__match=match).count() == 0
    assert Hand.objects.get(match=match).trump is None


def test_court_piece_actions_are_refused_in_hokm():
    match = match_create(variant="hokm4", target=1, seats=SEATS, seed=5)
    with pytest.raises(IllegalActionError, match="court-piece"):
        match_apply_action(match=match, seat=0, action=RevealTrump(0))
    assert Match.objects.get(pk=match.pk).version == 0


def test_table_settings_belong_to_court_piece_only_R9_11():
    with pytest.raises(ValueError, match="table settings"):
        match_create(variant="hokm4", target=1, seats=SEATS, options={"double_sir": True})
    with pytest.raises(ValueError, match="ace_rule"):
        match_create(variant="court-piece", target=1, seats=SEATS, options={"ace_rule": True})
    with pytest.raises(ValueError, match="unknown setting"):
        match_create(variant="court-piece", target=1, seats=SEATS, options={"trumps": 2})
    with pytest.raises(ValueError, match="most deals"):
        match_create(variant="court-piece", target=1, seats=SEATS, max_deals=0)
    assert not Match.objects.exists()


def test_wrong_phase_error_names_the_phase_R9_14_1():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    match = match_create(
        variant="court-piece", target=1, seats=SEATS, seed=3, options=options.to_json()
    )
    caller = Hand.objects.get(match=match).hakem
    with pytest.raises(WrongPhaseError):
        match_apply_action(match=match, seat=caller, action=CallTrump(caller, Suit.HEARTS))
