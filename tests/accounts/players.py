"""Test players: accounts as they are after a completed sign-up, a client signed in as one, and the
sign-up form posted."""

from __future__ import annotations

from datetime import timedelta

from allauth.account.models import EmailAddress
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from moderation.models import Sanction

PASSWORD = "felt-and-seven-tricks"


def make_player(username: str = "roya", *, email: str | None = None, **fields: object) -> User:
    """An active player whose email address is confirmed, so allauth lets them log in."""
    email = email or f"{username.lower()}@example.com"
    user = User.objects.create_user(username=username, email=email, password=PASSWORD, **fields)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def client_for(user: User) -> Client:
    """A test client signed in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def sign_up(client: Client, **fields: str) -> HttpResponse:
    """Post the sign-up form: Sara's username, address and a good password, ``fields`` on top."""
    data = {
        "username": "sara_k",
        "email": "sara@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    } | fields
    return client.post(reverse("account_signup"), data)


def sanction_in_force(
    user: User, kind: str, *, minutes: int | None = 60, reason: str = "Abuse in chat"
) -> Sanction:
    """A sanction in force from a second ago for ``minutes`` (None: no end), written straight to
    the table as the moderation services would."""
    now = timezone.now()
    return Sanction.objects.create(
        user=user,
        kind=kind,
        reason=reason,
        starts_at=now - timedelta(seconds=1),
        ends_at=now + timedelta(minutes=minutes) if minutes is not None else None,
    )
