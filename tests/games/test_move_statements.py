"""What a move costs the database (issue 24): the statements of one client action, pinned. A
move is one transaction (SAVEPOINT and RELEASE here, where the test's own transaction wraps it;
BEGIN and COMMIT on the live site) with, in between:

1. the match's row locked, its seats read with it (one ``SELECT ... FOR UPDATE OF``);
2. the client's id claimed at the version the action makes (``INSERT ... ON CONFLICT``);
3. what the action changes: a card's row (and a new trick's, or a finished trick's winner), the
   hand's row only when a column of it changes (the trump, the tricks won);
4. the match's row (its version) and 5. the event.

The position is the one the last move left in this process (``games.play.selectors.positions``),
as on the live site: nothing of the hand is read.
"""

from __future__ import annotations

import pytest

from games.engine import MatchState, match_apply, match_legal_actions
from games.models import ClientAction, Match
from games.play.services import SeatSpec, match_client_action, match_create
from tests.games.factories import UserFactory, shadow_of

pytestmark = pytest.mark.django_db

#: Statements of one move, the test's SAVEPOINT and RELEASE included.
CALL_TRUMP = 7  # + the hand's trump
CARD = 7  # a card within a trick: + its play
LEAD = 8  # a trick's first card: + the trick, + its play
LAST = 9  # a trick's last card: + its play, + the trick's winner, + the hand's tricks won


def _expected(state: MatchState) -> int:
    hand = state.hand
    if hand.trump is None:
        return CALL_TRUMP
    if not hand.current:
        return LEAD
    if len(hand.current) == hand.players - 1:
        return LAST
    return CARD


def test_a_move_takes_a_fixed_few_statements(
    django_assert_num_queries, django_capture_on_commit_callbacks
) -> None:
    people = [UserFactory() for _ in range(4)]
    with django_capture_on_commit_callbacks(execute=True):  # keeps hand 0's position
        match = match_create(
            variant="hokm4",
            target=7,
            seats=[SeatSpec(name=p.username, user=p) for p in people],
            seed=11,
        )
    state = shadow_of(match)
    seen = set()
    for seq in range(1, 30):  # the trump call and seven tricks: the hand is not over yet
        action = match_legal_actions(state)[0]
        expected = _expected(state)
        # The callbacks (keeping the position, sending the event) run after the count, on
        # commit, as on the live site.
        with (
            django_capture_on_commit_callbacks(execute=True),
            django_assert_num_queries(expected),
        ):
            result = match_client_action(
                match=match.pk,
                seat=action.seat,
                action=action,
                client_seq=seq,
                user=people[action.seat],
            )
        assert result.applied and result.version == seq
        state = match_apply(state, action)
        seen.add(expected)
    assert seen == {CALL_TRUMP, CARD, LEAD, LAST}


def test_an_action_sent_again_costs_two_statements_and_changes_nothing(
    django_assert_num_queries, django_capture_on_commit_callbacks
) -> None:
    people = [UserFactory() for _ in range(4)]
    match = match_create(
        variant="hokm4",
        target=7,
        seats=[SeatSpec(name=p.username, user=p) for p in people],
        seed=11,
    )
    action = match_legal_actions(shadow_of(match))[0]
    with django_capture_on_commit_callbacks(execute=True):
        first = match_client_action(
            match=match.pk, seat=action.seat, action=action, client_seq=1, user=people[0]
        )
    # The lock with the seats, the claim that finds the id taken, its version: SAVEPOINT and
    # RELEASE around them.
    with django_assert_num_queries(5):
        again = match_client_action(
            match=match.pk, seat=action.seat, action=action, client_seq=1, user=people[0]
        )
    assert (first.applied, again.applied) == (True, False)
    assert again.version == first.version == 1
    assert Match.objects.get(pk=match.pk).version == 1
    assert ClientAction.objects.filter(match=match).count() == 1
