from typing import Any

from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Theme(models.TextChoices):
    """The table's look: the cloth, the rail and the page around them (static/css/themes.css)."""

    FELT = "felt", _("Green felt")
    NIGHT = "night", _("Night")
    WOOD = "wood", _("Walnut wood")
    CARPET = "carpet", _("Persian carpet")
    JAIPUR = "jaipur", _("Jaipur block print")
    OCEAN = "ocean", _("Royal blue")
    LIGHT = "light", _("Light")
    CONTRAST = "contrast", _("High contrast")


class Face(models.TextChoices):
    """The card fronts (static/css/faces.css)."""

    CLASSIC = "classic", _("Classic")
    LARGE = "large", _("Large index")
    FOUR = "four", _("Four colours")
    PERSIAN = "persian", _("Persian miniature")
    MINIMAL = "minimal", _("Minimal")
    BOLD = "bold", _("Bold")
    OLD = "old", _("Old style")


class Back(models.TextChoices):
    """The card backs (static/img/backs/)."""

    LATTICE = "lattice", _("Red lattice")
    BLUE = "blue", _("Blue diamonds")
    GIRIH = "girih", _("Girih star")
    PAISLEY = "paisley", _("Paisley")
    TILE = "tile", _("Turquoise tile")
    NIGHT = "night", _("Night sky")
    PLAIN = "plain", _("Plain green")


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

    # The player's looks and sounds (accounts.preferences): on the user row itself, which every
    # signed-in request loads anyway, so that no page pays a query for them.
    theme = models.CharField(_("table theme"), max_length=16, choices=Theme, default=Theme.FELT)
    face = models.CharField(_("card fronts"), max_length=16, choices=Face, default=Face.CLASSIC)
    back = models.CharField(_("card backs"), max_length=16, choices=Back, default=Back.LATTICE)
    sound = models.BooleanField(_("sound"), default=True)
    volume = models.PositiveSmallIntegerField(
        _("volume"), default=70, validators=[MinValueValidator(0), MaxValueValidator(100)]
    )
    motion = models.BooleanField(_("motion"), default=True)
    notify = models.BooleanField(_("notifications"), default=False)
    # The language the player chose with the site's switch, kept for every device he signs in on
    # (accounts/language.py); empty until he chooses, when each browser's language is his.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")

    def __str__(self) -> str:
        return self.display_name or self.username

    #: Set by ``set_unusable_password`` until the next save (Django marks only new passwords).
    _password_disabled = False
    #: Django's own mark of a new raw password until the next save (AbstractBaseUser sets it;
    #: the stubs leave it out).
    _password: str | None

    def set_unusable_password(self) -> None:
        super().set_unusable_password()
        self._password_disabled = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Every way a password changes ends here (allauth's pages, the admin, `manage.py
        # changepassword`, the admin disabling it): Django's own password_changed hook runs at
        # this point too. The player's session sockets close with the sessions Django ends
        # (accounts.socket_sessions).
        password_changed = self._password is not None or self._password_disabled
        self._password_disabled = False
        super().save(*args, **kwargs)
        if password_changed:
            # Imported here: socket_sessions reads this module's models (API tokens).
            from accounts.socket_sessions import password_changed_sign_out

            password_changed_sign_out(self)


class ApiToken(models.Model):
    """A personal API token: lets a program act as its user, as lichess's Bot API tokens do.

    Only the SHA-256 of the secret is stored; the secret itself is shown once, when the token is
    made (``accounts.tokens.token_create``). ``prefix`` is the start of the secret after ``hokm_``,
    shown so the owner can tell the tokens apart.
    """

    user = models.ForeignKey(
        User, verbose_name=_("user"), on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=50, help_text=_("What the token is for."))
    key_hash = models.CharField(_("key hash"), max_length=64, unique=True, editable=False)
    prefix = models.CharField(_("prefix"), max_length=8, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-pk"]
        indexes = [
            # The settings page: a user's tokens still in force, newest first.
            models.Index(
                fields=["user", "revoked_at", "-created_at"], name="accounts_token_user_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (hokm_{self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
