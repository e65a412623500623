"""A socket lives no longer than the sign-in it was opened with.

A page's socket is signed in by the session cookie of its handshake, a program's by its API token
(``accounts.channels_auth``). Open sockets are closed, with code 4401 after an error frame
``signed_out`` saying why, when that sign-in ends:

- the player signs out (or ``moderation.middleware`` signs out a blocked player): the sockets
  opened with that session close, as the session is flushed; his other browsers stay signed in;
- his password is changed, set or reset, by any means (his settings page, a reset link, the
  admin, ``manage.py changepassword``): every socket opened by a session of his closes, as Django
  ends those sessions then. The browser that changed it stays signed in, but under a new session
  key (``update_session_auth_hash`` cycles it), so its sockets cannot be told from the others':
  they close too, and the page reloaded opens them again;
- an API token is revoked: the sockets opened with that token close. A token is its own
  credential, so a password change leaves the program's sockets open.

A suspension or a ban closes every socket of the player (``moderation.enforcement``, code 4403).

The sockets of a session or a token are found by a channel-layer group named from a digest of the
session key or from the token's id, so no secret is ever written to the channel layer.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from lib.realtime import send_on_commit

logger = logging.getLogger(__name__)

#: The channel-layer message type a consumer handles in ``user_signed_out``.
SIGNED_OUT_TYPE = "user.signed_out"
#: Close code of a socket whose sign-in ended.
CLOSE_SIGNED_OUT = 4401

#: Why a socket closed, by the ``reason`` of the channel-layer message.
SIGNED_OUT_MESSAGES = {
    "logged_out": _("You signed out in this browser. Sign in again to go on."),
    "password_changed": _("Your password was changed. Reload the page to go on."),
    "token_revoked": _("This API token was revoked. Connect again with a token in force."),
}


#: The channel-layer message type a consumer of a suspended or banned user handles in
#: ``user_blocked`` (moderation sends it to :func:`user_group_name`).
USER_BLOCKED_TYPE = "user.blocked"


def user_group_name(user_id: int) -> str:
    """The channel-layer group of every socket a signed-in user has open."""
    return f"user.{user_id}"


def session_group_name(session_key: str) -> str:
    """The channel-layer group of the sockets a session opened (valid group name characters,
    and no key in it)."""
    return "session." + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def token_group_name(token_id: int) -> str:
    """The channel-layer group of the sockets an API token opened."""
    return f"apitoken.{token_id}"


def socket_session_group(scope: dict[str, Any]) -> str | None:
    """The group of the session or the token that signed a socket in; None for a visitor."""
    if not getattr(scope.get("user"), "is_authenticated", False):
        return None
    if scope.get("auth_method") == "token":
        token_id = scope.get("api_token_id")
        return token_group_name(token_id) if token_id is not None else None
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    return session_group_name(key) if key else None


class SessionBoundSocket:
    """Mixin for an ``AsyncWebsocketConsumer`` (before it among the bases): the socket joins its
    session's group before ``connect`` runs, and closes when the sign-in ends.

    The consumer's own ``send_error`` gives the reason frame; a signed-in socket also joins
    ``user_group_name`` (the consumers do), where password events arrive.
    """

    session_group: str | None = None
    # The consumer's own attributes, declared for the type checker (without a value, so the
    # consumer's stand).
    scope: dict[str, Any]
    groups: list[str]

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.session_group = socket_session_group(self.scope)
        if self.session_group is not None:
            # channels adds the socket to these before connect() and takes it out on disconnect.
            self.groups = [*self.groups, self.session_group]
        await super().websocket_connect(message)  # type: ignore[misc]

    async def user_signed_out(self, event: dict[str, Any]) -> None:
        """The sign-in of this socket ended (channel-layer handler): say why, then close."""
        if self.session_group is None:
            return
        if event["reason"] == "password_changed" and self.scope.get("auth_method") == "token":
            return  # a token is its own credential: the program's sign-in goes on
        with translation.override(getattr(self, "language", None)):
            text = str(SIGNED_OUT_MESSAGES[event["reason"]])
        await self.send_error("signed_out", text)  # type: ignore[attr-defined]
        await self.close(code=CLOSE_SIGNED_OUT)  # type: ignore[attr-defined]


def sockets_sign_out(*, group: str, reason: str) -> None:
    """Close the session-signed sockets in ``group`` once the current transaction commits
    (signing out does not fail because the channel layer is down: the send is logged)."""
    send_on_commit(group, {"type": SIGNED_OUT_TYPE, "reason": reason})


def _on_logged_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    # Sent before the session is flushed: its key still names the group.
    key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and key:
        sockets_sign_out(group=session_group_name(key), reason="logged_out")


def password_changed_sign_out(user: Any) -> None:
    """Close the session sockets of ``user``, whose new password was just saved (``User.save``).

    Without a sign-in there is no session and so no session socket: new users skip the send.
    """
    if user.pk is not None and user.last_login is not None:
        sockets_sign_out(group=user_group_name(user.pk), reason="password_changed")


def signals_connect() -> None:
    """Connect the receivers (``AccountsConfig.ready``)."""
    from django.contrib.auth.signals import user_logged_out

    user_logged_out.connect(_on_logged_out, dispatch_uid="accounts.socket_sessions.logged_out")
