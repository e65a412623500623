"""The form that reads a ``hokm-record/1`` file (shared/RECORD.md) a person uploads or pastes.

The form only gets a JSON document out of the request, with errors a person can act on (too
large, not UTF-8, not JSON, nested too deeply); whether the document is a correct record is the
engine's question, asked by ``games.history.records.match_import_record`` in the view.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext_lazy as _

from games.history.records import json_constant_refuse

#: The largest record accepted, in bytes (1 MB): a whole 21-point match is far below 200 kB.
RECORD_MAX_BYTES = 1024 * 1024


class RecordImportForm(forms.Form):
    file = forms.FileField(
        label=_("Record file"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
    )
    text = forms.CharField(
        label=_("Or paste the record"),
        required=False,
        strip=True,
        widget=forms.Textarea(
            attrs={
                "rows": 8,
                "spellcheck": "false",
                "autocomplete": "off",
                "dir": "ltr",
                "maxlength": RECORD_MAX_BYTES,
                "placeholder": '{"format": "hokm-record/1", "variant": "hokm4", …}',
            }
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = _(
            "A .json file in the hokm-record/1 format, at most %(size)s."
        ) % {"size": _size_shown()}

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        upload = cleaned.get("file")
        text = cleaned.get("text") or ""
        if self.errors:
            return cleaned
        if upload and text:
            raise forms.ValidationError(
                _("Choose a file or paste the text, not both."), code="both"
            )
        if upload:
            # Refuse by the size the upload declares, before reading it into memory.
            if upload.size > RECORD_MAX_BYTES:
                self.add_error("file", self._too_large())
                return cleaned
            raw = upload.read(RECORD_MAX_BYTES + 1)
        elif text:
            raw = text.encode("utf-8")
            if len(raw) > RECORD_MAX_BYTES:
                raise forms.ValidationError(self._too_large(), code="too_large")
        else:
            raise forms.ValidationError(_("Choose a record file or paste its text."), code="empty")
        cleaned["document"] = record_document_parse(raw)
        return cleaned

    @staticmethod
    def _too_large() -> str:
        return _("The record is too large: at most %(size)s.") % {"size": _size_shown()}


def _size_shown() -> str:
    # Isolated (U+2066 ... U+2069), so "1.0 MB" keeps its order inside a Persian sentence.
    return f"\u2066{filesizeformat(RECORD_MAX_BYTES)}\u2069"


def record_document_parse(raw: bytes) -> Any:
    """The JSON document in ``raw``; raises a ``ValidationError`` that says what is wrong."""
    if len(raw) > RECORD_MAX_BYTES:
        raise forms.ValidationError(RecordImportForm._too_large(), code="too_large")
    try:
        # A byte-order mark, as some editors write, is not part of the text.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise forms.ValidationError(
            _("The record is not UTF-8 text (a byte at position %(position)s cannot be read).")
            % {"position": error.start + 1},
            code="not_utf8",
        ) from None
    if not text.strip():
        raise forms.ValidationError(_("The record is empty."), code="empty")
    try:
        return json.loads(text, parse_constant=json_constant_refuse)
    except json.JSONDecodeError as error:
        raise forms.ValidationError(
            _("The record is not JSON: %(problem)s at line %(line)s, column %(column)s.")
            % {"problem": error.msg, "line": error.lineno, "column": error.colno},
            code="not_json",
        ) from None
    except RecursionError:
        raise forms.ValidationError(
            _("The record is not a game record: its JSON is nested far too deeply."),
            code="too_deep",
        ) from None
    except ValueError as error:
        # Numbers too long to read, or NaN, for instance.
        raise forms.ValidationError(
            _("The record is not JSON: %(problem)s.") % {"problem": error},
            code="not_json",
        ) from None
