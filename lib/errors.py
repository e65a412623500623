"""The one base of the errors a service raises when a rule of the site refuses a request."""

from __future__ import annotations


class ApplicationError(Exception):
    """A request refused by a rule of the site; nothing was changed.

    ``code`` is stable, for programs and tests (``"muted"``, ``"not_seated"``); ``message`` is for
    the person who asked, in his language. Views and consumers turn it into their own answer (an
    error frame, a form error, a JSON body) without knowing which service raised it.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
