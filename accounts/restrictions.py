"""What keeps a player from signing in, chatting or playing: the questions the site asks.

The answers belong to moderation, which sits above the games and accounts apps and so cannot be
imported by them (docs/architecture.md). It registers them here from its ``AppConfig.ready``;
until something registers, nobody is restricted. Each answer says why in the language active
when :meth:`Restriction.message` is called, so a socket can tell a player in his own language.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.http import HttpRequest, HttpResponse


@dataclass(frozen=True, slots=True)
class Restriction:
    """A restriction in force on a player now: its kind and why, until when."""

    kind: str
    describe: Callable[[], str]

    def message(self) -> str:
        """Why and until when, in the active language."""
        return self.describe()


class RestrictionSource(Protocol):
    """What the registered source answers (moderation's sanctions in force)."""

    def blocked(self, *, user: Any) -> Restriction | None: ...

    def muted(self, *, user: Any) -> Restriction | None: ...

    def play_banned(self, *, user: Any) -> Restriction | None: ...

    def sign_in_refusal(self, *, request: HttpRequest, user: Any) -> HttpResponse | None: ...

    def reported_pairs(
        self, *, user_ids: Collection[int], since: datetime
    ) -> set[frozenset[int]]: ...


_source: RestrictionSource | None = None


def restrictions_register(source: RestrictionSource | None) -> None:
    """Make ``source`` answer every question below (None: nobody is restricted)."""
    global _source
    _source = source


def blocked(*, user: Any) -> Restriction | None:
    """The suspension or ban that keeps the player (a user or his id) out of the site now."""
    return _source.blocked(user=user) if _source is not None else None


def muted(*, user: Any) -> Restriction | None:
    """The mute in force on the player's chat now."""
    return _source.muted(user=user) if _source is not None else None


def play_banned(*, user: Any) -> Restriction | None:
    """What keeps the player from starting or joining a match now."""
    return _source.play_banned(user=user) if _source is not None else None


def sign_in_refusal(*, request: HttpRequest, user: Any) -> HttpResponse | None:
    """The page a player gets instead of being signed in, if he is kept out; None to go on."""
    return _source.sign_in_refusal(request=request, user=user) if _source is not None else None


def reported_pairs(*, user_ids: Collection[int], since: datetime) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` of which one reported the other since ``since``: the seek
    pool seats neither with the other (docs/pairing.md)."""
    if _source is None or not user_ids:
        return set()
    return _source.reported_pairs(user_ids=user_ids, since=since)
