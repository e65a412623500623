"""Tables before their match: creating them, taking and leaving seats, starting the match.

Services (writes) run in one transaction each and lock the table row, so two players racing for
the same seat are served one after the other. What changed is announced only after the commit:
the channel-layer group ``lobby`` hears of every change to a public table, the group
``table.<id>`` of every change to that table; the consumers (``games.lobby.consumers``) re-render
their fragments from the selectors below. A rule broken raises :class:`TableError` with a message
a player can read, and nothing is written.

A match starts when the last seat is taken, or when the creator of a table that allows it fills
the empty seats with computer players. From then on the match's own seats (``MatchSeat``), not
the table's, say who plays (docs/storage.md).
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.invisible_characters import (
    INVISIBLE_CHARACTERS_MESSAGE,
    has_control_character,
    has_invisible_character,
)
from accounts.restrictions import play_banned
from games.engine import (
    DEFAULT_TARGET,
    GAME_VARIANTS,
    CourtPieceOptions,
    FairError,
    IllegalActionError,
    OptionsError,
    get_variant,
)
from games.lobby.selectors import (
    TABLE_IDLE_SECONDS,
    computer_player_name,
    player_name,
    user_computer_matches_unfinished,
)
from games.models import ComputerLevel, FairSeal, Match, MatchSeat, Seat, Table
from games.play import fairness
from games.play.services import SeatSpec, match_create, match_resign
from games.ratings.selectors import rating_of
from lib.errors import ApplicationError
from lib.realtime import send_on_commit

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

#: The channel-layer group of the lobby page; every open public table is shown there.
LOBBY_GROUP = "lobby"
#: Targets a table may play to (R7.1 leaves the choice to the table; past 21 a match never ends).
TARGET_MIN, TARGET_MAX = 1, 21
TARGET_PRESETS = (1, 3, 5, 7, 11)
#: Court Piece's match is to this many courts unless the table says otherwise (R9.10.1).
COURT_PIECE_TARGET = 1
#: The most deals a Court Piece table may cap its match at (R9.10.2).
MAX_DEALS_MAX = 99
#: The highest bound a rated table's range of ratings may name.
RATING_MAX = 5000


def default_target(variant: str) -> int:
    """The target a table of ``variant`` plays to unless it says otherwise: 7 points for Hokm
    (R7.1), 1 court for Court Piece (R9.10.1)."""
    rules = GAME_VARIANTS.get(variant)
    return COURT_PIECE_TARGET if rules and rules.family == "court-piece" else DEFAULT_TARGET


#: Turn clocks a table may set (R8.1), in seconds; None is no clock.
TURN_CLOCKS = (15, 30, 60)
NAME_MAX_LENGTH = cast(int, Table._meta.get_field("name").max_length)  # a CharField has one
#: Session key: the ids of private tables whose invite link this browser opened
#: (see :func:`table_can_view`).
INVITED_SESSION_KEY = "games_invited_tables"


#: How many tables one player may open within ``TABLES_WINDOW``. Every table against the
#: computer sets computer players thinking on the server's cores (docs/bots.md); a program opening
#: tables in a loop would hold up everyone's computer players. An evening of play opens a few.
TABLES_PER_WINDOW = 20
TABLES_WINDOW = timedelta(minutes=10)


class TableError(ApplicationError):
    """A table rule refused the request; ``message`` says why, in words a player reads."""

    def __init__(self, message: str, *, code: str = "table_refused") -> None:
        super().__init__(code, message)


class TooManyTablesError(TableError):
    """The player opened ``TABLES_PER_WINDOW`` tables within ``TABLES_WINDOW``; he may open the
    next one in ``retry_after`` seconds."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(message, code="too_many_tables")


def _require_table_allowance(user: User) -> None:
    """Refuse a player who opened ``TABLES_PER_WINDOW`` tables in the last ``TABLES_WINDOW``."""
    now = timezone.now()
    recent = list(
        Table.objects.filter(created_by=user, created_at__gt=now - TABLES_WINDOW)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:TABLES_PER_WINDOW]
    )
    if len(recent) < TABLES_PER_WINDOW:
        return
    # The oldest of those leaves the window first, and with it a place for a new table.
    wait = recent[-1] + TABLES_WINDOW - now
    minutes = max(1, -(-int(wait.total_seconds()) // 60))
    raise TooManyTablesError(
        # The plural follows the wait, which may be one minute; the count and window never are.
        ngettext(
            "You have opened %(count)s tables in the last %(window)s minutes. "
            "You can open another in %(minutes)s minute.",
            "You have opened %(count)s tables in the last %(window)s minutes. "
            "You can open another in %(minutes)s minutes.",
            minutes,
        )
        % {
            "count": TABLES_PER_WINDOW,
            "window": int(TABLES_WINDOW.total_seconds() // 60),
            "minutes": minutes,
        },
        retry_after=max(1, int(wait.total_seconds()) + 1),
    )


def _require_may_play(user: User) -> None:
    """Refuse a player kept from playing: a suspension, a ban or a play ban for quitting."""
    restriction = play_banned(user=user)
    if restriction is not None:
        raise TableError(restriction.message())


def table_name_has_hidden_character(name: str) -> bool:
    """Whether a typed table name holds a character that draws nothing or turns the text around
    (``accounts.invisible_characters``), or a control character: a line break, a tab, a bell.
    A name is one line; a name of control characters alone would show as an empty link in the
    lobby.

    >>> table_name_has_hidden_character("Friday\x07night"), table_name_has_hidden_character("شب")
    (True, False)
    """
    return has_invisible_character(name) or has_control_character(name)


def table_group_name(table_id: int) -> str:
    """The channel-layer group of the people looking at one table before its match."""
    return f"table.{table_id}"


# -- services ------------------------------------------------------------------------------------


def table_create(
    *,
    user: User,
    name: str,
    variant: str,
    target: int,
    turn_clock_seconds: int | None,
    is_private: bool,
    allow_spectators: bool,
    fill_with_computer: bool,
    computer_level: str,
    partner_draw: bool,
    default_name: str | None = None,
    options: dict[str, Any] | None = None,
    max_deals: int | None = None,
    rated: bool = False,
    rating_min: int | None = None,
    rating_max: int | None = None,
    seal: dict[str, Any] | None = None,
) -> Table:
    """Open a table with an empty seat for each player of the variant; the creator takes seat 0.

    A ``rated`` table's matches change its players' ratings (docs/ratings.md): it has a turn clock
    and no computer players, and may take only players rated from ``rating_min`` to
    ``rating_max`` (either may be None), the creator included.

    An empty ``name`` becomes ``default_name``, else "<player>'s table", shortened with "…" to
    the longest name a table may have. A name typed may hold no invisible character
    (``accounts.invisible_characters``); a default is not checked, as it holds a display name
    that may be older than that check.

    The match's first shuffles are sealed now (R8.4): ``seal`` when given (a quick start's,
    :func:`fair_seal_take`), else new ones; the table's page shows their commitment.
    """
    _require_may_play(user)
    if variant not in GAME_VARIANTS:
        raise TableError(_("Choose one of the variants offered."))
    options, max_deals = _court_piece_settings(variant, options, max_deals)
    if not isinstance(target, int) or not TARGET_MIN <= target <= TARGET_MAX:
        raise TableError(
            _("The target must be between %(min)s and %(max)s points.")
            % {"min": TARGET_MIN, "max": TARGET_MAX}
        )
    if turn_clock_seconds is not None and turn_clock_seconds not in TURN_CLOCKS:
        raise TableError(_("The turn clock must be 15, 30 or 60 seconds, or none."))
    if turn_clock_seconds is None and not is_private:
        # R8.1: strangers at a public table must not be able to stall a match forever.
        raise TableError(_("Only private tables can play without a turn clock."))
    if computer_level not in ComputerLevel.values:
        raise TableError(_("Choose one of the computer levels offered."))
    if partner_draw and not get_variant(variant).partner_draw_allowed:
        raise TableError(_("The draw for partners is played with four players only."))
    if name and table_name_has_hidden_character(name):
        raise TableError(str(INVISIBLE_CHARACTERS_MESSAGE))
    _require_rated_settings(
        rated=rated,
        turn_clock_seconds=turn_clock_seconds,
        fill_with_computer=fill_with_computer,
        rating_min=rating_min,
        rating_max=rating_max,
    )
    if rated:
        _require_in_range(user, variant=variant, low=rating_min, high=rating_max)
    name = (name or "").strip()
    if len(name) > NAME_MAX_LENGTH:
        raise TableError(
            _("A table's name has at most %(count)s characters.") % {"count": NAME_MAX_LENGTH}
        )
    if not name:
        # A name made for him is shortened, not refused: a display name of the longest kind
        # (40 characters) with " against the computer" is longer than a table's name may be.
        name = default_name or _("%(player)s's table") % {"player": player_name(user)}
        if len(name) > NAME_MAX_LENGTH:
            name = name[: NAME_MAX_LENGTH - 1].rstrip() + "…"
    with transaction.atomic():
        # The player's row, locked: two tables opened at once (a script's parallel requests)
        # are counted one after the other, so neither slips past the allowance.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _require_table_allowance(user)
        table = Table.objects.create(
            name=name,
            variant=variant,
            target=target,
            turn_clock_seconds=turn_clock_seconds,
            is_private=is_private,
            allow_spectators=allow_spectators,
            fill_with_computer=fill_with_computer,
            computer_level=computer_level,
            partner_draw=partner_draw,
            options=options,
            max_deals=max_deals,
            rated=rated,
            rating_min=rating_min,
            rating_max=rating_max,
            created_by=user,
            fair_start=seal or fairness.seal_new(get_variant(variant).players),
        )
        Seat.objects.bulk_create(
            Seat(table=table, index=index, user=user if index == 0 else None)
            for index in range(get_variant(variant).players)
        )
        _table_changed_on_commit(table)
    return table


def _require_rated_settings(
    *,
    rated: bool,
    turn_clock_seconds: int | None,
    fill_with_computer: bool,
    rating_min: int | None,
    rating_max: int | None,
) -> None:
    if not rated:
        if rating_min is not None or rating_max is not None:
            raise TableError(_("Only a rated table can take a range of ratings."))
        return
    if turn_clock_seconds is None:
        raise TableError(_("A rated table needs a turn clock."))
    if fill_with_computer:
        raise TableError(_("A rated table is played by people only, without computer players."))
    for bound in (rating_min, rating_max):
        if bound is not None and (
            not isinstance(bound, int) or isinstance(bound, bool) or not 0 <= bound <= RATING_MAX
        ):
            raise TableError(_("A rating range goes from 0 to %(max)s.") % {"max": RATING_MAX})
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise TableError(_("The lowest rating must not be above the highest."))


def _require_in_range(user: User, *, variant: str, low: int | None, high: int | None) -> None:
    """A rated table with a range of ratings takes only players whose rating is within it."""
    if low is None and high is None:
        return
    rating = rating_of(user=user, variant=variant).rating
    if (low is not None and rating < low) or (high is not None and rating > high):
        raise TableError(
            _("This table is for ratings from %(low)s to %(high)s; yours is %(rating)s.")
            % {
                "low": low if low is not None else "…",
                "high": high if high is not None else "…",
                "rating": rating,
            }
        )


def _court_piece_settings(
    variant: str, options: dict[str, Any] | None, max_deals: int | None
) -> tuple[dict[str, Any], int | None]:
    """The table settings of R9.11 as stored (every key, defaults filled in) and the most deals
    of R9.10.2; refused with a :class:`TableError` for Hokm or when R9.11 does not allow them."""
    if get_variant(variant).family != "court-piece":
        if options or max_deals is not None:
            raise TableError(_("Only Court Piece has these table settings."))
        return {}, None
    try:
        settings = CourtPieceOptions.from_json(options or {})
    except OptionsError as error:
        if isinstance(options, dict) and options.get("ace_rule") and not options.get("double_sir"):
            raise TableError(_("The ace rule is played with Double Sir only.")) from None
        # The engine says which setting and why, in the protocol's English (docs/protocol.md).
        raise TableError(
            _("Court Piece has no such table setting: %(reason)s") % {"reason": error}
        ) from None
    if max_deals is not None and (
        not isinstance(max_deals, int)
        or isinstance(max_deals, bool)
        or not 1 <= max_deals <= MAX_DEALS_MAX
    ):
        raise TableError(
            _("The most deals must be a whole number from 1 to %(max)s, or empty.")
            % {"max": MAX_DEALS_MAX}
        )
    return settings.to_json(), max_deals


def table_join_seat(
    *, table: Table, user: User, seat_index: int, commit: str = "", client_seed: str = ""
) -> Match | None:
    """Sit ``user`` at seat ``seat_index``, moving them if they sat elsewhere at this table.

    Returns the match when this was the last empty seat: the match starts at once. ``commit``
    and ``client_seed``: his page's seed for the table's sealed shuffles (R8.4), kept if the
    commitment is the table's (:func:`table_client_seed`); a seat moved keeps its seed.
    """
    _require_may_play(user)
    with transaction.atomic():
        locked = _table_lock(table)
        _require_open(locked)
        seats = _seats_of(locked)
        if not 0 <= seat_index < len(seats):
            raise TableError(_("This table has no seat %(seat)s.") % {"seat": seat_index + 1})
        wanted = seats[seat_index]
        if wanted.user_id == user.pk:
            return None
        if wanted.user_id is not None or wanted.computer_level is not None:
            raise TableError(_("Someone already sits in this seat."))
        if locked.rated:
            _require_in_range(
                user, variant=locked.variant, low=locked.rating_min, high=locked.rating_max
            )
        seed = _seed_for(locked, commit=commit, client_seed=client_seed)
        for seat in seats:
            if seat.user_id == user.pk:  # one seat per person at a table: move
                seed = seed if seed is not None else seat.client_seed
                seat.user = None
                seat.client_seed = ""
                seat.save(update_fields=["user", "client_seed"])
        wanted.user = user
        wanted.client_seed = seed or ""
        wanted.save(update_fields=["user", "client_seed"])
        locked.seats_changed_at = timezone.now()
        locked.save(update_fields=["seats_changed_at"])
        match = None
        # A player kept from playing since he sat down stands up instead of being dealt in: the
        # seat is free again and the table waits for someone else.
        if all(seat.user_id is not None for seat in seats) and not _stand_up_barred(seats):
            match = _start(locked, seats)
        _table_changed_on_commit(locked, match=match)
    return match


def table_leave_seat(*, table: Table, user: User) -> None:
    """Stand up from one's seat; only before the match starts.

    A table that nobody sits at any more is closed, so the lobby shows no empty tables.
    """
    with transaction.atomic():
        locked = _table_lock(table)
        if locked.status == Table.Status.CLOSED:
            raise TableError(_("This table is closed."))
        if locked.status != Table.Status.OPEN:
            raise TableError(_("The match has started: seats can only be left before the start."))
        seats = _seats_of(locked)
        mine = [seat for seat in seats if seat.user_id == user.pk]
        if not mine:
            raise TableError(_("You are not sitting at this table."))
        for seat in mine:
            seat.user = None
            seat.client_seed = ""
            seat.save(update_fields=["user", "client_seed"])
        # One write of the table's row: the seat change's time and, with nobody left, closed.
        locked.seats_changed_at = timezone.now()
        fields = ["seats_changed_at"]
        if all(seat.user_id is None for seat in seats):
            locked.status = Table.Status.CLOSED
            fields.append("status")
        locked.save(update_fields=fields)
        _table_changed_on_commit(locked)


def table_start(*, table: Table, user: User, commit: str = "", client_seed: str = "") -> Match:
    """The creator, seated, starts the match now: empty seats get computer players at the
    table's level, as do the seats of players kept from playing since they sat down. His page's
    seed for the sealed shuffles may come with it (:func:`table_client_seed`).

    Only at a table that fills empty seats with computer players (``fill_with_computer``);
    other tables start by themselves once every seat is taken.
    """
    _require_may_play(user)
    with transaction.atomic():
        locked = _table_lock(table)
        _require_open(locked)
        if locked.created_by_id != user.pk:
            raise TableError(_("Only the player who opened this table can start it."))
        if not locked.fill_with_computer:
            raise TableError(
                _(
                    "This table does not fill empty seats with computer players: "
                    "it starts when every seat is taken."
                )
            )
        seats = _seats_of(locked)
        if not any(seat.user_id == user.pk for seat in seats):
            # Having left his seat he no longer plays here: he may not deal the players who
            # stayed a match with a computer in his place.
            raise TableError(_("Take a seat at this table to start its match."))
        seed = _seed_for(locked, commit=commit, client_seed=client_seed)
        if seed is not None:
            for seat in seats:
                if seat.user_id == user.pk:
                    seat.client_seed = seed
                    seat.save(update_fields=["client_seed"])
        _stand_up_barred(seats)
        for seat in seats:
            if seat.user_id is None and seat.computer_level is None:
                seat.computer_level = locked.computer_level
                seat.save(update_fields=["computer_level"])
        match = _start(locked, seats)
        _table_changed_on_commit(locked, match=match)
    return match


class UnfinishedMatchError(TableError):
    """The player has matches against the computer he has not finished (``matches``): he chooses
    to resume one, or to resign them and start a new one (R8.2)."""

    def __init__(self, matches: Sequence[Match]) -> None:
        super().__init__(
            ngettext(
                "Your last match against the computer is not finished: "
                "resume it, or resign it and start a new one.",
                "Your last matches against the computer are not finished: "
                "resume one, or resign them and start a new one.",
                len(matches),
            ),
            code="unfinished_match",
        )
        self.matches = list(matches)


#: The most unfinished matches against the computer one quick start resigns; more than a few
#: come only from programs (``games.play.api`` starts without asking).
UNFINISHED_MAX = 20


#: What :func:`play_against_computer` does when the player has unfinished matches against the
#: computer: start another anyway (programs, ``games.play.api``), refuse with
#: :class:`UnfinishedMatchError` (the lobby's quick start asks first), or resign them first.
IF_UNFINISHED = ("open", "ask", "resign")


def play_against_computer(
    *,
    user: User,
    variant: str = "hokm4",
    target: int | None = None,
    computer_level: str = ComputerLevel.MEDIUM,
    options: dict[str, Any] | None = None,
    max_deals: int | None = None,
    if_unfinished: str = "open",
    commit: str = "",
    client_seed: str = "",
) -> Match:
    """One click: a private table with ``user`` at seat 0 and computer players of
    ``computer_level`` in the other seats, its match started at once.

    An unknown level is refused (``TableError``) before anything is created. ``target`` defaults
    to the variant's (:func:`default_target`); a Court Piece table takes its default settings.
    ``if_unfinished`` (one of :data:`IF_UNFINISHED`) says what becomes of his matches against the
    computer that are still being played; resigning them and starting the new one are one
    transaction, so a refused start resigns nothing.

    ``commit`` and ``client_seed``: the player's sealed first shuffles (:func:`fair_seal_of`)
    as his page showed them, and his page's seed: the match deals from them, with his seed in
    his seat (R8.4). Without them, or once that seal is used up, new ones are sealed, his seat's
    seed "" (a page that did not answer).
    """
    if if_unfinished not in IF_UNFINISHED:
        raise ValueError(f"if_unfinished is one of {IF_UNFINISHED}, not {if_unfinished!r}")
    _require_may_play(user)
    if target is None:
        target = default_target(variant)
    with transaction.atomic(durable=True):
        if if_unfinished != "open":
            unfinished = user_computer_matches_unfinished(user=user, limit=UNFINISHED_MAX)
            if unfinished and if_unfinished == "ask":
                raise UnfinishedMatchError(unfinished)
            for match in unfinished:
                _resign_as(match=match, user=user)
        # His seal if his page showed it (else a new one, his seed unused); it is drawn before
        # the game is chosen, and takes one seed per seat of this one (``fairness.seal_seated``).
        seal = fair_seal_take(user=user, commit=commit)
        table = table_create(
            user=user,
            name="",
            seal=seal,
            default_name=_("%(player)s against the computer") % {"player": player_name(user)},
            variant=variant,
            target=target,
            turn_clock_seconds=None,
            is_private=True,
            allow_spectators=False,
            fill_with_computer=True,
            computer_level=computer_level,
            partner_draw=False,
            options=options,
            max_deals=max_deals,
        )
        if seal is None:
            return table_start(table=table, user=user)
        return table_start(table=table, user=user, commit=commit, client_seed=client_seed)


# -- sealed first shuffles (R8.4, docs/fairness.md) ---------------------------------------------


def fair_seal_of(*, user: User) -> FairSeal:
    """The player's sealed first shuffles for his next quick start or seek, sealed now if he
    has none: the pages that start one show its commitment (``FairSeal.commit``)."""
    seal, _created = FairSeal.objects.get_or_create(
        user=user, defaults={"seal": fairness.seal_new(4)}
    )
    return seal


def fair_seal_take(*, user: User, commit: str) -> dict[str, Any] | None:
    """Use up the player's seal if its commitment is ``commit``; None otherwise (his page showed
    another, or none). Inside the caller's transaction: the seal goes with the match it deals."""
    if not commit:
        return None
    with transaction.atomic():
        row = FairSeal.objects.select_for_update().filter(user=user).first()
        if row is None or row.commit != commit:
            return None
        row.delete()
    return dict(row.seal)


def table_client_seed(*, table: Table, user: User, commit: str, client_seed: str) -> None:
    """A seated player's page adds its seed to the table's sealed first shuffles (R8.4), after
    showing their commitment ``commit``. Sent again, the last one counts, until the match
    starts. Refused (:class:`TableError`, nothing changes) for a table that is not open, a
    commitment that is not the table's, a player not seated, a seed RECORD.md does not allow."""
    with transaction.atomic():
        locked = _table_lock(table)
        _require_open(locked)
        seed = _seed_for(locked, commit=commit, client_seed=client_seed)
        if seed is None:
            raise TableError(
                _("This table's shuffles were sealed anew: reload the page."), code="stale_commit"
            )
        mine = [seat for seat in _seats_of(locked) if seat.user_id == user.pk]
        if not mine:
            raise TableError(_("You are not sitting at this table."))
        for seat in mine:
            seat.client_seed = seed
            seat.save(update_fields=["client_seed"])


def _seed_for(table: Table, *, commit: str, client_seed: str) -> str | None:
    """``client_seed`` if ``commit`` is the table's sealed commitment, else None (a page that
    did not answer, or answered another seal). A seed RECORD.md does not allow: TableError."""
    if not commit or commit != fairness.seal_commit(table.fair_start):
        return None
    try:
        return fairness.check_client_seed(client_seed)
    except FairError as error:
        raise TableError(_("This seed cannot be used: %(why)s") % {"why": error}) from None


def computer_match_resign(*, match_id: int, user: User) -> Match:
    """``user`` resigns his unfinished match against the computer from the lobby (R8): he loses
    it at once (``games.play.services.match_resign``). Refused with ``TableError`` for a match
    that is not one of his against the computer, or is over already."""
    match = Match.objects.filter(pk=match_id, seats__user=user).first()
    if match is None or match.status != Match.Status.PLAYING:
        raise TableError(_("This match is over already."))
    if match.pk not in {m.pk for m in user_computer_matches_unfinished(user=user)}:
        raise TableError(_("Only a match against the computer can be resigned here."))
    return _resign_as(match=match, user=user)


def _resign_as(*, match: Match, user: User) -> Match:
    seat = MatchSeat.objects.get(match=match, user=user).index
    try:
        return match_resign(match=match, seat=seat)
    except IllegalActionError:
        # Over meanwhile (the worker abandoned it, or another tab resigned it).
        raise TableError(_("This match is over already.")) from None


def tables_idle_close(*, now: datetime | None = None, limit: int = 100) -> int:
    """Close the open tables where nobody has taken or left a seat for ``TABLE_IDLE_SECONDS``;
    how many were closed. The worker calls it on its sweep.

    Each table is closed under its own lock, after a second look: a seat taken meanwhile keeps it
    open. The players keep their seats on the closed table (the page says why it closed), and its
    page and the lobby are told.
    """
    now = now or timezone.now()
    idle_since = now - timedelta(seconds=TABLE_IDLE_SECONDS)
    idle = Table.objects.filter(status=Table.Status.OPEN, seats_changed_at__lt=idle_since)
    closed = 0
    for table_id in list(idle.order_by("seats_changed_at").values_list("pk", flat=True)[:limit]):
        with transaction.atomic(durable=True):
            locked = _table_lock(table_id)
            if locked.status != Table.Status.OPEN or locked.seats_changed_at >= idle_since:
                continue
            locked.status = Table.Status.CLOSED
            locked.closed_idle = True
            locked.save(update_fields=["status", "closed_idle"])
            _table_changed_on_commit(locked)
        closed += 1
    if closed:
        logger.info("closed %d idle tables", closed)
    return closed


def _table_lock(table: Table | int) -> Table:
    table_id = table.pk if isinstance(table, Table) else table
    return Table.objects.select_for_update().get(pk=table_id)


def _require_open(table: Table) -> None:
    if table.status == Table.Status.PLAYING:
        raise TableError(_("The match at this table has already started."))
    if table.status != Table.Status.OPEN:
        raise TableError(_("This table is closed."))


def _seats_of(table: Table) -> list[Seat]:
    # The table row is locked: every change of its seats goes through that lock first.
    return list(Seat.objects.filter(table=table).order_by("index"))


def _stand_up_barred(seats: Sequence[Seat]) -> bool:
    """Free the seats of players kept from playing now (a suspension, a ban, a play ban, a
    rename asked for), who may have sat down before it took effect; True if any was freed.

    Joining and starting check only the person asking; the others at the table are checked here,
    under the table's lock, just before a match would deal them in.
    """
    freed = False
    for seat in seats:
        if seat.user_id is not None and play_banned(user=seat.user_id) is not None:
            seat.user = None
            seat.save(update_fields=["user"])
            freed = True
    return freed


def _start(table: Table, seats: Sequence[Seat]) -> Match:
    """Start the match of a full table inside the caller's transaction."""
    specs = [
        SeatSpec(name=player_name(seat.user), user=seat.user)
        if seat.user is not None
        else SeatSpec(
            # A full table's seat without a person has a computer player.
            name=computer_player_name(level=cast(str, seat.computer_level), index=seat.index),
            computer_level=seat.computer_level,
        )
        for seat in seats
    ]
    sealed = None
    if table.fair_start:
        # The seats' seeds into the shuffles sealed when the table opened (R8.4); a computer's
        # seat, or a page that never answered, adds "".
        sealed = fairness.seal_seated(
            table.fair_start, [seat.client_seed if seat.user_id else "" for seat in seats]
        )
    match = match_create(
        sealed=sealed,
        variant=table.variant,
        target=table.target,
        seats=specs,
        partner_draw=table.partner_draw,
        table=table,
        clock_seconds=table.turn_clock_seconds,
        options=table.options or None,
        max_deals=table.max_deals,
        # A match with a computer seat from the start is casual (docs/ratings.md).
        rated=table.rated and all(seat.user is not None for seat in seats),
    )
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    _leave_other_tables_on_commit(table, seats)
    return match


def _leave_other_tables_on_commit(table: Table, seats: Sequence[Seat]) -> None:
    """Once a match between people has started, its players stand up from the other open
    tables they sat at, as a seek on lichess goes when a game starts: otherwise a player waiting
    at two tables was dealt into two clocked matches at once when both filled.

    Each table is left through ``table_leave_seat``, under that table's own lock, after this
    transaction commits: taking other tables' locks while holding this one's could deadlock with
    a table starting at the same moment. A table that started or closed meanwhile is left as it
    is. A match against the computer alone leaves nothing: it has no clock to run out while he
    plays elsewhere.
    """
    players = [seat.user_id for seat in seats if seat.user_id is not None]
    if len(players) < 2:
        return

    def leave() -> None:
        others = (
            Seat.objects.filter(user_id__in=players, table__status=Table.Status.OPEN)
            .exclude(table_id=table.pk)
            .select_related("table", "user")
        )
        for seat in others:
            assert seat.user is not None, "the seats of players (user_id__in)"
            # A table that started or closed since has nothing left to leave.
            with contextlib.suppress(TableError):
                table_leave_seat(table=seat.table, user=seat.user)

    transaction.on_commit(leave, robust=True)


def _table_changed_on_commit(table: Table, *, match: Match | None = None) -> None:
    """Tell the table's page, and the lobby for a public table, once the transaction commits.

    The messages say only what changed; each consumer re-reads what its viewer may see.
    """
    message: dict[str, Any] = {"type": "table.changed", "table_id": table.pk}
    if match is not None:
        message["match_id"] = match.pk
    send_on_commit(table_group_name(table.pk), message)
    if not table.is_private:
        # The change's own id: the lobby sockets of a process each hear it, and share one
        # render of the list per change (games.lobby.consumers).
        send_on_commit(
            LOBBY_GROUP,
            {"type": "lobby.changed", "table_id": table.pk, "change": uuid.uuid4().hex},
        )
