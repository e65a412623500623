"""Each language's digits: Persian and Urdu readers read ۰–۹, not 0–9.

Numbers reach a page from everywhere: template variables, translated sentences ("7 tricks"),
strings built in Python ("0/7"), page numbers. Rather than format each one, the site renders its
HTML as always and :func:`localize_html` swaps the digits of the text a reader sees, in the
languages that have digits of their own. It leaves alone what is not prose:

* tags and their attributes (ids, URLs, ``data-`` values, form values are read by machines);
* character references (``&#39;``);
* ``<script>``, ``<style>``, ``<textarea>``, ``<code>``, ``<pre>``, ``<kbd>`` and ``<samp>``
  (the ``<title>`` is prose: the tab shows it);
* a ``<bdi>`` whose direction is not fixed (no ``dir="ltr"`` or ``dir="rtl"``): HTML's element for
  text of unknown direction written by someone else, which is how the site marks every name and
  chat line (a username with digits is still that username); a ``<bdi dir="ltr">`` holds numbers
  the site wrote (a rating change, a clock), which do change;
* any element marked ``translate="no"``, the HTML attribute for text that must stay as written:
  a name outside a ``<bdi>``, a card face (a printed card says "10", in Tehran as in London).

Forms take what a reader types in either digit set: :func:`ascii_digits` turns every decimal
digit Unicode knows (Persian, Arabic-Indic, Devanagari, ...) into 0–9 before a date is read
(Django's number fields read them already: Python's ``int("۱۲")`` is 12).

Hindi keeps 0–9, the digits Indian readers see in print and on screens today (Devanagari digits are
for formal and traditional texts); its grouping of thousands (1,00,000) is Django's ``hi`` format.
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

# Urdu writes the extended Arabic-Indic digits, the same code points as Persian: an Urdu font
# draws ۴ ۶ ۷ its own way for text marked lang="ur" (the font's "locl" feature), as readers expect.
_EXTENDED_ARABIC_INDIC = "۰۱۲۳۴۵۶۷۸۹"

#: The languages whose readers expect digits other than 0–9, and those digits.
DIGITS: dict[str, str] = {"fa": _EXTENDED_ARABIC_INDIC, "ur": _EXTENDED_ARABIC_INDIC}

_TABLES: dict[str, dict[int, int]] = {
    code: str.maketrans("0123456789", digits) for code, digits in DIGITS.items()
}

#: Elements whose content is raw text, not markup (all but the title are code or typed text).
_RAW_TEXT_ELEMENTS = frozenset({"script", "style", "textarea", "title"})
#: Elements whose content is code, not prose.
_RAW_ELEMENTS = frozenset({"code", "pre", "kbd", "samp"})

# A comment, a tag (start or end) or a character reference: what is not prose inside the text.
_MARKUP = re.compile(r"<!--.*?-->|<[^>]*>|&#?[A-Za-z0-9]+;", re.DOTALL)
_TAG_NAME = re.compile(r"</?\s*([A-Za-z][A-Za-z0-9-]*)")
_NO_TRANSLATE = re.compile(r"""\stranslate\s*=\s*["']?no\b""", re.IGNORECASE)
_FIXED_DIRECTION = re.compile(r"""\sdir\s*=\s*["']?(ltr|rtl)\b""", re.IGNORECASE)
_VOID_ELEMENTS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
_ANY_ASCII_DIGIT = re.compile(r"[0-9]")


def digits_for(language: str | None = None) -> str | None:
    """The ten digits the language's readers expect, or ``None`` for 0–9."""
    code = (language or get_language() or "").split("-")[0].lower()
    return DIGITS.get(code)


def localize_text(text: str, language: str | None = None) -> str:
    """Plain text (no markup) with the language's digits: a title, a message, a notification."""
    table = _table(language)
    return text.translate(table) if table else text


def localize_html(html: str, language: str | None = None) -> str:
    """HTML with the language's digits in the prose a reader sees; what the module docstring
    lists stays as it is. Safe HTML stays safe: only digits change."""
    table = _table(language)
    if table is None or not _ANY_ASCII_DIGIT.search(html):
        return html
    out: list[str] = []
    position = 0
    skipping: str | None = None  # the element whose content is left as written
    depth = 0  # how many of that element are open (they may nest)
    while True:
        match = _MARKUP.search(html, position)
        if match is None:
            break
        text = html[position : match.start()]
        out.append(text if skipping else text.translate(table))
        markup = match.group()
        out.append(markup)
        position = match.end()
        if markup[0] != "<" or markup.startswith("<!"):
            continue
        name_match = _TAG_NAME.match(markup)
        if name_match is None:
            continue
        name = name_match.group(1).lower()
        closing = markup.startswith("</")
        if skipping is None:
            if closing or name in _VOID_ELEMENTS or markup.endswith("/>"):
                continue
            if name in _RAW_TEXT_ELEMENTS:
                # Raw text ("a < b" in a script is no tag): straight to its end tag.
                end = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(html, position)
                stop = end.start() if end else len(html)
                raw = html[position:stop]
                # A page's title is prose (what the tab shows); the others are code or typing.
                out.append(raw.translate(table) if name == "title" else raw)
                position = stop
            elif (
                name in _RAW_ELEMENTS
                or _NO_TRANSLATE.search(markup)
                or (name == "bdi" and not _FIXED_DIRECTION.search(markup))
            ):
                skipping, depth = name, 1
        elif name == skipping and not markup.endswith("/>"):
            depth += -1 if closing else 1
            if depth == 0:
                skipping = None
    tail = html[position:]
    out.append(tail if skipping else tail.translate(table))
    result = "".join(out)
    return mark_safe(result) if isinstance(html, SafeString) else result


def localize_format(template: str, values: dict[str, object], *, names: tuple[str, ...]) -> str:
    """``template % values`` in the reader's digits, except the values named in ``names``, which
    are written by people and stay as written: for sentences built in Python that no template
    renders (a replay's texts, read by its script)."""
    table = _table(None)
    if table is None:
        return template % values
    # Each name stands as a private-use mark while the digits change, then comes back.
    marks = {key: f"\ue000{chr(0xE100 + index)}" for index, key in enumerate(names)}
    text = (template % {**values, **marks}).translate(table)
    for key, mark in marks.items():
        text = text.replace(mark, str(values[key]))
    return text


def ascii_digits(value: str) -> str:
    """``value`` with every decimal digit of any script as 0–9: "۱۴۰۵/۰۹/۰۶" -> "1405/09/06"."""
    if value.isascii():
        return value
    return "".join(
        str(unicodedata.decimal(char)) if not char.isascii() and char.isdecimal() else char
        for char in value
    )


def _table(language: str | None) -> dict[int, int] | None:
    code = (language or get_language() or "").split("-")[0].lower()
    return _TABLES.get(code)
