"""Fixtures for the ratings tests."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from accounts.models import User
from accounts.roles import MODERATORS_GROUP
from tests.accounts.players import make_player


@pytest.fixture
def moderator(db: None) -> User:
    """Mina, staff and in the moderators' group: she voids matches."""
    user = make_player("mina", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    return user
