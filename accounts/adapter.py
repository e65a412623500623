"""How django-allauth fits this site (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest, HttpResponse
from django.utils.encoding import force_str
from django.utils.translation import gettext

from accounts import restrictions


class AccountAdapter(DefaultAccountAdapter):
    """allauth's default behaviour with the site's name on every email.

    Usernames need no hook here: allauth's ``clean_username`` runs the validators of
    ``accounts.usernames`` (``ACCOUNT_USERNAME_VALIDATORS``) and refuses a name taken in any
    letter case.
    """

    def format_email_subject(self, subject: str) -> str:
        # allauth's default prefix is the request's host name ("[127.0.0.1:8000]").
        return f"[{gettext('Hokm online')}] {force_str(subject)}"

    def pre_login(self, request: HttpRequest, user: Any, **kwargs: Any) -> HttpResponse | None:
        """A suspended or banned player is not signed in: he gets the page saying why and until
        when. Asked after the password is checked (so only the account's owner learns of the
        sanction) and before any second factor."""
        from allauth.account.internal.stagekit import clear_login

        refusal = restrictions.sign_in_refusal(request=request, user=user)
        if refusal is not None:
            clear_login(request)
            return refusal
        return super().pre_login(request, user, **kwargs)
