"""The table chat of a match: quick phrases and free text, stored with the match.

Seated players write; spectators (and the seats' own sockets) read. Every message is a row of
:class:`games.models.ChatMessage`, so moderators read the log in the admin later, and the rate
limit counts those rows, so it holds across worker processes. A posted message is broadcast to
the match's group after its transaction commits, as a ``match.chat`` channel-layer event that
carries only the row's id; each consumer loads and renders it (escaped) itself.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from accounts.invisible_characters import (
    INVISIBLE_CHARACTERS_MESSAGE,
    has_invisible_chat_character,
)
from accounts.restrictions import muted
from games.models import ChatMessage, Match, MatchSeat
from games.play.events import match_group_name
from lib.errors import ApplicationError
from lib.realtime import send_on_commit

logger = logging.getLogger(__name__)

#: The channel-layer message type: consumers handle it in ``match_chat``.
CHAT_MESSAGE_TYPE = "match.chat"

#: Longest free text, in characters, after cleaning.
MAX_TEXT_LENGTH = 200
#: Longest sender name kept with a message.
MAX_NAME_LENGTH = 60
#: How many messages a socket gets when it connects.
HISTORY_LIMIT = 30
#: Rate limits per user and match: (messages, within this window).
RATE_LIMITS = ((5, timedelta(seconds=10)), (30, timedelta(minutes=5)))

#: Quick phrases: stable codes (sent by clients, stored, given to programs) and their text.
QUICK_PHRASES: dict[str, Any] = {
    "hello": _("Hello!"),
    "good_game": _("Good game"),
    "well_played": _("Well played"),
    "thanks": _("Thanks"),
    "oops": _("Oops"),
    "hurry": _("Your turn, please"),
}

# Dropped from free text: control characters (tabs and line breaks become spaces). Bidi controls
# and invisible format characters are not dropped but refused (accounts.invisible_characters).
_SPACES = re.compile(r"[\t\n\r\v\f\x85\u2028\u2029]+")


class ChatError(ApplicationError, ValueError):
    """A chat message refused; ``code`` is stable, ``message`` is for people."""


def chat_clean_text(text: str) -> str:
    """Free text as stored: NFC, one line, no control characters, stripped."""
    text = unicodedata.normalize("NFC", text)
    text = _SPACES.sub(" ", text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cs"))
    return text.strip()


def phrase_text(code: str) -> str:
    """A quick phrase in the active language."""
    return str(QUICK_PHRASES[code])


def chat_post(
    *,
    match: Match | int,
    user: Any,
    seat: int | None,
    text: str | None = None,
    phrase: str | None = None,
) -> ChatMessage:
    """Store a chat message from ``user`` at ``seat`` and broadcast it once committed.

    Exactly one of ``text`` (free text) and ``phrase`` (a code of :data:`QUICK_PHRASES`) is given.
    Raises :class:`ChatError`: ``not_seated`` (spectators read only), ``bad_message``,
    ``chat_empty``, ``chat_too_long``, ``chat_invisible_characters`` (a bidi control or another
    invisible character, see ``accounts.invisible_characters``), ``unknown_phrase``,
    ``chat_rate_limited``, ``muted`` (a moderator's mute in force: the message, in the active
    language, says until when and why).
    """
    match_id = match.pk if isinstance(match, Match) else int(match)
    if seat is None or not getattr(user, "is_authenticated", False):
        raise ChatError("not_seated", "only the players can write in the chat")
    mute = muted(user=user)
    if mute is not None:
        raise ChatError("muted", mute.message())
    if (text is None) == (phrase is None):
        raise ChatError("bad_message", "send either a text or a quick phrase")
    if phrase is not None:
        if phrase not in QUICK_PHRASES:
            raise ChatError("unknown_phrase", "there is no such quick phrase")
        with translation.override("en"):
            stored = phrase_text(phrase)
    else:
        assert text is not None, "one of text and phrase (checked above)"
        if has_invisible_chat_character(text):
            raise ChatError("chat_invisible_characters", str(INVISIBLE_CHARACTERS_MESSAGE))
        stored = chat_clean_text(text)
        if not stored:
            raise ChatError("chat_empty", "write something first")
        if len(stored) > MAX_TEXT_LENGTH:
            raise ChatError(
                "chat_too_long", f"a message may hold at most {MAX_TEXT_LENGTH} characters"
            )
    with transaction.atomic(durable=True):
        # The sender's seat row, locked: two messages of one player are counted one after the
        # other, on any worker, without holding up the match row that moves are written to.
        sender = (
            MatchSeat.objects.select_for_update()
            .filter(match_id=match_id, index=seat, user=user)
            .first()
        )
        if sender is None:
            raise ChatError("not_seated", "only the players can write in the chat")
        now = timezone.now()
        mine = ChatMessage.objects.filter(match_id=match_id, user=user)
        for limit, window in RATE_LIMITS:
            if mine.filter(created_at__gt=now - window).count() >= limit:
                raise ChatError("chat_rate_limited", "too many chat messages: wait a moment")
        message = ChatMessage.objects.create(
            match_id=match_id,
            seat=seat,
            user=user,
            name=sender.name[:MAX_NAME_LENGTH],
            text=stored,
            phrase=phrase,
            created_at=now,
        )
        _broadcast_on_commit(match_id, message.pk)
    return message


def _broadcast_on_commit(match_id: int, message_id: int) -> None:
    send_on_commit(match_group_name(match_id), {"type": CHAT_MESSAGE_TYPE, "id": message_id})


def chat_recent(*, match: Match | int, limit: int = HISTORY_LIMIT) -> list[ChatMessage]:
    """The last ``limit`` messages of a match, oldest first (one query)."""
    match_id = match.pk if isinstance(match, Match) else int(match)
    newest = ChatMessage.objects.filter(match_id=match_id).order_by("-created_at", "-pk")[:limit]
    return list(reversed(newest))


def chat_payload(message: ChatMessage) -> dict[str, Any]:
    """A message in the JSON protocol: a phrase's ``text`` is English, ``phrase`` its code."""
    return {
        "id": message.pk,
        "seat": message.seat,
        "name": message.name,
        "text": message.text,
        "phrase": message.phrase,
        "at": message.created_at.isoformat(),
    }
