"""How a match ended when its score did not end it: a resignation or abandonment (R8).

The table (``games.play.rendering``) is drawn from the engine's state alone, and a match ended this
way leaves the engine's state in the middle of a hand. The match page therefore says how it ended
in an element of its own, ``#match-ending``, outside the table: the page renders it once
(``games.templatetags.match_ending``) and the match socket sends it again, out of band, with every
table of such a match (``games.play.consumers``). It names the player who resigned and the winner,
and never a card (R8.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.template.loader import render_to_string
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine import get_variant
from games.models import Match, MatchSeat
from games.play.rendering import play_again, seat_name
from games.ratings.selectors import RatingMove, rating_moves


@dataclass(frozen=True, slots=True)
class EndingRating:
    """One person's rating change in a rated match that ended by resignation."""

    name: str
    you: bool
    move: RatingMove


@dataclass(frozen=True, slots=True)
class MatchEnding:
    """What ``#match-ending`` shows: how the match ended, for one viewer."""

    match_id: int
    #: ``"resign"`` or ``"abandon"`` (``Match.EndedBy``).
    kind: str
    #: The viewer's side resigned (he, or his computer partner's side with him).
    you_resigned: bool
    #: The name of the player who resigned ("" for an abandoned match).
    resigned_name: str
    #: The viewer's side won: True, False, or None for a spectator or an abandoned match.
    you_won: bool | None
    #: The winners' names joined for one line ("" for an abandoned match).
    winner_names: str
    #: One name won (the verb of one), or a team.
    winner_solo: bool
    scores: list[int]
    #: The viewer may start the same game against the computer again (the page's form).
    play_again: bool
    ratings: list[EndingRating] = field(default_factory=list)

    @property
    def title(self) -> str | Promise:
        if self.kind == Match.EndedBy.ABANDON:
            return _("Match abandoned")
        if self.you_resigned:
            return _("You resigned")
        return _("%(name)s resigned") % {"name": self.resigned_name}

    @property
    def detail(self) -> str | Promise:
        if self.kind == Match.EndedBy.ABANDON:
            return _(
                "Nobody played this match for a long time, so it ended here: "
                "it has no winner and changes no rating."
            )
        if self.you_won is True:
            return _("You win the match!")
        if self.you_won is False:
            return _("You lose the match")
        if self.winner_solo:
            return _("%(name)s wins the match") % {"name": self.winner_names}
        return _("%(names)s win the match") % {"names": self.winner_names}


def match_ending(
    *,
    match: Match,
    seats: list[MatchSeat],
    seat: int | None,
    ratings: dict[int, RatingMove] | None = None,
) -> MatchEnding | None:
    """How ``match`` ended as ``seat`` (None: a spectator) sees it; None while it is played or
    when its score ended it (the table's own banner says so). ``ratings``: its rating changes by
    seat, for a rated match."""
    if match.status == Match.Status.PLAYING or not match.ended_by:
        return None
    rules = get_variant(match.variant)
    names = {row.index: seat_name(row) for row in seats}
    your_side = rules.side_of(seat) if seat is not None else None
    resigned = match.resigned_seat
    winners = (
        [names[index] for index in rules.seats_of(match.winner_side) if index in names]
        if match.winner_side is not None
        else []
    )
    return MatchEnding(
        match_id=match.pk,
        kind=match.ended_by,
        you_resigned=resigned is not None and your_side == rules.side_of(resigned),
        resigned_name=names.get(resigned, "") if resigned is not None else "",
        you_won=None
        if your_side is None or match.winner_side is None
        else your_side == match.winner_side,
        winner_names=" & ".join(winners),
        winner_solo=len(winners) == 1,
        scores=list(match.scores),
        play_again=play_again(match=match, seats=seats, seat=seat) is not None,
        ratings=[
            EndingRating(name=names.get(index, ""), you=index == seat, move=move)
            for index, move in sorted((ratings or {}).items())
        ],
    )


def match_ending_read(
    *, match: Match, seat: int | None, seats: list[MatchSeat] | None = None
) -> MatchEnding | None:
    """:func:`match_ending` with what it needs read: the seats unless given, and the rating
    changes of a rated match. No query for a match still played or ended by its score."""
    if match.status == Match.Status.PLAYING or not match.ended_by:
        return None
    if seats is None:
        seats = list(MatchSeat.objects.filter(match=match).order_by("index"))
    ratings = rating_moves(match_ids=[match.pk]).get(match.pk, {}) if match.rated else {}
    return match_ending(match=match, seats=seats, seat=seat, ratings=ratings)


def render_match_ending(*, ending: MatchEnding | None, oob: bool) -> str:
    """The ``#match-ending`` element (empty and hidden without an ending); ``oob`` when it goes
    over the socket, for htmx to swap it in place."""
    return render_to_string("games/_match_ending.html", {"ending": ending, "oob": oob})
