"""The seek pool ("Play rated now"): players wait for a rated match of one game and turn clock, and
are seated together by rating as soon as there are enough of them (docs/pairing.md).

The pool is the ``Seek`` rows, shared by every server process through the database; nothing of it
lives in a process's memory. :func:`seek_groups` decides who plays whom from plain data, with no
database, so its rules are tested with a fake clock. The services below lock the pool's rows
(``select_for_update``, in the order of the oldest seek first) while they pair, so that two
processes pairing at once never seat one player twice: the second waits for the first and then
sees the seeks it took gone.

A player's lobby socket (``games.lobby.consumers.LobbyConsumer``) makes his seek, and hears after
the commit, on its own channel, that he was seated (``seek.paired``) or that his seek ended
elsewhere (``seek.ended``). A seek ends when he cancels, when his lobby socket closes, when he is
seated, or when its socket's server stops refreshing it (``SEEK_ALIVE_SECONDS``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.restrictions import play_banned, reported_pairs
from games.engine import GAME_VARIANTS, FairError, check_client_seed
from games.lobby.services import (
    TURN_CLOCKS,
    _start,
    _table_changed_on_commit,
    default_target,
    fair_seal_take,
)
from games.models import VARIANT_CHOICES, Match, MatchSeat, Seat, Seek, Table
from games.play import fairness
from games.ratings.selectors import rating_of
from lib.errors import ApplicationError
from lib.realtime import channel_send_on_commit

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

#: The rating difference a player accepts as soon as he asks: about one performance spread of the
#: rating model (``BETA``, 83 points on the scale shown), so the first seconds pair equals.
WINDOW_BASE = 100
#: The window widens by this many points for every second he has waited...
WINDOW_PER_SECOND = 10
#: ...up to this (after 40 seconds): three starting uncertainties of a new player (3 x 167
#: points), as far apart as two people can be and still have an even match mean something.
WINDOW_MAX = 500
#: Nobody is seated with a player he reported, or who reported him, within this time.
REPORT_EXCLUSION = timedelta(days=1)
#: A lobby socket with a seek refreshes its ``seen_at`` this often...
SEEK_HEARTBEAT_SECONDS = 20
#: ...and a seek not refreshed for this long belongs to a server that went away without closing
#: its sockets: it is dropped, so nobody is seated in a rated match he cannot see.
SEEK_ALIVE_SECONDS = 60
#: The worker pairs the pool this often, as the windows widen with time.
PAIR_EVERY_SECONDS = 1.0
#: For each seeker, the groups tried are made from the players nearest his rating, at most this
#: many: C(12, 3) = 220 groups of four, however large the pool.
CANDIDATES_MAX = 12

#: Channel-layer message types sent to a seek's lobby socket.
PAIRED_TYPE = "seek.paired"
ENDED_TYPE = "seek.ended"


# -- pairing, from plain data --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seeker:
    """One player in the pool: his rating in the game sought, how long he has waited, and the
    other players of his previous rated match of that game."""

    user_id: int
    rating: int
    waited: float  # seconds
    previous: frozenset[int] = frozenset()


def window(waited: float) -> int:
    """How far from his own rating a player who has waited ``waited`` seconds accepts others.

    >>> window(0), window(10), window(40), window(600)
    (100, 200, 500, 500)
    """
    return min(WINDOW_MAX, WINDOW_BASE + int(WINDOW_PER_SECOND * max(0.0, waited)))


def _never_blocked(a: int, b: int) -> bool:
    return False


def seek_groups(
    seekers: Iterable[Seeker],
    *,
    players: int,
    partnerships: bool,
    blocked: Callable[[int, int], bool] = _never_blocked,
) -> list[tuple[int, ...]]:
    """The groups to seat now, each as the user ids in seat order.

    The oldest seeker first: of the groups of ``players`` that hold him, none of whose pairs is
    ``blocked`` and each of whose ratings lies within every other member's :func:`window`, the one
    with the smallest spread of ratings (then the longest waits). A group that is a repeat (some
    member's previous rated match had exactly these people) is taken only when no group without
    a repeat can be made of those still waiting, and only once nobody else waits, or once its
    members' windows are at their widest (waiting longer could not bring anyone new in range).

    With ``partnerships`` (four players, seats 0 and 2 against 1 and 3) the partners are the
    split that makes the two teams' ratings add up most evenly: :func:`balanced_seats`.
    """
    order = sorted(seekers, key=lambda s: (-s.waited, s.user_id))
    free = list(order)
    groups: list[tuple[Seeker, ...]] = []
    for repeats_allowed in (False, True):
        for seeker in order:
            if seeker not in free:
                continue
            group = _best_group(
                seeker, free, players=players, blocked=blocked, repeats_allowed=repeats_allowed
            )
            if group is not None:
                groups.append(group)
                free = [s for s in free if s not in group]
    if partnerships:
        return [balanced_seats(group) for group in groups]
    return [tuple(s.user_id for s in group) for group in groups]


def _fits(a: Seeker, b: Seeker, blocked: Callable[[int, int], bool]) -> bool:
    gap = abs(a.rating - b.rating)
    return gap <= window(a.waited) and gap <= window(b.waited) and not blocked(a.user_id, b.user_id)


def is_repeat(group: Sequence[Seeker]) -> bool:
    """Whether some member of ``group`` would play exactly the people of his previous match."""
    ids = {s.user_id for s in group}
    return any(s.previous and s.previous == ids - {s.user_id} for s in group)


def _best_group(
    seeker: Seeker,
    free: Sequence[Seeker],
    *,
    players: int,
    blocked: Callable[[int, int], bool],
    repeats_allowed: bool,
) -> tuple[Seeker, ...] | None:
    candidates = sorted(
        (o for o in free if o is not seeker and _fits(seeker, o, blocked)),
        key=lambda o: (abs(o.rating - seeker.rating), -o.waited, o.user_id),
    )[:CANDIDATES_MAX]
    best: tuple[Seeker, ...] | None = None
    best_key: tuple[float, ...] | None = None
    for others in combinations(candidates, players - 1):
        if not all(_fits(a, b, blocked) for a, b in combinations(others, 2)):
            continue
        group = (seeker, *others)
        if is_repeat(group) and not (repeats_allowed and _repeat_may_go(group, free)):
            continue
        ratings = [s.rating for s in group]
        key = (max(ratings) - min(ratings), -sum(s.waited for s in group))
        if best_key is None or key < best_key:
            best, best_key = group, key
    return best


def _repeat_may_go(group: Sequence[Seeker], free: Sequence[Seeker]) -> bool:
    nobody_else = all(s in group for s in free)
    return nobody_else or all(window(s.waited) >= WINDOW_MAX for s in group)


#: The three ways four players make two pairs of partners, as positions in the group.
_SPLITS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


def balanced_seats(group: Sequence[Seeker]) -> tuple[int, ...]:
    """Four players in seat order, partners opposite (team A in seats 0 and 2, team B in 1 and 3):
    of the three splits into pairs, the one whose teams' ratings add up most evenly, the first of
    ``group`` (the longest waiting) in seat 0.

    >>> balanced_seats([Seeker(1, 1800, 0), Seeker(2, 1700, 0), Seeker(3, 1500, 0),
    ...                 Seeker(4, 1400, 0)])
    (1, 2, 4, 3)
    """
    if len(group) != 4:
        raise ValueError("partners are balanced among four players")
    (a1, a2), (b1, b2) = min(
        _SPLITS,
        key=lambda split: abs(
            sum(group[i].rating for i in split[0]) - sum(group[i].rating for i in split[1])
        ),
    )
    return tuple(group[i].user_id for i in (a1, b1, a2, b2))


# -- services ------------------------------------------------------------------------------------


class SeekError(ApplicationError):
    """A seek was refused; ``message`` says why, in words a player reads."""

    def __init__(self, message: str, *, code: str = "seek_refused") -> None:
        super().__init__(code, message)


def seek_create(
    *,
    user: User,
    variant: str,
    clock_seconds: int,
    channel_name: str,
    commit: str = "",
    client_seed: str = "",
) -> Match | None:
    """``user`` waits in the pool of ``variant`` and ``clock_seconds`` from the lobby socket
    ``channel_name``, in place of any seek he had; the pool is paired at once, so the seek that
    completes a group starts its match now. Returns that match, or None while he waits.

    Refused (:class:`SeekError`) for a game or a clock not offered, for a player kept from
    playing, and for one whose clocked match is still being played.

    ``commit`` and ``client_seed`` (R8.4): his sealed first shuffles as the lobby showed them
    (``fair_seal_of``) and his page's seed. The seek keeps them; the match of a group deals from
    the oldest seek's seal, each seat's seed from its seeker's seek.
    """
    if variant not in GAME_VARIANTS:
        raise SeekError(_("Choose one of the games offered."))
    if clock_seconds not in TURN_CLOCKS:
        raise SeekError(_("Choose a turn clock of 15, 30 or 60 seconds."))
    restriction = play_banned(user=user)
    if restriction is not None:
        raise SeekError(restriction.message(), code="play_banned")
    if _players_busy([user.pk]):
        raise SeekError(
            _("Finish the match you are playing before you look for another."), code="busy"
        )
    rating = rating_of(user=user, variant=variant).rating
    try:
        seed = check_client_seed(client_seed)
    except FairError as error:
        raise SeekError(_("This seed cannot be used: %(why)s") % {"why": error}) from None
    with transaction.atomic(durable=True):
        # His row, locked without blocking the key: two seeks of his made at once are made one
        # after the other, while a pairing that seats him (a foreign key to this row) goes on.
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        previous = Seek.objects.filter(user=user).first()
        if previous is not None:
            previous.delete()
            if previous.channel_name != channel_name:
                channel_send_on_commit(
                    previous.channel_name, {"type": ENDED_TYPE, "reason": "replaced"}
                )
        now = timezone.now()
        seal = fair_seal_take(user=user, commit=commit)
        if (
            seal is None
            and previous is not None
            and previous.fair_start
            and fairness.seal_commit(previous.fair_start) == commit
        ):
            # The same page seeking again (another game or clock): the seal it showed is kept.
            seal = previous.fair_start
        Seek.objects.create(
            fair_start=seal or {},
            client_seed=seed if seal else "",
            user=user,
            variant=variant,
            clock_seconds=clock_seconds,
            rating=rating,
            channel_name=channel_name,
            created_at=now,
            seen_at=now,
        )
    matches = _pool_pair(variant=variant, clock_seconds=clock_seconds, now=timezone.now())
    return next((m for m in matches if any(s.user_id == user.pk for s in m.seats.all())), None)


def seek_cancel(*, user: User, channel_name: str | None = None) -> bool:
    """End ``user``'s seek; whether he had one. His lobby socket is told unless it is
    ``channel_name`` (the socket that asked, which answers itself)."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(user=user).first()
        if seek is None:
            return False
        seek.delete()
        if seek.channel_name != channel_name:
            channel_send_on_commit(seek.channel_name, {"type": ENDED_TYPE, "reason": "cancelled"})
    return True


def seeks_end_for_channel(*, channel_name: str) -> int:
    """The lobby socket ``channel_name`` closed: its seeks end; how many there were."""
    deleted, _ = Seek.objects.filter(channel_name=channel_name).delete()
    return deleted


def seeks_seen(*, channel_names: Sequence[str], now: datetime | None = None) -> None:
    """These lobby sockets are still open: their seeks stay in the pool."""
    Seek.objects.filter(channel_name__in=list(channel_names)).update(seen_at=now or timezone.now())


def seeks_pair(*, now: datetime | None = None) -> list[Match]:
    """Pair every pool (one per game and clock) as it stands at ``now``: the worker's call, every
    ``PAIR_EVERY_SECONDS``, as the windows widen. Drops the seeks of sockets that went away
    without closing. Returns the matches started."""
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        stale = Seek.objects.select_for_update(skip_locked=True).filter(
            seen_at__lt=now - timedelta(seconds=SEEK_ALIVE_SECONDS)
        )
        for seek in stale:
            seek.delete()
            # Its socket is most likely gone with its server; if not, its page must not wait on.
            channel_send_on_commit(seek.channel_name, {"type": ENDED_TYPE, "reason": "lost"})
    pools = sorted(set(Seek.objects.order_by().values_list("variant", "clock_seconds")))
    matches: list[Match] = []
    for variant, clock_seconds in pools:
        try:
            matches += _pool_pair(variant=variant, clock_seconds=clock_seconds, now=now)
        except Exception:  # one broken pool must not keep the others waiting
            logger.exception("pairing the pool %s/%ss failed", variant, clock_seconds)
    return matches


def _pool_pair(*, variant: str, clock_seconds: int, now: datetime) -> list[Match]:
    rules = GAME_VARIANTS.get(variant)
    if rules is None:
        return []
    alive_since = now - timedelta(seconds=SEEK_ALIVE_SECONDS)
    matches: list[Match] = []
    with transaction.atomic(durable=True):
        # The pool's rows, oldest first: every pairer locks them in this one order, so two of
        # them wait for each other instead of deadlocking. The users' rows are not locked.
        seeks = list(
            Seek.objects.select_for_update(of=("self",))
            .filter(variant=variant, clock_seconds=clock_seconds, seen_at__gte=alive_since)
            .select_related("user")
            .order_by("created_at", "pk")
        )
        if len(seeks) < rules.players:
            return []
        by_user = {seek.user_id: seek for seek in seeks}
        groups = _groups_of_players_free(by_user, variant=variant, now=now, players=rules.players)
        for seats in groups:
            matches.append(_rated_match_start(variant, clock_seconds, [by_user[u] for u in seats]))
    return matches


def _groups_of_players_free(
    by_user: dict[int, Seek], *, variant: str, now: datetime, players: int
) -> list[tuple[int, ...]]:
    """The groups of the pool ``by_user``, leaving out the players who may not be seated now: kept
    from playing since they asked (their seeks end) or busy in another match (they wait)."""
    rules = GAME_VARIANTS[variant]
    busy = _players_busy(list(by_user))
    ids = [uid for uid in by_user if uid not in busy]
    previous = _previous_players(ids, variant=variant)
    reported = reported_pairs(user_ids=ids, since=now - REPORT_EXCLUSION)
    seekers = [
        Seeker(
            user_id=uid,
            rating=by_user[uid].rating,
            waited=(now - by_user[uid].created_at).total_seconds(),
            previous=previous.get(uid, frozenset()),
        )
        for uid in ids
    ]
    while True:
        groups = seek_groups(
            seekers,
            players=players,
            partnerships=rules.partnerships,
            blocked=lambda a, b: frozenset((a, b)) in reported,
        )
        barred = {uid for group in groups for uid in group if play_banned(user=uid) is not None}
        if not barred:
            return groups
        for uid in barred:
            by_user[uid].delete()
            channel_send_on_commit(
                by_user[uid].channel_name, {"type": ENDED_TYPE, "reason": "barred"}
            )
        seekers = [s for s in seekers if s.user_id not in barred]


def _rated_match_start(variant: str, clock_seconds: int, seeks: Sequence[Seek]) -> Match:
    """A rated public table with the seekers of ``seeks`` in its seats, in that order, and its
    match started; their seeks end, and their sockets are sent to the match after the commit."""
    title = dict(VARIANT_CHOICES).get(variant, variant)
    # The oldest seek's seal deals (R8.4): chosen by a rule, not by the server at will, and
    # sealed before any other seeker of the group sent his seed. Without one (a page that did
    # not answer) the table seals new shuffles, every seat's seed "".
    oldest = min(seeks, key=lambda seek: (seek.created_at, seek.pk))
    sealed = oldest if oldest.fair_start else None
    table = Table.objects.create(
        fair_start=(
            sealed.fair_start if sealed else fairness.seal_new(GAME_VARIANTS[variant].players)
        ),
        name=_("Rated: %(game)s") % {"game": title},
        variant=variant,
        target=default_target(variant),
        turn_clock_seconds=clock_seconds,
        is_private=False,
        allow_spectators=True,
        fill_with_computer=False,
        partner_draw=False,
        rated=True,
    )
    seats = Seat.objects.bulk_create(
        Seat(
            table=table, index=index, user=seek.user, client_seed=seek.client_seed if sealed else ""
        )
        for index, seek in enumerate(seeks)
    )
    match = _start(table, seats)
    Seek.objects.filter(pk__in=[seek.pk for seek in seeks]).delete()
    for seek in seeks:
        channel_send_on_commit(seek.channel_name, {"type": PAIRED_TYPE, "match_id": match.pk})
    _table_changed_on_commit(table, match=match)
    logger.info("seek pool %s/%ss: match %s", variant, clock_seconds, match.pk)
    return match


def _players_busy(user_ids: Sequence[int]) -> set[int]:
    """The players who hold a seat in a clocked match being played, which they have not left: a
    second clocked match would run out their clock in one of the two."""
    return set(
        MatchSeat.objects.filter(
            user_id__in=user_ids,
            match__status=Match.Status.PLAYING,
            match__clock_seconds__isnull=False,
        )
        .exclude(status=MatchSeat.Status.LEFT)
        .values_list("user_id", flat=True)
    )


def _previous_players(user_ids: Sequence[int], *, variant: str) -> dict[int, frozenset[int]]:
    """The other players of each one's latest rated match of ``variant`` (two queries)."""
    latest = dict(
        MatchSeat.objects.filter(user_id__in=user_ids, match__rated=True, match__variant=variant)
        .order_by()
        .values("user_id")
        .annotate(latest=Max("match_id"))
        .values_list("user_id", "latest")
    )
    players: dict[int, set[int]] = {}
    for match_id, user_id in MatchSeat.objects.filter(
        match_id__in=set(latest.values()), user__isnull=False
    ).values_list("match_id", "user_id"):
        players.setdefault(match_id, set()).add(user_id)
    return {uid: frozenset(players.get(mid, set()) - {uid}) for uid, mid in latest.items()}


# -- reads ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeekView:
    """A seek as its player's lobby shows it while he waits."""

    variant: str
    title: str
    clock_seconds: int
    rating: int
    created_at: datetime
    waited: float

    @property
    def window(self) -> int:
        return window(self.waited)

    @property
    def waited_text(self) -> str:
        """The wait as minutes and seconds, "1:05"."""
        minutes, seconds = divmod(int(self.waited), 60)
        return f"{minutes}:{seconds:02d}"

    @property
    def low(self) -> int:
        return self.rating - self.window

    @property
    def high(self) -> int:
        return self.rating + self.window


def seek_of(
    *, user: Any, channel_name: str | None = None, now: datetime | None = None
) -> SeekView | None:
    """``user``'s seek as it stands, if he has one (made from the socket ``channel_name``, if
    given)."""
    query = Seek.objects.filter(user_id=getattr(user, "pk", user))
    if channel_name is not None:
        query = query.filter(channel_name=channel_name)
    seek = query.first()
    if seek is None:
        return None
    return SeekView(
        variant=seek.variant,
        title=str(dict(VARIANT_CHOICES).get(seek.variant, seek.variant)),
        clock_seconds=seek.clock_seconds,
        rating=seek.rating,
        created_at=seek.created_at,
        waited=max(0.0, ((now or timezone.now()) - seek.created_at).total_seconds()),
    )
