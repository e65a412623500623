"""``{% match_ending match seat %}``: the match page's ``#match-ending`` element, telling how a
match ended by resignation or abandonment (``games.play.ending``); empty and hidden otherwise."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.models import Match
from games.play.ending import match_ending_read, render_match_ending

register = template.Library()


@register.simple_tag
def match_ending(match: Match, seat: int | None) -> SafeString:
    ending = match_ending_read(match=match, seat=seat)
    return mark_safe(render_match_ending(ending=ending, oob=False))  # a rendered template
