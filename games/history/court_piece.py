"""Court Piece (R9) as the history pages name it: the table settings of a match (R9.11) and what
a finished deal scored (R9.6 to R9.8), in the words players use for them.

The history list, the match summary and the replay all name results through here, so a goon
court or a 52-court reads the same on every page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine import CourtPieceOptions, HiddenTrump, OptionsError, get_variant
from games.models import Match
from games.play.rendering import suit_face

#: What a finished deal was, the most notable first (R9.7.4: values never add up in a deal).
DealKind = Literal["won", "court", "goon", "52-court", "seven"]
WON: DealKind = "won"
COURT: DealKind = "court"
GOON: DealKind = "goon"
FIFTY_TWO: DealKind = "52-court"
SEVEN: DealKind = "seven"

_KIND_NAMES: dict[DealKind, Promise] = {
    WON: _("deal won"),
    COURT: _("court"),
    GOON: _("goon court"),
    FIFTY_TWO: _("52-court"),
    SEVEN: _("seven in a row"),
}

_HIDDEN_TRUMP_NAMES: dict[HiddenTrump, Promise] = {
    HiddenTrump.OFF: _("off: the caller names trump aloud"),
    HiddenTrump.CHOSEN: _("chosen: the caller lays a card face down"),
    HiddenTrump.BLIND: _("blind: a random card of the caller's five, unseen even by him"),
}


def deal_kind(*, outcome: str | None, goon: bool, streak_court: bool) -> DealKind | None:
    """A finished deal's kind from its stored result (``Hand.outcome``, ``goon``,
    ``streak_court``, or the engine's ``DealSummary``); None while it is played."""
    if outcome is None:
        return None
    if outcome == "52-court":
        return FIFTY_TWO  # R9.7.1, a goon one included: 52 courts either way (R9.7.4)
    if outcome == "court":
        return GOON if goon else COURT  # R9.7.2
    return SEVEN if streak_court else WON  # R9.8.2, R9.7.3


def deal_kind_name(kind: DealKind) -> str:
    return str(_KIND_NAMES[kind])


#: The kinds that score courts, in the order the history list names them.
COURT_KINDS: tuple[DealKind, ...] = (FIFTY_TWO, GOON, COURT, SEVEN)


@dataclass(frozen=True, slots=True)
class Setting:
    """One table setting as people read it: ``Double Sir: on``."""

    label: str
    value: str


def court_piece_settings(match: Match) -> list[Setting]:
    """The settings of R9.11 the match was played under, with its target and most deals (R9.10);
    empty for a Hokm match."""
    if get_variant(match.variant).family != "court-piece":
        return []
    try:
        options = CourtPieceOptions.from_json(match.options or {})
    except OptionsError:
        return []
    on = str(pgettext_lazy("a table setting", "on"))
    off = str(pgettext_lazy("a table setting", "off"))
    ace_caller = (
        str(_("ace of %(suit)s") % {"suit": suit_face(options.ace_caller).name})
        if options.ace_caller
        else str(_("off: the first ace deals"))
    )
    settings = [
        Setting(str(_("Double Sir")), on if options.double_sir else off),
        Setting(str(_("Hidden trump")), str(_HIDDEN_TRUMP_NAMES[options.hidden_trump])),
        Setting(
            str(_("Goon court")),
            str(_("3 courts")) if options.goon_court else str(_("1 court, as any court")),
        ),
        Setting(str(_("Ace caller")), ace_caller),
    ]
    if options.double_sir:
        settings.insert(1, Setting(str(_("Ace rule")), on if options.ace_rule else off))
    if match.max_deals:
        settings.append(Setting(str(_("Most deals")), str(match.max_deals)))
    return settings
