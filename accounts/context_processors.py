"""Template context for every page: the player's looks and sounds (``<html data-theme=…>``)."""

from __future__ import annotations

from django.http import HttpRequest

from accounts.models import Back, Face, Theme
from accounts.preferences import UiPrefs, ui_prefs_for_request

#: The names static/js/prefs.js accepts (templates/_head_prefs.html), so that a script asking
#: for a theme that does not exist changes nothing on the page either.
UI_CHOICES = {"theme": Theme.values, "face": Face.values, "back": Back.values}


def ui_prefs(request: HttpRequest) -> dict[str, object]:
    """``ui_prefs``: the theme, face, back, sound, volume, motion and notify of whoever asks
    (``accounts.preferences.UiPrefs``), read by templates/_html_prefs.html; ``ui_choices``: the
    themes, faces and backs there are."""
    prefs: UiPrefs = ui_prefs_for_request(request)
    return {"ui_prefs": prefs, "ui_choices": UI_CHOICES}
