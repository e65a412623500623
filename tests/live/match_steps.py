"""Moving a live match on through the services, as its players and the dealer would, while the
live tests watch what their sockets get."""

from __future__ import annotations

import itertools

from games.engine import legal_actions
from games.models import Match
from games.play.selectors import match_state_build
from games.play.services import match_client_action, match_deal_next_hand

#: client_seq values, unique per (match, seat) because they are unique in the whole run.
SEQ = itertools.count(1)


def step(match_id: int) -> str:
    """One change: the first legal action of the seat on turn, or the next deal once the hand is
    decided. Returns the event kind it made."""
    state = match_state_build(match=Match.objects.get(pk=match_id))
    if state.awaiting_next_hand:
        match_deal_next_hand(match=match_id)
        return "hand_dealt"
    action = legal_actions(state.hand)[0]
    match_client_action(match=match_id, seat=action.seat, action=action, client_seq=next(SEQ))
    return action.kind


def steps(match_id: int, count: int) -> list[str]:
    return [step(match_id) for _ in range(count)]
