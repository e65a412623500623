"""Forms of the account pages: sign-up (allauth's, with the username rules shown), settings."""

from __future__ import annotations

from typing import Any

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.invisible_characters import (
    INVISIBLE_CHARACTERS_MESSAGE,
    has_control_character,
    validate_no_invisible_characters,
)
from accounts.models import ApiToken, Back, Face, Theme, User
from accounts.usernames import (
    USERNAME_MAX_LENGTH,
    USERNAME_MIN_LENGTH,
    USERNAME_PATTERN,
    lookalike_regex,
    validate_no_reserved_word,
)

#: Django 5.2's ``MinimumLengthValidator`` says "at least %d characters", but Django's own Persian
#: catalogue has only its older "%(min_length)d" message, so a short password is refused in English
#: on the Persian pages. Named here, it stays in locale/fa through ``make messages`` (which keeps
#: an earlier translation of it), and Django reads the project's catalogue first.
PASSWORD_TOO_SHORT = ngettext_lazy(
    "This password is too short. It must contain at least %d character.",
    "This password is too short. It must contain at least %d characters.",
)


#: At a table only display names show (a username where there is none), so no two players may
#: go by the same name in any letter case.
NAME_TAKEN_MESSAGE = _("Another player goes by that name. Choose another one.")


#: The sign-up form's password fields (allauth's names).
SIGNUP_PASSWORD_FIELDS = ("password1", "password2")


class SignupForm(AllauthSignupForm):
    """allauth's sign-up form (``ACCOUNT_FORMS``) telling the browser the username rules too, and
    giving back the passwords typed when it refuses something else (issue 22)."""

    def full_clean(self) -> None:
        super().full_clean()
        # allauth's password inputs come back empty after any refusal: a newcomer refused for a
        # username taken had to type both passwords again. They come back filled unless the
        # refusal is about them (too short, too common, not the same twice).
        keep = not any(name in self.errors for name in SIGNUP_PASSWORD_FIELDS)
        for name in SIGNUP_PASSWORD_FIELDS:
            if name in self.fields:
                widget = self.fields[name].widget
                if isinstance(widget, forms.PasswordInput):
                    widget.render_value = keep

    def clean_username(self) -> str:
        value = super().clean_username()
        # allauth refuses a username taken; a newcomer "mina" would pass for the player who chose
        # the display name "Mina" just as well.
        if value and User.objects.filter(display_name__regex=lookalike_regex(value)).exists():
            raise forms.ValidationError(NAME_TAKEN_MESSAGE, code="taken")
        return value

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.help_text = _(
            "%(min)s to %(max)s characters: English letters, digits, _ and -."
        ) % {"min": USERNAME_MIN_LENGTH, "max": USERNAME_MAX_LENGTH}
        # The server checks everything again (accounts.usernames); these only spare a round trip.
        username.widget.attrs.update(
            maxlength=str(USERNAME_MAX_LENGTH),
            pattern=USERNAME_PATTERN,
            autocapitalize="none",
            spellcheck="false",
        )


class DisplayNameForm(forms.ModelForm):
    """The name shown at the table. Staff may use staff words; players may not."""

    class Meta:
        model = User
        fields = ["display_name"]
        # The settings page explains the field in its own words, with the username.
        help_texts = {"display_name": ""}
        # A name in Persian lines up to the right, one in English to the left.
        widgets = {"display_name": forms.TextInput(attrs={"dir": "auto"})}

    def clean_display_name(self) -> str:
        value = " ".join(self.cleaned_data["display_name"].split())
        validate_no_invisible_characters(value)
        if has_control_character(value):
            # A bell or an escape left once the spaces are squeezed: it draws nothing (a name of
            # them alone would look empty), as table names refuse (games.lobby.services).
            raise forms.ValidationError(INVISIBLE_CHARACTERS_MESSAGE, code="control_characters")
        if value and not self.instance.is_staff:
            validate_no_reserved_word(value)
        if value and self._taken_by_another(value):
            # At a table only display names show: zed named "alice" would pass for alice.
            raise forms.ValidationError(NAME_TAKEN_MESSAGE, code="taken")
        return value

    def _taken_by_another(self, value: str) -> bool:
        # In any letter case, and with look-alike letters of other scripts ("Аlice" with a
        # Cyrillic "А" passes for "Alice").
        pattern = lookalike_regex(value)
        others = User.objects.exclude(pk=self.instance.pk)
        return (
            others.filter(username__regex=pattern).exists()
            or others.filter(display_name__regex=pattern).exists()
        )


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=ApiToken._meta.get_field("name").max_length,
        widget=forms.TextInput(attrs={"dir": "auto"}),
        help_text=_("What it is for, e.g. “my bot on the laptop”."),
    )

    def clean_name(self) -> str:
        value = " ".join(self.cleaned_data["name"].split())
        if not value:
            raise forms.ValidationError(_("Give the token a name."), code="required")
        return value


_ON_OFF = [("on", _("On")), ("off", _("Off"))]


class PreferencesForm(forms.Form):
    """Any of the player's looks and sounds (``accounts.preferences``); a name left out of the
    data keeps its value. A switch is "on" or "off": a checkbox sends nothing when cleared, so
    the settings page puts a hidden "off" before each one (the last value wins)."""

    theme = forms.ChoiceField(
        label=_("Table"),
        choices=Theme.choices,
        required=False,
        error_messages={"invalid_choice": _("“%(value)s” is not a table theme.")},
    )
    face = forms.ChoiceField(
        label=_("Card fronts"),
        choices=Face.choices,
        required=False,
        error_messages={"invalid_choice": _("“%(value)s” is not a set of card fronts.")},
    )
    back = forms.ChoiceField(
        label=_("Card backs"),
        choices=Back.choices,
        required=False,
        error_messages={"invalid_choice": _("“%(value)s” is not a card back.")},
    )
    sound = forms.ChoiceField(
        label=_("Sound"),
        choices=_ON_OFF,
        required=False,
        error_messages={"invalid_choice": _("Sound is “on” or “off”, not “%(value)s”.")},
    )
    volume = forms.IntegerField(
        label=_("Volume"),
        min_value=0,
        max_value=100,
        required=False,
        error_messages={"invalid": _("The volume is a whole number from 0 to 100.")},
    )
    motion = forms.ChoiceField(
        label=_("Motion"),
        choices=_ON_OFF,
        required=False,
        error_messages={"invalid_choice": _("Motion is “on” or “off”, not “%(value)s”.")},
    )
    notify = forms.ChoiceField(
        label=_("Notifications"),
        choices=_ON_OFF,
        required=False,
        error_messages={"invalid_choice": _("Notifications are “on” or “off”, not “%(value)s”.")},
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        sent = [name for name in self.fields if name in self.data]
        if not sent:
            raise forms.ValidationError(_("Nothing to change."), code="empty")
        for name in sent:
            if name not in self.errors and cleaned.get(name) in ("", None):
                message = _("%(field)s needs a value.") % {"field": self.fields[name].label}
                self.add_error(name, forms.ValidationError(message, code="required"))
        return cleaned

    def changes(self) -> dict[str, Any]:
        """The values sent, typed as ``accounts.preferences.UiPrefs`` holds them."""
        return {
            name: value == "on" if name in ("sound", "motion", "notify") else value
            for name, value in self.cleaned_data.items()
            if name in self.data
        }
