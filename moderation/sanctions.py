"""Which sanctions are in force on a player now (reads only; ``moderation.services`` writes).

A sanction is in force from ``starts_at`` until ``ends_at`` (None: no end) unless lifted. The
checks here are what the rest of the site asks before letting a player in, chat or play.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from moderation.models import Sanction

#: Kinds that keep a player out of the site altogether: he cannot sign in or play.
BLOCKING = (Sanction.Kind.SUSPEND, Sanction.Kind.BAN)


def _in_force(now: datetime) -> Q:
    """Started by ``now`` and not yet ended (lifted sanctions are filtered apart)."""
    return Q(starts_at__lte=now) & (Q(ends_at__isnull=True) | Q(ends_at__gt=now))


def sanctions_in_force(
    *, user: User | int, kinds: Iterable[str] | None = None, now: datetime | None = None
) -> QuerySet[Sanction]:
    """The player's sanctions in force at ``now``, newest first."""
    now = now or timezone.now()
    rows = Sanction.objects.filter(_in_force(now), user=user, lifted_at__isnull=True)
    if kinds is not None:
        rows = rows.filter(kind__in=list(kinds))
    return rows.order_by("-starts_at", "-pk")


def sanction_in_force(
    *, user: User | int, kinds: Iterable[str], now: datetime | None = None
) -> Sanction | None:
    """The sanction of one of ``kinds`` in force that lasts longest, or None."""
    kinds = list(kinds)
    return longest(sanctions_in_force(user=user, kinds=kinds, now=now), kinds, now)


def blocked(*, user: User | int, now: datetime | None = None) -> Sanction | None:
    """The suspension or ban that keeps the player out now, if any."""
    return sanction_in_force(user=user, kinds=BLOCKING, now=now)


def muted(*, user: User | int, now: datetime | None = None) -> Sanction | None:
    """The mute in force on the player's chat, if any."""
    return sanction_in_force(user=user, kinds=[Sanction.Kind.MUTE], now=now)


#: Kinds that keep a player from starting or joining a match. A forced rename is among them:
#: the name a moderator found offensive would show at every new table, and the rename page
#: promises that he can play again once he has chosen a new one (he reaches no page but that
#: one; programs reach the API and tables too).
PLAY_STOPPING = (*BLOCKING, Sanction.Kind.PLAY_BAN, Sanction.Kind.RENAME)


def play_banned(*, user: User | int, now: datetime | None = None) -> Sanction | None:
    """What keeps the player from playing now: a suspension, a ban, a play ban for quitting, or
    a forced rename not done yet."""
    return sanction_in_force(user=user, kinds=PLAY_STOPPING, now=now)


def sanctions_for_request(*, user: User | int, now: datetime | None = None) -> list[Sanction]:
    """In one query, what every page needs to know of a player: his sanctions in force and his
    warnings not seen yet (``BlockedUserMiddleware`` keeps them on the request)."""
    unseen_warning = Q(kind=Sanction.Kind.WARN, seen_at__isnull=True)
    return list(
        Sanction.objects.filter(
            _in_force(now or timezone.now()) | unseen_warning, user=user, lifted_at__isnull=True
        )
    )


def longest(rows: Iterable[Sanction], kinds: Iterable[str], now: datetime | None = None):
    """Of ``rows``, the sanction of one of ``kinds`` in force at ``now`` that lasts longest."""
    now = now or timezone.now()
    kinds = set(kinds)
    found = [
        s
        for s in rows
        if s.kind in kinds
        and s.lifted_at is None
        and s.starts_at <= now
        and (s.ends_at is None or s.ends_at > now)
    ]
    if not found:
        return None
    return max(found, key=lambda s: (s.ends_at is None, s.ends_at or s.starts_at))
