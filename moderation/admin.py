"""Moderation in the admin: moderators read reports, sanctions, appeals, notes, rating flags and
the log."""

from django.contrib import admin
from django.http import HttpRequest

from accounts.roles import is_moderator
from moderation.models import (
    Appeal,
    ModerationLogEntry,
    ModeratorNote,
    RatingFlag,
    Report,
    Sanction,
)

# Moderators and superusers read these here; every change goes through moderation.services, so
# that it is checked and logged: no one adds or changes a row in the admin. A superuser may still
# delete reports, sanctions, appeals and notes (with the account they belong to); the log he may
# not touch at all.


class ModerationReadOnlyAdmin(admin.ModelAdmin):
    """Visible to moderators (``accounts.roles.is_moderator``), changed by no one."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_moderator(request.user)

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return is_moderator(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_active and request.user.is_superuser


@admin.register(Report)
class ReportAdmin(ModerationReadOnlyAdmin):
    list_display = ("created_at", "reported", "reporter", "reason", "status", "taken_by", "match")
    list_filter = ("status", "reason")
    search_fields = ("reported__username", "reported__display_name", "reporter__username")
    date_hierarchy = "created_at"
    list_select_related = ("reported", "reporter", "taken_by")


@admin.register(Sanction)
class SanctionAdmin(ModerationReadOnlyAdmin):
    list_display = ("starts_at", "user", "kind", "ends_at", "lifted_at", "moderator", "report")
    list_filter = ("kind",)
    search_fields = ("user__username", "user__display_name", "moderator__username")
    date_hierarchy = "starts_at"
    list_select_related = ("user", "moderator")


@admin.register(Appeal)
class AppealAdmin(ModerationReadOnlyAdmin):
    list_display = ("created_at", "sanction", "status", "decided_by", "decided_at")
    list_filter = ("status",)
    search_fields = ("sanction__user__username", "sanction__user__display_name")
    list_select_related = ("sanction__user", "decided_by")


@admin.register(ModeratorNote)
class ModeratorNoteAdmin(ModerationReadOnlyAdmin):
    list_display = ("created_at", "user", "author", "text")
    search_fields = ("user__username", "user__display_name", "author__username")
    list_select_related = ("user", "author")


@admin.register(RatingFlag)
class RatingFlagAdmin(ModerationReadOnlyAdmin):
    list_display = ("created_at", "user", "opponent_name", "variant", "gain", "status", "closed_by")
    list_filter = ("status", "variant")
    search_fields = ("user__username", "user__display_name", "opponent_name")
    date_hierarchy = "created_at"
    list_select_related = ("user", "closed_by")


@admin.register(ModerationLogEntry)
class ModerationLogEntryAdmin(ModerationReadOnlyAdmin):
    """The log: who, on whom, what, why, when, the report. Append-only, for superusers too."""

    list_display = ("created_at", "moderator_name", "action", "target_name", "reason", "report")
    list_filter = ("action",)
    search_fields = ("target_name", "target__username", "target__display_name", "moderator_name")
    date_hierarchy = "created_at"

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
