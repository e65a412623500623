"""Template context for every page: the moderator flag of the header, unseen warnings, and the
end of a play ban in the lobby."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _

from accounts.roles import is_moderator
from moderation.enforcement import play_banned_message
from moderation.models import Sanction
from moderation.sanctions import BLOCKING, longest, sanctions_for_request
from moderation.services import warning_seen


def moderation(request: HttpRequest) -> dict[str, object]:
    """``is_moderator`` (called by the template only where it asks); a moderator's warnings the
    player has not seen yet, and in the lobby what keeps him from playing, added as messages so
    the page's message list shows them.

    Only full-page GETs mark a warning seen: an htmx fragment or a form's POST shows no message
    list, and the warning would be lost.
    """
    # A page may render several templates with the request (fragments, then the page): once.
    cached = getattr(request, "_moderation_context", None)
    if cached is not None:
        return cached
    # Django's request has no such attribute: this cache adds it.
    request._moderation_context = context = _moderation(request)  # type: ignore[attr-defined]
    return context


def _moderation(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_moderator": False}
    if request.method == "GET" and not getattr(request, "htmx", False):
        rows = getattr(request, "sanctions", None)
        if rows is None:  # a request that did not pass BlockedUserMiddleware
            rows = sanctions_for_request(user=user)
        if any(s.kind == Sanction.Kind.WARN and s.seen_at is None for s in rows):
            for warning in warning_seen(user=user):
                messages.warning(
                    request,
                    _("A moderator warned you: %(reason)s") % {"reason": warning.reason},
                )
        match = getattr(request, "resolver_match", None)
        if match is not None and match.view_name == "games:lobby":
            ban = longest(rows, [*BLOCKING, Sanction.Kind.PLAY_BAN])
            if ban is not None:
                messages.warning(request, play_banned_message(ban))
    # Moderators are staff accounts (accounts.roles): nobody else costs the header a query.
    return {"is_moderator": partial(is_moderator, user) if user.is_staff else False}
