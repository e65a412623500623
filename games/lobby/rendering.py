"""The lobby's list of open tables as HTML, rendered once per state of the list and language.

With a full lobby (100 tables) rendering the list took 45 of the page's 60 ms of CPU
(docs/performance.md), and every lobby page and socket renders the same list. The cache key is
a digest of everything the fragment shows (each table's stored fields, its seats as the page
sees them, with names and ratings) and of the language: a change of any of them is a new key, so
a render kept is never out of date, with several server processes and a shared cache or each
with its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from games.lobby.selectors import TableView
from games.models import Table

#: How long an unread render is kept. A busy lobby changes every few seconds and each change is
#: a new key: the old ones only need to go.
LOBBY_RENDER_SECONDS = 60

_TABLE_FIELDS = tuple(field.attname for field in Table._meta.concrete_fields)


def _digest(tables: Sequence[TableView], *, oob: bool) -> str:
    shown = [
        (
            tuple(getattr(view.table, name) for name in _TABLE_FIELDS),
            view.seats,
            view.match_id,
        )
        for view in tables
    ]
    text = repr((translation.get_language(), oob, shown))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lobby_tables_html(*, tables: Sequence[TableView], oob: bool = False) -> SafeString:
    """The ``#lobby-tables`` fragment for ``tables`` in the active language (``oob``: marked
    for htmx's out-of-band swap, as the socket sends it)."""
    key = f"lobby-tables:1:{_digest(tables, oob=oob)}"
    html = cache.get(key)
    if html is None:
        html = render_to_string("games/_lobby_tables.html", {"tables": tables, "oob": oob})
        cache.set(key, str(html), LOBBY_RENDER_SECONDS)
    return mark_safe(html)  # noqa: S308 - the template's own output, escaped as it rendered
