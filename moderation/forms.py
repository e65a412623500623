"""Forms of the moderation pages: a player's report and appeal, the moderators' actions."""

from __future__ import annotations

from typing import cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from moderation.models import Report
from moderation.services import SANCTION_MAX_MINUTES


class ReportForm(forms.Form):
    """A report of one player; ``players`` offers a choice when the page names nobody."""

    reported = forms.ModelChoiceField(
        label=_("Player"), queryset=User.objects.none(), required=False, to_field_name="username"
    )
    reason = forms.ChoiceField(label=_("Reason"), choices=Report.Reason.choices)
    comment = forms.CharField(
        label=_("What happened"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    match = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    hand = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    trick = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args, players=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if players is None:
            del self.fields["reported"]
        else:
            reported = cast("forms.ModelChoiceField[User]", self.fields["reported"])
            reported.queryset = players
            reported.required = True


class DecisionForm(forms.Form):
    """Closing a report, or deciding an appeal: what was decided and why."""

    decision = forms.CharField(
        label=_("Decision"), max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )


class SanctionForm(forms.Form):
    """A sanction from the report page; ``minutes`` only for a mute or a suspension."""

    reason = forms.CharField(
        label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )
    minutes = forms.IntegerField(
        label=_("Minutes"), required=False, min_value=1, max_value=SANCTION_MAX_MINUTES
    )

    def __init__(self, *args, needs_minutes: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["minutes"].required = needs_minutes


class NoteForm(forms.Form):
    text = forms.CharField(
        label=_("Private note"), max_length=4000, widget=forms.Textarea(attrs={"rows": 2})
    )


class LiftForm(forms.Form):
    reason = forms.CharField(label=_("Why lift it"), max_length=1000)


class AppealForm(forms.Form):
    text = forms.CharField(
        label=_("Your appeal"), max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )
