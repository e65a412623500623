"""The filters of "My games": a GET form whose every field may be left empty."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.history.selectors import HistoryFilters
from games.models import VARIANT_CHOICES
from lib.calendars import jalali_iso, parse_date, uses_jalali
from lib.numerals import ascii_digits, localize_text

#: The query parameters the form reads, in the order a shareable URL lists them.
FILTER_FIELDS = (
    "variant",
    "result",
    "partner",
    "opponent",
    "computers",
    "date_from",
    "date_to",
)

_USERNAME_ERROR = _("Enter a username: letters, digits and the characters @ . + - _ only.")


class _UsernameField(forms.CharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            required=False,
            max_length=150,
            strip=True,
            validators=[UnicodeUsernameValidator(message=_USERNAME_ERROR)],
            widget=forms.TextInput(
                attrs={
                    "list": "history-players",
                    "autocomplete": "off",
                    "autocapitalize": "none",
                    "spellcheck": "false",
                    "dir": "ltr",
                    "placeholder": _("username"),
                }
            ),
            **kwargs,
        )


class _DateInput(forms.DateInput):
    """The browser's date picker where the reader's calendar is the Gregorian one; in Persian,
    whose readers count days in the Solar Hijri calendar that no browser's picker knows, a text
    field with the Jalali date in Persian digits (lib.calendars, lib.numerals)."""

    input_type = "date"

    def __init__(self) -> None:
        # The ISO form is what an <input type="date"> sends and shows.
        super().__init__(format="%Y-%m-%d")

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        if uses_jalali():
            widget = context["widget"]
            widget["type"] = "text"
            widget["attrs"] = {
                **widget["attrs"],
                "inputmode": "numeric",
                "autocomplete": "off",
                "dir": "ltr",
                "placeholder": localize_text(jalali_iso(timezone.localdate())),
            }
        return context

    def format_value(self, value: Any) -> str | None:
        if uses_jalali() and isinstance(value, dt.date):
            return localize_text(jalali_iso(value))
        return super().format_value(value)


class _DateField(forms.DateField):
    """A day, typed in the reader's calendar and digits or sent by a date picker: ISO
    (2026-11-27) or Jalali (1405/09/06), in any digit set (lib.calendars.parse_date)."""

    widget = _DateInput

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value: Any) -> dt.date | None:
        if value in self.empty_values:
            return None
        if isinstance(value, dt.date):
            return value
        day = parse_date(ascii_digits(str(value)))
        if day is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return day


class HistoryFilterForm(forms.Form):
    variant = forms.ChoiceField(
        label=_("Game"), choices=[("", _("All games")), *VARIANT_CHOICES], required=False
    )
    result = forms.ChoiceField(
        label=_("Result"),
        choices=[("", _("Won or lost")), ("won", _("Won")), ("lost", _("Lost"))],
        required=False,
        help_text=_("Matches still being played or abandoned are neither."),
    )
    partner = _UsernameField(label=_("With partner"))
    opponent = _UsernameField(label=_("Against"))
    computers = forms.ChoiceField(
        label=_("Computer players"),
        choices=[
            ("", _("With or without")),
            ("with", _("With computer players")),
            ("without", _("People only")),
        ],
        required=False,
    )
    date_from = _DateField(label=_("From"))
    date_to = _DateField(label=_("To"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Errors are shown beside their field (and swapped in by htmx), so the ids are fixed.
        for name, field in self.fields.items():
            field.widget.attrs["aria-describedby"] = f"history-error-{name}"
        example = timezone.localdate()
        shown = localize_text(jalali_iso(example)) if uses_jalali() else example.isoformat()
        for name in ("date_from", "date_to"):
            self.fields[name].error_messages["invalid"] = _(
                "Enter a date as year, month and day, for example %(example)s."
            ) % {"example": shown}

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        start, end = cleaned.get("date_from"), cleaned.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", _("The last day comes before the first."))
        return cleaned

    def filters(self) -> HistoryFilters:
        """The valid form's filters; call after ``is_valid()``."""
        data = self.cleaned_data
        return HistoryFilters(
            variant=data["variant"] or None,
            result=data["result"] or None,
            partner=data["partner"] or None,
            opponent=data["opponent"] or None,
            computers=data["computers"] or None,
            date_from=data["date_from"],
            date_to=data["date_to"],
        )
