"""Django settings for Hokm online.

Every value that differs between machines comes from the environment (see README.md); the defaults
are for development on one machine: DEBUG on, SQLite in the project root, in-memory channel layer.
"""

import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from hokm_site.environment import (
    admin_url_prefix,
    cache_config,
    channel_layers_config,
    database_config,
    email_config,
    env_bool,
    env_int,
    env_list,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        # A guessable key lets anyone forge sessions and password-reset links: never run so.
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    # The "django-insecure-" prefix makes `check --deploy` flag this key if it ever leaks out.
    SECRET_KEY = "django-insecure-hokm-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    # Django would answer every request with 400; fail at start-up where the cause is obvious.
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

ADMIN_URL = admin_url_prefix(os.environ.get("ADMIN_URL", "admin/"))

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's so the dev server speaks WebSocket too.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "accounts",
    "games",
    "moderation",
]

MIDDLEWARE = [
    # Outermost: the Content-Security-Policy header on every response, static files' too.
    "hokm_site.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, as whitenoise asks, so static files skip the rest.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (it reads the chosen language) and before CommonMiddleware (URL handling).
    "django.middleware.locale.LocaleMiddleware",
    # Before any view or lookup: a NUL in the address is a 400, not a database error.
    "hokm_site.null_characters.NullCharacterMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The language a signed-in player chose, on every device (needs request.user).
    "accounts.language.PlayerLanguageMiddleware",
    # The reader's time zone, for the times a page shows (needs the language).
    "hokm_site.timezones.TimeZoneMiddleware",
    # Signs out a suspended or banned player on his next request (needs request.user).
    "moderation.middleware.BlockedUserMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "hokm_site.urls"

# Loader names, or (loader, [loader names]) pairs such as the cached loader below.
_template_loaders: list[str | tuple[str, list[Any]]] = [
    "django.template.loaders.filesystem.Loader",
    "django.template.loaders.app_directories.Loader",
]
TEMPLATES = [
    {
        # Django's backend, whose HTML comes out in the reader's digits (hokm_site/templating.py).
        "BACKEND": "hokm_site.templating.Templates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # Django caches compiled templates and relies on runserver's autoreloader to drop the
            # cache; daphne has none, so in development read templates afresh on every render.
            "loaders": _template_loaders
            if DEBUG
            else [("django.template.loaders.cached.Loader", _template_loaders)],
            # local_date: the date filter in the reader's calendar (lib/template_locale.py).
            "builtins": ["lib.template_locale"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "moderation.context_processors.moderation",
                "accounts.context_processors.ui_prefs",
            ],
        },
    },
]

ASGI_APPLICATION = "hokm_site.asgi.application"

DATABASES = {"default": database_config(os.environ.get("DATABASE_URL"), base_dir=BASE_DIR)}

CHANNEL_LAYERS = channel_layers_config(
    os.environ.get("REDIS_URL"), os.environ.get("REDIS_CHANNEL_LAYER") or "pubsub"
)

# Login rate limits count in the cache: it must be shared once several processes serve the site.
CACHES = cache_config(os.environ.get("CACHE_URL"))

# SMTP when EMAIL_HOST is set, files with EMAIL_FILE_PATH, else the console (README).
_email = email_config(os.environ)
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_FILE_PATH = _email["EMAIL_FILE_PATH"]
EMAIL_HOST = _email["EMAIL_HOST"]
EMAIL_PORT = _email["EMAIL_PORT"]
EMAIL_HOST_USER = _email["EMAIL_HOST_USER"]
EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_PASSWORD"]
EMAIL_USE_TLS = _email["EMAIL_USE_TLS"]
EMAIL_USE_SSL = _email["EMAIL_USE_SSL"]
EMAIL_TIMEOUT = _email["EMAIL_TIMEOUT"]
DEFAULT_FROM_EMAIL = _email["DEFAULT_FROM_EMAIL"]
SERVER_EMAIL = _email["SERVER_EMAIL"]

AUTH_USER_MODEL = "accounts.User"

AUTHENTICATION_BACKENDS = [
    # Django's own backend keeps the admin's login working for staff.
    "django.contrib.auth.backends.ModelBackend",
    # Log in with the username or the email address (ACCOUNT_LOGIN_METHODS).
    "allauth.account.auth_backends.AuthenticationBackend",
]

# Accounts: django-allauth does every flow (docs/accounts.md).
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/lobby/"
LOGOUT_REDIRECT_URL = "/"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
# Only when the link is opened in the browser that signed up (allauth keeps the login pending in
# that session); a link opened anywhere else confirms the address and asks for the password.
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# The link in the email confirms the address as it opens: no second click on a confirm button.
ACCOUNT_CONFIRM_EMAIL_ON_GET = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_USERNAME_VALIDATORS = "accounts.usernames.USERNAME_VALIDATORS"
ACCOUNT_RATE_LIMITS = {
    # Password guessing: 5 failures per account per 5 minutes, 20 per client address per minute.
    "login_failed": "20/m/ip,5/5m/key",
}
# Two-factor authentication for anyone who wants it, staff above all: an authenticator app, with
# recovery codes for a lost phone. The admin's login is allauth's (hokm_site/urls.py), so it asks
# for the code too.
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "Hokm online"
# Behind a reverse proxy every request comes from the proxy's address; count that many proxies
# back along X-Forwarded-For so the per-address limits apply to the real client.
ALLAUTH_TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("fa", _("Persian")),
    ("ur", _("Urdu")),
    ("hi", _("Hindi")),
]
# What Django lacks for these languages: Urdu's formats, Hindi's dates with times and lakh grouping.
FORMAT_MODULE_PATH = ["hokm_site.formats"]
# The site's catalogues (make messages), then the django-allauth and Django messages those projects
# leave untranslated in Urdu and Hindi.
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "hokm_site" / "vendor_locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, compressed files in production (needs `collectstatic`); plain files in dev.
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage",
    },
}
# Under daphne there is no runserver static handler: whitenoise serves straight from the app and
# project static dirs in development, and picks up edits without a restart.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # Only behind a proxy that sets X-Forwarded-Proto itself; otherwise clients could spoof it.
    if env_bool("BEHIND_HTTPS_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO").upper()},
    "loggers": {
        # Django's own loggers propagate to root; keep its per-request noise at INFO or above.
        "django": {"level": os.environ.get("DJANGO_LOG_LEVEL", "INFO").upper()},
    },
}

# The worker (games/play/autoplay.py): computer players, the next deal and turn clocks. "thread"
# runs it in each server process (as `make run` does), "worker" only in `manage.py hokm_worker`
# processes (production, docs/operations.md), "inline" or "off" in tests. The delays make
# computer moves and hand ends readable.
HOKM_AUTOPLAY = os.environ.get("HOKM_AUTOPLAY", "thread")
if HOKM_AUTOPLAY not in ("thread", "worker", "inline", "off"):
    raise ImproperlyConfigured("HOKM_AUTOPLAY must be thread, worker, inline or off.")
HOKM_BOT_DELAY_SECONDS = float(os.environ.get("HOKM_BOT_DELAY_SECONDS", "0.7"))
HOKM_NEXT_HAND_DELAY_SECONDS = float(os.environ.get("HOKM_NEXT_HAND_DELAY_SECONDS", "4"))
# A match no one has moved in for this long is ended as abandoned by the worker (R8.2: a match
# against the computer can be resumed until then; games.play.services.match_abandon).
HOKM_ABANDON_AFTER_SECONDS = float(os.environ.get("HOKM_ABANDON_AFTER_SECONDS", str(7 * 24 * 3600)))
# Processes that decide for computer players (games/play/bot_pool.py), so a search never holds up
# the server's event loop; 0 decides in the worker's own thread (tests).
HOKM_BOT_PROCESSES = env_int("HOKM_BOT_PROCESSES", 1)
if HOKM_BOT_PROCESSES < 0:
    raise ImproperlyConfigured("HOKM_BOT_PROCESSES must be 0 or more.")

# What one client may send over one WebSocket (games/play/socket_limits.py, docs/protocol.md,
# "Limits, and why a socket closes"):
# a frame over MAX_FRAME_BYTES closes the socket; a burst of RATE_BURST messages, refilled at
# RATE_PER_SECOND, and past RATE_CLOSE_AFTER refused messages the socket closes.
HOKM_SOCKET_MAX_FRAME_BYTES = env_int("HOKM_SOCKET_MAX_FRAME_BYTES", 16 * 1024)
HOKM_SOCKET_RATE_BURST = env_int("HOKM_SOCKET_RATE_BURST", 30)
HOKM_SOCKET_RATE_PER_SECOND = env_int("HOKM_SOCKET_RATE_PER_SECOND", 10)
HOKM_SOCKET_RATE_CLOSE_AFTER = env_int("HOKM_SOCKET_RATE_CLOSE_AFTER", 50)
_socket_limits = (
    HOKM_SOCKET_MAX_FRAME_BYTES,
    HOKM_SOCKET_RATE_BURST,
    HOKM_SOCKET_RATE_PER_SECOND,
    HOKM_SOCKET_RATE_CLOSE_AFTER,
)
if min(_socket_limits) < 1:
    raise ImproperlyConfigured("The HOKM_SOCKET_* limits must be 1 or more.")
