"""The services store whole matches exactly as the engine plays them, and refuse what it refuses."""

import pytest

from games.engine import (
    HOKM4,
    SPECTATOR,
    VARIANTS,
    CallTrump,
    IllegalActionError,
    MatchOverError,
    MustFollowSuitError,
    NotYourTurnError,
    PlayCard,
    Suit,
    deal_deck,
    draw_hakem,
    hand_seed,
    view,
)
from games.models import CardPlay, Hand, Match, MatchSeat, Trick, deck_from_text
from games.play.selectors import hand_state_build, match_state_build
from games.play.services import (
    SeatSpec,
    StaleVersionError,
    match_apply_action,
    match_create,
    match_deal_next_hand,
)
from tests.games.factories import (
    MatchFactory,
    UserFactory,
    engine_hand_search,
    match_play,
    seat_specs,
)

pytestmark = pytest.mark.django_db


def row_counts(match: Match) -> dict:
    return {
        "hands": Hand.objects.filter(match=match).count(),
        "tricks": Trick.objects.filter(hand__match=match).count(),
        "plays": CardPlay.objects.filter(hand__match=match).count(),
    }


def assert_stored_hand_is_engine_hand(hand: Hand, engine_hand) -> None:
    """The rebuilt state is the engine's, and so is every view of it (R8.3)."""
    rebuilt = hand_state_build(hand=hand)
    assert rebuilt == engine_hand
    for seat in [SPECTATOR, *range(engine_hand.players)]:
        assert view(rebuilt, seat) == view(engine_hand, seat)
    if engine_hand.is_over:
        assert view(rebuilt, 0, reveal=True) == view(engine_hand, 0, reveal=True)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_whole_match_is_stored_and_rebuilt_exactly_R5_R6_R7(variant):
    match = MatchFactory(variant=variant, seed=11)

    def rebuilds_exactly(state):
        # Every version, partial tricks and the R3.5 draw included, not only finished hands.
        hand = Hand.objects.select_related("match").get(match=match, number=state.hand_number)
        assert hand_state_build(hand=hand) == state.hand
        if state.hand.is_over or not state.hand.tricks:
            assert match_state_build(match=hand.match) == state

    played = match_play(match, rng_seed=5, on_step=rebuilds_exactly)

    shadow = played.shadow
    assert shadow.is_over
    hands = list(Hand.objects.filter(match=match).select_related("match").order_by("number"))
    assert len(hands) == len(shadow.results) == len(played.hands)
    for hand, engine_hand, result in zip(hands, played.hands, shadow.results, strict=True):
        assert_stored_hand_is_engine_hand(hand, engine_hand)
        assert hand.status == Hand.Status.FINISHED
        assert hand.finished_at is not None
        assert (hand.winner_side, hand.points, hand.kot, hand.hakem_kot) == (
            result.winner,
            result.points,
            result.kot,
            result.hakem_kot,
        )
        assert tuple(hand.tricks_won) == result.tricks_won
        assert hand.trump == engine_hand.trump.value
        assert deck_from_text(hand.deck) == engine_hand.deck
        tricks = list(Trick.objects.filter(hand=hand).order_by("number"))
        assert [(t.leader, t.winner) for t in tricks] == [
            (t.leader, t.winner) for t in engine_hand.tricks
        ]
        plays = CardPlay.objects.filter(hand=hand).order_by("trick__number", "order")
        assert [(p.seat, p.card) for p in plays] == [
            (t.seat_of(i, engine_hand.players), c.text)
            for t in engine_hand.tricks
            for i, c in enumerate(t.cards)
        ]
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.finished_at is not None
    assert tuple(match.scores) == shadow.scores
    assert match.winner_side == shadow.winner
    assert match.version == len(played.states) - 1


def test_version_bumps_on_every_change():
    match = MatchFactory(seed=4)
    assert match.version == 0
    played = match_play(match, rng_seed=1, until=lambda s: len(s.hand.tricks) == 2)
    match.refresh_from_db()
    # One call, one version; the stored version counts every call the play made.
    assert match.version == len(played.states) - 1 == len(played.actions)


def test_deal_next_hand_bumps_version_and_follows_R6():
    match = MatchFactory(seed=8)
    played = match_play(match, rng_seed=8, until=lambda s: s.hand.is_over)
    match.refresh_from_db()
    version = match.version

    match_deal_next_hand(match=match)

    match.refresh_from_db()
    assert match.version == version + 1
    hand = Hand.objects.get(match=match, number=1)
    result = played.shadow.hand.result
    assert hand.hakem == result.next_hakem  # R6.1, R6.2
    assert hand.dealer == HOKM4.dealer_for(hand.hakem)  # R2.5
    assert hand.seed == hand_seed(match.seed, 1)
    assert deck_from_text(hand.deck) == deal_deck(HOKM4, hand.seed)  # R6.4


def test_deal_next_hand_while_hand_is_played_is_refused_R6():
    match = MatchFactory(seed=2)
    before = row_counts(match)
    with pytest.raises(IllegalActionError):
        match_deal_next_hand(match=match)
    match.refresh_from_db()
    assert row_counts(match) == before
    assert match.version == 0


def test_action_by_seat_not_on_turn_is_refused_and_writes_nothing_R4_4():
    match = MatchFactory(seed=9)
    hakem = Hand.objects.get(match=match).hakem
    other = (hakem + 1) % 4
    before = row_counts(match)

    with pytest.raises(NotYourTurnError):
        match_apply_action(match=match, seat=other, action=CallTrump(other, Suit.SPADES))

    match.refresh_from_db()
    assert match.version == 0
    assert row_counts(match) == before
    assert Hand.objects.get(match=match).trump is None


def test_card_not_following_suit_is_refused_and_writes_nothing_R4_2():
    match = MatchFactory(seed=21)

    def revoke_possible(state):
        hand = state.hand
        if not hand.current:
            return False
        holding = hand.holdings[hand.to_act]
        return any(c.suit == hand.led_suit for c in holding) and any(
            c.suit != hand.led_suit for c in holding
        )

    played = match_play(match, rng_seed=21, until=revoke_possible)
    hand = played.shadow.hand
    seat = hand.to_act
    revoke = next(c for c in hand.holdings[seat] if c.suit != hand.led_suit)
    match.refresh_from_db()
    version, before = match.version, row_counts(match)
    stored = Hand.objects.get(match=match, number=played.shadow.hand_number)

    with pytest.raises(MustFollowSuitError):
        match_apply_action(match=match, seat=seat, action=PlayCard(seat, revoke))

    match.refresh_from_db()
    assert match.version == version
    assert row_counts(match) == before
    assert not CardPlay.objects.filter(hand=stored, card=revoke.text).exists()
    after = Hand.objects.get(pk=stored.pk)
    assert after.tricks_won == stored.tricks_won


def test_seat_must_be_the_actions_seat():
    match = MatchFactory(seed=9)
    hakem = Hand.objects.get(match=match).hakem
    with pytest.raises(IllegalActionError, match="own seat"):
        match_apply_action(match=match, seat=(hakem + 1) % 4, action=CallTrump(hakem, Suit.SPADES))
    match.refresh_from_db()
    assert match.version == 0


def test_stale_expected_version_is_refused_and_writes_nothing():
    match = MatchFactory(seed=9)
    hakem = Hand.objects.get(match=match).hakem
    action = CallTrump(hakem, Suit.HEARTS)
    with pytest.raises(StaleVersionError):
        match_apply_action(match=match, seat=hakem, action=action, expected_version=3)
    match_apply_action(match=match.pk, seat=hakem, action=action, expected_version=0)
    match.refresh_from_db()
    assert match.version == 1
    assert Hand.objects.get(match=match).trump == "H"


def test_finished_match_refuses_actions_and_deals_R7_1():
    match = MatchFactory(variant="hokm2", target=1, seed=14)
    played = match_play(match, rng_seed=14)
    assert played.match.status == Match.Status.FINISHED
    hand = Hand.objects.get(match=match)
    with pytest.raises(MatchOverError):
        match_apply_action(match=match, seat=hand.hakem, action=CallTrump(hand.hakem, Suit.SPADES))
    with pytest.raises(MatchOverError):
        match_deal_next_hand(match=match)


def test_kot_scores_two_R5_2():
    def hakem_side_kot(hand):
        return hand.result.kot and not hand.result.hakem_kot

    seed = engine_hand_search("hokm4", hakem_side_kot)
    match = MatchFactory(seed=seed)
    match_play(match, rng_seed=seed, until=lambda s: s.hand.is_over)
    hand = Hand.objects.get(match=match)
    match.refresh_from_db()
    assert (hand.kot, hand.hakem_kot, hand.points) == (True, False, 2)
    assert hand.winner_side == hand.hakem % 2
    assert match.scores[hand.winner_side] == 2


def test_hakem_kot_scores_three_R5_2():
    seed = engine_hand_search("hokm4", lambda hand: hand.result.hakem_kot)
    match = MatchFactory(seed=seed)
    match_play(match, rng_seed=seed, until=lambda s: s.hand.is_over)
    hand = Hand.objects.get(match=match)
    match.refresh_from_db()
    assert (hand.kot, hand.hakem_kot, hand.points) == (True, True, 3)
    assert hand.winner_side != hand.hakem % 2
    assert match.scores[hand.winner_side] == 3


def test_partner_draw_reseats_players_R2_3():
    # A seed whose second ace goes to a seat beside the Hakem, so that somebody must move.
    seed = next(
        s for s in range(200) if draw_hakem(HOKM4, s, partner_draw=True).seating != (0, 1, 2, 3)
    )
    seating = draw_hakem(HOKM4, seed, partner_draw=True).seating
    users = [UserFactory(username=f"sitter{i}") for i in range(4)]
    seats = [SeatSpec(name=f"sitter{i}", user=users[i]) for i in range(4)]

    match = match_create(variant="hokm4", target=7, seats=seats, seed=seed, partner_draw=True)

    stored = list(MatchSeat.objects.filter(match=match).order_by("index"))
    assert [s.name for s in stored] == [f"sitter{old}" for old in seating]
    assert [s.user for s in stored] == [users[old] for old in seating]
    draw = match.hakem_draw
    assert draw["seating"] == list(seating)
    partner = draw["partner_seats"][-1]
    # The partner, whatever seat he drew from, now sits opposite the Hakem (R1.4).
    assert stored[(draw["hakem"] + 2) % 4].name == f"sitter{partner}"
    assert Hand.objects.get(match=match).hakem == draw["hakem"]


@pytest.mark.parametrize("variant", ["hokm3", "hokm2", "hokm2-draw"])
def test_partner_draw_is_for_four_players_only_R2_3(variant):
    with pytest.raises(ValueError, match="R2.3"):
        match_create(variant=variant, target=7, seats=seat_specs(variant), partner_draw=True)
    assert not Match.objects.exists()


def test_match_create_needs_one_seat_per_player():
    with pytest.raises(ValueError, match="played by 4"):
        match_create(variant="hokm4", target=7, seats=seat_specs("hokm3"))
    assert not Match.objects.exists()


def test_match_create_stores_seats_and_first_hand_R2_2():
    user = UserFactory()
    seats = [
        SeatSpec(name="you", user=user),
        SeatSpec(name="bot1", computer_level="easy"),
        SeatSpec(name="bot2", computer_level="expert"),
    ]
    match = match_create(variant="hokm3", target=5, seats=seats, seed=77)
    assert (match.variant, match.target, match.seed, match.version) == ("hokm3", 5, 77, 0)
    assert match.status == Match.Status.PLAYING
    assert match.scores == [0, 0, 0]
    assert [(s.user, s.computer_level) for s in match.seats.order_by("index")] == [
        (user, None),
        (None, "easy"),
        (None, "expert"),
    ]
    hand = Hand.objects.get(match=match)
    assert hand.hakem == match.hakem_draw["hakem"]
    assert hand.seed == hand_seed(77, 0)
    assert len(deck_from_text(hand.deck)) == 51  # R3.3


def test_seat_spec_is_a_user_or_a_computer():
    with pytest.raises(ValueError, match="not both"):
        SeatSpec(name="x", user=object(), computer_level="easy")
    with pytest.raises(ValueError, match="name"):
        SeatSpec(name=" ")
    with pytest.raises(ValueError, match="level"):
        SeatSpec(name="x", computer_level="godlike")
