"""A player's looks and sounds: table theme, card fronts and backs, sound, volume, motion and
notifications.

A signed-in player's are fields of his user row; a visitor's are kept in his session, under
``SESSION_KEY``, so that the site looks the same to him from page to page. Every page reads them
through ``ui_prefs_for_request`` (the ``ui_prefs`` context processor) and writes them through
``preferences_update`` (the ``accounts:preferences`` endpoint).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from django.http import HttpRequest

from accounts.models import Back, Face, Theme, User

SESSION_KEY = "ui_prefs"

#: The names the endpoint, the session and ``<html data-…>`` know, in the order of the page.
PREFERENCE_NAMES = ("theme", "face", "back", "sound", "volume", "motion", "notify")


@dataclass(frozen=True)
class UiPrefs:
    """What one page needs of the player's preferences; ``UiPrefs()`` is a newcomer's."""

    theme: str = Theme.FELT.value
    face: str = Face.CLASSIC.value
    back: str = Back.LATTICE.value
    sound: bool = True
    volume: int = 70
    motion: bool = True
    notify: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_VALID: dict[str, frozenset[str]] = {
    "theme": frozenset(Theme.values),
    "face": frozenset(Face.values),
    "back": frozenset(Back.values),
}


def _from_session(stored: object) -> UiPrefs:
    """The visitor's preferences in his session, each one that is no longer valid (a theme
    since removed, say) left at its default."""
    if not isinstance(stored, dict):
        return UiPrefs()
    kept: dict[str, Any] = {}
    for name, choices in _VALID.items():
        if stored.get(name) in choices:
            kept[name] = stored[name]
    for name in ("sound", "motion", "notify"):
        if isinstance(stored.get(name), bool):
            kept[name] = stored[name]
    volume = stored.get("volume")
    if isinstance(volume, int) and not isinstance(volume, bool) and 0 <= volume <= 100:
        kept["volume"] = volume
    return UiPrefs(**kept)


def ui_prefs_for_user(user: User) -> UiPrefs:
    return UiPrefs(
        theme=user.theme,
        face=user.face,
        back=user.back,
        sound=user.sound,
        volume=user.volume,
        motion=user.motion,
        notify=user.notify,
    )


def ui_prefs_for_request(request: HttpRequest) -> UiPrefs:
    """The preferences of whoever asks: the signed-in player's, or the visitor's session's."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return ui_prefs_for_user(user)
    session = getattr(request, "session", None)
    if session is None:
        return UiPrefs()
    return _from_session(session.get(SESSION_KEY))


def preferences_update(*, request: HttpRequest, values: dict[str, Any]) -> UiPrefs:
    """Store ``values`` (already valid: ``accounts.forms.PreferencesForm``) for whoever asks and
    return the preferences now in force. Names left out keep their value."""
    unknown = set(values) - set(PREFERENCE_NAMES)
    if unknown:
        raise ValueError(f"unknown preferences: {sorted(unknown)}")
    prefs = replace(ui_prefs_for_request(request), **values)
    user = request.user
    if user.is_authenticated:
        for name, value in values.items():
            setattr(user, name, value)
        # Only these columns: the rest of the row may be older than the database's.
        User.objects.filter(pk=user.pk).update(**values)
    else:
        request.session[SESSION_KEY] = prefs.as_dict()
    return prefs
