"""The replay of Court Piece (R9, games.history.replay_court_piece): every position agrees with
the engine, with the same position links as Hokm (#h3t5c2); the indicator of hidden trump is face
down until the card of the seat that revealed it (R9.14.2); under Double Sir the pile and each
collection (R9.12); a finished deal is fully visible (R9.15.1) and of a deal in play nothing
hidden reaches the page, to anyone (R8.3, R9.15.1)."""

from __future__ import annotations

import json
import re
from collections import Counter
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from games.engine import CourtPieceDeal, CourtPieceOptions, HiddenTrump, PlayCard, court_piece_view
from games.models import Match
from games.play.rendering import card_face
from tests.games.factories import UserFactory
from tests.games.test_court_piece_history import (
    NAMES,
    OPTION_MIXES,
    court_piece_match,
    court_piece_play,
    seed_where,
)

pytestmark = pytest.mark.django_db

PLAYERS = 4


def _url(match: Match) -> str:
    return reverse("games:replay", kwargs={"match_id": match.pk})


def _page_data(html: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))


def _faces(html: str) -> list[str]:
    template = re.search(r'<template id="replay-faces">(.*?)</template>', html, re.S)
    assert template, "the page embeds the card faces"
    return re.findall(r'data-card="([2-9TJQKA][SHDC])"', template.group(1))


# -- a position, read from the data as static/js/replay.js reads it --------------------------------


def _revealed_at(hand: dict, k: int, plays: int) -> bool:
    """replay.js ``revealedAt``: face up after the card of the seat that revealed (R9.14.2), or at
    once when that card is not played yet."""
    reveal = hand["hidden"] and hand["hidden"]["reveal"]
    if not reveal:
        return False
    return k > reveal["at"] or (k == reveal["at"] and k == plays)


def _position(data: dict, number: int, k: int) -> dict:
    hand = data["hands"][number]
    plays = [
        ((trick["leader"] + order) % PLAYERS, card)
        for trick in hand["tricks"]
        for order, card in enumerate(trick["cards"])
    ]
    played = {card for _, card in plays[:k]}
    complete = k // PLAYERS
    tricks = hand["tricks"][:complete]
    revealed = _revealed_at(hand, k, len(plays))
    caller = hand["caller"]
    extra = [
        [hand["hidden"]["card"]] if seat == caller and revealed else [] for seat in range(PLAYERS)
    ]
    seat_tricks = Counter(t["winner"] for t in tricks)
    position = {
        "completed": [(t["leader"], t["cards"], t["winner"]) for t in tricks],
        "current": hand["tricks"][complete]["cards"][: k % PLAYERS] if k % PLAYERS else [],
        "tricks_won": [seat_tricks[s] for s in range(PLAYERS)],
        "counts": [
            hand["counts"][s] + len(extra[s]) - sum(1 for seat, _ in plays[:k] if seat == s)
            for s in range(PLAYERS)
        ],
        "revealed": revealed,
        "trump": hand["trump"] if not hand["hidden"] or revealed else None,
    }
    if hand["double_sir"]:
        collected = Counter()
        for trick in tricks:
            if trick["collected_by"] is not None:
                collected[trick["collected_by"]] += trick["collected"]
        position["collected"] = [collected[s] for s in range(PLAYERS)]
        position["pile"] = tricks[-1]["pile"] if tricks else 0
    if "cards" in hand:
        position["holdings"] = [
            sorted(c for c in hand["cards"][s] + extra[s] if c not in played)
            for s in range(PLAYERS)
        ]
    return position


def _engine_position(deal: CourtPieceDeal) -> dict:
    position = {
        "completed": [(t.leader, [c.text for c in t.cards], t.winner) for t in deal.tricks],
        "current": [c.text for c in deal.current],
        "tricks_won": list(deal.tricks_won),
        "counts": [len(h) for h in deal.holdings],
        "revealed": deal.revealed,
        "trump": deal.trump.value if deal.trump_known or not deal.options.hidden else None,
        "holdings": [sorted(c.text for c in h) for h in deal.holdings],
    }
    if deal.options.double_sir:
        position["collected"] = list(deal.collected)
        position["pile"] = len(deal.pile)
    return position


def _played(deal: CourtPieceDeal) -> int:
    return len(deal.played)


@pytest.mark.parametrize(
    "name", ["plain", "double-sir-ace-rule", "chosen-double-sir", "blind", "ace-caller"]
)
def test_every_position_agrees_with_the_engine_R9(client, name):
    """For every state the engine went through while the match was played through the services,
    the page's data gives the same tricks, leaders, winners, holdings, counts, reveal and trump,
    and under Double Sir the same collections and pile (R9.5, R9.12, R9.14)."""
    options = OPTION_MIXES[name]
    match = court_piece_match(options, seed=5, target=1, max_deals=2)
    played = court_piece_play(match, rng_seed=5)
    assert played.match.status == Match.Status.FINISHED
    data = _page_data(client.get(_url(match)).content.decode())
    assert data["revealed"] is True and data["court_piece"] is True
    assert len(data["hands"]) == len(played.deals) == 2

    compared = 0
    for state, action in zip(played.states[1:], played.actions, strict=True):
        deal = state.deal
        if deal.phase.value == "call" or not isinstance(action, PlayCard):
            continue  # a reveal shows with the card after it, which the next state has
        number = len(state.summaries) - (1 if deal.is_over else 0)
        k = _played(deal)
        total = _played(played.deals[number])
        reveal = deal.reveal
        if reveal is not None and not played.deals[number].revealed:
            raise AssertionError("a reveal the deal then lost")
        at = data["hands"][number]["hidden"]
        if reveal is not None and at["reveal"]["at"] == k and k < total:
            continue  # R9.14.2.3: revealed by the rules; the replay shows it with his card
        shown = _position(data, number, k)
        expected = _engine_position(deal)
        for key, value in expected.items():
            assert shown[key] == value, (key, number, k)
        compared += 1
    assert compared > 15

    for number, deal in enumerate(played.deals):
        row = data["hands"][number]
        assert (row["caller"], row["dealer"], row["hakem"]) == (
            deal.caller,
            deal.dealer,
            deal.caller,
        )
        assert row["trump"] == deal.trump.value
        assert row["number"] == number + 1
        result = deal.result
        assert result is not None
        assert row["result"]["winner"] == result.winner
        assert row["result"]["tricks_won"] == list(result.tricks_won)
        assert row["result"]["side_tricks"] == list(result.side_tricks)
        summary = played.shadow.summaries[number]
        assert row["result"]["courts"] == summary.courts
        assert row["result"]["streak"] == {
            "side": summary.streak.side,
            "count": summary.streak.count,
        }
        assert row["score_after"] == list(summary.scores)


def test_position_links_are_those_of_hokm(client):
    """#h3t5c2 is deal 3, trick 5, card 2: the list links each deal as #hN and the data counts
    tricks of four cards, as for Hokm (static/js/replay.js hashOf and parseHash)."""
    match = court_piece_match(seed=3, target=1, max_deals=3)
    played = court_piece_play(match, rng_seed=3)
    html = unescape(client.get(_url(match)).content.decode())
    items = re.findall(r'<a class="rp-hand-link[^"]*" href="#h(\d+)"[^>]*>(.*?)</a>', html, re.S)
    assert [int(number) for number, _ in items] == list(range(1, len(played.deals) + 1))
    for (_, item), deal in zip(items, played.deals, strict=True):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", item))
        assert f"Dealer: D {NAMES[deal.dealer]}" in text
        assert f"Caller: {NAMES[deal.caller]}" in text
        assert f"trump {deal.trump.plural}" in text
    data = _page_data(html)
    for hand in data["hands"]:
        assert all(len(t["cards"]) == PLAYERS for t in hand["tricks"])  # every deal ends on a trick
    assert "Deal 1 of 3" in html and "Deals" in html and "to 1 court" in html


# -- hidden trump: the indicator and the moment of its reveal (R9.14) ------------------------------


def _asked_seed(options: CourtPieceOptions) -> int:
    """A seed whose first deal a seat other than the caller asks for trump in (R9.14.2.1)."""

    def asked(state) -> bool:
        reveal = state.deal.reveal
        return reveal is not None and reveal.seat != state.deal.caller and reveal.trick > 0

    return seed_where(asked, options)


@pytest.mark.parametrize("mode", [HiddenTrump.CHOSEN, HiddenTrump.BLIND])
def test_indicator_is_face_down_until_the_card_of_the_seat_that_asked_R9_14_2(client, mode):
    options = CourtPieceOptions(hidden_trump=mode)
    seed = _asked_seed(options)
    match = court_piece_match(options, seed=seed)
    deal = court_piece_play(match, rng_seed=seed).deals[0]
    data = _page_data(client.get(_url(match)).content.decode())
    hand = data["hands"][0]
    hidden = hand["hidden"]
    reveal = deal.reveal
    leader = deal.tricks[reveal.trick].leader
    at = reveal.trick * PLAYERS + (reveal.seat - leader) % PLAYERS
    assert hidden == {
        "mode": mode.value,
        "card": deal.indicator.text,
        "reveal": {"trick": reveal.trick, "seat": reveal.seat, "at": at, "asked": True},
    }
    total = len(deal.played)
    caller = deal.caller
    indicator = deal.indicator.text
    played_at = _played_index(hand, indicator)
    for k in range(total + 1):
        position = _position(data, 0, k)
        face_up = k > at
        assert position["revealed"] is face_up, k
        assert position["trump"] == (deal.trump.value if face_up else None)
        # Apart from the caller's hand until the reveal, in it from then on (R9.14.3).
        assert (indicator in position["holdings"][caller]) is (face_up and k <= played_at), k
    # The caller's 12 cards as dealt, and the indicator apart (R9.14.1).
    assert len(hand["cards"][caller]) == 12 and deal.indicator.text not in hand["cards"][caller]
    assert hand["counts"][caller] == 12
    assert deal.indicator.text in _faces(client.get(_url(match)).content.decode())


def _played_index(hand: dict, card: str) -> int:
    """How many cards of the deal were played before ``card``; past the end if never."""
    cards = [c for t in hand["tricks"] for c in t["cards"]]
    return cards.index(card) if card in cards else len(cards) + 1


def test_a_deal_never_revealed_shows_its_indicator_at_the_end_R9_14_5(client):
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN)
    seed = seed_where(lambda s: s.deal.reveal is None, options, reveals=False)
    match = court_piece_match(options, seed=seed)
    deal = court_piece_play(match, rng_seed=seed, reveals=False).deals[0]
    hand = _page_data(client.get(_url(match)).content.decode())["hands"][0]
    assert hand["hidden"]["reveal"] is None and hand["hidden"]["card"] == deal.indicator.text
    # replay.js turns it face up at the end of the finished deal, saying it was never revealed.
    assert hand["result"] is not None and hand["trump"] == deal.trump.value
    data = {"hands": [hand]}
    total = len(deal.played)
    assert not any(_position(data, 0, k)["revealed"] for k in range(total + 1))
    assert all(_position(data, 0, k)["trump"] is None for k in range(total + 1))


# -- Double Sir: the pile and the collections (R9.12) --------------------------------------------


def test_double_sir_pile_and_collections_R9_12(client):
    options = CourtPieceOptions(double_sir=True)
    match = court_piece_match(options, seed=12)
    deal = court_piece_play(match, rng_seed=12).deals[0]
    html = client.get(_url(match)).content.decode()
    hand = _page_data(html)["hands"][0]
    pile = 0
    for number, (trick, played) in enumerate(zip(hand["tricks"], deal.tricks, strict=True)):
        pile += 1
        assert trick["collected_by"] == played.collected_by
        if played.collected_by is not None:
            assert trick["collected"] == pile
            name = NAMES[played.collected_by]
            unit = "trick" if pile == 1 else "tricks"
            assert trick["collects_text"] == f"{name} collects the pile: {pile} {unit}."
            assert trick["collected_text"] == f"Trick {number + 1}: {name} collected {pile} {unit}"
            pile = 0
        assert trick["pile"] == pile
    assert sum(t.get("collected", 0) for t in hand["tricks"]) == sum(deal.result.collected)
    assert "data-pile-box" in html and "The Double Sir pile" in html


# -- a match still being played: nothing hidden, to anyone (R8.3, R9.15.1) -----------------------


def _card_marks(text: str) -> list[str]:
    with translation.override("en"):
        label = str(card_face(text).label)
    return [f'"{text}"', label]


def test_deal_in_play_shows_no_hidden_card_no_indicator_no_pile_to_anyone_R9_15_1(client):
    """Chosen hidden trump and Double Sir, in the middle of the first deal before any reveal:
    each player (the caller who chose the indicator included), a stranger and a visitor get a
    page naming only the cards on the table now: no holding, no indicator, no trump, and no card
    of a trick gone face down to the pile."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, double_sir=True)
    users = [UserFactory() for _ in range(PLAYERS)]
    match = court_piece_match(options, seed=9, users=users)
    played = court_piece_play(
        match,
        rng_seed=9,
        reveals=False,
        until=lambda s: len(s.deal.tricks) == 4 and len(s.deal.current) == 2,
    )
    deal = played.shadow.deal
    assert not deal.revealed and not deal.is_over
    view = court_piece_view(deal, None)
    visible = {c for t in view["tricks"] if t["cards"] for c in t["cards"]}
    visible |= set(view["trick"]["cards"])
    assert visible == {c.text for c in deal.current}  # the 4 tricks lie in the pile face down
    hidden = {card.text for card in deal.deck} - visible
    assert deal.indicator.text in hidden
    for viewer in [*users, UserFactory(), None]:
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        response = client.get(_url(match))
        assert response.status_code == 200
        html = response.content.decode()
        leaks = sorted(t for t in hidden if any(mark in html for mark in _card_marks(t)))
        assert leaks == [], f"{viewer} sees hidden cards"
        data = _page_data(html)
        assert data["revealed"] is False
        hand = data["hands"][0]
        assert "cards" not in hand
        assert hand["trump"] is None
        assert hand["hidden"] == {"mode": "chosen", "card": None, "reveal": None}
        assert [t["cards"] for t in hand["tricks"][:4]] == [[None] * PLAYERS] * 4
        assert [t["winner"] for t in hand["tricks"][:4]] == [t.winner for t in deal.tricks]
        assert sorted(_faces(html)) == sorted(visible)
        # The caller holds 12 and the indicator lies apart: counts as dealt, without it.
        assert hand["counts"] == [12 if s == deal.caller else 13 for s in range(PLAYERS)]
        # Nor in the list of deals: its trump is a card back there.
        assert f"trump {deal.trump.plural}" not in html and "trump hidden, face down" in html


def test_a_reveal_in_play_is_public_R9_14_2(client):
    """Once asked for, the indicator is face up for all (R9.14.2): the replay of the deal in play
    shows it and the trump, from the card of the seat that asked."""
    options = CourtPieceOptions(hidden_trump=HiddenTrump.BLIND)
    seed = _asked_seed(options)
    match = court_piece_match(options, seed=seed)
    played = court_piece_play(match, rng_seed=seed, until=lambda s: s.deal.revealed)
    deal = played.shadow.deal
    assert deal.revealed and not deal.is_over
    html = client.get(_url(match)).content.decode()
    hand = _page_data(html)["hands"][0]
    assert "cards" not in hand
    assert hand["hidden"]["card"] == deal.indicator.text and hand["trump"] == deal.trump.value
    k = len(deal.played)
    assert _position({"hands": [hand]}, 0, k)["revealed"] is True  # its card is not played yet
    assert _position({"hands": [hand]}, 0, k)["counts"][deal.caller] == len(
        deal.holdings[deal.caller]
    )
    if k:
        assert _position({"hands": [hand]}, 0, k - 1)["revealed"] is False


def test_finished_deal_face_up_while_the_next_is_played_R9_15_1(client):
    options = CourtPieceOptions(hidden_trump=HiddenTrump.CHOSEN, double_sir=True)
    # Without a reveal only trick 13 collects (R9.14.6): a court, so a target above one.
    match = court_piece_match(options, seed=14, target=5, max_deals=3)
    played = court_piece_play(
        match,
        rng_seed=14,
        reveals=False,
        until=lambda s: s.deal_number == 1 and len(s.deal.tricks) == 3,
    )
    first, second = played.deals
    data = _page_data(client.get(_url(match)).content.decode())
    assert data["revealed"] is False
    done, playing = data["hands"]
    assert len(done["cards"]) == PLAYERS and done["hidden"]["card"] == first.indicator.text
    assert all(None not in t["cards"] for t in done["tricks"])
    assert "cards" not in playing and playing["hidden"]["card"] is None
    assert playing["result"] is None and playing["score_after"] is None
    assert sum(1 for t in playing["tricks"] if t["cards"] == [None] * PLAYERS) >= 2
    assert second.indicator is not None


# -- speed and the frame -------------------------------------------------------------------------


def test_query_count_is_fixed(client, django_assert_num_queries):
    """Match and table, seats, deals, plays: four queries, whatever the length of the match."""
    short = court_piece_match(seed=1, max_deals=1)
    court_piece_play(short, rng_seed=1)
    long = court_piece_match(OPTION_MIXES["chosen-double-sir"], seed=2, max_deals=3)
    court_piece_play(long, rng_seed=2)
    for match in (short, long):
        with django_assert_num_queries(4):
            assert client.get(_url(match)).status_code == 200


def test_frame_says_caller_courts_and_the_settings_R9_11(client):
    options = CourtPieceOptions(double_sir=True, hidden_trump=HiddenTrump.BLIND)
    match = court_piece_match(options, seed=6, target=2, max_deals=1)
    court_piece_play(match, rng_seed=6)
    html = unescape(client.get(_url(match)).content.decode())
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "to 2 courts" in text and "Caller" in text
    assert "Double Sir on" in text and "Hidden trump blind" in text
    assert "Previous deal" in text and "Start of the deal" in text
