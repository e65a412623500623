"""Text people write for others to read (table names, display names, chat lines) may not hide
anything: no character that turns the text around or draws nothing.

A RIGHT-TO-LEFT OVERRIDE (U+202E) before "eman live" shows it as "evil name", and zero-width
characters make two names that look the same differ. The characters refused are
:data:`INVISIBLE_CHARACTERS`. Such text is refused, not quietly cleaned: the writer learns why,
and what is stored is exactly what was sent. Usernames need no check of their own: they are ASCII
only (``accounts.usernames``).
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

#: The bidirectional formatting characters: the marks, embeddings, overrides and isolates. Each
#: changes the direction of the text around it, so a name could show something other than what it
#: says. Text in Persian needs none of them: a page puts a name in its own ``<bdi>`` or
#: ``dir="auto"``.
BIDI_CONTROLS = frozenset(
    "\u061c"  # ARABIC LETTER MARK
    "\u200e\u200f"  # LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings, POP DIRECTIONAL FORMATTING, overrides
    "\u2066\u2067\u2068\u2069"  # isolates and POP DIRECTIONAL ISOLATE
)

#: Format characters (category Cf) that draw nothing and mean nothing in a name or a line of
#: chat. ZERO WIDTH NON-JOINER (U+200C) is not among them: Persian writes it inside words
#: ("می‌روم", the half-space) and its keyboards type it. ZERO WIDTH JOINER (U+200D) is: Persian
#: hardly uses it, and it makes look-alike names; the price is that emoji built with it (a family,
#: a rainbow flag) are refused too. The rest of category Cf stays allowed, as each draws a
#: visible sign or belongs to one script's writing: the Arabic number signs (U+0600 to U+0605),
#: the tag characters of flag emoji, the Mongolian vowel separator, Egyptian hieroglyph and
#: musical formatting.
INVISIBLE_FORMAT_CHARACTERS = frozenset(
    "\u00ad"  # SOFT HYPHEN
    "\u200b\u200d"  # ZERO WIDTH SPACE, ZERO WIDTH JOINER
    "\u2060\u2061\u2062\u2063\u2064"  # WORD JOINER and the invisible mathematical operators
    "\u206a\u206b\u206c\u206d\u206e\u206f"  # deprecated: symmetric swapping, shaping, digit shapes
    "\ufeff"  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    "\ufff9\ufffa\ufffb"  # interlinear annotation: hides the annotated text's meaning
)

#: Every character refused in text written for others.
INVISIBLE_CHARACTERS = BIDI_CONTROLS | INVISIBLE_FORMAT_CHARACTERS

INVISIBLE_CHARACTERS_MESSAGE = _(
    "This text contains invisible characters, such as text-direction marks or zero-width "
    "spaces. Please remove them."
)


def has_invisible_character(text: str) -> bool:
    r"""True when ``text`` holds one of :data:`INVISIBLE_CHARACTERS`.

    >>> has_invisible_character("\u202eeman live"), has_invisible_character("می\u200cروم")
    (True, False)
    """
    return not INVISIBLE_CHARACTERS.isdisjoint(text)


#: What a chat line may not hold: the same but for ZERO WIDTH JOINER, which joins the emoji
#: people send (a family, a rainbow flag) and in a line of chat makes no look-alike name.
CHAT_INVISIBLE_CHARACTERS = INVISIBLE_CHARACTERS - {"\u200d"}


def has_invisible_chat_character(text: str) -> bool:
    r""":func:`has_invisible_character` for a chat line, where emoji may be joined.

    >>> family, override = "\U0001f468\u200d\U0001f469", "\u202e"
    >>> has_invisible_chat_character(family), has_invisible_chat_character(override)
    (False, True)
    """
    return not CHAT_INVISIBLE_CHARACTERS.isdisjoint(text)


def has_control_character(text: str) -> bool:
    r"""True when ``text`` holds a control character (Unicode category Cc: a bell, an escape, a
    line break, NUL): a name is one line, and one made of them alone would look empty.

    >>> has_control_character("Friday\x07night"), has_control_character("شب جمعه")
    (True, False)
    """
    return any(unicodedata.category(char) == "Cc" for char in text)


def validate_no_invisible_characters(value: str) -> None:
    """Refuse text with a character that could hide what it says (a form field validator)."""
    if has_invisible_character(value):
        raise ValidationError(INVISIBLE_CHARACTERS_MESSAGE, code="invisible_characters")
