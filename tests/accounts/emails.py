"""The emails the site sends, as a test reads them."""

from __future__ import annotations

import re

from django.core import mail


def link_in(message: mail.EmailMessage) -> str:
    """The one link of an email, as a path the test client can follow."""
    (url,) = re.findall(r"https?://testserver(/\S+)", message.body)
    return url
