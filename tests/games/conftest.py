"""Fixtures for the games tests."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.games.factories import UserFactory


@pytest.fixture
def people(db: None) -> list[User]:
    """Ali, Sara, Reza and Mina, for the four seats of a hokm4 match in seat order."""
    return [UserFactory(username=name) for name in ("ali", "sara", "reza", "mina")]
