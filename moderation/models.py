"""What moderation stores: reports, sanctions, appeals, moderators' notes, the log, and the
site's flags on suspicious rating gains.

Rows change only through ``moderation.services``; the log is append-only. The tables keep the
names they had when these models lived in the accounts app (``db_table``), so moving them here
moved no row.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.models import VARIANT_CHOICES


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
        # The table of the accounts app, where moderation began (migration 0001 moved it).
        db_table = "accounts_report"
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
        # The table of the accounts app, where moderation began (migration 0001 moved it).
        db_table = "accounts_sanction"
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
        # The table of the accounts app, where moderation began (migration 0001 moved it).
        db_table = "accounts_appeal"
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
        # The table of the accounts app, where moderation began (migration 0001 moved it).
        db_table = "accounts_moderatornote"
        verbose_name = _("moderator note")
        verbose_name_plural = _("moderator notes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:40]}"


class ModerationLogEntry(models.Model):
    """One moderation action: who, on whom, what, why, when, and the report it answers.
    Append-only: written by moderation.services, read-only everywhere."""

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
        # The table of the accounts app, where moderation began (migration 0001 moved it).
        db_table = "accounts_moderationlogentry"
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["target", "-created_at"], name="accounts_modlog_target_idx"),
            models.Index(fields=["-created_at"], name="accounts_modlog_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.moderator_name or 'site'} {self.action} {self.target_name}"


class RatingFlag(models.Model):
    """The site's flag on a player who gained more than ``services.RATING_GAIN_FLAG`` rating
    points in a day against one opponent in one variant: a sign of farming (an accomplice losing
    on purpose), for a moderator to judge (docs/rating-abuse.md).

    One open flag per player, opponent and variant: a later match of the pair updates it. A
    moderator closes it with his decision.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        CLOSED = "closed", _("closed")

    user = models.ForeignKey(
        User, verbose_name=_("player"), on_delete=models.CASCADE, related_name="rating_flags"
    )
    # Kept when the opponent's account is deleted: deleting the account that lost on purpose
    # must not wipe the evidence of the one that gained.
    opponent = models.ForeignKey(
        User,
        verbose_name=_("opponent"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rating_flags_against",
    )
    opponent_name = models.CharField(_("opponent's name"), max_length=150)
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    gain = models.IntegerField(
        _("rating points gained"), help_text=_("Net, against this opponent, in the last day.")
    )
    matches = models.JSONField(
        _("matches"), default=list, blank=True, help_text=_("The ids of the matches of the gain.")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.OPEN)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    closed_by = models.ForeignKey(
        User,
        verbose_name=_("closed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rating_flags_closed",
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    decision = models.TextField(_("decision"), blank=True)

    class Meta:
        verbose_name = _("rating flag")
        verbose_name_plural = _("rating flags")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "opponent", "variant"],
                condition=Q(status="open"),
                name="moderation_ratingflag_one_open",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="moderation_flag_queue_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} +{self.gain} / {self.opponent_name} ({self.variant})"
