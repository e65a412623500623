"""Seeded shuffles: a stored seed reproduces a deal exactly, on any machine and Python 3 version.

``random.Random(int).shuffle`` is stable across CPython 3 releases; sub-seeds are derived with
SHA-256 so that the Hakem draw and each hand of a match get independent shuffles (R2.6, R6.4).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BITS = 63  # fits a signed 64-bit database column


def new_seed() -> int:
    """A fresh unpredictable seed for a match."""
    return secrets.randbits(SEED_BITS)


def derive_seed(seed: int, *labels: object) -> int:
    """A sub-seed for one purpose, e.g. ``derive_seed(match_seed, "hand", 3)``."""
    text = "/".join([str(seed), *map(str, labels)])
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """A seeded permutation of ``items``."""
    result = list(items)
    random.Random(seed).shuffle(result)
    return result
