"""Moderation's answers to the questions the layers below ask, and its reactions to them.

``accounts.restrictions`` asks who is kept out, muted or kept from playing; the games app tells
when a match is finished, so that its quitters get their play bans. Both are connected from
``ModerationConfig.ready``: the lower layers never import moderation.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse

from accounts import restrictions
from accounts.restrictions import Restriction
from games.play.signals import match_finished
from moderation import services
from moderation.enforcement import blocked_message, muted_message, play_banned_message
from moderation.middleware import blocked_response
from moderation.models import Sanction
from moderation.sanctions import blocked, muted, play_banned


def _restriction(sanction: Sanction | None, describe: Any) -> Restriction | None:
    if sanction is None:
        return None
    return Restriction(kind=sanction.kind, describe=partial(describe, sanction))


class SanctionRestrictions:
    """``accounts.restrictions``'s questions, answered by the sanctions in force."""

    def blocked(self, *, user: Any) -> Restriction | None:
        return _restriction(blocked(user=user), blocked_message)

    def muted(self, *, user: Any) -> Restriction | None:
        return _restriction(muted(user=user), muted_message)

    def play_banned(self, *, user: Any) -> Restriction | None:
        return _restriction(play_banned(user=user), play_banned_message)

    def sign_in_refusal(self, *, request: HttpRequest, user: Any) -> HttpResponse | None:
        sanction = blocked(user=user) if user.pk is not None else None
        if sanction is None:
            return None
        return blocked_response(request, sanction)


def _quitters_penalise(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    services.quitters_penalise(match_id=match_id)


def connect() -> None:
    """Register the answers and subscribe to the games app's signals (idempotent)."""
    restrictions.restrictions_register(SanctionRestrictions())
    match_finished.connect(_quitters_penalise, dispatch_uid="moderation.quitters_penalise")
