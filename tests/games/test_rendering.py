"""The live table fragment (games.play.rendering): what each seat's HTML may show, and that it
shows it.

Random matches of every variant are played with the engine; after every action the table is
rendered for each seat and for a spectator, and every card the HTML names (card texts, the
spoken labels, the printed corner indices) must be one that seat may see (R8.3): its own hand,
the cards played, and in hokm2-draw its own discards and the stock's top card on its turn.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest
from django.utils import translation
from django.utils.html import escape

from games.engine import (
    VARIANTS,
    Card,
    MatchState,
    Phase,
    match_apply,
    match_legal_actions,
    new_match,
    next_hand,
    sorted_hand,
    view,
)
from games.models import Match, MatchSeat
from games.play.rendering import card_face, render_flash, render_table
from games.play.selectors import match_state_build
from tests.games.factories import MatchFactory, UserFactory, engine_hand_search, match_play
from tests.games.rendered_cards import (
    CARD_TEXT,
    PUBLIC_DRAW,
    cards_allowed,
    cards_named,
    without_public_draw,
)

EVIL_NAME = "<script>alert(1)</script>"
# Names that cannot be mistaken for card texts by the document-wide search below.
NAMES = (EVIL_NAME, "Dariush", "Mina & <b>Kaveh</b>", "Sara")


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _cached_templates(cached_templates) -> None:
    """Templates compiled once, as in production: these tests render thousands of tables."""


def _match_row(state: MatchState, *, version: int = 7) -> tuple[Match, list[MatchSeat]]:
    """Unsaved rows: the renderer reads only the id, version and status, and the seats' names."""
    match = Match(pk=42, variant=state.variant.name, target=state.target, version=version)
    seats = [
        MatchSeat(match=match, index=i, name=NAMES[i % len(NAMES)])
        for i in range(state.variant.players)
    ]
    return match, seats


def _render(state: MatchState, seat: int | None, **kwargs) -> str:
    match, seats = _match_row(state)
    return render_table(match=match, seats=seats, state=state, seat=seat, **kwargs)


class _Buttons(HTMLParser):
    """Card buttons (``data-card``) and whether each is enabled; other controls by data key."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: dict[str, bool] = {}
        self.suits: list[str] = []
        self.keeps: list[str] = []
        self.checkboxes: list[str] = []
        self.discard_counts: list[str] = []
        self.roots = 0
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self.depth == 0:
            self.roots += 1
        if tag not in {"input", "br", "img", "meta", "link"}:
            self.depth += 1
        if tag == "button" and "data-card" in found:
            self.cards[found["data-card"]] = "disabled" not in found
        if tag == "button" and "data-suit" in found:
            self.suits.append(found["data-suit"])
        if tag == "button" and "data-keep" in found:
            self.keeps.append(found["data-keep"])
        if tag == "input" and found.get("name") == "cards":
            self.checkboxes.append(found["value"])
        if tag == "form" and "data-count" in found:
            self.discard_counts.append(found["data-count"])

    def handle_endtag(self, tag: str) -> None:
        self.depth -= 1


def buttons(html: str) -> _Buttons:
    parser = _Buttons()
    parser.feed(html)
    return parser


def check_table(state: MatchState, seat: int | None) -> str:
    """Render the table for one seat and check everything R8.3 and the page promise."""
    html = _render(state, seat)
    hand = state.hand
    data = view(hand, seat)

    leaked = cards_named(html) - cards_allowed(state, seat)
    assert not leaked, f"seat {seat} sees {sorted(leaked)} in {hand.phase}"

    found = buttons(html)
    assert found.roots == 1
    assert html.startswith('<div id="table" hx-swap-oob="true"')
    legal = data.get("legal", []) if not state.is_over else []
    playable = {a["card"] for a in legal if a["type"] == "play_card"}
    enabled = {card for card, on in found.cards.items() if on}
    assert enabled == playable
    if seat is None:
        assert 'class="hand' not in html
        assert not found.cards and not found.suits and not found.keeps and not found.checkboxes
        return html

    # Every card of the seat's hand is shown, in dealt order, knowing its place when sorted.
    slots = re.findall(r'--dealt: (\d+); --sorted: (\d+)">', html)
    assert len(slots) == len(data["hand"])
    by_suit = [c.text for c in sorted_hand([Card.parse(t) for t in data["hand"]], hand.trump)]
    for (dealt, place), text in zip(slots, data["hand"], strict=True):
        assert by_suit[int(place)] == text and data["hand"][int(dealt)] == text

    calling = hand.phase is Phase.CALL and hand.to_act == seat
    assert found.suits == (["S", "H", "C", "D"] if calling else [])
    drawing = hand.phase is Phase.DRAW and hand.to_act == seat
    assert found.keeps == (["true", "false"] if drawing else [])
    discarding = hand.phase is Phase.DISCARD and hand.to_act == seat
    if discarding:
        count = 3 if seat == hand.hakem else 2
        assert found.discard_counts == [str(count)]
        assert sorted(found.checkboxes) == sorted(data["hand"])
    else:
        assert found.discard_counts == [] and found.checkboxes == []
    return html


def play_and_check(state: MatchState, rng: random.Random, *, hands: int) -> list[MatchState]:
    """Play ``hands`` hands at random, checking every seat's table after every action."""
    players = state.variant.players
    seen = []
    while True:
        for seat in [*range(players), None]:
            check_table(state, seat)
        seen.append(state)
        if state.is_over or (state.hand.is_over and len(state.results) >= hands):
            return seen
        if state.awaiting_next_hand:
            state = next_hand(state)
        else:
            state = match_apply(state, rng.choice(match_legal_actions(state)))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_table_shows_only_what_its_seat_may_see_R8_3(variant, seed):
    state = new_match(VARIANTS[variant], seed=seed, target=3)
    seen = play_and_check(state, random.Random(seed), hands=2)
    assert seen[-1].results


def test_trump_call_shows_the_hakem_his_five_and_the_others_nothing_R3_1():
    state = new_match(VARIANTS["hokm4"], seed=3)
    hakem = state.hand.hakem
    for seat in range(4):
        html = check_table(state, seat)
        found = buttons(html)
        if seat == hakem:
            assert len(found.cards) == 5
            assert 'class="call__suits"' in html
        else:
            assert found.cards == {}
            assert "is choosing the hokm" in html
            assert "Your cards are dealt once the trump suit is called." in html


def test_draw_shows_the_top_card_only_to_the_seat_on_turn_R3_5():
    rng = random.Random(4)
    state = new_match(VARIANTS["hokm2-draw"], seed=4)
    while state.hand.phase is not Phase.DRAW:
        state = match_apply(state, rng.choice(match_legal_actions(state)))
    top = state.hand.stock_top.text
    on_turn = state.hand.to_act
    assert top in cards_named(_render(state, on_turn))
    assert top not in cards_named(_render(state, 1 - on_turn))
    assert top not in cards_named(_render(state, None))
    assert f"{state.hand.stock_left} cards left in the stock" in _render(state, None)


def _first_hand_ending(variant: str, predicate) -> MatchState:
    seed = engine_hand_search(variant, predicate)
    rng = random.Random(seed)
    state = new_match(VARIANTS[variant], seed=seed)
    while not state.hand.is_over:
        state = match_apply(state, rng.choice(match_legal_actions(state)))
    return state


@pytest.mark.parametrize("variant", ["hokm4", "hokm3", "hokm2"])
def test_kot_banner_R5_2(variant):
    state = _first_hand_ending(variant, lambda h: h.result.kot and not h.result.hakem_kot)
    for seat in [*range(state.variant.players), None]:
        html = check_table(state, seat)
        assert "Kot!" in html and "Hakem Kot!" not in html
        assert "took the first 7 tricks: 2 points" in html
        assert "The next hand follows on its own." in html


@pytest.mark.parametrize("variant", ["hokm4", "hokm3"])
def test_hakem_kot_banner_names_it_R5_2(variant):
    state = _first_hand_ending(variant, lambda h: h.result.hakem_kot)
    for seat in [*range(state.variant.players), None]:
        html = check_table(state, seat)
        assert "Hakem Kot!" in html
        assert "took the first 7 tricks: 3 points" in html


@pytest.mark.parametrize(("variant", "solo"), [("hokm4", False), ("hokm3", True), ("hokm2", True)])
def test_a_side_of_one_takes_the_verb_of_one_R5_1(variant, solo):
    """hokm3 and hokm2 sides are one player each: "Sara takes the hand", "Sara wins the hand";
    hokm4's two partners "take" and "win" (the spectator's banner has the title too)."""
    state = _first_hand_ending(variant, lambda h: not h.result.kot)
    winner = state.hand.result.winner
    names = [escape(NAMES[i % len(NAMES)]) for i in state.variant.seats_of(winner)]
    label = " &amp; ".join(names)
    html = _render(state, None)
    if solo:
        assert f"{label} takes the hand:" in html and f"{label} wins the hand" in html
    else:
        assert f"{label} take the hand:" in html and f"{label} win the hand" in html


def test_a_hokm3_tie_at_the_top_is_explained_R5_3_3():
    """7-7-3 after 17 tricks: the player with 3 takes the hand, which looks like a mistake
    unless the banner says why."""

    def tie_at_the_top(hand) -> bool:
        counts = sorted(hand.result.tricks_won)
        return counts[1] == counts[2] and hand.result.tricks_won[hand.result.winner] == counts[0]

    state = _first_hand_ending("hokm3", tie_at_the_top)
    for seat in [0, 1, 2, None]:
        assert "the third player takes the hand" in check_table(state, seat)
    ordinary = _first_hand_ending("hokm3", lambda h: not tie_at_the_top(h))
    assert "the third player takes the hand" not in check_table(ordinary, None)


def test_plain_hand_end_has_no_kot_banner_R5_1():
    state = _first_hand_ending("hokm4", lambda h: not h.result.kot)
    winner = state.hand.result.winner
    for seat in range(4):
        html = check_table(state, seat)
        assert "Kot!" not in html
        mine = state.variant.side_of(seat) == winner
        assert ("You win the hand" if mine else "You lose the hand") in html
    assert "win the hand" in _render(state, None)


def test_match_end_banner_names_the_winner_R7_1():
    rng = random.Random(5)
    state = new_match(VARIANTS["hokm2"], seed=5, target=1)
    while not state.is_over:
        state = match_apply(state, rng.choice(match_legal_actions(state)))
    winner = state.winner
    assert "You win the match!" in check_table(state, winner)
    assert "You lose the match" in check_table(state, 1 - winner)
    spectator = check_table(state, None)
    assert f"{escape(NAMES[winner])} wins the match" in spectator  # one player: "wins"
    assert "The next hand follows on its own." not in spectator
    # On to the replay and the hand-by-hand summary, for everyone.
    match, _ = _match_row(state)
    for html in (spectator, check_table(state, winner)):
        assert f'href="/match/{match.pk}/replay/"' in html
        assert f'href="/match/{match.pk}/summary/"' in html


def test_a_refusal_is_shown_in_the_pages_language():
    from django.utils import translation

    from games.play.rendering import flash_text

    assert flash_text("not_your_turn", "it is seat 2's turn") == "It is not your turn."
    assert flash_text("no_such_code", "the reason given") == "the reason given"
    with translation.override("fa"):
        assert flash_text("must_follow_suit", "you hold a diamond") == (
            "باید هم‌خال بازی کنید: کارتی از خالِ شروع‌شده بازی کنید."
        )
    # What a player reads names no rule number: those are for tests and logs.
    for code in ("must_follow_suit", "not_your_turn", "card_not_held", "invalid_trump"):
        for language in ("en", "fa"):
            with translation.override(language):
                assert "(R" not in flash_text(code, "(R4.2)"), (code, language)


def test_names_are_escaped():
    state = new_match(VARIANTS["hokm4"], seed=6)
    for seat in [0, 1, None]:
        html = _render(state, seat)
        assert EVIL_NAME not in html
        assert "<b>Kaveh</b>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_flash_is_escaped_and_swaps_by_id():
    html = render_flash("<img src=x onerror=alert(1)> is not yours")
    assert html.lstrip().startswith('<div id="flash"')
    assert 'hx-swap-oob="true"' in html
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt; is not yours" in html
    table = _render(new_match(VARIANTS["hokm4"], seed=7), 0, flash="<b>too late</b>")
    assert "&lt;b&gt;too late&lt;/b&gt;" in table and "<b>too late" not in table


def test_table_carries_the_version_and_the_seat_layout():
    state = new_match(VARIANTS["hokm4"], seed=8)
    match, seats = _match_row(state, version=31)
    html = render_table(match=match, seats=seats, state=state, seat=2)
    assert 'data-version="31"' in html
    # R1.3: play goes anticlockwise, so the next seat sits on the viewer's right.
    positions = dict(re.findall(r'class="seat seat--(\w+)[^"]*" data-seat="(\d)"', html))
    assert positions == {"bottom": "2", "right": "3", "top": "0", "left": "1"}


def test_card_labels_are_spoken_names():
    assert card_face("AS").label == "ace of spades"
    assert card_face("TD").label == "10 of diamonds"
    assert card_face("QH").rank == "Q" and card_face("QH").court
    html = _render(new_match(VARIANTS["hokm4"], seed=9), None)
    # A spectator at the call sees no card at all but the public flips of the Hakem draw.
    assert "ace of" not in without_public_draw(html)


@pytest.mark.django_db
def test_stored_match_renders_the_same_through_the_selectors():
    """The path the page and the consumer take: rows, ``match_state_build``, ``render_table``."""
    users = [UserFactory() for _ in range(4)]
    match = MatchFactory(variant="hokm4", target=1)
    MatchSeat.objects.filter(match=match).update(name=EVIL_NAME)
    for seat, user in zip(match.seats.order_by("index"), users, strict=True):
        seat.user = user
        seat.save()
    played = match_play(match, rng_seed=3, until=lambda s: len(s.hand.tricks) >= 2)
    stored = Match.objects.get(pk=match.pk)
    state = match_state_build(match=stored)
    seats = list(stored.seats.order_by("index"))
    for seat in [0, 1, 2, 3, None]:
        html = render_table(match=stored, seats=seats, state=state, seat=seat)
        assert html == render_table(match=stored, seats=seats, state=played.shadow, seat=seat)
        assert f'data-version="{stored.version}"' in html
        leaked = cards_named(html) - cards_allowed(state, seat)
        assert not leaked
        assert EVIL_NAME not in html


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["hokm4", "hokm2"])
def test_the_hakem_draw_is_shown_during_the_first_hand_R2_2_R2_4(variant):
    from games.engine import HakemDraw

    match = MatchFactory(variant=variant, seed=21)
    seats = list(match.seats.order_by("index"))
    state = match_state_build(match=match)
    draw = HakemDraw.from_json(match.hakem_draw)
    html = render_table(match=match, seats=seats, state=state, seat=None)
    assert "How the Hakem was chosen" in html
    hakem_name = seats[draw.hakem].name
    assert f"<bdi>{hakem_name}</bdi> is the Hakem." in html
    section = PUBLIC_DRAW.search(html).group(0)
    assert set(CARD_TEXT.findall(section)) == {card.text for card in draw.cards}
    # From the second hand on the draw is history: the table no longer shows it.
    played = match_play(match, rng_seed=1, until=lambda s: s.hand_number == 1)
    stored = Match.objects.get(pk=played.match.pk)
    later = render_table(match=stored, seats=seats, state=match_state_build(match=stored), seat=0)
    assert "How the Hakem was chosen" not in later
