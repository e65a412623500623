from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player or a member of staff.

    A custom user model from the first migration, because swapping it in later means rewriting
    every foreign key to the user table by hand.
    """

    display_name = models.CharField(
        _("display name"),
        max_length=40,
        blank=True,
        help_text=_("Shown at the table instead of the username."),
    )

    def __str__(self) -> str:
        return self.display_name or self.username
