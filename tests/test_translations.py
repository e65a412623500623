"""The Persian catalogue (locale/fa) is complete, and the compiled ``.mo`` that the site reads is
the ``.po`` of the repository: a string left untranslated or fuzzy shows in English on the
Persian pages, and a ``.po`` edited without ``make messages`` changes nothing the site shows."""

from __future__ import annotations

import ast
import gettext
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "fa" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


@dataclass
class Entry:
    flags: set[str] = field(default_factory=set)
    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)


def _entries(text: str) -> list[Entry]:
    """The live entries of a ``.po`` file (obsolete ``#~`` ones left out), header included."""
    entries: list[Entry] = []
    entry = Entry()
    target: tuple[str, int] | None = None
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if target is not None:
                entries.append(entry)
            entry, target = Entry(), None
        elif line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            assert target is not None, line
            _append(entry, target, ast.literal_eval(line))
        else:
            keyword, _, rest = line.partition(" ")
            if keyword.startswith("msgstr["):
                target = ("msgstr", int(keyword[len("msgstr[") : -1]))
            else:
                target = (keyword, 0)
            _set(entry, target, ast.literal_eval(rest))
    return entries


def _set(entry: Entry, target: tuple[str, int], value: str) -> None:
    name, index = target
    if name == "msgstr":
        entry.msgstr[index] = value
    else:
        setattr(entry, name, value)


def _append(entry: Entry, target: tuple[str, int], value: str) -> None:
    name, index = target
    if name == "msgstr":
        entry.msgstr[index] += value
    else:
        setattr(entry, name, getattr(entry, name) + value)


def _messages() -> list[Entry]:
    return [entry for entry in _entries(PO.read_text(encoding="utf-8")) if entry.msgid]


def test_the_catalogue_is_read() -> None:
    # The parser found the catalogue's hundreds of messages (a check of the checks below).
    messages = _messages()
    assert len(messages) > 500
    assert any(entry.msgid_plural for entry in messages)
    assert any(entry.msgctxt for entry in messages)


def test_every_persian_message_is_translated_and_none_is_fuzzy() -> None:
    untranslated = [
        entry.msgid for entry in _messages() if not all(entry.msgstr.values()) or not entry.msgstr
    ]
    fuzzy = [entry.msgid for entry in _messages() if "fuzzy" in entry.flags]
    assert untranslated == []
    assert fuzzy == []


def test_the_compiled_catalogue_is_the_catalogue() -> None:
    with MO.open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    stale = []
    for entry in _messages():
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            if catalog._catalog.get(key) != entry.msgstr[0]:
                stale.append(entry.msgid)
        elif any(catalog._catalog.get((key, n)) != text for n, text in entry.msgstr.items()):
            stale.append(entry.msgid)
    assert stale == [], "run make messages: locale/fa/LC_MESSAGES/django.mo is not the .po"
