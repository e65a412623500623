"""Which names a player may choose: usernames at sign-up, and display names.

A username has 3 to 20 characters, ASCII letters, digits, ``_`` and ``-``. ASCII only, so that no
look-alike letter from another script (a Cyrillic "а" for a Latin "a") can carry a staff word past
the check below; the display name is where a player writes their name in Persian or any script.

No name may pass for the staff or the site itself: "admin", "moderator", "support", "hokm" and the
other reserved words are refused in any letter case, spelled with digits for letters (``adm1n``,
``m0derator``), with separators between the letters (``a-d-m-i-n``), with doubled letters
(``addmin``) or inside a longer name (``the_admin``). Three short words ("mod", "bot", "root") are
parts of too many ordinary words ("model", "bottle", "carrot") to be refused everywhere; they are
refused as a whole part of a name, between separators, capitals or digits (``the_mod``, ``TheMod``,
``r00t``, ``bot7``), and "bot" also at the end of a part (``chatbot``), since players must be able
to tell people from the computer players. Display names may use any script, so before the check
a name is folded (:func:`_folded`): compatibility forms become plain letters (fullwidth,
mathematical bold, ligatures), Cyrillic, Greek and small-capital letters that look like Latin ones
are read as those, and the Arabic yeh and kaf that Arabic keyboard layouts type are read as the
Persian letters they look like.

allauth runs :data:`USERNAME_VALIDATORS` at sign-up (``ACCOUNT_USERNAME_VALIDATORS``); the model
field keeps Django's own validator, so accounts that staff create in the admin are not held to
these rules.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MinLengthValidator, RegexValidator
from django.utils.translation import gettext_lazy as _

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 20
# Escaped "-": browsers compile an input's pattern with the "v" flag, where a bare "-" at the end of
# a class is an error that makes them ignore the whole pattern.
USERNAME_PATTERN = r"[A-Za-z0-9_\-]+"

#: Refused anywhere in a name ("administrator", "sysadmin" and "moderators" contain these).
RESERVED_WORDS = (
    "admin",
    "moderator",
    "staff",
    "support",
    "helpdesk",
    "system",
    "sysop",
    "superuser",
    "webmaster",
    "official",
    "hokm",
    "computer",
    "robot",
)
#: Refused as a whole part of a name; see the module docstring.
RESERVED_PARTS = ("mod", "bot", "root")
#: Refused also at the end of a part of a name.
RESERVED_SUFFIXES = ("bot",)
#: Display names may be in Persian: the same words in Persian script ("admin", "manager",
#: "support"), and what the Persian pages call the computer players ("computer", in two words,
#: and "robot"), as the English list has "computer" and "robot".
RESERVED_PERSIAN_WORDS = ("ادمین", "مدیر", "پشتیبان", "رایانه", "کامپیوتر", "ربات")
#: Ordinary words that contain a reserved one; they are taken out before the check.
ORDINARY_WORDS = ("badminton", "ecosystem")

# Characters people put in a name to stand for letters. "1" is read as "i" or as "l", and "l" as
# "i" too ("admln").
_LOOKALIKES = str.maketrans(
    {"0": "o", "2": "z", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b", "9": "g"}
    | {"@": "a", "$": "s", "!": "i", "|": "l", "+": "t"}
)
_L_AS_I = str.maketrans({"1": "i", "l": "i"})
# Letters that look like Latin (or Persian) ones, upper case to upper case: "Аdmin" with a Cyrillic
# "А" reads as "Admin". Compatibility forms (fullwidth, mathematical) are left to NFKC.
_CONFUSABLES = str.maketrans(
    # Cyrillic
    dict(zip("АВЕКМНОРСТУХЅІЈҺӀԚԜ", "ABEKMHOPCTYXSIJHIQW", strict=True))
    | dict(zip("авекмнорстухѕіїјԁһӏԛԝ", "abekmhopctyxsiijdhlqw", strict=True))
    # Greek
    | dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True))
    | dict(zip("αεηικνορτυχω", "aenikvoptuxw", strict=True))
    # Latin small capitals and the dotless i
    | dict(zip("ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢı", "abcdeghijklmnoprstuvwyzi", strict=True))
    # Arabic yeh, alef maksura and kaf for Persian yeh and keheh
    | {"\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9"}
)
_NOT_LETTER = re.compile(r"[^a-z]+")
# Persian text: drop the zero-width non-joiner, tatweel and spaces people slip between letters.
_PERSIAN_FILLER = re.compile(r"[\s\u200c\u200d\u0640]+")
_PART_SEPARATOR = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")
_EDGE_DIGITS = re.compile(r"\A\d+|\d+\Z")


def _letters_pattern(word: str) -> str:
    """A regex for ``word`` with each letter repeatable: "staff" gives ``s+t+a+f{2,}``.

    A run of n equal letters needs at least n, so "staff" is not found in "mustafa".
    """
    return "".join(
        re.escape(run[0]) + ("+" if len(run) == 1 else f"{{{len(run)},}}")
        for run in (match.group() for match in re.finditer(r"(.)\1*", word))
    )


_RESERVED_ANYWHERE = re.compile("|".join(_letters_pattern(w) for w in RESERVED_WORDS))
_RESERVED_WHOLE_PART = re.compile(
    "|".join(
        # A plural is the same word: "mods", "bots".
        [f"(?:{_letters_pattern(w)}s*)" for w in RESERVED_PARTS]
        # Exact letters at the end: "chatbot" but not "abbott".
        + [f"(?:.*{re.escape(w)}s?)" for w in RESERVED_SUFFIXES]
    )
)
_ORDINARY = re.compile("|".join(ORDINARY_WORDS))


def _folded(text: str) -> str:
    """``text`` with look-alike letters of other scripts and styles read as the letters they look
    like (see the module docstring); ASCII text is unchanged."""
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


#: Where the compatibility forms of letters are: fullwidth forms, circled letters, mathematical
#: letters and digits, Arabic presentation forms. NFKC reads each as a plain letter.
_COMPATIBILITY_RANGES = ((0xFF01, 0xFF5F), (0x24B6, 0x24EA), (0x1D400, 0x1D800), (0xFB50, 0xFF00))


@functools.cache
def _lookalikes() -> dict[str, frozenset[str]]:
    """Each letter as :func:`_folded` and ``casefold`` leave it, with every character read as it."""
    sources = {chr(code) for code in _CONFUSABLES}
    sources |= {chr(code) for start, end in _COMPATIBILITY_RANGES for code in range(start, end)}
    table: dict[str, set[str]] = defaultdict(set)
    for char in sources:
        key = _folded(char).casefold()
        if len(key) == 1:
            table[key].add(char)
    return {key: frozenset(chars) for key, chars in table.items()}


def lookalike_regex(name: str) -> str:
    """A regular expression (for a ``__regex`` lookup) that matches every name reading as ``name``:
    the same letters in any letter case, or letters that look like them (:func:`_folded`).

    >>> import re; bool(re.fullmatch(lookalike_regex("Alice"), "\u0430LICE"))
    True
    """
    table = _lookalikes()
    pattern = []
    for char in _folded(name):
        key = char.casefold()
        chars = {char, char.lower(), char.upper(), key, key.upper()} | table.get(key, set())
        chars = {c for c in chars if len(c) == 1}
        if len(chars) == 1:
            pattern.append(re.escape(char))
        else:
            # Letters only: nothing in the class needs escaping but these.
            members = "".join(sorted(chars))
            pattern.append("[" + re.sub(r"([\\\]\[^-])", r"\\\1", members) + "]")
    return "^" + "".join(pattern) + "$"


def _readings(text: str) -> list[str]:
    """``text`` in lower case with look-alike characters read as letters, each way "1" reads."""
    lowered = text.casefold().translate(_LOOKALIKES)
    return [lowered.replace("1", "i"), lowered.replace("1", "l"), lowered.translate(_L_AS_I)]


def _squeezed(text: str) -> Iterable[str]:
    """Each reading of ``text`` with ordinary words taken out and everything but letters removed."""
    for reading in _readings(text):
        yield "".join(_NOT_LETTER.sub("", piece) for piece in _ORDINARY.split(reading))


def _parts(text: str) -> list[str]:
    """The parts of a name: split at separators and at lower-to-upper case changes.

    Runs of one-character parts are joined again, so "m-o-d" is the part "mod".
    """
    parts: list[str] = []
    single = ""
    for part in filter(None, _PART_SEPARATOR.split(text)):
        if len(part) == 1:
            single += part
            continue
        if single:
            parts.append(single)
            single = ""
        parts.append(part)
    if single:
        parts.append(single)
    return parts


def reserved_word_in(name: str) -> bool:
    """True when ``name`` contains a reserved word in any of the disguises the module describes.

    >>> reserved_word_in("the_adm1n"), reserved_word_in("TheMod"), reserved_word_in("modest")
    (True, True, False)
    """
    name = _folded(name)
    if any(_RESERVED_ANYWHERE.search(squeezed) for squeezed in _squeezed(name)):
        return True
    for part in _parts(name):
        for candidate in {part, _EDGE_DIGITS.sub("", part)} - {""}:
            if any(_RESERVED_WHOLE_PART.fullmatch(r) for r in _readings(candidate)):
                return True
    persian = _PERSIAN_FILLER.sub("", name)
    return any(word in persian for word in RESERVED_PERSIAN_WORDS)


def validate_no_reserved_word(value: str) -> None:
    """Refuse a name that passes for staff or for the site (see :func:`reserved_word_in`)."""
    if reserved_word_in(value):
        raise ValidationError(
            _("This name is kept for staff and the site. Please choose another."),
            code="reserved",
        )


#: ``ACCOUNT_USERNAME_VALIDATORS``: every rule a new username must meet.
USERNAME_VALIDATORS: list[Callable[[str], None]] = [
    RegexValidator(
        rf"\A{USERNAME_PATTERN}\Z",
        _("Use only English letters, digits, underscores (_) and hyphens (-)."),
        code="invalid",
    ),
    MinLengthValidator(USERNAME_MIN_LENGTH),
    MaxLengthValidator(USERNAME_MAX_LENGTH),
    validate_no_reserved_word,
]
