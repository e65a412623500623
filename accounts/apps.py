from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    # Not "Accounts": django-allauth's own app (e-mail addresses) has that name in the admin.
    verbose_name = _("Players")

    def ready(self) -> None:
        from accounts.socket_sessions import signals_connect

        # Sockets close when the sign-in they were opened with ends (signing out, a new password).
        signals_connect()
