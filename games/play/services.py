"""Writes: every change of a match goes through these services.

Each service runs in one transaction, locks the match row, lets the engine validate, stores what
changed, bumps the match version and sends its event only after the commit (``games.play.events``).
An action the engine refuses raises the engine's ``IllegalActionError`` before anything is written.

The ``*_store_*`` helpers at the end write the rows of a hand from engine states; the services and
the record import (``games.history.records``) both use them, so a hand is written one way only. They
expect to run inside the caller's transaction.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.bots import DEFAULT_LEVEL, greedy_action
from games.engine import (
    Action,
    CallTrump,
    Card,
    ChooseIndicator,
    CourtPieceDeal,
    CourtPieceMatch,
    CourtPieceOptions,
    Discard,
    GameState,
    HandState,
    IllegalActionError,
    KeepOrThrow,
    MatchOverError,
    MatchState,
    PlayCard,
    RevealTrump,
    awaiting_next,
    bot_facts,
    deal_result_json,
    discard_count,
    fair_hakem_draw,
    game_apply,
    game_next,
    get_variant,
    new_court_piece_match,
    new_match,
    new_seed,
    result_json,
    round_seed,
    seat_view,
    to_act,
    to_json,
)
from games.models import (
    CardPlay,
    ClientAction,
    ComputerLevel,
    Hand,
    Match,
    MatchEvent,
    MatchSeat,
    Table,
    Trick,
    deck_to_text,
)
from games.play import bot_pool, fairness
from games.play.autoplay import autoplay_on_commit, bot_delay, next_hand_delay
from games.play.events import match_event_on_commit
from games.play.loads import event_prime
from games.play.presence import humans_connected
from games.play.selectors import Position, match_position, positions
from games.play.signals import match_finished
from games.ratings.services import match_ratings_apply

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

NAME_MAX_LENGTH = cast(int, MatchSeat._meta.get_field("name").max_length)  # a CharField has one
TARGET_MAX = 2**31 - 1  # Match.target is a PositiveIntegerField
_SEED_RANGE = range(-(2**63), 2**63)  # a signed 64-bit column


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who takes a seat of a new match: a user, a computer player or neither, and the name shown."""

    name: str
    user: User | None = None
    computer_level: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("every seat needs a name")
        if len(self.name) > NAME_MAX_LENGTH:
            raise ValueError(f"a seat's name has at most {NAME_MAX_LENGTH} characters")
        if self.user is not None and self.computer_level is not None:
            raise ValueError("a seat is a user or a computer player, not both")
        if self.computer_level is not None and self.computer_level not in ComputerLevel.values:
            raise ValueError(f"unknown computer level {self.computer_level!r}")


class StaleVersionError(Exception):
    """The client acted on an older version of the match than the stored one; nothing changed."""

    def __init__(self, *, expected: int, current: int) -> None:
        self.expected, self.current = expected, current
        super().__init__(f"the match is at version {current}, not {expected}")


def match_create(
    *,
    variant: str,
    target: int,
    seats: Sequence[SeatSpec],
    seed: int | None = None,
    partner_draw: bool = False,
    table: Table | None = None,
    clock_seconds: int | None = None,
    options: dict[str, Any] | None = None,
    max_deals: int | None = None,
    rated: bool = False,
    client_seeds: Sequence[str] | None = None,
    sealed: dict[str, Any] | None = None,
) -> Match:
    """Draw the first Hakem (R2) or dealer (R9.2), store the match with its seats and deal
    hand 0.

    The flips and every hand are fair shuffles (R8.4, ``games.play.fairness``): each from a fresh
    server seed and the seats' ``client_seeds`` (for the flips and hand 0: those given here, ""
    for each seat by default). A ``seed`` given instead deals everything from it the way matches
    were dealt before fair deals, reproducibly (tests, benchmarks): such a match has no fair blocks.
    ``sealed`` (``fairness.seal_new``, its client seeds in place: ``fairness.seal_seated``) are
    the flips' and hand 0's shuffles sealed before the match, whose commitments the players saw
    before they sent their seeds (a table's, a quick start's, a seek's); without it both are
    drawn here.

    ``seats`` are in the order the players sat down. With ``partner_draw`` (R2.3, four players)
    they are re-seated so that the drawn partners sit opposite; the stored seats are in play order
    after the re-seating. ``clock_seconds`` is the time for each decision (R8.1), None for none.
    ``options`` (the settings of R9.11, as a record stores them) and ``max_deals`` (R9.10.2) are
    Court Piece's, and refused for Hokm. A ``rated`` match changes its players' ratings when it
    ends (``games.ratings``): it needs a person in every seat and a turn clock.
    """
    rules = get_variant(variant)
    court_piece = rules.family == "court-piece"
    if len(seats) != rules.players:
        raise ValueError(f"{rules.name} is played by {rules.players}, not {len(seats)}")
    if partner_draw and not rules.partner_draw_allowed:
        raise ValueError(f"{rules.name} has no draw for partners (R2.3 is for four players)")
    if not court_piece and (options or max_deals is not None):
        raise ValueError(f"{rules.name} has no table settings and no most deals (R9.11)")
    if isinstance(target, int) and target > TARGET_MAX:
        raise ValueError(f"the target can be at most {TARGET_MAX} points")
    if max_deals is not None and (
        not isinstance(max_deals, int)
        or isinstance(max_deals, bool)
        or not 1 <= max_deals <= TARGET_MAX
    ):
        raise ValueError("the most deals must be a positive whole number, or None")
    if clock_seconds is not None and (
        not isinstance(clock_seconds, int) or isinstance(clock_seconds, bool) or clock_seconds < 1
    ):
        raise ValueError("the turn clock must be a positive number of seconds, or None")
    if rated and (clock_seconds is None or any(seat.user is None for seat in seats)):
        raise ValueError("a rated match needs a person in every seat and a turn clock")
    fair = seed is None
    if seed is None:
        seed = new_seed()
    if seed not in _SEED_RANGE:
        raise ValueError("the seed must fit a signed 64-bit integer")
    if sealed and fair:
        if client_seeds is not None:
            raise ValueError("the client seeds of a sealed start are in its blocks")
        if len(sealed["hand"]["client_seeds"]) != rules.players:
            raise ValueError(f"a seal for {rules.players} players is needed")
        draw_block, hand_block = sealed["draw"], sealed["hand"]
    else:
        draw_block = fairness.block_new(rules.players, client_seeds) if fair else {}
        hand_block = fairness.block_new(rules.players, client_seeds) if fair else {}
    state: GameState
    if court_piece:
        settings = CourtPieceOptions.from_json(options or {})  # raises OptionsError (ValueError)
        options = settings.to_json()
        state = new_court_piece_match(settings, seed=seed, target=target, max_deals=max_deals)
        if fair:
            state = fairness.first_deal(state, draw=draw_block, hand=hand_block)
        assert state.draw is not None  # a new match always draws
        draw_json = state.draw.to_json()
        seated = list(seats)
    else:
        options = {}
        state = new_match(rules, seed=seed, target=target, partner_draw=partner_draw)
        if fair:
            if partner_draw:
                # Hand 0 is dealt to the seats as re-seated: each seat's seed follows its player.
                seating = fair_hakem_draw(rules, *fairness.seeds_of(draw_block), partner_draw=True)
                hand_block = fairness.seeds_reseated(hand_block, seating.seating)
            state = fairness.first_hand(
                state, draw=draw_block, hand=hand_block, partner_draw=partner_draw
            )
        hakem_draw = state.draw
        assert hakem_draw is not None  # new_match always draws
        draw_json = hakem_draw.to_json()
        # HakemDraw.seating[new_seat] is the seat that player had when the cards were flipped.
        seated = (
            [seats[old] for old in hakem_draw.seating] if hakem_draw.partner_drawn else list(seats)
        )
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            table=table,
            variant=rules.name,
            target=target,
            seed=seed,
            partner_draw=partner_draw,
            options=options,
            max_deals=max_deals,
            hakem_draw=draw_json,
            # The flips' seed is public from now: the first hand is dealt (R8.4).
            draw_fair=draw_block,
            status=Match.Status.PLAYING,
            scores=list(state.scores),
            clock_seconds=clock_seconds,
            rated=rated,
            created_at=now,
            started_at=now,
        )
        rows = match_seats_store(match=match, seats=seated)
        hand = round_store_new(match=match, number=0, state=state, at=now, fair=hand_block)
        match.step_at = _step_at(match=match, state=state, seats=rows, now=now)
        match.save(update_fields=["step_at"])
        created: dict[str, Any] = {
            "variant": rules.name,
            "target": target,
            "rated": rated,
            "players": [seat.name for seat in seated],
            # Public flips from their own shuffle (R2.2, R2.6, R9.2.1).
            "hakem_draw": draw_json,
            **_hand_dealt_data(number=0, state=state),
        }
        if fair:
            created["fair"] = {
                "draw": fairness.public(draw_block, revealed=True),
                "hand": fairness.public(hand_block, revealed=False),
            }
        if court_piece:
            created |= {"options": options, "max_deals": max_deals}
        _event_on_commit(
            match,
            position=Position(state=state, hand=hand, hands=1),
            seats=rows,
            kind="match_created",
            data=created,
        )
        autoplay_on_commit(match.pk)
    return match


def match_apply_action(
    *,
    match: Match | int,
    seat: int,
    action: Action,
    expected_version: int | None = None,
) -> Match:
    """A player takes one decision of the current hand (trump call, discard, keep or throw, card).

    ``seat`` is the seat of the player acting, and must be ``action.seat``. With
    ``expected_version`` the action is refused with :class:`StaleVersionError` unless the match
    is still at that version (a client acting on what it saw). An action the rules refuse raises
    the engine's :class:`IllegalActionError` and nothing is written. A player who was away or had
    left is back by acting (R8.1). Returns the match as stored.
    """
    with transaction.atomic():
        locked, seats = _match_lock_seats(match)
        _apply_action_on(
            locked, seats=seats, seat=seat, action=action, expected_version=expected_version
        )
    return locked


def _apply_action_on(
    locked: Match,
    *,
    seats: list[MatchSeat],
    seat: int,
    action: Action,
    expected_version: int | None,
) -> None:
    """:func:`match_apply_action` on a match whose row lock the caller holds."""
    if action.seat != seat:
        raise IllegalActionError("you can only act for your own seat", seat=seat)
    if expected_version is not None and locked.version != expected_version:
        raise StaleVersionError(expected=expected_version, current=locked.version)
    _require_playing(locked)
    position = match_position(match=locked, locked=True)
    extra: dict[str, Any] = {}
    row = seats[seat]
    if row.computer_level is None and row.status != MatchSeat.Status.PLAYING:
        # Rolled back with the rest if the rules refuse the action.
        row.status = MatchSeat.Status.PLAYING
        row.save(update_fields=["status"])
        extra["back"] = True
    _apply_locked(locked=locked, position=position, seats=seats, action=action, extra=extra)


def _apply_locked(
    *,
    locked: Match,
    position: Position,
    seats: list[MatchSeat],
    action: Action,
    extra: dict[str, Any] | None = None,
) -> GameState:
    """Apply one action to the locked match and store it, its new clock and its event."""
    before = position.state
    after = game_apply(before, action)
    now = timezone.now()
    current = position.hand
    if isinstance(before, CourtPieceMatch) and isinstance(after, CourtPieceMatch):
        deal_store_progress(hand=current, before=before, after=after, at=now)
        data = _deal_action_event_data(hand=current, before=before, after=after, action=action)
    else:
        assert isinstance(before, MatchState) and isinstance(after, MatchState)
        hand_store_progress(hand=current, before=before.hand, after=after.hand, at=now)
        data = _action_event_data(hand=current, before=before, after=after, action=action)
    locked.scores = list(after.scores)
    fair_fields: list[str] = []
    if current.fair and fairness.round_over(after) and not fairness.round_over(before):
        # The hand is over: its seed is revealed, and the next shuffle is committed to before
        # its deal, so that the seats' clients can add their seeds meanwhile (R8.4).
        data = data | {"fair": {"hand": fairness.public(current.fair, revealed=True)}}
        if not after.is_over:
            locked.next_fair = fairness.block_new(len(seats))
            data["fair"]["next_commit"] = locked.next_fair["commit"]
            fair_fields = ["next_fair"]
    if after.is_over:
        locked.status = Match.Status.FINISHED
        locked.winner_side = after.winner
        locked.finished_at = now
        # Exactly once, in this transaction: the match's row lock is held (docs/ratings.md).
        ratings = match_ratings_apply(match=locked, seats=seats, now=now)
        if locked.rated:
            data = data | {"ratings": ratings}
        _match_finished_on_commit(locked.pk)
    locked.version += 1
    locked.step_at = _step_at(match=locked, state=after, seats=seats, now=now)
    locked.save(
        update_fields=[
            "scores",
            "status",
            "winner_side",
            "finished_at",
            "version",
            "step_at",
            *fair_fields,
        ]
    )
    _event_on_commit(
        locked,
        position=Position(state=after, hand=current, hands=position.hands),
        seats=seats,
        kind=action.kind,
        data=data | (extra or {}),
    )
    autoplay_on_commit(locked.pk)
    return after


def _event_on_commit(
    locked: Match,
    *,
    position: Position | None,
    seats: list[MatchSeat] | None,
    kind: str,
    data: dict[str, Any],
) -> None:
    """Log the event of the locked match's new version and send it once the transaction commits.

    Before the send, on commit too, this process keeps the new ``position`` for the match's next
    change (``games.play.selectors.positions``) and hands it with the ``seats`` to its own sockets
    (``games.play.loads.event_prime``): neither has to read the match back. On commit, not now: a
    change rolled back must leave nothing behind. Callbacks run in the order they were added, so
    both are in place when the event arrives.
    """
    if position is not None:
        stored = copy.copy(locked)  # the version and fields of now, not of a later change

        def keep() -> None:
            positions.put(stored, position)
            if seats is not None:
                event_prime(match=stored, seats=seats, state=position.state, kind=kind, data=data)

        transaction.on_commit(keep, robust=True)
    match_event_on_commit(match_id=locked.pk, version=locked.version, kind=kind, data=data)


def _match_finished_on_commit(match_id: int) -> None:
    """Once the finished match is stored, tell the layers above (moderation gives its quitters
    their play bans, issue 6): a receiver that fails is logged and does not undo the match."""
    transaction.on_commit(
        partial(match_finished.send_robust, sender=Match, match_id=match_id), robust=True
    )


@dataclass(frozen=True, slots=True)
class ClientActionResult:
    """What became of a client's action: applied now, or applied before and acknowledged again."""

    match: Match
    applied: bool
    version: int


def match_client_action(
    *,
    match: Match | int,
    seat: int,
    action: Action,
    client_seq: int,
    user: User | None = None,
    expected_version: int | None = None,
) -> ClientActionResult:
    """Apply a client's action at most once per (match, seat, client sequence id).

    A client re-sends an action it saw no acknowledgement for; if that id was applied already the
    action is acknowledged again with the version it produced and nothing else happens. Otherwise
    it is :func:`match_apply_action` in the same transaction, and the id is stored with it, so an
    applied action and its id commit together or not at all.
    """
    if not isinstance(client_seq, int) or isinstance(client_seq, bool) or client_seq < 1:
        raise ValueError("client_seq must be a positive whole number")
    with transaction.atomic(durable=True):
        locked, seats = _match_lock_seats(match)
        # The id is claimed first, with the version the action will make (every change bumps
        # the version by one): one statement where a look-up and an insert were two. An action
        # the rules refuse rolls the claim back with the rest.
        if not _client_action_claim(
            locked, seat=seat, client_seq=client_seq, user=user, action=action
        ):
            previous = (
                ClientAction.objects.filter(match=locked, seat=seat, client_seq=client_seq)
                .values_list("version", flat=True)
                .get()
            )
            return ClientActionResult(match=locked, applied=False, version=previous)
        claimed = locked.version + 1
        _apply_action_on(
            locked, seats=seats, seat=seat, action=action, expected_version=expected_version
        )
        assert locked.version == claimed, "an action makes exactly one version"
    return ClientActionResult(match=locked, applied=True, version=locked.version)


def _client_action_claim(
    locked: Match, *, seat: int, client_seq: int, user: User | None, action: Action
) -> bool:
    """Store the client's id for the action about to be applied, at the version it will make;
    False if that id was stored already (the action was applied: acknowledge it again).

    ``INSERT ... ON CONFLICT DO NOTHING RETURNING``, which PostgreSQL and SQLite (3.35 and
    later) both run, on the unique (match, seat, client_seq): the ORM's ``ignore_conflicts``
    cannot say whether the row went in."""
    meta = ClientAction._meta
    quote = connection.ops.quote_name
    values = {
        "match_id": locked.pk,
        "seat": seat,
        "client_seq": client_seq,
        "user_id": getattr(user, "pk", None),
        "action": meta.get_field("action").get_db_prep_save(to_json(action), connection),
        "version": locked.version + 1,
        "created_at": meta.get_field("created_at").get_db_prep_save(timezone.now(), connection),
    }
    columns = ", ".join(quote(name) for name in values)
    conflict = ", ".join(quote(name) for name in ("match_id", "seat", "client_seq"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(meta.db_table)} ({columns}) "  # noqa: S608 (names, not input)
            f"VALUES ({', '.join(['%s'] * len(values))}) "
            f"ON CONFLICT ({conflict}) DO NOTHING RETURNING {quote('id')}",
            list(values.values()),
        )
        return cursor.fetchone() is not None


class ClientSeedError(ValueError):
    """A client seed the site refuses; nothing changed. ``code``: ``stale_commit`` (no shuffle is
    waiting for that commitment: the deal has gone ahead) or ``bad_seed``."""

    def __init__(self, message: str, *, code: str) -> None:
        self.code = code
        super().__init__(message)


def match_client_seed(*, match: Match | int, seat: int, commit: str, seed: str) -> None:
    """The seat's client seed for the shuffle committed to as ``commit`` (R8.4): it goes into
    the next deal if it comes before the deal. A seat may send it again until then; the last one
    counts. Not an event: the seeds are published with the deal."""
    with transaction.atomic(durable=True):
        locked = _match_lock(match)
        block = locked.next_fair
        if not block or block.get("commit") != commit:
            raise ClientSeedError(
                "no shuffle is waiting for that commitment: the deal has gone ahead",
                code="stale_commit",
            )
        if not 0 <= seat < len(block["client_seeds"]):
            raise ClientSeedError("no such seat", code="bad_seed")
        try:
            locked.next_fair = fairness.client_seed_set(block, seat=seat, seed=seed)
        except ValueError as error:
            raise ClientSeedError(str(error), code="bad_seed") from None
        locked.save(update_fields=["next_fair"])


def match_deal_next_hand(*, match: Match | int, expected_version: int | None = None) -> Match:
    """Deal the next hand once the current one is decided and the match is not (R6).

    The Hakem is the one R6 names after the last hand; the deck comes from the hand's own seed,
    ``hand_seed(match.seed, number)`` (R6.4). Raises the engine's ``IllegalActionError`` while
    the current hand is being played and ``MatchOverError`` once the match is decided.
    """
    with transaction.atomic(durable=True):
        locked = _match_lock(match)
        if expected_version is not None and locked.version != expected_version:
            raise StaleVersionError(expected=expected_version, current=locked.version)
        _require_playing(locked)
        position = match_position(match=locked, locked=True)
        _deal_locked(locked=locked, position=position, seats=_seats_of(locked))
    return locked


def _deal_locked(*, locked: Match, position: Position, seats: list[MatchSeat]) -> None:
    number = position.hands
    # A fair match deals from the shuffle committed to when the last hand ended, with the client
    # seeds that came since (R8.4); a match dealt from its seed (match_create) from that seed.
    block = locked.next_fair or (fairness.block_new(len(seats)) if position.hand.fair else {})
    if block:
        state = fairness.deal_next(position.state, block, hand_index=number)
    else:
        state = game_next(position.state)
    now = timezone.now()
    hand = round_store_new(match=locked, number=number, state=state, at=now, fair=block)
    locked.version += 1
    locked.step_at = _step_at(match=locked, state=state, seats=seats, now=now)
    locked.next_fair = {}
    locked.save(update_fields=["version", "step_at", "next_fair"])
    data = _hand_dealt_data(number=number, state=state)
    if block:
        data["fair"] = {"hand": fairness.public(block, revealed=False)}
    _event_on_commit(
        locked,
        position=Position(state=state, hand=hand, hands=number + 1),
        seats=seats,
        kind="hand_dealt",
        data=data,
    )
    autoplay_on_commit(locked.pk)


# -- the clock, away players and computer takeover (R8.1) ---------------------------------------

#: How many times a step decides again for a computer player when the match moved on while it
#: was deciding; then the worker's next look at the match tries again.
_STEP_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class ComputerDecision:
    """A computer player's action, decided on the match as it stood at ``version``."""

    version: int
    seat: int
    level: str
    action: Action


def match_step(*, match: Match | int, now: datetime | None = None, rush: bool = False) -> bool:
    """Take the match's automatic step if it is due: what the worker (``games.play.autoplay``) runs.

    The step is the next deal, a computer player's move, the move of a person who is away or
    left (the computer plays for him), or the end of a person's clock: then the computer decides
    for him as the greedy baseline would and he is marked away (R8.1). A person's clock ends only
    while some player of the match is connected; with nobody there it stops, and starts afresh
    when a player comes back (:func:`match_clock_resume`), so a match can be left and resumed
    (R8.2).

    The step is taken under the match's row lock and only if ``step_at`` has passed, so two
    workers (or a worker restarted mid-countdown) take it once. A computer player decides before
    that, on the match as stored, in the bot pool (``games.play.bot_pool``): the search takes a
    while, and the lock would hold up every other change of the match meanwhile (on SQLite, every
    write to the database). His action is applied only if the match is still at the version he
    decided on, else he decides again. ``rush`` takes computer steps at once, whatever their delay
    (tests); a person's clock is never rushed. Returns True when something changed.
    """
    now = now or timezone.now()
    match_id = match.pk if isinstance(match, Match) else match
    for _ in range(_STEP_ATTEMPTS):
        decision = computer_decide(match_id=match_id, now=now, rush=rush)
        taken = step_decided_apply(match_id=match_id, now=now, rush=rush, decision=decision)
        if taken is not None:
            return taken
    return False


def computer_decide(
    *, match_id: int, now: datetime, rush: bool, on_time: bool | None = None
) -> ComputerDecision | None:
    """The decision of the computer player on turn, when his move is the step due: read without
    the lock, so a write that comes meanwhile shows as a newer version under the lock.

    ``on_time`` (by default unless ``rush``; the worker's deciding ahead asks for it) bounds his
    thinking by when his move is due, ``step_at``: under load he thinks less rather than answer
    late, down to the greedy baseline (``bot_pool.decision_budget``, issue 25). The stand-in for
    a person who is away or left decides here too, under the same rule."""
    # The match row first: whatever changes after it was read also bumps its version.
    snapshot = Match.objects.get(pk=match_id)
    if not _step_due(snapshot, now=now, rush=rush):
        return None
    state = match_position(match=snapshot).state
    seat = to_act(state)
    if awaiting_next(state) or seat is None:
        return None
    row = _seats_of(snapshot)[seat]
    level = _computer_level(snapshot, row)
    if level is None or _away_waited_for(snapshot, row, now=now, rush=rush):
        return None
    timed = (not rush) if on_time is None else on_time
    due = snapshot.step_at.timestamp() if timed and snapshot.step_at is not None else None
    action = bot_pool.bot_decide(
        seat_view(state, seat),  # no peeking: the computer sees what the seat sees (R8.3)
        level=level,
        match=bot_facts(state),
        due=due,
    )
    return ComputerDecision(version=snapshot.version, seat=seat, level=level, action=action)


def step_decided_apply(
    *, match_id: int, now: datetime, rush: bool, decision: ComputerDecision | None
) -> bool | None:
    """The step under the match's row lock: whether something changed, or None when it is a
    computer player's move that ``decision`` was not taken on (decide again)."""
    with transaction.atomic(durable=True):
        locked = _match_lock(match_id)
        if not _step_due(locked, now=now, rush=rush):
            return False
        position = match_position(match=locked, locked=True)
        state = position.state
        seats = _seats_of(locked)
        if awaiting_next(state):
            _deal_locked(locked=locked, position=position, seats=seats)
            return True
        seat = to_act(state)
        if seat is None:  # nothing to decide: clear a stale step
            locked.step_at = None
            locked.save(update_fields=["step_at"])
            return False
        row = seats[seat]
        if _away_waited_for(locked, row, now=now, rush=rush):
            # He timed out and nobody is left at the table: wait for him rather than let the
            # computer finish his match (R8.2). He left on purpose (LEFT): the computer plays on.
            locked.step_at = None
            _bump(
                locked, kind="clock_stopped", data={"seat": seat}, fields=["step_at"], at=position
            )
            return True
        level = _computer_level(locked, row)
        if level is not None:
            now_on = (locked.version, seat, level)
            if decision is None or (decision.version, decision.seat, decision.level) != now_on:
                return None  # decided on another position, or not at all: decide again
            _apply_locked(locked=locked, position=position, seats=seats, action=decision.action)
            return True
        assert locked.step_at is not None, "_step_due found a step"
        if locked.step_at > now:
            return False  # a person's clock is never rushed
        if not humans_connected(match_id=locked.pk, now=now):
            # Nobody is there to wait for him: stop the clock until a player comes back.
            locked.step_at = None
            _bump(
                locked, kind="clock_stopped", data={"seat": seat}, fields=["step_at"], at=position
            )
            return True
        # The greedy baseline decides for him (R8.1): at once, so under the lock.
        action = greedy_action(seat_view(state, seat))
        row.status = MatchSeat.Status.AWAY
        row.timeouts += 1
        row.save(update_fields=["status", "timeouts"])
        _apply_locked(
            locked=locked, position=position, seats=seats, action=action, extra={"timeout": True}
        )
        return True


def _step_due(match: Match, *, now: datetime, rush: bool) -> bool:
    if match.status != Match.Status.PLAYING or match.step_at is None:
        return False
    return rush or match.step_at <= now


def _computer_level(match: Match, row: MatchSeat) -> str | None:
    """The level of the computer player deciding for the seat, None when its person decides."""
    if row.computer_level is None and row.status == MatchSeat.Status.PLAYING:
        return None
    return row.computer_level or _stand_in_level(match)


def _away_waited_for(match: Match, row: MatchSeat, *, now: datetime, rush: bool) -> bool:
    """Whether the seat on turn is a person who timed out with nobody left at the table."""
    return (
        row.status == MatchSeat.Status.AWAY
        and not rush
        and not humans_connected(match_id=match.pk, now=now)
    )


def match_seat_back(*, match: Match | int, seat: int) -> Match:
    """A person who was away, or had left, takes his seat back ("I'm back", R8.1).

    If it is his turn his clock starts afresh. Taking back a seat he holds already changes
    nothing. Raises ``MatchOverError`` once the match is over.
    """
    return _seat_status_set(match=match, seat=seat, status=MatchSeat.Status.PLAYING)


def match_seat_leave(*, match: Match | int, seat: int) -> Match:
    """A person leaves a running match: a computer player plays his seat until he takes it back
    (R8.1). Leaving twice changes nothing. Raises ``MatchOverError`` once the match is over."""
    return _seat_status_set(match=match, seat=seat, status=MatchSeat.Status.LEFT)


def _seat_status_set(*, match: Match | int, seat: int, status: str) -> Match:
    """Who decides for a person's seat now: he (PLAYING) or a computer player (LEFT). If it is
    that seat's turn, its next step is scheduled afresh: his clock, or the computer's move."""
    with transaction.atomic(durable=True):
        locked = _match_lock(match)
        _require_playing(locked)
        seats = _seats_of(locked)
        row = _person_seat(seats, seat)
        if row.status == status:
            return locked
        row.status = status
        row.save(update_fields=["status"])
        position = match_position(match=locked, locked=True)
        state = position.state
        if to_act(state) == seat and not awaiting_next(state):
            locked.step_at = _step_at(match=locked, state=state, seats=seats, now=timezone.now())
        kind = "seat_left" if status == MatchSeat.Status.LEFT else "seat_back"
        _bump(locked, kind=kind, data={"seat": seat}, fields=["step_at"], at=position)
        if status == MatchSeat.Status.LEFT:
            autoplay_on_commit(locked.pk)  # the computer may be on turn for him now
    return locked


# -- the end of a match before its score decides it: resigning, abandoning (R8) ----------------


class ResignRefusedError(IllegalActionError):
    """A resignation the platform rules refuse; nothing changed. ``code`` says why: the match is
    over already (``match_over``), or a person shares the seat's side (``resign_not_allowed``)."""

    def __init__(self, message: str, *, code: str, seat: int) -> None:
        self.code = code
        super().__init__(message, seat=seat)


def resign_allowed(*, variant: str, seats: Sequence[MatchSeat], seat: int) -> bool:
    """Whether the person at ``seat`` may resign: no other person plays on his side.

    Resigning loses the match for the whole side, so a person decides it for himself and his
    computer partner only: alone on his side (``hokm2``, ``hokm3``) or with a computer partner.
    With a person as partner he may leave instead (R8.1), and the computer plays his seat.
    """
    rules = get_variant(variant)
    side = rules.side_of(seat)
    return all(
        row.user_id is None
        for row in seats
        if row.index != seat and rules.side_of(row.index) == side
    )


def resign_winner(*, variant: str, scores: Sequence[int], seat: int) -> int:
    """The side that wins when the player at ``seat`` resigns: the other side, or with three
    sides (``hokm3``) the opponent with the most points; between opponents level on points, the
    first after the resigning seat in play order (R1.3)."""
    rules = get_variant(variant)
    side = rules.side_of(seat)
    order = [(side + step) % rules.sides for step in range(1, rules.sides)]
    return max(order, key=lambda other: (scores[other], -order.index(other)))


def match_resign(*, match: Match | int, seat: int) -> Match:
    """The person at ``seat`` resigns: his side loses the match at once (R8).

    The match is finished with the opponents as winner (:func:`resign_winner`), its scores as
    they stand; a rated match changes its players' ratings as for any finished match, the side
    that resigned placed last (``games.ratings.services.match_outcome_of``). The hand being
    played stays unfinished, so the match's game record is incomplete (RECORD.md). Refused with
    :class:`ResignRefusedError` when the match is over (resigning twice included) or a person
    shares his side (:func:`resign_allowed`), and with ``IllegalActionError`` for a seat that is
    not a person's. Not durable: the lobby ends a match this way inside its own transaction.
    """
    with transaction.atomic():
        locked = _match_lock(match)
        seats = _seats_of(locked)
        row = _person_seat(seats, seat)
        if locked.status != Match.Status.PLAYING:
            message = (
                "you resigned already: the match is over"
                if locked.ended_by == Match.EndedBy.RESIGN and locked.resigned_seat == seat
                else "the match is over"
            )
            raise ResignRefusedError(message, code=MatchOverError.code, seat=seat)
        if not resign_allowed(variant=locked.variant, seats=seats, seat=row.index):
            raise ResignRefusedError(
                "a person plays on your side: leave the match instead",
                code="resign_not_allowed",
                seat=seat,
            )
        position = match_position(match=locked, locked=True)
        now = timezone.now()
        locked.status = Match.Status.FINISHED
        locked.ended_by = Match.EndedBy.RESIGN
        locked.resigned_seat = seat
        locked.winner_side = resign_winner(variant=locked.variant, scores=locked.scores, seat=seat)
        locked.finished_at = now
        locked.step_at = None
        data: dict[str, Any] = {
            "seat": seat,
            "scores": list(locked.scores),
            "match_winner": locked.winner_side,
        }
        # Exactly once, in this transaction: the match's row lock is held (docs/ratings.md).
        ratings = match_ratings_apply(match=locked, seats=seats, now=now)
        if locked.rated:
            data["ratings"] = ratings
        fields = ["status", "ended_by", "resigned_seat", "winner_side", "finished_at", "step_at"]
        _bump(locked, kind="resign", data=data, fields=fields, at=position)
        _match_finished_on_commit(locked.pk)
    return locked


#: Seconds a match may go without a change before the worker ends it as abandoned: a week, so a
#: match against the computer can be resumed for that long (R8.2 asks for 10 minutes at least).
#: ``settings.HOKM_ABANDON_AFTER_SECONDS`` overrides it.
ABANDON_AFTER = 7 * 24 * 60 * 60


def abandon_after() -> timedelta:
    """How long a match may go without a change before the worker ends it as abandoned."""
    seconds = float(getattr(settings, "HOKM_ABANDON_AFTER_SECONDS", ABANDON_AFTER))
    return timedelta(seconds=seconds)


def match_abandon(*, match: Match | int, now: datetime | None = None) -> bool:
    """End a match nobody has played for :func:`abandon_after`: status abandoned, no winner, no
    rating changed, its scores as they stand. Under the row lock the match is looked at again: a
    change since (a move, a player back) keeps it going. Returns True when it was ended."""
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        locked = _match_lock(match)
        if locked.status != Match.Status.PLAYING or _last_change(locked) > now - abandon_after():
            return False
        locked.status = Match.Status.ABANDONED
        locked.ended_by = Match.EndedBy.ABANDON
        locked.finished_at = now
        locked.step_at = None
        position = match_position(match=locked, locked=True)
        fields = ["status", "ended_by", "finished_at", "step_at"]
        _bump(
            locked, kind="abandon", data={"scores": list(locked.scores)}, fields=fields, at=position
        )
    return True


def matches_idle_abandon(*, now: datetime | None = None, limit: int = 100) -> int:
    """End as abandoned the matches being played that nobody has changed for
    :func:`abandon_after` (:func:`match_abandon`); how many were ended. The worker calls it on its
    sweep.

    A change is anything that bumped the match's version: a move by anyone, a deal, a seat left or
    taken back, a clock started. A match that stands still for that long waits for a person: his
    turn with no clock, or a clock stopped because nobody was connected (R8.2). Matches whose
    persons all left are played to their end by the computer and are not found here.
    """
    now = now or timezone.now()
    latest = MatchEvent.objects.filter(match=OuterRef("pk"), version=OuterRef("version"))
    idle = (
        Match.objects.filter(status=Match.Status.PLAYING)
        .annotate(changed_at=Coalesce(Subquery(latest.values("created_at")[:1]), "created_at"))
        .filter(changed_at__lt=now - abandon_after())
        .order_by("changed_at")
        .values_list("pk", flat=True)[:limit]
    )
    ended = sum(match_abandon(match=match_id, now=now) for match_id in list(idle))
    if ended:
        logger.info("ended %d abandoned matches", ended)
    return ended


def _last_change(match: Match) -> datetime:
    """When the match's current version was made: its logged event, else its creation."""
    at = (
        MatchEvent.objects.filter(match=match, version=match.version)
        .values_list("created_at", flat=True)
        .first()
    )
    return at or match.created_at


def match_clock_resume(*, match: Match | int) -> bool:
    """Give a match whose clock stopped (nobody was connected) or that has no next step stored
    its next step again; a player connecting calls this. Returns True when the step was set."""
    with transaction.atomic(durable=True):
        locked = _match_lock(match)
        if locked.status != Match.Status.PLAYING or locked.step_at is not None:
            return False
        position = match_position(match=locked, locked=True)
        state = position.state
        seats = _seats_of(locked)
        step_at = _step_at(match=locked, state=state, seats=seats, now=timezone.now())
        if step_at is None:
            return False
        locked.step_at = step_at
        seat = to_act(state)
        if _clock_shown(match=locked, state=state, seats=seats):
            _bump(
                locked, kind="clock_started", data={"seat": seat}, fields=["step_at"], at=position
            )
        else:
            locked.save(update_fields=["step_at"])
        autoplay_on_commit(locked.pk)
    return True


def match_clock(*, match: Match, state: GameState, seats: Sequence[MatchSeat]) -> dict | None:
    """The running turn clock as clients show it: ``{"seat", "seconds", "deadline"}`` where
    ``deadline`` is when the seat on turn runs out of time; None when no clock runs."""
    if not _clock_shown(match=match, state=state, seats=seats) or match.step_at is None:
        return None
    return {
        "seat": to_act(state),
        "seconds": match.clock_seconds,
        "deadline": match.step_at.isoformat(),
    }


def _clock_shown(*, match: Match, state: GameState, seats: Sequence[MatchSeat]) -> bool:
    """Whether the decision pending is a person's, with a clock (not a computer's delay)."""
    if match.status != Match.Status.PLAYING or not match.clock_seconds:
        return False
    seat = to_act(state)
    if seat is None:
        return False
    row = seats[seat]
    return row.computer_level is None and row.status == MatchSeat.Status.PLAYING


def _step_at(
    *, match: Match, state: GameState, seats: Sequence[MatchSeat], now: datetime
) -> datetime | None:
    """When the match's next automatic step is due after a change made ``now``."""
    if match.status != Match.Status.PLAYING or state.is_over:
        return None
    if awaiting_next(state):
        return now + timedelta(seconds=next_hand_delay())
    seat = to_act(state)
    if seat is None:
        return None
    row = seats[seat]
    if row.computer_level is not None or row.status != MatchSeat.Status.PLAYING:
        return now + timedelta(seconds=bot_delay())
    if match.clock_seconds:
        return now + timedelta(seconds=match.clock_seconds)
    return None


def _stand_in_level(match: Match) -> str:
    """Who plays for a person who is away or left: the table's computer level."""
    # A match without a table looks up pk=None, which finds no row (hence the default): the
    # stubs refuse None for a pk, hence the ignore.
    table = Table.objects.filter(pk=match.table_id).values_list(  # type: ignore[misc]
        "computer_level", flat=True
    )
    return table.first() or DEFAULT_LEVEL


def _person_seat(seats: list[MatchSeat], seat: int) -> MatchSeat:
    if not 0 <= seat < len(seats) or seats[seat].computer_level is not None:
        raise IllegalActionError("that seat is not a person's", seat=seat)
    return seats[seat]


def _bump(
    locked: Match,
    *,
    kind: str,
    data: dict[str, Any],
    fields: list[str],
    at: Position | None = None,
) -> None:
    """A change that is not a move (a seat's status, the clock): new version, event on commit.
    ``at``: the position, which such a change leaves as it was."""
    locked.version += 1
    locked.save(update_fields=["version", *fields])
    _event_on_commit(locked, position=at, seats=None, kind=kind, data=data)


def _require_playing(locked: Match) -> None:
    if locked.status != Match.Status.PLAYING:
        raise MatchOverError()


def _seats_of(locked: Match) -> list[MatchSeat]:
    return list(MatchSeat.objects.filter(match=locked).order_by("index"))


def _match_lock_seats(match: Match | int) -> tuple[Match, list[MatchSeat]]:
    """:func:`_match_lock` and :func:`_seats_of` in one statement, the way a move starts: the
    seats joined to the match, the match's row alone locked (``FOR UPDATE OF``)."""
    match_id = match.pk if isinstance(match, Match) else match
    seats = list(
        MatchSeat.objects.select_related("match")
        .select_for_update(of=("match",))
        .filter(match_id=match_id)
        .order_by("index")
    )
    if not seats:  # every match has its seats: no such match
        raise Match.DoesNotExist(f"no match {match_id}")
    locked = seats[0].match
    for row in seats:
        row.match = locked
    return locked, seats


def _match_lock(match: Match | int) -> Match:
    match_id = match.pk if isinstance(match, Match) else match
    return Match.objects.select_for_update().get(pk=match_id)


def _hand_dealt_data(*, number: int, state: GameState) -> dict[str, Any]:
    if isinstance(state, CourtPieceMatch):
        deal = state.deal
        return {
            "hand": number,
            "hakem": deal.caller,
            "caller": deal.caller,
            "dealer": deal.dealer,
            # Under blind hidden trump the indicator is laid as the deal starts (R9.14.1).
            "indicator_laid": deal.indicator is not None,
        }
    return {"hand": number, "hakem": state.hand.hakem, "dealer": state.hand.dealer}


def _action_event_data(
    *, hand: Hand, before: MatchState, after: MatchState, action: Action
) -> dict[str, Any]:
    """The public facts of an action (R8.3): never a card still hidden from anyone.

    A discard says how many cards, not which (R3.5); a draw turn does not say whether the first
    card was kept, which only the seat on turn knows.
    """
    data: dict[str, Any] = {"hand": hand.number, "seat": action.seat}
    if isinstance(action, CallTrump):
        data["trump"] = action.suit.value
    elif isinstance(action, Discard):
        data["count"] = len(action.cards)
    elif isinstance(action, KeepOrThrow):
        data["turn"] = before.hand.draw_turn
    elif isinstance(action, PlayCard):
        data["card"] = action.card.text
        data["trick"] = len(before.hand.tricks)
        data["order"] = len(before.hand.current)
        if len(after.hand.tricks) > len(before.hand.tricks):
            data["trick_winner"] = after.hand.tricks[-1].winner
    result = after.hand.result
    if result is not None:
        data["result"] = result_json(result)
        data["scores"] = list(after.scores)
        data["match_winner"] = after.winner
    return data


def _deal_action_event_data(
    *, hand: Hand, before: CourtPieceMatch, after: CourtPieceMatch, action: Action
) -> dict[str, Any]:
    """The public facts of a court-piece action (R8.3, R9.15): an indicator laid is said to be
    laid, never which card it is, until trump is revealed; then the indicator and trump are
    public (R9.14.2), whether asked for or revealed by the rules (R9.14.2.3)."""
    old, deal = before.deal, after.deal
    data: dict[str, Any] = {"hand": hand.number, "seat": action.seat}
    if isinstance(action, CallTrump):
        data["trump"] = action.suit.value
    elif isinstance(action, ChooseIndicator):
        data["indicator_laid"] = True
    elif isinstance(action, PlayCard):
        data["card"] = action.card.text
        data["trick"] = len(old.tricks)
        data["order"] = len(old.current)
        if len(deal.tricks) > len(old.tricks):
            trick = deal.tricks[-1]
            data["trick_winner"] = trick.winner
            if deal.options.double_sir:
                data["collected_by"] = trick.collected_by
                data["pile"] = len(deal.pile)
    if deal.revealed and not old.revealed:
        assert deal.reveal is not None and deal.trump is not None
        data["reveal"] = {
            "seat": deal.reveal.seat,
            "trick": deal.reveal.trick,
            "trump": deal.trump.value,
            "indicator": deal.indicator.text if deal.indicator else None,
            "asked": isinstance(action, RevealTrump),
        }
    if deal.result is not None:
        summary = after.summaries[-1]
        data["result"] = deal_result_json(deal.result) | {
            "courts": summary.courts,
            "streak_court": summary.streak_court,
        }
        data["trump"] = deal.trump.value if deal.trump else None
        data["streak"] = {"side": summary.streak.side, "count": summary.streak.count}
        data["scores"] = list(after.scores)
        data["match_winner"] = after.winner
    return data


# -- storage helpers: rows from engine states, inside the caller's transaction -------------------


def match_seats_store(*, match: Match, seats: Sequence[SeatSpec]) -> list[MatchSeat]:
    """The seats of a match, ``seats[i]`` at index i (play order)."""
    return MatchSeat.objects.bulk_create(
        MatchSeat(
            match=match,
            index=index,
            user=spec.user,
            computer_level=spec.computer_level,
            name=spec.name,
        )
        for index, spec in enumerate(seats)
    )


def round_store_new(
    *, match: Match, number: int, state: GameState, at: datetime, fair: dict[str, Any] | None = None
) -> Hand:
    """The row of the match's freshly dealt hand or deal (:func:`hand_store_new`,
    :func:`deal_store_new`), with its fair shuffle's block when it has one (R8.4)."""
    if isinstance(state, CourtPieceMatch):
        return deal_store_new(
            match=match, number=number, deal=state.deal, seed=state.deal_seed, at=at, fair=fair
        )
    return hand_store_new(
        match=match, number=number, state=state.hand, seed=round_seed(state), at=at, fair=fair
    )


def deal_store_new(
    *,
    match: Match,
    number: int,
    deal: CourtPieceDeal,
    seed: int | None,
    at: datetime,
    fair: dict[str, Any] | None = None,
) -> Hand:
    """The row of a freshly dealt court-piece deal: its caller in ``hakem`` (R9.3.1); under blind
    hidden trump the indicator laid at once (R9.14.1), which no page shows before its reveal."""
    return Hand.objects.create(
        match=match,
        number=number,
        hakem=deal.caller,
        dealer=deal.dealer,
        seed=seed,
        deck=deck_to_text(deal.deck),
        indicator=deal.indicator.text if deal.indicator else None,
        tricks_won=list(deal.tricks_won),
        started_at=at,
        fair=fair or {},
    )


def deal_store_progress(
    *, hand: Hand, before: CourtPieceMatch, after: CourtPieceMatch, at: datetime
) -> None:
    """Store what happened between two states of a court-piece deal (:func:`hand_store_progress`
    for R9): the call or indicator, the reveal, the tricks, and once decided its result and the
    courts the match counted for it (R9.7, R9.8.2)."""
    deal, old = after.deal, before.deal
    # Trump is written once it is public or the deal is over: history reads this column, and a
    # hidden trump must not reach it while the deal is played (R9.14, R8.3).
    fields = _fields_set(
        hand,
        {
            "trump": deal.trump.value
            if deal.trump and (deal.trump_known or deal.is_over)
            else None,
            "indicator": deal.indicator.text if deal.indicator else None,
            "reveal": {"trick": deal.reveal.trick, "seat": deal.reveal.seat}
            if deal.reveal
            else None,
            "tricks_won": list(deal.tricks_won),
        },
    )
    result = deal.result
    if result is not None and hand.status != Hand.Status.FINISHED:
        summary = after.summaries[-1]
        hand.status = Hand.Status.FINISHED
        hand.winner_side = result.winner
        hand.points = summary.courts
        hand.outcome = result.outcome.value
        hand.goon = result.goon
        hand.streak_court = summary.streak_court
        hand.finished_at = at
        fields += ["status", "winner_side", "points", "outcome", "goon", "streak_court"]
        fields += ["finished_at"]
    if fields:
        hand.save(update_fields=fields)
    _tricks_store(hand=hand, before=old, after=deal, at=at)


def hand_store_new(
    *,
    match: Match,
    number: int,
    state: HandState,
    seed: int | None,
    at: datetime,
    fair: dict[str, Any] | None = None,
) -> Hand:
    """The row of a freshly dealt hand: the engine state ``new_hand`` gave, before any action."""
    variant = state.variant
    return Hand.objects.create(
        match=match,
        number=number,
        hakem=state.hakem,
        dealer=state.dealer,
        seed=seed,
        deck=deck_to_text(state.deck),
        discards=[[] for _ in range(variant.players)] if variant.has_draw else [],
        keep_first=[],
        tricks_won=list(state.tricks_won),
        started_at=at,
        fair=fair or {},
    )


def hand_store_progress(*, hand: Hand, before: HandState, after: HandState, at: datetime) -> None:
    """Store what happened between two states of a hand: one action when playing live, the whole
    hand at once when importing a record.

    The hand row takes the trump, the R3.5 choices, the tricks won and the result; new tricks and
    plays get their rows, and a trick completed in between gets its winner.
    """
    variant = after.variant
    changes: dict[str, Any] = {
        "trump": after.trump.value if after.trump else None,
        "tricks_won": list(after.tricks_won),
    }
    if variant.has_draw:
        # Only the discards from the first five are choices to store; the cards thrown in the
        # draw follow from the deck and keep_first (R3.5).
        changes["discards"] = [
            [card.text for card in after.discards[seat][: discard_count(after, seat)]]
            if seat in after.discarded_by
            else []
            for seat in range(variant.players)
        ]
        changes["keep_first"] = list(after.keep_first)
    fields = _fields_set(hand, changes)
    result = after.result
    if result is not None and hand.status != Hand.Status.FINISHED:
        hand.status = Hand.Status.FINISHED
        hand.winner_side = result.winner
        hand.points = result.points
        hand.kot = result.kot
        hand.hakem_kot = result.hakem_kot
        hand.finished_at = at
        fields += ["status", "winner_side", "points", "kot", "hakem_kot", "finished_at"]
    if fields:  # most cards change nothing of the hand's row: no UPDATE for them
        hand.save(update_fields=fields)
    _tricks_store(hand=hand, before=before, after=after, at=at)


def _fields_set(row: Hand, values: dict[str, Any]) -> list[str]:
    """Set ``values`` on ``row``; the names of those that changed, for ``update_fields``."""
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    for name in changed:
        setattr(row, name, values[name])
    return changed


@dataclass(frozen=True, slots=True)
class _TrickCards:
    leader: int
    cards: tuple[Card, ...]
    winner: int | None


def _tricks_of(state: HandState | CourtPieceDeal) -> list[_TrickCards]:
    tricks = [_TrickCards(t.leader, t.cards, t.winner) for t in state.tricks]
    if state.current:
        tricks.append(_TrickCards(state.leader, state.current, None))
    return tricks


def _tricks_store(
    *,
    hand: Hand,
    before: HandState | CourtPieceDeal,
    after: HandState | CourtPieceDeal,
    at: datetime,
) -> None:
    old, new = _tricks_of(before), _tricks_of(after)
    players = after.players
    # The one trick that can be part played already (live play reaches it card by card). Its row
    # is not read: its plays name it by a subquery, its winner is set by an UPDATE.
    existing: dict[int, Trick | Subquery] = {}
    if old and len(old[-1].cards) < players and len(new[len(old) - 1].cards) > len(old[-1].cards):
        number = len(old) - 1
        partial = Trick.objects.filter(hand=hand, number=number)
        if new[number].winner is not None:
            partial.update(winner=new[number].winner)
        existing[number] = Subquery(partial.values("pk")[:1])
    created = Trick.objects.bulk_create(
        Trick(hand=hand, number=number, leader=trick.leader, winner=trick.winner)
        for number, trick in enumerate(new)
        if number >= len(old)
    )
    rows = existing | {trick.number: trick for trick in created}
    plays = []
    for number, trick_row in sorted(rows.items()):
        trick = new[number]
        start = len(old[number].cards) if number < len(old) else 0
        plays += [
            CardPlay(
                hand=hand,
                # A trick stored before: its id by subquery (the ORM inserts the expression).
                **cast(
                    dict[str, Any],
                    {"trick": trick_row}
                    if isinstance(trick_row, Trick)
                    else {"trick_id": trick_row},
                ),
                seat=(trick.leader + order) % players,
                order=order,
                card=trick.cards[order].text,
                played_at=at,
            )
            for order in range(start, len(trick.cards))
        ]
    CardPlay.objects.bulk_create(plays)
