"""Keep a suspended or banned player out of the site on whatever request he makes next."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import logout
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve

from moderation.enforcement import blocked_message, sanction_until
from moderation.forms import AppealForm
from moderation.models import Appeal, Sanction
from moderation.sanctions import BLOCKING, longest, sanctions_for_request


class BlockedUserMiddleware:
    """Sign out a player whose suspension or ban is in force and show him why and until when.

    A sanction takes effect at once even on sessions opened before it: the moderation services
    cannot reach every session store, so each request checks, in one indexed query whose rows stay
    on ``request.sanctions``. Goes after ``AuthenticationMiddleware``, which sets ``request.user``.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            # One query gives what the page needs of his sanctions (the context processor of
            # moderation.context_processors reads them here too).
            sanctions = sanctions_for_request(user=user)
            # Django's request has no such attribute: this middleware adds it.
            request.sanctions = sanctions  # type: ignore[attr-defined]
            sanction = longest(sanctions, BLOCKING)
            if sanction is not None:
                logout(request)
                return blocked_response(request, sanction)
            if _rename_first(request, sanctions):
                return redirect("moderation:rename")
        return self.get_response(request)


#: Pages a player under a forced rename may still open: the rename itself, his sanctions and
#: appeal, signing out.
_RENAME_FREE = ("moderation:rename", "moderation:my_sanctions", "moderation:appeal_sanction")


def _rename_first(request: HttpRequest, sanctions: list[Sanction]) -> bool:
    """A forced rename is in force and this is a page he should not see before choosing a name
    (full-page GETs only: forms posted and htmx fragments are left alone)."""
    if request.method != "GET" or request.headers.get("HX-Request"):
        return False
    if longest(sanctions, [Sanction.Kind.RENAME]) is None:
        return False
    try:
        name = resolve(request.path_info).view_name
    except Resolver404:
        return False
    return name not in _RENAME_FREE and name != "account_logout"


#: The salt of the signed sanction id the blocked page's appeal form carries.
BLOCKED_APPEAL_SALT = "accounts.blocked-appeal"


def blocked_response(
    request: HttpRequest,
    sanction: Sanction,
    *,
    appeal_error: str = "",
    appeal_text: str = "",
    status: int = 403,
) -> HttpResponse:
    """The page that tells a kept-out player why and until when (403), with his appeal.

    He is signed out, so the sanctions page, where others appeal, is closed to him: the page
    carries the form itself, with the sanction's id signed (``BLOCKED_APPEAL_SALT``). The page is
    shown only to someone who has just proved he owns the account (his session, or his password
    at sign-in), so the signature stands for that proof for a while
    (``moderation.views.appeal_blocked``).
    """
    appeal = Appeal.objects.filter(sanction=sanction).first()
    appeal_token = ""
    if appeal is None and sanction.lifted_at is None:
        appeal_token = signing.dumps(sanction.pk, salt=BLOCKED_APPEAL_SALT)
    return render(
        request,
        "moderation/blocked.html",
        {
            "sanction": sanction,
            "blocked_message": blocked_message(sanction),
            "until": sanction_until(sanction),
            "appeal": appeal,
            "appeal_token": appeal_token,
            "appeal_form": AppealForm(initial={"text": appeal_text}),
            "appeal_error": appeal_error,
        },
        status=status,
    )
