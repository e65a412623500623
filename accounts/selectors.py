"""Reads for the account pages: a player's record, their tokens."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, When

from accounts.models import ApiToken, User
from games.engine import VARIANTS
from games.models import Match, MatchSeat

#: Variants played in two teams of partners (R1.4): seat s is on side s % 2. In the others every
#: seat is a side of its own (``Variant.side_of``).
_PARTNERSHIP_VARIANTS = [name for name, rules in VARIANTS.items() if rules.partnerships]


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """Finished matches a user played, and how many of them their side won."""

    played: int
    won: int

    @property
    def won_percent(self) -> int | None:
        """Share of the games played that were won, rounded; None before the first game."""
        return round(100 * self.won / self.played) if self.played else None


def player_record(*, user: User) -> PlayerRecord:
    """Count the finished matches ``user`` sat in and those their side won, in one query.

    Imported matches (game records loaded from elsewhere) are not games played on this site and
    do not count; neither do matches still being played or abandoned.
    """
    seats = MatchSeat.objects.filter(
        user=user, match__status=Match.Status.FINISHED, match__imported=False
    ).annotate(
        side=Case(
            When(match__variant__in=_PARTNERSHIP_VARIANTS, then=F("index") % 2),
            default=F("index"),
            output_field=IntegerField(),
        )
    )
    totals = seats.aggregate(
        played=Count("match", distinct=True),
        won=Count("match", distinct=True, filter=Q(side=F("match__winner_side"))),
    )
    return PlayerRecord(played=totals["played"], won=totals["won"])


def api_tokens_active(*, user: User) -> QuerySet[ApiToken]:
    """``user``'s tokens in force, newest first."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at")
