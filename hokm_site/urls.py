"""Top-level URL routes. The admin's path comes from the ADMIN_URL setting."""

from allauth.account.decorators import secure_admin_login
from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from accounts import language
from hokm_site import health, pwa, rules, views

# Staff sign in through allauth's login, which asks for the second factor of an account that has
# one; Django's own admin login form would let a stolen password in without it. (Replaced on this
# one site object, as allauth documents: mypy sees a method assigned, hence the ignore.)
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

urlpatterns = [
    path("", views.home, name="home"),
    # The table creation form and the table link these by name.
    path("rules/hokm/", rules.rules_hokm, name="rules_hokm"),
    path("rules/court-piece/", rules.rules_court_piece, name="rules_court_piece"),
    # For load balancers and monitors (docs/operations.md).
    path("healthz/", health.healthz, name="healthz"),
    # The installable web app (docs/app.md): at the root, where browsers and the worker's scope
    # want them.
    path("manifest.webmanifest", pwa.web_manifest, name="web_manifest"),
    path("favicon.ico", pwa.favicon, name="favicon"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    # The header's language switcher posts here: Django's set_language, which also saves the
    # choice on the player's account.
    path("i18n/setlang/", language.set_language, name="set_language"),
    path(settings.ADMIN_URL, admin.site.urls),
    # Our profile pages first: /accounts/profile/ is ours, the rest of /accounts/ is allauth's.
    path("", include("accounts.urls")),
    path("", include("moderation.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("games.urls")),
]
