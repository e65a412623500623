"""``{% fair_seal_fields %}``: the sealed first shuffles a form that starts a match takes part in
(R8.4, docs/fairness.md). It shows the commitment, and carries it back with the page's seed
(``client_seed``, filled by static/js/app.js when the form is sent) so that the match deals
from shuffles sealed before the player's seed was known.

With no argument: the signed-in player's own seal for a quick start or a seek
(``games.lobby.services.fair_seal_of``), sealed on first use. With a table: that table's.
"""

from __future__ import annotations

from typing import Any

from django import template

from games.lobby.services import fair_seal_of
from games.models import Table
from games.play import fairness

register = template.Library()


@register.inclusion_tag("games/_fair_seal_fields.html", takes_context=True)
def fair_seal_fields(
    context: template.Context, table: Table | None = None, shown: bool = False
) -> dict[str, Any]:
    """The hidden fields (and with ``shown``, a line saying the shuffle is sealed)."""
    commit = ""
    if table is not None:
        commit = fairness.seal_commit(table.fair_start)
    else:
        request = context.get("request")
        user = getattr(request, "user", None) or context.get("user")
        if user is not None and user.is_authenticated:
            commit = fair_seal_of(user=user).commit
    return {"commit": commit, "shown": shown}
