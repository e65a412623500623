from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
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

    #: Set by ``set_unusable_password`` until the next save (Django marks only new passwords).
    _password_disabled = False

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


# -- moderation (issue 6): reports, sanctions, the log, notes, appeals, play bans ---------------
# Rows change only through accounts.moderation (services); the log is append-only.


class Report(models.Model):
    """A player's report of another, with where it happened: the match, the moment, the chat."""

    class Reason(models.TextChoices):
        CHAT_ABUSE = "chat_abuse", _("abuse in chat")
        CHEATING = "cheating", _("cheating or collusion")
        STALLING = "stalling", _("deliberate stalling or quitting")
        OFFENSIVE_NAME = "offensive_name", _("offensive name")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        TAKEN = "taken", _("taken")
        CLOSED = "closed", _("closed")

    reporter = models.ForeignKey(
        User, verbose_name=_("reporter"), on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        User, verbose_name=_("reported player"), on_delete=models.CASCADE, related_name="reports"
    )
    reason = models.CharField(_("reason"), max_length=20, choices=Reason)
    comment = models.TextField(_("comment"), max_length=1000, blank=True)
    match = models.ForeignKey(
        "games.Match",
        verbose_name=_("match"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports",
    )
    hand = models.PositiveSmallIntegerField(_("hand"), null=True, blank=True)
    trick = models.PositiveSmallIntegerField(_("trick"), null=True, blank=True)
    # The chat lines around the moment, copied when the report was made (ids and texts).
    chat = models.JSONField(_("chat around the moment"), default=list, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.OPEN)
    taken_by = models.ForeignKey(
        User,
        verbose_name=_("taken by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_taken",
    )
    taken_at = models.DateTimeField(_("taken at"), null=True, blank=True)
    decision = models.TextField(_("decision"), blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        indexes = [
            models.Index(fields=["status", "created_at"], name="accounts_report_queue_idx"),
            models.Index(fields=["reported", "status"], name="accounts_report_player_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()}: {self.reported}"


class Sanction(models.Model):
    """A moderator's sanction on a player, in force from ``starts_at`` to ``ends_at`` (None: for
    good, or not timed). Quitters' play bans are sanctions of kind PLAY_BAN the site gives."""

    class Kind(models.TextChoices):
        WARN = "warn", _("warning")
        MUTE = "mute", _("mute in chat")
        SUSPEND = "suspend", _("suspension")
        BAN = "ban", _("ban")
        RENAME = "rename", _("forced rename")
        VOID = "void", _("match voided")
        PLAY_BAN = "play_ban", _("play ban for quitting")

    user = models.ForeignKey(
        User, verbose_name=_("player"), on_delete=models.CASCADE, related_name="sanctions"
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind)
    reason = models.TextField(_("reason"), max_length=1000)
    moderator = models.ForeignKey(
        User,
        verbose_name=_("moderator"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions_given",
        help_text=_("Empty for a play ban the site gave by itself."),
    )
    report = models.ForeignKey(
        Report,
        verbose_name=_("report"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions",
    )
    match = models.ForeignKey(
        "games.Match",
        verbose_name=_("match"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions",
    )
    starts_at = models.DateTimeField(_("starts at"), default=timezone.now)
    ends_at = models.DateTimeField(_("ends at"), null=True, blank=True)
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)
    seen_at = models.DateTimeField(
        _("seen at"), null=True, blank=True, help_text=_("When the player saw it.")
    )

    class Meta:
        verbose_name = _("sanction")
        verbose_name_plural = _("sanctions")
        indexes = [
            models.Index(fields=["user", "kind", "ends_at"], name="accounts_sanction_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.user}"


class Appeal(models.Model):
    """A player's one appeal against a sanction; it appears in the moderation queue."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        GRANTED = "granted", _("granted")
        REFUSED = "refused", _("refused")

    sanction = models.OneToOneField(
        Sanction, verbose_name=_("sanction"), on_delete=models.CASCADE, related_name="appeal"
    )
    text = models.TextField(_("appeal"), max_length=2000)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.OPEN)
    decided_by = models.ForeignKey(
        User,
        verbose_name=_("decided by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="appeals_decided",
    )
    decision = models.TextField(_("decision"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")

    def __str__(self) -> str:
        return f"{self.sanction}: {self.get_status_display()}"


class ModeratorNote(models.Model):
    """A private note of the moderators on a player."""

    user = models.ForeignKey(
        User, verbose_name=_("player"), on_delete=models.CASCADE, related_name="moderator_notes"
    )
    author = models.ForeignKey(
        User,
        verbose_name=_("author"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="moderator_notes_written",
    )
    text = models.TextField(_("note"), max_length=4000)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("moderator note")
        verbose_name_plural = _("moderator notes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:40]}"


class ModerationLogEntry(models.Model):
    """One moderation action: who, on whom, what, why, when, and the report it answers.
    Append-only: written by accounts.moderation, read-only everywhere."""

    moderator = models.ForeignKey(
        User,
        verbose_name=_("moderator"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="moderation_actions",
        help_text=_("Empty for an action the site took by itself (a play ban)."),
    )
    target = models.ForeignKey(
        User,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="moderation_log",
    )
    # Kept as text as well: the log stays readable after a rename or a deleted account.
    moderator_name = models.CharField(_("moderator name"), max_length=150, blank=True)
    target_name = models.CharField(_("player name"), max_length=150, blank=True)
    action = models.CharField(_("action"), max_length=32)
    reason = models.TextField(_("reason"), blank=True)
    report = models.ForeignKey(
        Report,
        verbose_name=_("report"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="log_entries",
    )
    sanction = models.ForeignKey(
        Sanction,
        verbose_name=_("sanction"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="log_entries",
    )
    details = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("when"), default=timezone.now)

    class Meta:
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["target", "-created_at"], name="accounts_modlog_target_idx"),
            models.Index(fields=["-created_at"], name="accounts_modlog_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.moderator_name or 'site'} {self.action} {self.target_name}"
