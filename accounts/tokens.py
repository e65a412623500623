"""Personal API tokens: create, revoke, and find the user a program acts for.

A token is ``hokm_`` followed by 43 URL-safe characters (32 random bytes). Only its SHA-256 is
stored, so a copy of the database gives nobody a working token, and a token is found by looking
its hash up in a unique index: the secret is never compared character by character, so the time a
lookup takes tells an attacker nothing about how close a guess was.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import ApiToken, User
from accounts.socket_sessions import sockets_sign_out, token_group_name

TOKEN_PREFIX = "hokm_"
#: ``secrets.token_urlsafe(32)`` gives 43 characters; anything much longer is not a token.
_TOKEN_MAX_LENGTH = 100
#: A token in use is written to at most once per this interval, not on every connection.
LAST_USED_RESOLUTION = timedelta(minutes=1)
#: Tokens in force per user: enough for several programs, few enough to keep track of.
MAX_ACTIVE_TOKENS = 10


def token_hash(raw: str) -> str:
    """The stored form of a token: SHA-256, hex. Tokens are random, so no salt is needed."""
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Make a token for ``user``; return it with its secret, which is not stored anywhere.

    Raises ``ValidationError`` when the name is empty or the user has ``MAX_ACTIVE_TOKENS``.
    """
    name = " ".join(name.split())
    if not name:
        raise ValidationError(_("Give the token a name."), code="name_required")
    with transaction.atomic(durable=True):
        # Lock the user row so two requests at once cannot both pass the limit.
        User.objects.select_for_update().filter(pk=user.pk).first()
        if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= (
            MAX_ACTIVE_TOKENS
        ):
            raise ValidationError(
                _("You have %(count)s tokens already; revoke one first.")
                % {"count": MAX_ACTIVE_TOKENS},
                code="too_many_tokens",
            )
        secret = secrets.token_urlsafe(32)
        raw = TOKEN_PREFIX + secret
        token = ApiToken.objects.create(
            user=user, name=name, key_hash=token_hash(raw), prefix=secret[:8]
        )
    return token, raw


def token_revoke(*, token_id: int, user: User) -> ApiToken:
    """Revoke one of ``user``'s tokens; revoking a revoked token changes nothing.

    Raises ``ApiToken.DoesNotExist`` when ``user`` has no such token (someone else's included).
    """
    with transaction.atomic(durable=True):
        token = ApiToken.objects.select_for_update().get(pk=token_id, user=user)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            # A program's open sockets end with its token, after the commit.
            sockets_sign_out(group=token_group_name(token.pk), reason="token_revoked")
    return token


def user_for_token(raw: str) -> User | None:
    """The active user a token in force belongs to, or None; notes when the token was used."""
    token = token_in_force(raw)
    return token.user if token is not None else None


def token_in_force(raw: str) -> ApiToken | None:
    """The token ``raw`` is, with its user, if it is in force and its user active, or None;
    notes when the token was used."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > _TOKEN_MAX_LENGTH:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=token_hash(raw), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    stale = now - LAST_USED_RESOLUTION
    if token.last_used_at is None or token.last_used_at < stale:
        # Conditional, so many connections in the same minute still write only once.
        ApiToken.objects.filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=stale), pk=token.pk
        ).update(last_used_at=now)
    return token


def bearer_credentials(authorization: str) -> str | None:
    """The token of an ``Authorization`` header's value ``Bearer <token>`` (the scheme in any
    letter case), or None for another scheme or no header.

    A bearer header with nothing after the scheme gives ``""``: present, and invalid. The HTTP API
    and the sockets' handshake both read the header here, so they accept the same headers.
    """
    scheme, _space, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return credentials.strip()
