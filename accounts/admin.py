from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Table"), {"fields": ("display_name",)}),
    )
    add_fieldsets = (
        *DjangoUserAdmin.add_fieldsets,
        (_("Table"), {"fields": ("display_name",)}),
    )
    list_display = ("username", "display_name", "email", "is_staff", "is_active")
    search_fields = ("username", "display_name", "email")
