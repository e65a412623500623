"""The requests the site's views receive, as the type checker should see them: Django's
``HttpRequest`` with what the middleware and ``login_required`` add to it."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import User


class HtmxHttpRequest(HttpRequest):
    """Any request of the site: ``django_htmx``'s middleware (in every stack) sets ``htmx``."""

    htmx: HtmxDetails


class AuthenticatedHttpRequest(HtmxHttpRequest):
    """The request of a view behind ``login_required``: its user is signed in."""

    user: User
