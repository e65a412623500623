"""Fixtures for the moderation tests (``player``, Roya, is in tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from accounts.models import User
from accounts.roles import MODERATORS_GROUP
from tests.accounts.players import make_player


@pytest.fixture
def moderator(db: None) -> User:
    """Mina, staff and in the moderators' group."""
    user = make_player("mina", is_staff=True)
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    user.groups.add(group)
    return user


@pytest.fixture
def bahar(db: None) -> User:
    return make_player("bahar")
