"""Forms of the games app: opening a table."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.invisible_characters import INVISIBLE_CHARACTERS_MESSAGE
from games.engine import DEFAULT_TARGET
from games.lobby.services import (
    NAME_MAX_LENGTH,
    TARGET_MAX,
    TARGET_MIN,
    TURN_CLOCKS,
    table_name_has_hidden_character,
)
from games.models import PARTNER_DRAW_VARIANTS, VARIANT_CHOICES, ComputerLevel

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
    ComputerLevel.MEDIUM: _("Plays the obvious card every time: the greedy baseline."),
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

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        variant = cleaned.get("variant")
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
        return cleaned
