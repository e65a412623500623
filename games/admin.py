"""Admin pages for tables and stored matches.

Tables and their seats are settings and can be edited here. Matches, hands, tricks and plays are
game history written only by ``games.play.services`` (which keep the version and the events right),
so the admin shows them read-only; a match can still be deleted.
"""

from __future__ import annotations

from typing import cast

from django.contrib import admin
from django.db.models import QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from games.models import (
    CardPlay,
    ChatMessage,
    Hand,
    Match,
    MatchConnection,
    MatchEvent,
    MatchSeat,
    Rating,
    RatingChange,
    Seat,
    Seek,
    Table,
    Trick,
)


class ReadOnlyMixin:
    """View permission only: rows that only the services write."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class SecretFieldsMixin:
    """Fields that hold hidden cards (R8.3), or what deals them: hidden on the change page while
    the match is being played (a moderator may also be a player, and nobody needs the deal of a
    hand in play), and never a filter of the list page. A filter in the address, such as
    ``?deck__startswith=9C`` or ``?seed__gte=...``, answers yes or no through the count of rows
    and would give the deal away card by card even with the field hidden: Django allows filters
    on a model's own fields whatever ``list_filter`` says."""

    SECRET_FIELDS: tuple[str, ...] = ()
    #: The row's match: the row itself (empty), or the name of its match field.
    MATCH_FIELD = ""

    def get_exclude(self, request: HttpRequest, obj: object = None) -> list[str]:
        excluded = list(super().get_exclude(request, obj) or [])  # type: ignore[misc]
        # The row is a match, or has one in MATCH_FIELD.
        match = cast("Match | None", getattr(obj, self.MATCH_FIELD) if self.MATCH_FIELD else obj)
        if match is not None and match.status == Match.Status.PLAYING:
            excluded += self.SECRET_FIELDS
        return excluded

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if lookup.split(LOOKUP_SEP)[0] in self.SECRET_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]


class SealedShufflesMixin:
    """A table's or a seek's sealed first shuffles (R8.4) hold the server seeds of a match's
    flips and first hand before anyone is dealt: never on a page, never a filter (a filter on
    ``fair_start`` would answer yes or no about a seed through the count of rows)."""

    SEALED_FIELDS = ("fair_start",)

    def get_exclude(self, request: HttpRequest, obj: object = None) -> list[str]:
        excluded = list(super().get_exclude(request, obj) or [])  # type: ignore[misc]
        return excluded + list(self.SEALED_FIELDS)

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if lookup.split(LOOKUP_SEP)[0] in self.SEALED_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    autocomplete_fields = ["user"]
    # The seed a player's page sent for the sealed shuffles is his to choose, not a moderator's.
    exclude = ["client_seed"]


@admin.register(Table)
class TableAdmin(SealedShufflesMixin, admin.ModelAdmin):
    list_display = [
        "name",
        "variant",
        "status",
        "target",
        "turn_clock_seconds",
        "is_private",
        "created_by",
        "created_at",
    ]
    list_filter = [
        "status",
        "closed_idle",
        "variant",
        "is_private",
        "allow_spectators",
        "created_at",
    ]
    search_fields = ["name", "created_by__username"]
    list_select_related = ["created_by"]
    autocomplete_fields = ["created_by"]
    date_hierarchy = "created_at"
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    exclude = ["client_seed"]
    list_display = ["table", "index", "user", "computer_level"]
    list_filter = ["computer_level", "table__variant"]
    search_fields = ["table__name", "user__username"]
    list_select_related = ["table", "user"]
    autocomplete_fields = ["table", "user"]


class MatchSeatInline(ReadOnlyInline):
    model = MatchSeat
    fields = ["index", "name", "user", "computer_level", "status", "timeouts"]
    show_change_link = False


class HandInline(ReadOnlyInline):
    model = Hand
    fields = [
        "number",
        "hakem",
        "dealer",
        "trump",
        "status",
        "tricks_won",
        "winner_side",
        "points",
        "kot",
        "hakem_kot",
    ]


@admin.register(Match)
class MatchAdmin(SecretFieldsMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "variant",
        "rated",
        "status",
        "players",
        "scores",
        "winner_side",
        "target",
        "imported",
        "created_at",
    ]
    list_filter = ["status", "variant", "rated", "voided", "imported", "partner_draw", "created_at"]
    search_fields = ["=id", "seats__name", "seats__user__username", "table__name"]
    date_hierarchy = "created_at"
    inlines = [MatchSeatInline, HandInline]

    #: The seed gives the deck of every hand, this one's and the next ones' (R6.4); the next
    #: hand's fair shuffle holds its server seed (R8.4).
    SECRET_FIELDS = ("seed", "next_fair")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).prefetch_related("seats")

    @admin.display(description=_("players"))
    def players(self, match: Match) -> str:
        return ", ".join(seat.name for seat in match.seats.all())


@admin.register(MatchSeat)
class MatchSeatAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["match", "index", "name", "user", "computer_level", "status", "timeouts"]
    list_filter = ["status", "computer_level", "match__variant"]
    search_fields = ["name", "user__username", "=match__id"]
    list_select_related = ["match", "user"]


class TrickInline(ReadOnlyInline):
    model = Trick
    fields = ["number", "leader", "winner"]


class CardPlayInline(ReadOnlyInline):
    model = CardPlay
    fields = ["trick", "order", "seat", "card", "played_at"]
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[CardPlay]:
        plays = super().get_queryset(request).select_related("trick")
        return plays.order_by("trick__number", "order")


@admin.register(Hand)
class HandAdmin(SecretFieldsMixin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "match",
        "number",
        "hakem",
        "trump",
        "status",
        "winner_side",
        "points",
        "kot",
        "hakem_kot",
        "started_at",
    ]
    list_filter = ["status", "trump", "kot", "hakem_kot", "match__variant"]
    search_fields = ["=match__id"]
    list_select_related = ["match"]
    inlines = [TrickInline, CardPlayInline]

    #: The deal and the hidden choices: every holding and the stock (R8.3).
    SECRET_FIELDS = ("deck", "discards", "keep_first", "seed", "fair")
    MATCH_FIELD = "match"


@admin.register(Trick)
class TrickAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["hand", "number", "leader", "winner"]
    list_filter = ["hand__match__variant"]
    search_fields = ["=hand__match__id"]
    list_select_related = ["hand"]
    inlines = [CardPlayInline]


@admin.register(CardPlay)
class CardPlayAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["hand", "trick", "order", "seat", "card", "played_at"]
    list_filter = ["hand__match__variant"]
    search_fields = ["card", "=hand__match__id"]
    list_select_related = ["hand", "trick"]


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The table chat, for moderators: read-only, newest first, by match."""

    list_display = ["created_at", "match", "seat", "name", "text", "phrase", "user"]
    list_filter = ["phrase", "created_at"]
    search_fields = ["name", "text", "=match__id", "user__username"]
    list_select_related = ["match", "user"]
    date_hierarchy = "created_at"
    ordering = ["-match", "-created_at"]


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """What happened in a match and when, in public terms: moves, timeouts (the computer played
    for a player whose clock ran out), players leaving and coming back."""

    list_display = ["match", "version", "kind", "created_at", "data"]
    list_filter = ["kind", "created_at"]
    search_fields = ["=match__id", "kind"]
    list_select_related = ["match"]
    ordering = ["-match", "version"]


@admin.register(MatchConnection)
class MatchConnectionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Open sockets: who is connected to which match now."""

    list_display = ["match", "seat", "user", "connected_at", "seen_at"]
    search_fields = ["=match__id", "user__username"]
    list_select_related = ["match", "user"]


@admin.register(Rating)
class RatingAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Ratings change only through games.ratings.services (a finished rated match, a void, the
    rebuild): here they are read."""

    list_display = ["user", "variant", "rating", "mu", "sigma", "games", "wins", "last_played_at"]
    list_filter = ["variant"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
    ordering = ["variant", "-rating"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "match",
        "user",
        "variant",
        "kind",
        "rating_before",
        "rating_after",
        "created_at",
    ]
    list_filter = ["variant", "kind", "created_at"]
    search_fields = ["=match__id", "user__username"]
    list_select_related = ["match", "user"]
    ordering = ["-id"]


@admin.register(Seek)
class SeekAdmin(SealedShufflesMixin, ReadOnlyMixin, admin.ModelAdmin):
    """Players waiting in the seek pool for a rated match now (docs/pairing.md)."""

    list_display = ["user", "variant", "clock_seconds", "rating", "created_at", "seen_at"]
    list_filter = ["variant", "clock_seconds"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
