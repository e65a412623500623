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
from accounts.models import ApiToken, User
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


class SignupForm(AllauthSignupForm):
    """allauth's sign-up form (``ACCOUNT_FORMS``) telling the browser the username rules too."""

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
