"""Events go out only after the commit, one per version, and never show a hidden card (R8.3)."""

import re

import pytest

from games.engine import FULL_DECK, VARIANTS, CallTrump, NotYourTurnError, Suit
from games.models import Hand
from games.play.services import match_apply_action
from lib import realtime
from tests.games.factories import MatchFactory, match_play

pytestmark = pytest.mark.django_db

CARD_TEXTS = {card.text for card in FULL_DECK}


class RecordingLayer:
    """A channel layer that keeps what is sent to groups."""

    def __init__(self):
        self.sent = []

    async def group_send(self, group, message):
        self.sent.append((group, message))


@pytest.fixture
def layer(monkeypatch):
    recording = RecordingLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: recording)
    return recording


def cards_in(value):
    """Every card text anywhere in an event's data."""
    if isinstance(value, dict):
        return [card for item in value.values() for card in cards_in(item)]
    if isinstance(value, list | tuple):
        return [card for item in value for card in cards_in(item)]
    if isinstance(value, str):
        return [text for text in re.findall(r"[2-9TJQKA][SHDC]", value) if text in CARD_TEXTS]
    return []


def test_event_is_sent_only_after_commit(layer, django_capture_on_commit_callbacks):
    match = MatchFactory(seed=1)
    hakem = Hand.objects.get(match=match).hakem

    with django_capture_on_commit_callbacks() as callbacks:
        match_apply_action(match=match, seat=hakem, action=CallTrump(hakem, Suit.CLUBS))
        assert layer.sent == []

    # The position is kept for the next move first, then the event goes out.
    assert len(callbacks) == 2
    assert layer.sent == []
    callbacks[0]()
    assert layer.sent == []
    callbacks[1]()
    assert layer.sent == [
        (
            f"match.{match.pk}",
            {
                "type": "match.event",
                "kind": "call_trump",
                "version": 1,
                "data": {"hand": 0, "seat": hakem, "trump": "C"},
            },
        )
    ]


def test_refused_action_sends_nothing(layer, django_capture_on_commit_callbacks):
    match = MatchFactory(seed=1)
    other = (Hand.objects.get(match=match).hakem + 1) % 4
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(NotYourTurnError),
    ):
        match_apply_action(match=match, seat=other, action=CallTrump(other, Suit.CLUBS))
    assert callbacks == []
    assert layer.sent == []


def test_creation_sends_the_public_draw_R2_2(layer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = MatchFactory(seed=5)
    [(group, message)] = layer.sent
    assert group == f"match.{match.pk}"
    assert message["kind"] == "match_created"
    assert message["version"] == 0
    data = message["data"]
    assert data["hakem_draw"] == match.hakem_draw
    assert data["players"] == ["player0", "player1", "player2", "player3"]
    # Hand 0 is dealt, but none of its cards is in the event: only the public flips are.
    draw_cards = set(match.hakem_draw["cards"])
    assert set(cards_in(data)) <= draw_cards


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_events_never_show_a_hidden_card_R8_3(variant, layer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        # A short match still has every kind of event: calls, plays, results, new hands.
        match = MatchFactory(variant=variant, seed=17, target=3)
        played = match_play(match, rng_seed=17)

    messages = [message for _, message in layer.sent]
    # One event per version, in order, from creation to the last card.
    assert [m["version"] for m in messages] == list(range(len(played.states)))
    for message in messages[1:]:
        state = played.states[message["version"]]
        visible = {card.text for card in state.hand.played}
        assert set(cards_in(message["data"])) <= visible, message
    kinds = {m["kind"] for m in messages}
    assert {"match_created", "call_trump", "play_card", "hand_dealt"} <= kinds
    last = messages[-1]["data"]
    assert last["match_winner"] == played.shadow.winner
    assert last["scores"] == list(played.shadow.scores)


def test_events_of_the_draw_say_no_card_R3_5(layer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = MatchFactory(variant="hokm2-draw", seed=2)
        match_play(match, rng_seed=2, until=lambda s: s.hand.phase.value == "play")
    by_kind = {}
    for _, message in layer.sent:
        by_kind.setdefault(message["kind"], []).append(message["data"])
    assert [d["count"] for d in by_kind["discard"]] == [3, 2]
    assert [d["turn"] for d in by_kind["keep_or_throw"]] == list(range(21))
    assert all(set(d) == {"hand", "seat", "turn"} for d in by_kind["keep_or_throw"])
    assert all(cards_in(d) == [] for d in by_kind["discard"] + by_kind["keep_or_throw"])
