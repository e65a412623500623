"""Every catalogue (locale/fa, locale/ur, locale/hi, and hokm_site/vendor_locale's Urdu and Hindi
messages of allauth and Django) is complete, its formats intact, and the compiled ``.mo`` that the
site reads is the ``.po`` of the repository: a string left untranslated or fuzzy shows in English,
a placeholder lost or misspelt breaks the page (or shows "%(name)s"), and a ``.po`` edited
without ``make messages`` changes nothing the site shows. The site's own catalogues hold the same
messages, and every message the code marks (a literal ``{% translate %}`` or ``_("...")``) is in
them: a catalogue that misses one is caught here."""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
SITE = [ROOT / "locale" / code / "LC_MESSAGES" / "django.po" for code in ("fa", "ur", "hi")]
VENDOR = [
    ROOT / "hokm_site" / "vendor_locale" / code / "LC_MESSAGES" / "django.po"
    for code in ("ur", "hi")
]
CATALOGUES = SITE + VENDOR
PO = SITE[0]
_IDS = [str(path.relative_to(ROOT).parent.parent) for path in CATALOGUES]


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


def _messages(po: Path = PO) -> list[Entry]:
    return [entry for entry in _entries(po.read_text(encoding="utf-8")) if entry.msgid]


def test_every_language_but_english_has_its_catalogue() -> None:
    codes = [code for code, _name in settings.LANGUAGES if code != "en"]
    assert codes == ["fa", "ur", "hi"]
    assert [path.parent.parent.name for path in SITE] == codes


@pytest.mark.parametrize("po", CATALOGUES, ids=_IDS)
def test_the_catalogue_is_read(po: Path) -> None:
    # The parser found the catalogue's hundreds of messages (a check of the checks below).
    messages = _messages(po)
    assert len(messages) > 300
    assert any(entry.msgid_plural for entry in messages)
    assert any(entry.msgctxt for entry in messages)


@pytest.mark.parametrize("po", CATALOGUES, ids=_IDS)
def test_every_message_is_translated_and_none_is_fuzzy(po: Path) -> None:
    untranslated = [
        entry.msgid for entry in _messages(po) if not all(entry.msgstr.values()) or not entry.msgstr
    ]
    fuzzy = [entry.msgid for entry in _messages(po) if "fuzzy" in entry.flags]
    assert untranslated == []
    assert fuzzy == []


# A Python format (%(name)s, %s, %d) and a brace one ({chosen}, read by the scripts). Not "%%", a
# literal percent sign, which Persian writes as its own "٪".
_FORMAT = re.compile(r"%\([A-Za-z_0-9]+\)[sdif]|%[sdif]|\{[A-Za-z_]+\}")


@pytest.mark.parametrize("po", CATALOGUES, ids=_IDS)
def test_every_translation_keeps_the_formats_of_its_message(po: Path) -> None:
    broken = []
    for entry in _messages(po):
        wanted = sorted(_FORMAT.findall(entry.msgid))
        for index, text in entry.msgstr.items():
            found = sorted(_FORMAT.findall(text))
            if entry.msgid_plural is None:
                ok = found == wanted
            else:
                # A plural form may leave out what only one English form has (the count in
                # "one trick"), must keep what both have, and may add nothing.
                plural = set(_FORMAT.findall(entry.msgid_plural))
                ok = set(wanted) & plural <= set(found) <= set(wanted) | plural
            if not ok:
                broken.append((entry.msgid[:60], index, found, wanted))
    assert broken == []


def test_the_site_catalogues_hold_the_same_messages() -> None:
    keys = [{(e.msgctxt, e.msgid) for e in _messages(po)} for po in SITE]
    assert keys[1] == keys[0]
    assert keys[2] == keys[0]


# {% translate "..." %} / {% trans '...' %} with a literal and no context, and _("...") / gettext,
# gettext_lazy, pgettext(_lazy) with literals: what makemessages extracts, found without it.
_TEMPLATE_TRANSLATE = re.compile(
    r"""\{%\s*(?:translate|trans)\s+(["'])(.+?)\1(\s+context\s+(["'])(.+?)\4)?[^%]*%\}"""
)
_GETTEXT_NAMES = {
    "_",
    "gettext",
    "gettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "ngettext",
    "ngettext_lazy",
}


def _marked_messages() -> set[tuple[str | None, str]]:
    marked: set[tuple[str | None, str]] = set()
    for path in (ROOT / "templates").rglob("*.html"):
        for match in _TEMPLATE_TRANSLATE.finditer(path.read_text(encoding="utf-8")):
            marked.add((match.group(5), match.group(2)))
    for app in ("accounts", "games", "moderation", "hokm_site", "lib"):
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                if node.func.id not in _GETTEXT_NAMES:
                    continue
                texts = [
                    a.value
                    for a in node.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                if node.func.id.startswith("pgettext") and len(texts) >= 2:
                    marked.add((texts[0], texts[1]))
                elif node.func.id.startswith(("_", "gettext")) and texts and len(node.args) == 1:
                    marked.add((None, texts[0]))
    return marked


@pytest.mark.parametrize("po", SITE, ids=_IDS[: len(SITE)])
def test_every_marked_message_is_in_the_catalogue(po: Path) -> None:
    keys = {(e.msgctxt, e.msgid) for e in _messages(po)}
    marked = _marked_messages()
    assert len(marked) > 500  # the search found the code's messages (a check of the check)
    assert sorted(marked - keys) == [], "run make messages"


@pytest.mark.parametrize("po", CATALOGUES, ids=_IDS)
def test_the_compiled_catalogue_is_the_catalogue(po: Path) -> None:
    with po.with_suffix(".mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    stale = []
    for entry in _messages(po):
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            if catalog._catalog.get(key) != entry.msgstr[0]:
                stale.append(entry.msgid)
        elif any(catalog._catalog.get((key, n)) != text for n, text in entry.msgstr.items()):
            stale.append(entry.msgid)
    assert stale == [], f"run make messages: {po.with_suffix('.mo')} is not the .po"
