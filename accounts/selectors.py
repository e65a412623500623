"""Reads for the account pages: API tokens (a player's statistics are in
``games.history.stats``)."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import ApiToken, User


def api_tokens_active(*, user: User) -> QuerySet[ApiToken]:
    """``user``'s tokens in force, newest first."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at")
