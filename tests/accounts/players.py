"""Test players: accounts as they are after a completed sign-up."""

from __future__ import annotations

from allauth.account.models import EmailAddress

from accounts.models import User

PASSWORD = "felt-and-seven-tricks"


def make_player(username: str = "roya", *, email: str | None = None, **fields: object) -> User:
    """An active player whose email address is confirmed, so allauth lets them log in."""
    email = email or f"{username.lower()}@example.com"
    user = User.objects.create_user(username=username, email=email, password=PASSWORD, **fields)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user
