"""How django-allauth fits this site (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django.utils.encoding import force_str
from django.utils.translation import gettext


class AccountAdapter(DefaultAccountAdapter):
    """allauth's default behaviour with the site's name on every email.

    Usernames need no hook here: allauth's ``clean_username`` runs the validators of
    ``accounts.usernames`` (``ACCOUNT_USERNAME_VALIDATORS``) and refuses a name taken in any
    letter case.
    """

    def format_email_subject(self, subject: str) -> str:
        # allauth's default prefix is the request's host name ("[127.0.0.1:8000]").
        return f"[{gettext('Hokm online')}] {force_str(subject)}"
