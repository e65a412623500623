"""Fixtures for the accounts tests (the empty cache and fast hashing are in tests/conftest.py)."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.accounts.players import make_player


@pytest.fixture
def player(db: None) -> User:
    return make_player()
