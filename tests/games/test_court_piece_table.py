"""The live Court Piece table (R9) as each seat sees it: no card it may not see (R8.3, R9.15),
the indicator face down, "Ask for trump" and "Reveal" exactly when the rules allow them
(R9.14.2), the pile (R9.12), the chase (R9.6.1) and the banners that name each result."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from django.utils import translation

from games.engine import (
    CourtPieceMatch,
    CourtPieceOptions,
    HiddenTrump,
    RevealTrump,
    Suit,
    court_piece_apply,
    court_piece_legal_actions,
    new_court_piece_match,
    next_deal,
)
from games.models import Match, MatchSeat
from games.play.rendering import render_table
from tests.games.rendered_cards import cards_named
from tests.games.test_rendering import buttons

NAMES = ("Dariush", "Sara", "Mina", "Kaveh")

MIXES = [
    CourtPieceOptions(),
    CourtPieceOptions(double_sir=True, ace_rule=True),
    CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN),
    CourtPieceOptions(hidden_trump=HiddenTrump.BLIND, double_sir=True),
    CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, ace_caller=Suit.SPADES),
]


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _cached_templates(cached_templates) -> None:
    """Templates compiled once, as in production."""


def render(state: CourtPieceMatch, seat: int | None) -> str:
    match = Match(pk=42, variant="court-piece", target=state.target, version=3)
    seats = [MatchSeat(match=match, index=i, name=NAMES[i]) for i in range(4)]
    return render_table(match=match, seats=seats, state=state, seat=seat)


def cards_allowed(state: CourtPieceMatch, seat: int | None) -> set[str]:
    """R8.3, R9.15: the seat's own cards, the trick on the table (under Double Sir the one just
    taken until the next is led, then face down), every card played otherwise, the indicator
    once revealed or, under chosen, to the caller."""
    deal = state.deal
    allowed = {c.text for c in deal.current}
    if deal.is_over or not deal.options.double_sir:
        allowed |= {c.text for t in deal.tricks for c in t.cards}
    elif deal.tricks and not deal.current:
        allowed |= {c.text for c in deal.tricks[-1].cards}
    if seat is not None:
        allowed |= {c.text for c in deal.holdings[seat]}
    if deal.indicator is not None and (
        deal.revealed or (seat == deal.caller and deal.options.hidden_trump is HiddenTrump.CHOSEN)
    ):
        allowed.add(deal.indicator.text)
    return allowed


def check(state: CourtPieceMatch, seat: int | None) -> str:
    html = render(state, seat)
    leaked = cards_named(html) - cards_allowed(state, seat)
    assert not leaked, f"seat {seat} sees {sorted(leaked)}"
    legal = court_piece_legal_actions(state) if state.deal.to_act == seat else []
    kinds = {action.kind for action in legal}
    found = buttons(html)
    enabled = {card for card, on in found.cards.items() if on}
    assert enabled == {
        action.card.text for action in legal if action.kind in ("play_card", "choose_indicator")
    }
    may_reveal = "reveal_trump" in kinds
    assert ('name="kind" value="reveal_trump"' in html) == may_reveal
    if may_reveal:
        label = "Reveal trump" if seat == state.deal.caller else "Ask for trump"
        assert label in html
    assert found.suits == (["S", "H", "C", "D"] if "call_trump" in kinds else [])
    return html


@pytest.mark.parametrize("options", MIXES, ids=lambda o: repr(o.to_json()))
def test_every_court_piece_table_shows_only_what_its_seat_may_see_R8_3_R9_15(options):
    rng = random.Random(repr(options))
    state = new_court_piece_match(options, seed=21, target=1, max_deals=2)
    while True:
        for seat in (0, 1, 2, 3, None):
            check(state, seat)
        if state.is_over:
            break
        if state.awaiting_next_deal:
            state = next_deal(state)
            continue
        legal = court_piece_legal_actions(state)
        reveals = [a for a in legal if isinstance(a, RevealTrump)]
        state = court_piece_apply(
            state, reveals[0] if reveals and rng.random() < 0.3 else rng.choice(legal)
        )


def play_until(state: CourtPieceMatch, predicate, rng: random.Random) -> CourtPieceMatch:
    while not predicate(state):
        if state.awaiting_next_deal:
            state = next_deal(state)
        else:
            state = court_piece_apply(state, rng.choice(court_piece_legal_actions(state)))
    return state


def test_indicator_lies_face_down_and_the_caller_sees_his_own_under_chosen_R9_14_1():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    state = new_court_piece_match(options, seed=4)
    caller = state.deal.caller
    html = check(state, caller)
    assert "Choose trump in secret" in html
    state = court_piece_apply(state, court_piece_legal_actions(state)[0])
    indicator = state.deal.indicator
    assert f"{indicator.suit.name.title()}, hidden" in check(state, caller)
    for seat in {0, 1, 2, 3, None} - {caller}:
        html = check(state, seat)
        assert "hidden, face down" in html and indicator.text not in html


def test_blind_indicator_is_hidden_from_the_caller_too_R9_14_1():
    state = new_court_piece_match(CourtPieceOptions(hidden_trump=HiddenTrump.BLIND), seed=8)
    for seat in (0, 1, 2, 3, None):
        assert "hidden, face down" in check(state, seat)


def test_reveal_shows_trump_to_everyone_R9_14_2():
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    rng = random.Random(3)

    def can_ask(state: CourtPieceMatch) -> bool:
        deal = state.deal
        return any(
            isinstance(a, RevealTrump) and a.seat != deal.caller
            for a in court_piece_legal_actions(state)
        )

    state = play_until(new_court_piece_match(options, seed=8), can_ask, rng)
    asker = state.deal.to_act
    assert "Ask for trump" in check(state, asker)
    state = court_piece_apply(state, RevealTrump(asker))
    trump_title = state.deal.trump.name.title()
    for seat in (0, 1, 2, 3, None):
        html = check(state, seat)
        assert "hidden, face down" not in html and trump_title in html


def test_double_sir_pile_and_collections_are_shown_R9_12():
    options = CourtPieceOptions(double_sir=True)
    state = play_until(
        new_court_piece_match(options, seed=6, target=9),
        lambda s: any(s.deal.collected) and bool(s.deal.pile) and bool(s.deal.current),
        random.Random(2),
    )
    html = check(state, 0)
    assert (
        'class="pile"' in html
        and f'<span class="pile__count" aria-hidden="true">{len(state.deal.pile)}</span>' in html
    )
    collector = next(seat for seat, count in enumerate(state.deal.collected) if count)
    count = state.deal.collected[collector]
    noun = "trick" if count == 1 else "tricks"
    assert f"{count} {noun} collected" in html


def test_court_chase_is_named_R9_6_1():
    # The first 7 tricks to one side, then the chase: a deal where seat 0's side wins them.
    rng = random.Random(0)
    for seed in range(400):
        state = new_court_piece_match(CourtPieceOptions(), seed=seed)
        state = play_until(state, lambda s: s.deal.is_over or len(s.deal.tricks) >= 7, rng)
        deal = state.deal
        if not deal.is_over and len({t.winner % 2 for t in deal.tricks[:7]}) == 1:
            assert "Playing on for 52" in check(state, 0)
            return
    pytest.fail("no chase in 400 random deals")


@pytest.mark.parametrize(
    ("outcome", "goon", "streak_court", "title"),
    [
        ("won", False, False, "You win the deal"),
        ("court", False, False, "Court!"),
        ("court", True, False, "Goon court!"),
        ("52-court", False, False, "52-court!"),
        ("won", False, True, "Seven in a row!"),
    ],
)
def test_deal_banners_name_the_result_R9_6_R9_7_R9_8(outcome, goon, streak_court, title):
    rng = random.Random(5)
    state = play_until(
        new_court_piece_match(CourtPieceOptions(), seed=2, target=60),
        lambda s: s.deal.is_over,
        rng,
    )
    summary = state.summaries[-1]
    result = replace(summary.result, outcome=type(summary.result.outcome)(outcome), goon=goon)
    summary = replace(summary, result=result, streak_court=streak_court)
    deal = replace(state.deal, result=result)
    state = replace(state, deal=deal, summaries=state.summaries[:-1] + (summary,))
    winner_seat = 0 if result.winner == 0 else 1
    html = render(state, winner_seat)
    assert title in html
