"""The wire form of actions (docs/protocol.md): anything malformed is refused with
ActionFormatError and a readable reason, never another exception (R4.4: a refusal changes
nothing)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Action, ActionFormatError, CallTrump, Suit, action_from_json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
KINDS = st.sampled_from(["call_trump", "discard", "keep_or_throw", "play_card"]) | JSON


@settings(max_examples=500, deadline=None)
@given(kind=KINDS, seat=JSON, suit=JSON, cards=JSON, keep=JSON, card=JSON)
def test_any_json_is_an_action_or_a_readable_refusal(kind, seat, suit, cards, keep, card):
    data = {"type": kind, "seat": seat, "suit": suit, "cards": cards, "keep": keep, "card": card}
    try:
        action = action_from_json(data)
    except ActionFormatError as error:
        assert str(error)
    else:
        assert isinstance(action, Action)


def test_a_suit_that_is_not_text_is_refused():
    """Found by the socket fuzzer: a list or object as the suit raised TypeError."""
    for suit in (["S"], {"S": 1}, 1, None, True):
        try:
            action_from_json({"type": "call_trump", "seat": 0, "suit": suit})
        except ActionFormatError as error:
            assert "S, H, D or C" in str(error)
        else:
            raise AssertionError(f"{suit!r} was accepted")
    assert action_from_json({"type": "call_trump", "seat": 0, "suit": "H"}) == CallTrump(
        0, Suit.HEARTS
    )
