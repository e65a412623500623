"""Account pages of our own; allauth's flows are included at ``accounts/`` in hokm_site.urls."""

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("accounts/profile/", views.settings_page, name="settings"),
    path("account/preferences/", views.preferences_view, name="preferences"),
    path("accounts/profile/tokens/", views.token_create_view, name="token_create"),
    path(
        "accounts/profile/tokens/<int:token_id>/revoke/",
        views.token_revoke_view,
        name="token_revoke",
    ),
]
