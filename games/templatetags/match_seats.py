"""``{{ seat|seat_name }}``: a match seat's name in the language of the page, for templates that
list a match's seats themselves (the lobby's match lists)."""

from __future__ import annotations

from django import template

from games.models import MatchSeat
from games.play import rendering

register = template.Library()


@register.filter
def seat_name(seat: MatchSeat) -> str:
    return rendering.seat_name(seat)
