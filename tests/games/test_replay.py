"""The replay page (games.history.replay, games.history.replay_views.replay): every position it can
show agrees with the engine, hands are face up only once the match is over (R8.3), who may open
it, and a fixed number of queries whatever the length of the match."""

from __future__ import annotations

import json
import re
from collections import Counter
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from games.engine import Card, MatchState, Phase, get_variant
from games.history.records import match_import_record
from games.lobby.services import INVITED_SESSION_KEY
from games.models import Match
from games.play.rendering import card_face
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, TableFactory, UserFactory, match_play
from tests.record_corpus import CORPUS

pytestmark = pytest.mark.django_db

RECORDS = CORPUS / "valid"
VARIANTS = ["hokm4", "hokm3", "hokm2", "hokm2-draw"]


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


def _seated(variant: str, users: list | None = None, **kwargs) -> Match:
    players = get_variant(variant).players
    users = users or [None] * players
    seats = [SeatSpec(name=f"p{i}", user=user) for i, user in enumerate(users)]
    # A fixed seed, so each test plays the same match whatever ran before it.
    kwargs.setdefault("seed", 2024)
    return MatchFactory(variant=variant, seats=seats, **kwargs)


# -- what a position shows, read from the data as static/js/replay.js reads it ------------------


def _position(data: dict, hand_index: int, k: int) -> dict:
    """The position after ``k`` cards of hand ``hand_index``: the same arithmetic as replay.js."""
    players = data["players"]
    hand = data["hands"][hand_index]
    plays = [
        ((trick["leader"] + order) % players, card)
        for trick in hand["tricks"]
        for order, card in enumerate(trick["cards"])
    ]
    played = {card for _, card in plays[:k]}
    complete = k // players
    seat_tricks = Counter(hand["tricks"][t]["winner"] for t in range(complete))
    variant = get_variant(data["variant"])
    side_tricks = [0] * data["sides"]
    for seat, won in seat_tricks.items():
        side_tricks[variant.side_of(seat)] += won
    position = {
        "completed": [(t["leader"], t["cards"], t["winner"]) for t in hand["tricks"][:complete]],
        "current": hand["tricks"][complete]["cards"][: k % players] if k % players else [],
        "tricks_won": [seat_tricks[s] for s in range(players)],
        "side_tricks": side_tricks,
        "counts": [
            hand["counts"][s] - sum(1 for seat, _ in plays[:k] if seat == s) for s in range(players)
        ],
        "scores": hand["score_after"] if k == len(plays) and hand["result"] else None,
    }
    if "cards" in hand:
        position["holdings"] = [
            sorted(c for c in hand["cards"][s] if c not in played) for s in range(players)
        ]
    return position


def _engine_position(state: MatchState) -> dict:
    hand = state.hand
    return {
        "completed": [(t.leader, [c.text for c in t.cards], t.winner) for t in hand.tricks],
        "current": [c.text for c in hand.current],
        "tricks_won": list(hand.tricks_won),
        "side_tricks": list(hand.side_tricks()),
        "counts": [len(h) for h in hand.holdings],
        "holdings": [sorted(c.text for c in h) for h in hand.holdings],
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_position_agrees_with_the_engine(client, variant):
    """For every state the engine went through while the match was played through the services,
    the page's data gives the same holdings, tricks, leaders, winners, tricks won per seat and
    per side, and the score before and after each hand (R4.1, R4.3, R5, R7)."""
    match = _seated(variant, target=3)
    played = match_play(match, rng_seed=11)
    assert played.match.status == Match.Status.FINISHED
    data = _page_data(client.get(_url(match)).content.decode())
    assert data["revealed"] is True
    assert len(data["hands"]) == len(played.hands)

    positions = 0
    for state in played.states:
        hand = state.hand
        if hand.phase not in (Phase.PLAY, Phase.DONE):
            continue
        number = state.hand_number
        k = len(hand.played)
        shown = _position(data, number, k)
        expected = _engine_position(state)
        for key in ("completed", "current", "tricks_won", "side_tricks", "counts", "holdings"):
            assert shown[key] == expected[key], (key, number, k)
        if shown["scores"] is not None:
            assert shown["scores"] == list(state.scores)
        else:
            assert data["hands"][number]["score_before"] == list(state.scores)
        positions += 1
    assert positions > 50

    for number, hand in enumerate(played.hands):
        row = data["hands"][number]
        assert (row["hakem"], row["dealer"]) == (hand.hakem, hand.dealer)
        assert row["trump"] == hand.trump.value
        assert row["number"] == number + 1
        result = hand.result
        assert row["result"]["winner"] == result.winner
        assert row["result"]["points"] == result.points
        assert row["result"]["kot"] == result.kot
        assert row["result"]["hakem_kot"] == result.hakem_kot
        assert row["result"]["tricks_won"] == list(result.tricks_won)


def test_hokm2_draw_shows_the_holdings_after_the_draw_and_the_discards_R3_5(client):
    """In hokm2-draw the cards face up are each seat's 13 after the draw, as RECORD.md's
    `cards`, and the discards are the 3 and 2 put down, then one card thrown per draw turn (the
    Hakem has 11 of the 21 turns, the dealer 10)."""
    match = _seated("hokm2-draw", target=1)
    played = match_play(match, rng_seed=3)
    data = _page_data(client.get(_url(match)).content.decode())
    for number, state in enumerate(played.hands):
        row = data["hands"][number]
        assert all(len(cards) == 13 for cards in row["cards"])
        for seat in range(2):
            pile = row["discards"][seat]
            hakem = seat == state.hakem
            assert len(pile["discarded"]) == (3 if hakem else 2)
            assert len(pile["thrown"]) == (11 if hakem else 10)
            assert pile["discarded"] + pile["thrown"] == [c.text for c in state.discards[seat]]
            assert not set(row["cards"][seat]) & set(pile["discarded"] + pile["thrown"])


def test_finished_match_shows_every_hand_face_up_R8_3(client):
    match = _seated("hokm4", target=1)
    played = match_play(match, rng_seed=2)
    html = client.get(_url(match)).content.decode()
    data = _page_data(html)
    hand = played.hands[0]
    # Each seat's cards as dealt, whether they were played before the hand was decided or not.
    dealt = [sorted(c.text for c in cards) for cards in _dealt(hand)]
    assert [sorted(cards) for cards in data["hands"][0]["cards"]] == dealt
    assert sorted(_faces(html)) == sorted(card.text for card in hand.deck)


def _dealt(hand) -> list[list[Card]]:
    players = hand.players
    cards = [list(h) for h in hand.holdings]
    for trick in hand.tricks:
        for index, card in enumerate(trick.cards):
            cards[trick.seat_of(index, players)].append(card)
    return cards


# -- an unfinished match: only the cards played, to anyone (R8.3) -------------------------------


def _card_marks(text: str) -> list[str]:
    with translation.override("en"):
        label = str(card_face(text).label)
    return [f'"{text}"', label]


@pytest.fixture
def match_in_first_hand():
    """A hokm4 match with users in every seat, in the middle of its first hand."""
    users = [UserFactory() for _ in range(4)]
    match = _seated("hokm4", users, table=TableFactory(variant="hokm4"))
    played = match_play(
        match, rng_seed=4, until=lambda s: len(s.hand.tricks) == 5 and len(s.hand.current) == 2
    )
    return played, users


def test_unfinished_match_shows_no_hidden_card_to_its_players_or_anyone_R8_3(
    client, match_in_first_hand
):
    """Each player of the match, a spectator and a visitor get a page where no card still in a
    hand appears anywhere: not in the data, the card faces, a label or an attribute."""
    played, users = match_in_first_hand
    match = played.match
    hand = played.shadow.hand
    hidden = {card.text for card in hand.deck} - {card.text for card in hand.played}
    assert len(hidden) == 52 - 22
    viewers = [*users, UserFactory(), None]
    for viewer in viewers:
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
        assert all("cards" not in row and "discards" not in row for row in data["hands"])
        assert sorted(_faces(html)) == sorted(card.text for card in hand.played)
        # Only the number of cards each seat holds, which the live table shows too.
        assert data["hands"][0]["counts"] == [13, 13, 13, 13]


def test_unfinished_match_shows_finished_hands_face_up_and_only_cards_played_of_the_next_R8_3(
    client,
):
    """R8.3: finished hands become fully visible in history and replay, while the match goes
    on; of the hand in play the page names only the cards played, and it is replayable to its
    last card only."""
    match = _seated("hokm4", target=7)
    played = match_play(
        match, rng_seed=6, until=lambda s: s.hand_number == 2 and len(s.hand.current) == 3
    )
    html = client.get(_url(match)).content.decode()
    data = _page_data(html)
    assert len(data["hands"]) == 3 and data["revealed"] is False
    for number, (row, state) in enumerate(zip(data["hands"], played.hands, strict=True)):
        named = [card for trick in row["tricks"] for card in trick["cards"]]
        assert named == [c.text for t in state.tricks for c in t.cards] + [
            c.text for c in state.current
        ]
        if number < 2:  # over: every seat's 13 cards, those not played included
            assert state.result is not None
            dealt = [sorted(c.text for c in state.holdings[s]) for s in range(4)]
            for seat in range(4):
                played_by_seat = [t.cards[(seat - t.leader) % 4].text for t in state.tricks]
                assert sorted(row["cards"][seat]) == sorted(dealt[seat] + played_by_seat)
                assert len(row["cards"][seat]) == 13
        else:
            assert "cards" not in row
    assert data["hands"][2]["tricks"][-1]["winner"] is None
    shown = {c for row in data["hands"] for t in row["tricks"] for c in t["cards"]}
    shown |= {c for row in data["hands"][:2] for cards in row["cards"] for c in cards}
    assert set(_faces(html)) == shown
    # Of the hand in play, nothing but its cards played: no seat's cards, no discards.
    assert set(data["hands"][2]) & {"cards", "discards"} == set()


def test_unfinished_match_dealt_but_not_called_shows_nothing_of_the_deal_R3_1(client):
    match = _seated("hokm4", target=7)
    match_play(match, rng_seed=8, until=lambda s: s.hand_number == 1)
    html = client.get(_url(match)).content.decode()
    data = _page_data(html)
    second = data["hands"][1]
    assert second["started"] is False and second["tricks"] == [] and second["trump"] is None
    assert "cards" not in second
    assert second["counts"][second["hakem"]] == 5


def test_abandoned_import_shows_its_unfinished_hand_face_up(client):
    """An imported record that stops mid-hand is over (abandoned): its hands, the unfinished one
    included, are face up, and that hand plays back to its last card."""
    user = UserFactory()
    document = json.loads((RECORDS / "hokm4_unfinished_partial.json").read_text())
    match = match_import_record(document=document, imported_by=user)
    assert match.status == Match.Status.ABANDONED
    client.force_login(user)
    data = _page_data(client.get(_url(match)).content.decode())
    assert data["revealed"] is True
    last = data["hands"][-1]
    recorded = document["hands"][-1]
    assert [sorted(c) for c in last["cards"]] == [sorted(c) for c in recorded["cards"]]
    assert [t["cards"] for t in last["tricks"]] == recorded["tricks"]
    assert last["result"] is None and last["score_after"] is None


# -- the viewer's seat ----------------------------------------------------------------------------


def test_a_player_sees_the_table_from_his_seat_others_from_seat_0(client):
    users = [UserFactory() for _ in range(4)]
    match = _seated("hokm4", users, target=1)
    match_play(match, rng_seed=1)
    client.force_login(users[2])
    html = client.get(_url(match)).content.decode()
    assert _page_data(html)["viewer"] == 2
    assert re.search(r'class="rp-seat rp-seat--bottom" data-seat="2"', html)
    assert re.search(r'class="rp-seat rp-seat--right" data-seat="3"', html)
    client.logout()
    html = client.get(_url(match)).content.decode()
    assert _page_data(html)["viewer"] == 0
    assert re.search(r'class="rp-seat rp-seat--bottom" data-seat="0"', html)


def test_hand_list_names_each_hand_hakem_trump_result_and_score(client):
    match = _seated("hokm4", target=3)
    played = match_play(match, rng_seed=5)
    html = unescape(client.get(_url(match)).content.decode())
    items = re.findall(r'<a class="rp-hand-link[^"]*" href="#h(\d+)"[^>]*>(.*?)</a>', html, re.S)
    assert [int(number) for number, _ in items] == list(range(1, len(played.hands) + 1))
    scores = [0, 0]
    for (_, item), hand in zip(items, played.hands, strict=True):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", item))
        scores[hand.result.winner] += hand.result.points
        winners = " & ".join(f"p{seat}" for seat in (hand.result.winner, hand.result.winner + 2))
        assert f"Hakem: p{hand.hakem}" in text
        assert f"trump {hand.trump.plural}" in text
        assert f"{winners} won the hand: {hand.result.points} point" in text
        assert text.strip().endswith(f"{scores[0]} – {scores[1]}")
        assert ("Kot" in text) == hand.result.kot
    final = re.search(r"Final score (.*?)</span>", html, re.S).group(1)
    assert re.sub(r"<[^>]+>|\s", "", final) == f"{scores[0]}–{scores[1]}"


# -- who may open a replay (games.play.access) -------------------------------------------------


def _finished(**kwargs) -> Match:
    match = _seated("hokm4", target=1, **kwargs)
    match_play(match, rng_seed=1)
    return Match.objects.get(pk=match.pk)


def test_replay_of_a_public_match_opens_for_anyone(client):
    match = _finished(table=TableFactory())
    assert client.get(_url(match)).status_code == 200


def test_private_match_sends_a_visitor_to_sign_in(client):
    match = _finished(table=TableFactory(is_private=True))
    response = client.get(_url(match))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert "next=" in response["Location"]


def test_private_match_is_not_found_for_a_stranger_but_opens_with_the_invite(client):
    match = _finished(table=TableFactory(is_private=True))
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404
    session = client.session
    session[INVITED_SESSION_KEY] = [match.table_id]
    session.save()
    assert client.get(_url(match)).status_code == 200


def test_no_spectators_means_players_only_while_it_is_played(client):
    users = [UserFactory() for _ in range(4)]
    match = _seated("hokm4", users=users, table=TableFactory(allow_spectators=False))
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404
    client.force_login(users[1])
    assert client.get(_url(match)).status_code == 200
    client.force_login(UserFactory(is_staff=True))
    assert client.get(_url(match)).status_code == 200


def test_once_over_a_public_table_s_match_is_anyone_s_even_without_spectators(client):
    match = _finished(table=TableFactory(allow_spectators=False))
    assert client.get(_url(match)).status_code == 200
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 200


def test_imported_match_is_its_importer_s_alone(client):
    owner = UserFactory()
    document = json.loads((RECORDS / "hokm4_target1.json").read_text())
    match = match_import_record(document=document, imported_by=owner)
    assert client.get(_url(match)).status_code == 302
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404
    client.force_login(owner)
    assert client.get(_url(match)).status_code == 200


def test_no_such_match_is_404(client):
    assert client.get(reverse("games:replay", kwargs={"match_id": 999999})).status_code == 404


def test_replay_answers_only_reads(client):
    match = _finished()
    assert client.post(_url(match)).status_code == 405


# -- speed: a fixed number of queries ------------------------------------------------------------


def test_query_count_is_pinned_whatever_the_length_of_the_match(client, django_assert_num_queries):
    """match and table, seats, hands, plays: four queries for a visitor; a signed-in player adds
    the session, the user and the seated check of games.play.access. The same for a one-hand match
    and a long one."""
    users = [UserFactory() for _ in range(4)]
    short = _seated("hokm4", users, target=1, table=TableFactory())
    match_play(short, rng_seed=1)
    long = _seated("hokm4", users, target=7, table=TableFactory())
    played = match_play(long, rng_seed=2)
    assert len(played.hands) >= 7 and sum(len(h.played) for h in played.hands) > 7 * 30

    for match in (short, long):
        with django_assert_num_queries(4):
            assert client.get(_url(match)).status_code == 200
    client.force_login(users[0])  # then also his sanctions (moderation.middleware)
    for match in (short, long):
        with django_assert_num_queries(8):
            assert client.get(_url(match)).status_code == 200


# -- the replay of a voided match ------------------------------------------------------------------


def _replay_page(client, match: Match) -> str:
    return client.get(_url(match)).content.decode()


def _page_text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_replay_of_a_voided_match_names_no_winner_R7_1(client):
    """A moderator's void takes the result away (as on the summary and in the history): the
    replay no longer says who won the match, and says why."""
    match = MatchFactory(variant="hokm4", target=1, seed=31)
    match_play(match, rng_seed=31)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.winner_side is not None
    assert _page_data(_replay_page(client, match))["match_result"]

    Match.objects.filter(pk=match.pk).update(voided=True)
    html = _replay_page(client, match)

    data = _page_data(html)
    assert data["match_result"] is None
    assert "won the match" not in _page_text_of(html)
    assert "A moderator voided this match" in _page_text_of(html)
    # The hands themselves stay as they were played, face up (R8.3).
    assert data["revealed"] is True and data["hands"][0]["result"] is not None
