"""Writes for the account pages that allauth does not do itself."""

from __future__ import annotations

from accounts.models import User


def user_set_display_name(*, user: User, display_name: str) -> User:
    """Store the name shown at the table; the caller has validated it (``DisplayNameForm``)."""
    user.display_name = display_name
    user.save(update_fields=["display_name"])
    return user
