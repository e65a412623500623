"""Moderation's answers to the questions the layers below ask, and its reactions to them.

``accounts.restrictions`` asks who is kept out, muted or kept from playing; the games app tells
when a match is finished, so that its quitters get their play bans. Both are connected from
``ModerationConfig.ready``: the lower layers never import moderation.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse

from accounts import restrictions
from accounts.restrictions import Restriction
from games.play.signals import match_finished
from moderation import services
from moderation.enforcement import blocked_message, muted_message, play_banned_message
from moderation.middleware import blocked_response
from moderation.models import Report, Sanction
from moderation.sanctions import blocked, muted, play_banned


def _restriction(sanction: Sanction | None, describe: Any) -> Restriction | None:
    if sanction is None:
        return None
    return Restriction(kind=sanction.kind, describe=partial(describe, sanction))


class SanctionRestrictions:
    """``accounts.restrictions``'s questions, answered by the sanctions in force (and, for the
    seek pool, by the reports players made of each other)."""

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

    def reported_pairs(self, *, user_ids: Collection[int], since: datetime) -> set[frozenset[int]]:
        rows = Report.objects.filter(
            reporter_id__in=user_ids, reported_id__in=user_ids, created_at__gte=since
        ).values_list("reporter_id", "reported_id")
        return {frozenset(pair) for pair in rows}


def _quitters_penalise(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    services.quitters_penalise(match_id=match_id)


def _rating_gains_flag(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    # Its players' gains against each other, checked for farming (docs/rating-abuse.md). Sent
    # after the commit, robustly: an error here is logged and leaves the match finished.
    services.rating_gains_flag(match_id=match_id)


def connect() -> None:
    """Register the answers and subscribe to the games app's signals (idempotent)."""
    restrictions.restrictions_register(SanctionRestrictions())
    match_finished.connect(_quitters_penalise, dispatch_uid="moderation.quitters_penalise")
    match_finished.connect(_rating_gains_flag, dispatch_uid="moderation.rating_gains_flag")
