"""What a sanction does at once, and the words that tell a player why and until when.

``moderation.services`` writes a sanction and, after its commit, calls :func:`sanction_enforce`:
a suspension or a ban closes the player's open sockets (every match, lobby and table consumer of
a signed-in user listens on the channel-layer group :func:`user_group_name`), gives each of his
seats in running matches to a computer player. His sessions are not searched for (the session
store is not indexed by user): ``moderation.middleware`` signs him out on his next request. What
stops him later (signing in, chatting, playing) asks ``moderation.sanctions`` at that moment, so
nothing here has to be undone when a sanction ends or is lifted.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.socket_sessions import USER_BLOCKED_TYPE, user_group_name
from games.engine import IllegalActionError
from games.lobby.services import TableError, table_leave_seat
from games.models import Match, MatchSeat, Table
from games.play.services import match_seat_leave
from moderation.models import Sanction
from moderation.sanctions import blocked

logger = logging.getLogger(__name__)


def sanction_until(sanction: Sanction) -> str:
    """When the sanction ends, in the active language and the site's time zone, named: a player
    elsewhere in the world cannot guess which zone "8:40 p.m." is in."""
    if sanction.ends_at is None:
        return _("further notice")
    ends = timezone.localtime(sanction.ends_at)
    return f"{formats.date_format(ends, 'DATETIME_FORMAT')} {ends.tzname()}"


def blocked_message(sanction: Sanction) -> str:
    """Why a suspended or banned player is kept out, and until when."""
    if sanction.kind == Sanction.Kind.BAN:
        text = _("Your account is banned until %(until)s: %(reason)s")
    else:
        text = _("Your account is suspended until %(until)s: %(reason)s")
    return text % {"until": sanction_until(sanction), "reason": sanction.reason}


def muted_message(sanction: Sanction) -> str:
    """Why a muted player's chat message is refused, and until when."""
    return _("You are muted in the chat until %(until)s: %(reason)s") % {
        "until": sanction_until(sanction),
        "reason": sanction.reason,
    }


def play_banned_message(sanction: Sanction) -> str:
    """Why a player may not start or join a match, and until when."""
    if sanction.kind in (Sanction.Kind.SUSPEND, Sanction.Kind.BAN):
        return blocked_message(sanction)
    if sanction.kind == Sanction.Kind.RENAME:
        return _(
            "A moderator asked you to change your username (%(reason)s). You can play again "
            "once you have chosen a new one."
        ) % {"reason": sanction.reason}
    return _("You may not play until %(until)s: %(reason)s") % {
        "until": sanction_until(sanction),
        "reason": sanction.reason,
    }


def sanction_enforce(sanction: Sanction) -> None:
    """Give a sanction just written its immediate effects (call it after the commit).

    A suspension or a ban, if in force now: the player's sockets close (code 4403, after a
    message saying why and until when), his seats in running matches go to computer players and
    he stands up from tables still waiting for players.
    Other kinds take effect when the player next does what they forbid.
    """
    if sanction.kind not in (Sanction.Kind.SUSPEND, Sanction.Kind.BAN):
        return
    if blocked(user=sanction.user_id) is None:
        return  # lifted, ended or not yet started: nothing to enforce now
    _seats_to_computer(sanction.user_id)
    _tables_leave(sanction.user)
    layer = get_channel_layer()
    if layer is None:
        logger.warning("no channel layer: sockets of user %s not closed", sanction.user_id)
        return
    async_to_sync(layer.group_send)(user_group_name(sanction.user_id), {"type": USER_BLOCKED_TYPE})


def _seats_to_computer(user_id: int) -> None:
    seats = MatchSeat.objects.filter(user_id=user_id, match__status=Match.Status.PLAYING).exclude(
        status=MatchSeat.Status.LEFT
    )
    for match_id, index in seats.values_list("match_id", "index"):
        try:
            match_seat_leave(match=match_id, seat=index)
        except IllegalActionError:  # the match ended meanwhile
            logger.info("match %s ended before user %s's seat was given up", match_id, user_id)


def _tables_leave(user: User) -> None:
    """Free the seats he holds at open tables, so that they do not wait for him."""
    for table in Table.objects.filter(seats__user=user, status=Table.Status.OPEN).distinct():
        try:
            table_leave_seat(table=table, user=user)
        except TableError:  # the match started meanwhile: his match seat was given up above
            logger.info("table %s started before user %s stood up", table.pk, user.pk)
