from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        # The layers below ask moderation through hooks they own, never by importing it
        # (docs/architecture.md): register the answers and the reactions here.
        from moderation import hooks

        hooks.connect()
