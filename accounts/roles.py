"""Staff roles beyond Django's superuser.

A moderator is a staff account in the ``moderators`` group: it works in the admin, sees the game
history and can change players' accounts (for sanctions), but cannot make or delete accounts nor
hand out staff status, superuser status, groups or permissions. Migration
``accounts.0003_moderators_group`` creates the group with its permissions.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, AnonymousUser

MODERATORS_GROUP = "moderators"

# (app label, model name, actions): what the group is given, and all it is given.
MODERATOR_PERMISSIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    *(
        ("games", model, ("view",))
        for model in (
            "table",
            # The table's page shows its seats inline.
            "seat",
            "match",
            "matchseat",
            "hand",
            "trick",
            "cardplay",
            "chatmessage",
            "matchevent",
            "matchconnection",
        )
    ),
    ("accounts", "user", ("view", "change")),
)


def is_moderator(user: AbstractUser | AnonymousUser) -> bool:
    """Whether ``user`` may moderate: a member of the moderators group, or a superuser."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return user.groups.filter(name=MODERATORS_GROUP).exists()
