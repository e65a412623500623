"""What a server process does once it has loaded everything, before it takes requests.

``heap_freeze``: Python's cyclic garbage collector, on a full collection, walks every object
the process holds. A daphne process holds some 130,000 objects from its imports alone (Django,
Channels, the apps, the engine), which live as long as the process; each full collection walked
them all again, 60 to 80 ms on this machine, and fell on whichever request had allocated the
last objects that triggered it: a page listing 100 tables did so every few requests, and its
95th percentile went from 26 to 120 ms (docs/performance.md). ``gc.freeze`` moves the objects
that exist now to a permanent generation that collections skip, as Python's documentation
advises for long-lived server processes; what is allocated later is collected as before.
"""

from __future__ import annotations

import gc

from django.urls import get_resolver


def heap_freeze() -> None:
    """Load the URL configuration (its views and their imports), collect what startup left
    behind, and freeze the rest out of future collections."""
    get_resolver().url_patterns  # noqa: B018 - imports every view module now, not on a request
    gc.collect()
    gc.freeze()
