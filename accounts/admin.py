from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.models import ApiToken, User
from accounts.tokens import token_revoke

#: The looks and sounds a player chooses on his settings page (accounts.preferences).
PREFERENCE_FIELDS = ("theme", "face", "back", "sound", "volume", "motion", "notify")

# What makes an account staff or gives it powers: only superusers hand these out, so that a
# moderator (accounts/roles.py) cannot raise himself or anyone else above a moderator.
PRIVILEGE_FIELDS = ("is_superuser", "is_staff", "groups", "user_permissions")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Superusers manage every account; moderators change players (for sanctions) and themselves.

    For a non-superuser the privilege fields are read-only, and other staff accounts (whose
    password he could otherwise reset and then log in with) cannot be changed at all.
    """

    fieldsets = (
        *(DjangoUserAdmin.fieldsets or ()),
        (_("Table"), {"fields": ("display_name", "moderation")}),
        (
            _("Looks and sounds"),
            {
                "fields": PREFERENCE_FIELDS,
                "classes": ("collapse",),
            },
        ),
    )
    # The player's own choices (his settings page): shown to staff, never changed by them, so
    # the change form asks nothing more of a moderator than before.
    readonly_fields = ("moderation", *PREFERENCE_FIELDS)
    add_fieldsets = (
        *DjangoUserAdmin.add_fieldsets,
        (_("Table"), {"fields": ("display_name",)}),
    )
    list_display = (
        "username",
        "email",
        "display_name",
        "date_joined",
        "last_login",
        "is_active",
        "is_staff",
    )
    search_fields = ("username", "display_name", "email")
    date_hierarchy = "date_joined"

    @admin.display(description=_("Moderation"))
    def moderation(self, obj: User) -> str:
        """The player's moderation page: his sanctions, notes and reports, and where to
        sanction him (a user's admin page alone cannot)."""
        if obj.pk is None:
            return "-"
        url = reverse("moderation:moderation_player", args=[obj.username])
        return format_html('<a href="{}">{}</a>', url, _("Sanctions, notes and reports"))

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> tuple[str, ...]:
        readonly = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser:
            return readonly
        return readonly + tuple(f for f in PRIVILEGE_FIELDS if f not in readonly)

    def has_change_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        if obj is None or request.user.is_superuser or obj.pk == request.user.pk:
            return True
        return not (obj.is_staff or obj.is_superuser)

    def save_model(self, request: HttpRequest, obj: User, form: ModelForm, change: bool) -> None:
        if not request.user.is_superuser:
            self._refuse_privilege_change(obj, form)
        super().save_model(request, obj, form, change)

    @staticmethod
    def _refuse_privilege_change(obj: User, form: ModelForm) -> None:
        """The server-side guard behind the read-only fields, whatever the form holds."""
        if set(form.changed_data) & set(PRIVILEGE_FIELDS):
            raise PermissionDenied
        stored = User.objects.filter(pk=obj.pk).values("is_superuser", "is_staff").first()
        stored = stored or {"is_superuser": False, "is_staff": False}
        if obj.is_superuser != stored["is_superuser"] or obj.is_staff != stored["is_staff"]:
            raise PermissionDenied


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Staff see and revoke tokens; only their owners make them (the secret is shown once)."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    exclude = ("key_hash",)
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=_("Revoke selected tokens"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        # Through the service, token by token: it also closes the sockets the token opened.
        count = 0
        for token in queryset.filter(revoked_at__isnull=True).select_related("user"):
            token_revoke(token_id=token.pk, user=token.user)
            count += 1
        self.message_user(request, _("%(count)s tokens revoked.") % {"count": count})


# -- moderation (issue 6) -------------------------------------------------------------------------
