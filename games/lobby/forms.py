"""Forms of the games app: opening a table."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.invisible_characters import INVISIBLE_CHARACTERS_MESSAGE
from games.engine import DEFAULT_TARGET
from games.lobby.services import (
    MAX_DEALS_MAX,
    NAME_MAX_LENGTH,
    RATING_MAX,
    TARGET_MAX,
    TARGET_MIN,
    TURN_CLOCKS,
    table_name_has_hidden_character,
)
from games.models import (
    COURT_PIECE_VARIANTS,
    PARTNER_DRAW_VARIANTS,
    SUIT_CHOICES,
    VARIANT_CHOICES,
    ComputerLevel,
)

#: The clock choices (R8.1); the empty value is "no clock". Each label is its own lazy string:
#: formatting one at import time would fix its language.
_CLOCK_LABELS = {15: _("15 seconds"), 30: _("30 seconds"), 60: _("60 seconds")}
TURN_CLOCK_CHOICES = [
    *[(str(seconds), _CLOCK_LABELS[seconds]) for seconds in TURN_CLOCKS],
    ("", _("No clock (private tables only)")),
]


#: One line under each computer level's name, so that a person chooses knowing what each does.
COMPUTER_LEVEL_DESCRIPTIONS = {
    ComputerLevel.EASY: _("Plays sensibly but makes mistakes: good for learning."),
    ComputerLevel.MEDIUM: _("Always plays the obvious card, without looking ahead."),
    ComputerLevel.HARD: _(
        "Imagines the unseen cards and plays out the hand dozens of times before each card."
    ),
    ComputerLevel.EXPERT: _(
        "Reads what the others’ plays reveal, searches hundreds of deals, calls trump by search, "
        "and solves the last tricks exactly."
    ),
}


def validate_table_name(value: str) -> None:
    """Refuse a name with an invisible or a control character (``games.lobby.services``)."""
    if table_name_has_hidden_character(value):
        raise ValidationError(INVISIBLE_CHARACTERS_MESSAGE, code="invisible_characters")


class LevelChoice(forms.RadioSelect):
    """Radio buttons for the computer levels; each option carries its description and points
    its input at it (``aria-describedby``), for the template to draw the options as cards."""

    def create_option(
        self,
        name: str,
        value: Any,
        label: Any,
        selected: bool,
        index: int,
        subindex: int | None = None,
        attrs: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["description"] = COMPUTER_LEVEL_DESCRIPTIONS.get(value, "")
        if "id" in option["attrs"]:
            option["attrs"]["aria-describedby"] = f"{option['attrs']['id']}_description"
        return option


class TableForm(forms.Form):
    """The settings of a new table; ``games.lobby.services.table_create`` checks them again."""

    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX_LENGTH,
        required=False,
        help_text=_("Leave empty for “your name’s table”."),
        validators=[validate_table_name],
    )
    variant = forms.ChoiceField(label=_("Game"), choices=VARIANT_CHOICES, initial="hokm4")
    target = forms.IntegerField(
        label=_("Points to win"),
        min_value=TARGET_MIN,
        max_value=TARGET_MAX,
        initial=DEFAULT_TARGET,
        help_text=_("Usually 1, 3, 5, 7 or 11; anything from 1 to 21."),
        # The browser offers the usual targets (datalist "target-presets" in the template).
        widget=forms.NumberInput(attrs={"list": "target-presets", "inputmode": "numeric"}),
    )
    turn_clock_seconds = forms.TypedChoiceField(
        label=_("Turn clock"),
        choices=TURN_CLOCK_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
        initial="30",
        help_text=_("Time for each decision; when it runs out the computer plays for you."),
    )
    is_private = forms.BooleanField(
        label=_("Private table"),
        required=False,
        help_text=_("Not listed in the lobby: players join with the invite link."),
    )
    allow_spectators = forms.BooleanField(
        label=_("Spectators allowed"), required=False, initial=True
    )
    fill_with_computer = forms.BooleanField(
        label=_("Fill empty seats with computer players"),
        required=False,
        help_text=_("You can then start whenever you like."),
    )
    computer_level = forms.ChoiceField(
        label=_("Computer level"),
        choices=ComputerLevel.choices,
        initial=ComputerLevel.MEDIUM,
        widget=LevelChoice,
        help_text=_(
            "The computer players at this table play at this level, and so does the computer "
            "that plays for a player who is away."
        ),
        error_messages={"invalid_choice": _("Choose one of the computer levels offered.")},
    )
    partner_draw = forms.BooleanField(
        label=_("Draw for partners"),
        required=False,
        help_text=_("Four players only: a second ace chooses the Hakem's partner."),
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        required=False,
        help_text=_(
            "The result changes the players' ratings. People only, with a turn clock; "
            "leaving the match counts as a loss."
        ),
    )
    rating_min = forms.IntegerField(
        label=_("Lowest rating"),
        min_value=0,
        max_value=RATING_MAX,
        required=False,
        help_text=_("Optional, rated tables only: players rated below this may not sit down."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    rating_max = forms.IntegerField(
        label=_("Highest rating"),
        min_value=0,
        max_value=RATING_MAX,
        required=False,
        help_text=_("Optional, rated tables only: players rated above this may not sit down."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    # Court Piece's table settings (R9.11), each with one line saying what it does; the defaults
    # are the common game: all off but the goon court.
    double_sir = forms.BooleanField(
        label=_("Double Sir"),
        required=False,
        help_text=_(
            "Tricks pile up in the middle; a player collects the pile by winning two tricks "
            "in a row."
        ),
    )
    ace_rule = forms.BooleanField(
        label=_("Ace rule"),
        required=False,
        help_text=_("With Double Sir: two tricks in a row won with aces do not collect."),
    )
    hidden_trump = forms.ChoiceField(
        label=_("Hidden trump"),
        choices=[
            ("off", _("Off: the caller names trump aloud")),
            ("chosen", _("Chosen: the caller lays a card face down, its suit is trump")),
            ("blind", _("Blind: a random card of the caller's five, unseen even by him")),
        ],
        initial="off",
        required=False,  # a Hokm table sends none: empty is "off"
        help_text=_("A player who cannot follow suit may ask to see it, and must then trump."),
    )
    goon_court = forms.BooleanField(
        label=_("Goon court"),
        required=False,
        initial=True,
        help_text=_("A court won by the dealing side counts 3 courts."),
    )
    ace_caller = forms.TypedChoiceField(
        label=_("Ace caller"),
        choices=[("", _("Off: the first ace deals")), *SUIT_CHOICES],
        required=False,
        empty_value=None,
        help_text=_("First deal only: the seat that turns up the ace of this suit calls trump."),
    )
    max_deals = forms.IntegerField(
        label=_("Most deals"),
        min_value=1,
        max_value=MAX_DEALS_MAX,
        required=False,
        help_text=_("Optional: after this many deals, the side with more courts wins."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    #: The fields that are Court Piece's settings, in the order the record stores them.
    COURT_PIECE_FIELDS = ("double_sir", "ace_rule", "hidden_trump", "goon_court", "ace_caller")

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        variant = cleaned.get("variant")
        settings = {name: cleaned.pop(name, None) for name in self.COURT_PIECE_FIELDS}
        max_deals = cleaned.pop("max_deals", None)
        if variant in COURT_PIECE_VARIANTS:
            if settings["ace_rule"] and not settings["double_sir"]:
                self.add_error("ace_rule", _("The ace rule is played with Double Sir only."))
            cleaned["options"] = {
                **settings,
                "hidden_trump": settings["hidden_trump"] or "off",
            }
            cleaned["max_deals"] = max_deals
        if cleaned.get("partner_draw") and variant and variant not in PARTNER_DRAW_VARIANTS:
            self.add_error(
                "partner_draw", _("The draw for partners is played with four players only.")
            )
        if (
            "turn_clock_seconds" in cleaned
            and cleaned["turn_clock_seconds"] is None
            and not cleaned.get("is_private")
        ):
            self.add_error(
                "turn_clock_seconds", _("Only private tables can play without a turn clock.")
            )
        if cleaned.get("rated"):
            if "turn_clock_seconds" in cleaned and cleaned["turn_clock_seconds"] is None:
                self.add_error("turn_clock_seconds", _("A rated table needs a turn clock."))
            if cleaned.get("fill_with_computer"):
                self.add_error(
                    "fill_with_computer",
                    _("A rated table is played by people only, without computer players."),
                )
            low, high = cleaned.get("rating_min"), cleaned.get("rating_max")
            if low is not None and high is not None and low > high:
                self.add_error("rating_max", _("The lowest rating must not be above the highest."))
        else:
            # A range means nothing at a casual table: dropped, not refused (a page that kept
            # the numbers after the box was unticked).
            cleaned["rating_min"] = cleaned["rating_max"] = None
        return cleaned
