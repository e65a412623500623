"""What Hokm online stores: tables, and every match as dealt and played.

The rules live in ``games.engine``; these rows are the minimum from which the engine rebuilds any
hand exactly (``games.play.selectors.hand_state_build``): the deal order, the trump, the R3.5
choices and every card played in order. Everything else a hand shows (holdings, leaders, winners,
results) is derived by the engine and only copied here where history pages need to filter or sort on
it. Rows change only through ``games.play.services``.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import DEFAULT_TARGET, GAME_VARIANTS, Card, Suit

# The engine is free of Django, so its titles are not translatable; these are the same titles
# for the interface. A variant registered later without an entry here shows its engine title.
_VARIANT_TITLES = {
    "hokm4": _("Hokm, four players"),
    "hokm3": _("Hokm, three players"),
    "hokm2": _("Hokm, two players"),
    "hokm2-draw": _("Hokm, two players with the draw"),
    "court-piece": _("Court Piece"),
}
VARIANT_CHOICES = [(name, _VARIANT_TITLES.get(name, v.title)) for name, v in GAME_VARIANTS.items()]
#: R9: the variants whose table settings (``options``) and ``max_deals`` mean something.
COURT_PIECE_VARIANTS = [name for name, v in GAME_VARIANTS.items() if v.family == "court-piece"]

DEAL_OUTCOMES = [
    ("won", _("deal won")),
    ("court", _("court")),
    ("52-court", _("52-court")),
]

SUIT_CHOICES = [
    (Suit.SPADES.value, _("spades")),
    (Suit.HEARTS.value, _("hearts")),
    (Suit.DIAMONDS.value, _("diamonds")),
    (Suit.CLUBS.value, _("clubs")),
]

#: R2.3: only the four-player game seats partners by a draw.
PARTNER_DRAW_VARIANTS = [name for name, v in GAME_VARIANTS.items() if v.partner_draw_allowed]


class ComputerLevel(models.TextChoices):
    EASY = "easy", _("easy")
    MEDIUM = "medium", _("medium")
    HARD = "hard", _("hard")
    EXPERT = "expert", _("expert")


def new_invite_code() -> str:
    """An unguessable code for a private table's invite link (128 random bits)."""
    return secrets.token_urlsafe(16)


class Table(models.Model):
    """A place where players gather and matches are played, with its settings."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        CLOSED = "closed", _("closed")

    name = models.CharField(_("name"), max_length=60)
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    target = models.PositiveIntegerField(
        _("target"),
        default=DEFAULT_TARGET,
        validators=[MinValueValidator(1)],
        help_text=_("Points that win the match (R7.1)."),
    )
    turn_clock_seconds = models.PositiveIntegerField(
        _("turn clock (seconds)"),
        null=True,
        blank=True,
        help_text=_("Time for each decision (R8.1); empty for no clock."),
    )
    is_private = models.BooleanField(_("private"), default=False)
    allow_spectators = models.BooleanField(_("spectators allowed"), default=True)
    fill_with_computer = models.BooleanField(
        _("fill empty seats with computer players"), default=False
    )
    partner_draw = models.BooleanField(
        _("draw for partners"),
        default=False,
        help_text=_("Four players only: a second ace chooses the Hakem's partner (R2.3)."),
    )
    options = models.JSONField(
        _("table settings"),
        default=dict,
        blank=True,
        help_text=_("Court Piece only: the settings of R9.11, as the game record stores them."),
    )
    max_deals = models.PositiveIntegerField(
        _("most deals"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Court Piece only: the match ends after this many deals (R9.10.2)."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_tables",
    )
    computer_level = models.CharField(
        _("computer level"),
        max_length=10,
        choices=ComputerLevel,
        default=ComputerLevel.MEDIUM,
        help_text=_("How the computer players at this table play."),
    )
    invite_code = models.CharField(
        _("invite code"),
        max_length=32,
        unique=True,
        default=new_invite_code,
        editable=False,
        help_text=_("The secret part of a private table's invite link."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.OPEN)
    seats_changed_at = models.DateTimeField(
        _("seats last changed"),
        default=timezone.now,
        help_text=_("When someone last took or left a seat here, before the match."),
    )
    closed_idle = models.BooleanField(
        _("closed as idle"),
        default=False,
        help_text=_("Closed because nobody took or left a seat for a long time."),
    )
    rated = models.BooleanField(
        _("rated"),
        default=False,
        help_text=_("Its matches change the players' ratings: people in every seat, and a clock."),
    )
    rating_min = models.PositiveIntegerField(
        _("lowest rating"),
        null=True,
        blank=True,
        help_text=_("Rated tables only: players below this rating may not sit down."),
    )
    rating_max = models.PositiveIntegerField(
        _("highest rating"),
        null=True,
        blank=True,
        help_text=_("Rated tables only: players above this rating may not sit down."),
    )
    # The first shuffles of its match, sealed when the table opens (R8.4): {"draw": block,
    # "hand": block} (games/play/fairness.py). Their commitments show on the table's page before
    # anyone is dealt; the seated players' pages add their seeds (Seat.client_seed). The server
    # seeds are secret until the flips are over and the first hand is over.
    fair_start = models.JSONField(_("sealed first shuffles"), default=dict, blank=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.CheckConstraint(condition=Q(target__gte=1), name="games_table_target_positive"),
            models.CheckConstraint(
                condition=Q(partner_draw=False) | Q(variant__in=PARTNER_DRAW_VARIANTS),
                name="games_table_partner_draw_hokm4",
            ),
            # A rated match needs people in every seat and a turn clock (docs/ratings.md).
            models.CheckConstraint(
                condition=Q(rated=False)
                | Q(fill_with_computer=False, turn_clock_seconds__isnull=False),
                name="games_table_rated_people_clock",
            ),
        ]
        indexes = [
            # The lobby: open tables, newest first, optionally of one variant.
            models.Index(fields=["status", "-created_at"], name="games_table_status_idx"),
            # The worker's sweep of open tables nobody has sat at or left for a long time.
            models.Index(fields=["status", "seats_changed_at"], name="games_table_idle_idx"),
            models.Index(fields=["variant", "status"], name="games_table_variant_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def ace_caller_name(self) -> str:
        """Court Piece's ace caller (R9.16) as the suit's name, "" when the table has none."""
        suit = (self.options or {}).get("ace_caller")
        return str(dict(SUIT_CHOICES).get(suit, "")) if suit else ""


class Seat(models.Model):
    """A seat at a table: a user, a computer player, or empty."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats"
    )
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="table_seats",
    )
    # NULL (never "") is the one "not a computer" value: the check constraint below tests it.
    computer_level = models.CharField(  # noqa: DJ001
        _("computer level"), max_length=10, choices=ComputerLevel, null=True, blank=True
    )
    # The seated player's seed for the table's sealed first shuffles (R8.4), sent by his page
    # after it showed their commitments; "" until then, and for a computer.
    client_seed = models.CharField(_("client seed"), max_length=64, blank=True, default="")

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="games_seat_unique_index"),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(computer_level__isnull=True),
                name="games_seat_user_or_computer",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.index}"


class Match(models.Model):
    """One match: hands until a side reaches the target (R7), played here or imported."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        ABANDONED = "abandoned", _("abandoned")

    class EndedBy(models.TextChoices):
        """How a match over came to its end, when not by its score (R7.1)."""

        SCORE = "", _("score")
        RESIGN = "resign", _("resignation")
        ABANDON = "abandon", _("abandonment")

    table = models.ForeignKey(
        Table,
        verbose_name=_("table"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="matches",
    )
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    target = models.PositiveIntegerField(_("target"), validators=[MinValueValidator(1)])
    seed = models.BigIntegerField(
        _("seed"), null=True, blank=True, help_text=_("Empty for imported matches.")
    )
    partner_draw = models.BooleanField(_("draw for partners"), default=False)
    # Fair deals (R8.4, RECORD.md "Fair deals"): the flips' shuffle, {"commit", "server_seed",
    # "client_seeds"}, its seed public once the first hand is dealt; and the next hand's shuffle,
    # drawn when a hand ends and committed to in that event, whose "server_seed" no byte sent to
    # anyone may hold before that hand is over (games/play/fairness.py).
    draw_fair = models.JSONField(_("fair flips"), default=dict, blank=True)
    next_fair = models.JSONField(_("next fair shuffle"), default=dict, blank=True)
    options = models.JSONField(
        _("table settings"),
        default=dict,
        blank=True,
        help_text=_("Court Piece only: the settings of R9.11, as the game record stores them."),
    )
    max_deals = models.PositiveIntegerField(
        _("most deals"),
        null=True,
        blank=True,
        help_text=_("Court Piece only: the match ends after this many deals (R9.10.2)."),
    )
    hakem_draw = models.JSONField(
        _("Hakem draw"),
        null=True,
        blank=True,
        help_text=_("The public flips that found the first Hakem (R2.2 to R2.4)."),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.PLAYING)
    version = models.PositiveBigIntegerField(
        _("version"), default=0, help_text=_("Bumped on every change of the match state.")
    )
    scores = models.JSONField(_("scores"), default=list, help_text=_("Points per side."))
    winner_side = models.PositiveSmallIntegerField(_("winning side"), null=True, blank=True)
    # Set with the status by games.play.services: a resignation finishes the match (R8), a match
    # nobody played for long is abandoned by the worker.
    ended_by = models.CharField(
        _("ended by"), max_length=10, choices=EndedBy, default=EndedBy.SCORE, blank=True
    )
    resigned_seat = models.PositiveSmallIntegerField(
        _("resigned seat"),
        null=True,
        blank=True,
        help_text=_("The seat whose player resigned, when the match ended by resignation."),
    )
    imported = models.BooleanField(_("imported"), default=False)
    rated = models.BooleanField(
        _("rated"),
        default=False,
        help_text=_(
            "Changes its players' ratings once finished: people in every seat at the start."
        ),
    )
    voided = models.BooleanField(
        _("voided"),
        default=False,
        help_text=_("Voided by a moderator: counts for no statistics and no rating."),
    )
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("imported by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="imported_matches",
    )
    clock_seconds = models.PositiveIntegerField(
        _("turn clock (seconds)"),
        null=True,
        blank=True,
        help_text=_("Time for each decision (R8.1), copied from the table; empty for no clock."),
    )
    # When the worker (games.play.autoplay) should next look at the match: a computer player's move,
    # the next deal, or the end of a person's turn clock. Stored, so a restart loses nothing.
    step_at = models.DateTimeField(_("next automatic step"), null=True, blank=True)
    # The table its players opened to play again together once it was over (games.play.rematch).
    rematch_table = models.ForeignKey(
        Table,
        verbose_name=_("rematch table"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch_of",
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.CheckConstraint(condition=Q(target__gte=1), name="games_match_target_positive"),
            models.CheckConstraint(
                condition=Q(partner_draw=False) | Q(variant__in=PARTNER_DRAW_VARIANTS),
                name="games_match_partner_draw_hokm4",
            ),
        ]
        indexes = [
            models.Index(fields=["-created_at"], name="games_match_created_idx"),
            models.Index(fields=["status", "-created_at"], name="games_match_status_idx"),
            models.Index(fields=["variant", "-created_at"], name="games_match_variant_idx"),
            # The worker's one query: matches being played whose next step is due.
            models.Index(
                fields=["step_at"],
                condition=Q(status="playing", step_at__isnull=False),
                name="games_match_step_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_variant_display()} #{self.pk}"


class MatchSeat(models.Model):
    """Who played a seat of a match, in play order after any R2.3 re-seating."""

    class Status(models.TextChoices):
        """Who decides for a person's seat (R8.1); a computer player's seat is always PLAYING."""

        PLAYING = "playing", _("playing")
        AWAY = "away", _("away")  # the clock ran out: the computer plays until he is back
        LEFT = "left", _("left")  # he left the match to a computer player; he may come back

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="seats"
    )
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="match_seats",
    )
    # NULL (never "") is the one "not a computer" value: the check constraint below tests it.
    computer_level = models.CharField(  # noqa: DJ001
        _("computer level"), max_length=10, choices=ComputerLevel, null=True, blank=True
    )
    name = models.CharField(_("name"), max_length=150, help_text=_("The name shown and recorded."))
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.PLAYING)
    timeouts = models.PositiveIntegerField(
        _("timeouts"), default=0, help_text=_("Decisions the computer took when the clock ran out.")
    )

    class Meta:
        verbose_name = _("match seat")
        verbose_name_plural = _("match seats")
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="games_matchseat_unique_index"),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(computer_level__isnull=True),
                name="games_matchseat_user_or_computer",
            ),
        ]
        indexes = [
            # "My games": a user's matches, newest (highest id) first, without touching Match.
            models.Index(fields=["user", "-match"], name="games_matchseat_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (#{self.index})"


def deck_to_text(cards: Iterable[Card]) -> str:
    """The stored form of a deal order: R1.2 card texts separated by spaces, top first."""
    return " ".join(card.text for card in cards)


def deck_from_text(text: str) -> tuple[Card, ...]:
    """The deal order of :attr:`Hand.deck`; raises ``CardTextError`` on a corrupt row."""
    return tuple(Card.parse(card) for card in text.split())


class Hand(models.Model):
    """One hand of a match: its deal order and the choices that are not card plays."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="hands"
    )
    number = models.PositiveSmallIntegerField(_("number"))
    hakem = models.PositiveSmallIntegerField(_("Hakem"))
    dealer = models.PositiveSmallIntegerField(_("dealer"))
    seed = models.BigIntegerField(
        _("seed"), null=True, blank=True, help_text=_("Empty for imported hands.")
    )
    # 52 two-letter cards and 51 spaces: the whole deal order, top first (R1.2 notation).
    deck = models.CharField(_("cards dealt"), max_length=155)
    # The hand's fair shuffle (R8.4): {"commit", "server_seed", "client_seeds"}; the seed is
    # secret until the hand is over (games/play/fairness.py). Empty for imported hands.
    fair = models.JSONField(_("fair shuffle"), default=dict, blank=True)
    # NULL until the Hakem calls (R3.1): "" would not be a suit either, so one empty value only.
    trump = models.CharField(  # noqa: DJ001
        _("trump"), max_length=1, choices=SUIT_CHOICES, null=True, blank=True
    )
    discards = models.JSONField(
        _("discards"),
        default=list,
        blank=True,
        help_text=_("Per seat, the cards discarded from the first five (hokm2-draw, R3.5)."),
    )
    keep_first = models.JSONField(
        _("keep first"),
        default=list,
        blank=True,
        help_text=_("One choice per draw turn: true when the first card was kept (R3.5)."),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.PLAYING)
    tricks_won = models.JSONField(_("tricks won"), default=list, help_text=_("Per seat."))
    winner_side = models.PositiveSmallIntegerField(_("winning side"), null=True, blank=True)
    points = models.PositiveSmallIntegerField(_("points"), null=True, blank=True)
    kot = models.BooleanField(_("Kot"), default=False)
    hakem_kot = models.BooleanField(_("Hakem Kot"), default=False)
    # Court Piece (R9): ``hakem`` is the deal's caller, ``points`` the courts it scored (R9.7,
    # R9.8.2), ``trump`` set once it is public or the deal is over (R9.14), and:
    # NULL (never "") when no indicator was laid: the one "none" value.
    indicator = models.CharField(  # noqa: DJ001
        _("indicator"),
        max_length=2,
        null=True,
        blank=True,
        help_text=_(
            "Hidden trump: the caller's face-down card (R9.14.1). Never shown before the reveal."
        ),
    )
    reveal = models.JSONField(
        _("reveal"),
        null=True,
        blank=True,
        help_text=_("Hidden trump: the trick and seat at which trump was revealed (R9.14.2)."),
    )
    # NULL (never "") until a court-piece deal is decided.
    outcome = models.CharField(  # noqa: DJ001
        _("outcome"), max_length=10, choices=DEAL_OUTCOMES, null=True, blank=True
    )
    goon = models.BooleanField(
        _("goon"), default=False, help_text=_("A court by the dealing side (R9.7).")
    )
    streak_court = models.BooleanField(
        _("seven in a row"), default=False, help_text=_("The seventh deal won in a row (R9.8.2).")
    )
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="games_hand_unique_number"),
        ]

    def __str__(self) -> str:
        return _("hand %(number)s of match %(match)s") % {
            "number": self.number,
            "match": self.match_id,
        }


class Trick(models.Model):
    """A trick of a hand; its winner is empty until its last card is played."""

    hand = models.ForeignKey(
        Hand, verbose_name=_("hand"), on_delete=models.CASCADE, related_name="tricks"
    )
    number = models.PositiveSmallIntegerField(_("number"))
    leader = models.PositiveSmallIntegerField(_("leader"))
    winner = models.PositiveSmallIntegerField(_("winner"), null=True, blank=True)

    class Meta:
        verbose_name = _("trick")
        verbose_name_plural = _("tricks")
        constraints = [
            models.UniqueConstraint(fields=["hand", "number"], name="games_trick_unique_number"),
        ]

    def __str__(self) -> str:
        return _("trick %(number)s of hand %(hand)s") % {
            "number": self.number,
            "hand": self.hand_id,
        }


class CardPlay(models.Model):
    """One card played to a trick."""

    # Denormalised from the trick so that a hand's plays come in one query on one index.
    hand = models.ForeignKey(
        Hand, verbose_name=_("hand"), on_delete=models.CASCADE, related_name="plays"
    )
    trick = models.ForeignKey(
        Trick, verbose_name=_("trick"), on_delete=models.CASCADE, related_name="plays"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    order = models.PositiveSmallIntegerField(_("order"), help_text=_("Position in the trick."))
    card = models.CharField(_("card"), max_length=2)
    played_at = models.DateTimeField(_("played at"), default=timezone.now)

    class Meta:
        verbose_name = _("card play")
        verbose_name_plural = _("card plays")
        constraints = [
            models.UniqueConstraint(fields=["trick", "order"], name="games_cardplay_unique_order"),
            models.UniqueConstraint(fields=["hand", "card"], name="games_cardplay_unique_card"),
        ]

    def __str__(self) -> str:
        return f"{self.card} (#{self.seat})"


class ClientAction(models.Model):
    """An action a client sent with its sequence id, stored once it was applied.

    A client re-sends an action it saw no acknowledgement for; the services find it here and
    acknowledge it again instead of applying it twice (at most once per match, seat and id).
    """

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="client_actions"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    client_seq = models.PositiveBigIntegerField(_("client sequence id"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    action = models.JSONField(_("action"))
    version = models.PositiveBigIntegerField(_("match version after the action"))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("client action")
        verbose_name_plural = _("client actions")
        constraints = [
            models.UniqueConstraint(
                fields=["match", "seat", "client_seq"], name="games_clientaction_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat} #{self.client_seq}"


class ChatMessage(models.Model):
    """One message of the table chat, kept with its match so moderators can read it later.

    Written only by ``games.play.chat.chat_post``; ``name`` is the sender's name at the time, so the
    log reads the same after a rename or a deleted account.
    """

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="chat_messages"
    )
    seat = models.PositiveSmallIntegerField(
        _("seat"), null=True, blank=True, help_text=_("Empty for a spectator.")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    name = models.CharField(_("name"), max_length=60)
    text = models.CharField(_("text"), max_length=200)
    # NULL (never "") is the one "free text" value.
    phrase = models.CharField(  # noqa: DJ001
        _("quick phrase"), max_length=32, null=True, blank=True
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [
            models.Index(fields=["match", "-created_at"], name="games_chat_match_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.text[:40]}"


class MatchEvent(models.Model):
    """The public facts of one change of a match, kept so that a client that reconnects gets the
    events it missed (R8.2), and moderators can read what happened and when.

    ``data`` is exactly what was broadcast: never a card still hidden from anyone (R8.3).
    """

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="events"
    )
    version = models.PositiveBigIntegerField(_("version"))
    kind = models.CharField(_("kind"), max_length=32)
    data = models.JSONField(_("data"), default=dict)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("match event")
        verbose_name_plural = _("match events")
        ordering = ["match", "version"]
        constraints = [
            models.UniqueConstraint(fields=["match", "version"], name="games_matchevent_version"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} v{self.version} {self.kind}"


class MatchConnection(models.Model):
    """One open socket watching or playing a match: who is connected (R8.2).

    A row lives from the socket's connect to its disconnect; its consumer refreshes ``seen_at``
    while it is open, so the rows of a server process that died stop counting after
    ``games.play.presence.ALIVE_SECONDS`` and are swept by the worker.
    """

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="connections"
    )
    seat = models.PositiveSmallIntegerField(
        _("seat"), null=True, blank=True, help_text=_("Empty for a spectator.")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    channel_name = models.CharField(_("channel"), max_length=200, unique=True)
    connected_at = models.DateTimeField(_("connected at"), default=timezone.now)
    seen_at = models.DateTimeField(_("last seen"), default=timezone.now)

    class Meta:
        verbose_name = _("match connection")
        verbose_name_plural = _("match connections")
        indexes = [
            models.Index(fields=["match", "seat"], name="games_connection_match_idx"),
            models.Index(fields=["seen_at"], name="games_connection_seen_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} seat {self.seat} ({self.channel_name})"


class Rating(models.Model):
    """One player's rating in one game family (a variant): the OpenSkill estimate ``mu`` and its
    uncertainty ``sigma``, and the number shown, stored so leaderboards sort on an index.

    Rows change only through ``games.ratings.services``, under a row lock (docs/ratings.md).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="ratings",
    )
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    mu = models.FloatField(_("skill estimate"))
    sigma = models.FloatField(_("uncertainty"))
    rating = models.IntegerField(
        _("rating"), help_text=_("The number shown: mu - 3 sigma, scaled.")
    )
    games = models.PositiveIntegerField(_("rated matches"), default=0)
    wins = models.PositiveIntegerField(_("rated matches won"), default=0)
    last_played_at = models.DateTimeField(_("last rated match"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "variant"], name="games_rating_unique"),
        ]
        indexes = [
            # Leaderboards: one family's best first (filtered by activity and matches played).
            models.Index(fields=["variant", "-rating"], name="games_rating_board_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.variant} {self.rating}"


class RatingChange(models.Model):
    """What one rated match did to one seat's rating, or what a moderator's void took back
    (``VOID``) or a lifted void gave again (``RESTORE``). The ids follow the order in which the
    changes were made to each player (written under his rating's row lock), which is the order
    ``ratings_rebuild`` replays them in."""

    class Kind(models.TextChoices):
        MATCH = "match", _("match")
        VOID = "void", _("void")
        RESTORE = "restore", _("void lifted")

    match = models.ForeignKey(
        Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="rating_changes"
    )
    # Kept when an account is deleted (as its match seats are): the others' changes in the same
    # matches were computed from it, and the rebuild reads its "before" values to replay them.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="rating_changes",
    )
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    seat = models.PositiveSmallIntegerField(_("seat"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind, default=Kind.MATCH)
    mu_before = models.FloatField(_("skill estimate before"))
    sigma_before = models.FloatField(_("uncertainty before"))
    mu_after = models.FloatField(_("skill estimate after"))
    sigma_after = models.FloatField(_("uncertainty after"))
    rating_before = models.IntegerField(_("rating before"))
    rating_after = models.IntegerField(_("rating after"))
    won = models.BooleanField(_("won"), default=False, help_text=_("Counted as a win for him."))
    created_at = models.DateTimeField(_("when"), default=timezone.now)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            # Exactly once: a match changes each of its players' ratings one time.
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=Q(kind="match"),
                name="games_ratingchange_once",
            ),
        ]
        indexes = [
            # A player's chart in one family, in order.
            models.Index(fields=["user", "variant", "id"], name="games_ratingchange_user_idx"),
            # The abuse check: a player's gains of the last day.
            models.Index(fields=["user", "created_at"], name="games_ratingchange_day_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} {self.user_id} {self.rating_before}->{self.rating_after}"

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before


class Seek(models.Model):
    """A player waiting in the seek pool for a rated match of one variant and clock ("Play rated
    now"), from one lobby socket: it ends when he cancels, leaves the lobby or is paired."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="seek",
    )
    variant = models.CharField(_("variant"), max_length=16, choices=VARIANT_CHOICES)
    clock_seconds = models.PositiveIntegerField(_("turn clock (seconds)"))
    rating = models.IntegerField(
        _("rating"), help_text=_("His rating in the variant when he asked.")
    )
    channel_name = models.CharField(_("channel"), max_length=200)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    seen_at = models.DateTimeField(_("last seen"), default=timezone.now)
    # The seeker's sealed first shuffles (R8.4), taken from his FairSeal when he asked, and the
    # seed his page added after seeing their commitment; the oldest seek of a group deals.
    fair_start = models.JSONField(_("sealed first shuffles"), default=dict, blank=True)
    client_seed = models.CharField(_("client seed"), max_length=64, blank=True, default="")

    class Meta:
        verbose_name = _("seek")
        verbose_name_plural = _("seeks")
        indexes = [
            models.Index(
                fields=["variant", "clock_seconds", "created_at"], name="games_seek_pool_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.variant} {self.clock_seconds}s"


class FairSeal(models.Model):
    """A player's next sealed first shuffles (R8.4, docs/fairness.md): the flips' and the first
    hand's, drawn before he starts a match against the computer or seeks one. The pages that
    start one show the commitment and post it back with the player's seed; a match started
    with that commitment deals from these seeds, and the seal is used up."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="fair_seal",
    )
    # {"draw": block, "hand": block} (games/play/fairness.py); the server seeds never leave.
    seal = models.JSONField(_("sealed first shuffles"), default=dict)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("sealed first shuffle")
        verbose_name_plural = _("sealed first shuffles")

    def __str__(self) -> str:
        return f"{self.user_id} {self.commit[:12]}"

    @property
    def commit(self) -> str:
        """The commitment a page posts back: the first hand's."""
        return str(self.seal.get("hand", {}).get("commit", ""))
