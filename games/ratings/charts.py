"""A rating chart, laid out on the server: the line of a player's rating after each of his rated
matches in one family, drawn as inline SVG by ``templates/games/_rating_chart.html``.

The drawing has a ``viewBox`` of :data:`WIDTH` by :data:`HEIGHT` units and scales to the width it
is given, text included. Each rated match is one step to the right, oldest first: the same
order in every language, so the SVG is ``dir="ltr"`` on right-to-left pages too. The numbers are
written here (``"12.5"``) so that no locale's decimal comma reaches the SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Max

from games.models import RatingChange
from games.ratings.selectors import ChartPoint, rating_charts

#: The drawing's size in SVG units: about a phone's width, so its text is read at its own size
#: there and a little larger on a wide screen.
WIDTH = 320
HEIGHT = 160
#: Room at the start for the ratings' labels, at the end for the last dot, above for the top
#: dot and below for the dates.
_LEFT = 40
_RIGHT = WIDTH - 10
_TOP = 12
_BOTTOM = HEIGHT - 26
#: The smallest span of ratings the height shows, so a line of small changes stays a line.
_MIN_SPAN = 20
#: Every match gets a dot (with its rating as a tooltip) up to this many; beyond, the last one.
DOTS_UP_TO = 40


@dataclass(frozen=True, slots=True)
class ChartDot:
    x: str
    y: str
    rating: int
    at: datetime


@dataclass(frozen=True, slots=True)
class RatingChart:
    """The geometry of one family's chart, and what its text says."""

    variant: str
    #: The polyline's points: ``"x,y x,y ..."``.
    line: str
    dots: tuple[ChartDot, ...]
    #: The highest and lowest rating drawn, and where their rules cross the chart.
    high: int
    low: int
    high_y: str
    low_y: str
    #: The rating before the first match drawn and after the last.
    start: int
    end: int
    first_at: datetime
    last_at: datetime
    #: The rated matches drawn.
    matches: int
    width: int = WIDTH
    height: int = HEIGHT
    left: int = _LEFT
    right: int = _RIGHT
    bottom: int = _BOTTOM

    @property
    def ids(self) -> str:
        """The prefix of the SVG's element ids: one chart per family on a page."""
        return f"rating-chart-{self.variant}"

    @property
    def date_y(self) -> int:
        return HEIGHT - 6


def _number(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def rating_chart_layout(points: Sequence[ChartPoint], *, variant: str) -> RatingChart | None:
    """Lay out the chart of ``points`` (the rating before the first match, then after each,
    oldest first); None when there is no match to draw."""
    if len(points) < 2:
        return None
    ratings = [point.rating for point in points]
    high, low = max(ratings), min(ratings)
    # The scale: at least _MIN_SPAN, centred on the ratings when they span less.
    top, bottom = float(high), float(low)
    if top - bottom < _MIN_SPAN:
        middle = (top + bottom) / 2
        top, bottom = middle + _MIN_SPAN / 2, middle - _MIN_SPAN / 2
    steps = len(points) - 1

    def x(i: int) -> str:
        return _number(_LEFT + (_RIGHT - _LEFT) * i / steps)

    def y(rating: int) -> str:
        return _number(_TOP + (_BOTTOM - _TOP) * (top - rating) / (top - bottom))

    coordinates = [(x(i), y(point.rating)) for i, point in enumerate(points)]
    dotted = range(1, len(points)) if steps <= DOTS_UP_TO else range(len(points) - 1, len(points))
    return RatingChart(
        variant=variant,
        line=" ".join(f"{cx},{cy}" for cx, cy in coordinates),
        dots=tuple(
            ChartDot(*coordinates[i], rating=points[i].rating, at=points[i].at) for i in dotted
        ),
        high=high,
        low=low,
        high_y=y(high),
        low_y=y(low),
        start=points[0].rating,
        end=points[-1].rating,
        first_at=points[0].at,
        last_at=points[-1].at,
        matches=steps,
    )


#: How long unread chart layouts stay in the cache; their key changes with every rating change.
CHARTS_CACHE_SECONDS = 7 * 24 * 3600


def rating_chart_layouts(*, user: Any, variants: Sequence[str]) -> dict[str, RatingChart | None]:
    """The laid-out chart of each of ``variants`` for ``user``: one query for his latest rating
    change, and the charts from the cache under it (any change since, a void included, is a new
    id and so a new key: never stale); else one more query for the points and the layout.

    For a player with four families of 300 changes the points and the layout were 10 ms of the
    profile's 40 (docs/performance.md)."""
    if not variants:
        return {}
    latest = RatingChange.objects.filter(user=user).aggregate(latest=Max("id"))["latest"]
    key = f"rating-charts:1:{getattr(user, 'pk', user)}:{latest}:{','.join(variants)}"
    layouts = cache.get(key)
    if layouts is None:
        charts = rating_charts(user=user, variants=variants)
        layouts = {
            variant: rating_chart_layout(charts.get(variant, []), variant=variant)
            for variant in variants
        }
        cache.set(key, layouts, CHARTS_CACHE_SECONDS)
    return layouts
