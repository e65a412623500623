"""Site pages that belong to no single app."""

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

HOKM = "hokm"
COURT_PIECE = "court-piece"


@dataclass(frozen=True)
class GlossaryTerm:
    """A word players use at the table: its transliteration, its spelling in the script of the
    game's home (Persian for Hokm; Urdu and Hindi for Court Piece, empty where RULES.md gives
    none) and its meaning."""

    term: str
    persian: str
    meaning: Promise
    urdu: str = ""
    hindi: str = ""
    game: str = HOKM


@dataclass(frozen=True)
class Variant:
    """One of the ways to play, named by the code tables and game records use (RULES.md)."""

    code: str
    title: Promise
    summary: Promise


# The glossaries of RULES.md (Hokm's, then R9's). Transliterations and spellings are names, not
# translated.
GLOSSARY = (
    GlossaryTerm("Hokm", "حکم", _("the trump suit, called by the Hakem")),
    GlossaryTerm("Hakem", "حاکم", _("the player who calls trump and leads the first trick")),
    GlossaryTerm("Kot", "کت", _("taking the first seven tricks, leaving the other side none")),
    GlossaryTerm("Hakem Kot", "حاکم کت", _("a Kot against the Hakem's side, worth three points")),
    GlossaryTerm("Hokm lazem", "حکم لازم", _("leading trump")),
    GlossaryTerm("Boridan", "بریدن", _("trumping in when you have no card of the suit led")),
    GlossaryTerm(
        "Rad kardan", "رد کردن", _("not trumping in because your partner is already winning")
    ),
    GlossaryTerm("Payin amadan", "پایین آمدن", _("playing a low card")),
    GlossaryTerm("Bala amadan", "بالا آمدن", _("playing a high card")),
    # Court Piece (R9, "Glossary"): words of Urdu and Hindi, names like the ones above.
    GlossaryTerm(
        "Rang / rung",
        "",
        _("the trump suit (the word means “colour”)"),
        urdu="رنگ",
        hindi="रंग",
        game=COURT_PIECE,
    ),
    GlossaryTerm("Sar / sir", "", _("a trick"), urdu="سر", hindi="सर", game=COURT_PIECE),
    GlossaryTerm(
        "Do sar",
        "",
        _("Double Sir: tricks pile up in the middle until a player wins two in a row"),
        urdu="دو سر",
        hindi="दो सर",
        game=COURT_PIECE,
    ),
    GlossaryTerm(
        "Court / coat / kot",
        "",
        _("a court: taking the first seven tricks, leaving the other side none"),
        urdu="کوٹ",
        hindi="कोट",
        game=COURT_PIECE,
    ),
    GlossaryTerm(
        "Baavan / bavney",
        "",
        _("“fifty-two”: the 52-court, all thirteen tricks, worth 52 courts"),
        urdu="باون",
        hindi="बावन",
        game=COURT_PIECE,
    ),
    GlossaryTerm(
        "Goon court",
        "",
        _("a court made by the dealing side, worth three courts"),
        game=COURT_PIECE,
    ),
    GlossaryTerm(
        "Ekka / ikka",
        "",
        _("an ace; the ace caller setting finds the first caller by one"),
        urdu="اِکّا",
        hindi="इक्का",
        game=COURT_PIECE,
    ),
    GlossaryTerm("Hukum", "", _("the trump call"), urdu="حکم", hindi="हुकुम", game=COURT_PIECE),
    GlossaryTerm("Pees", "", _("the deal"), game=COURT_PIECE),
)

HOKM_GLOSSARY = tuple(entry for entry in GLOSSARY if entry.game == HOKM)
COURT_PIECE_GLOSSARY = tuple(entry for entry in GLOSSARY if entry.game == COURT_PIECE)

VARIANTS = (
    Variant(
        "hokm4",
        _("Four players"),
        _(
            "Two teams of two, partners sitting opposite. The whole deck is dealt: "
            "13 cards each. The first team to take 7 tricks wins the hand."
        ),
    ),
    Variant(
        "hokm3",
        _("Three players"),
        _(
            "Everyone for themselves. The two of clubs is removed and each player gets 17 cards. "
            "You win the hand by taking the first 7 tricks, or with a lead no one can catch in "
            "the tricks left; if the two leaders tie after all 17, the third player wins."
        ),
    ),
    Variant(
        "hokm2",
        _("Two players"),
        _(
            "Each player gets 13 cards; the other 26 stay face down, unseen, for the whole hand. "
            "The first to take 7 tricks wins it."
        ),
    ),
    Variant(
        "hokm2-draw",
        _("Two players with the draw"),
        _(
            "Both players get 5 cards; after the call the Hakem discards 3 and the dealer 2. "
            "Then they take turns at the stock: look at the top card, keep it and throw away "
            "the next, or throw it away and keep the next, until each holds 13 cards."
        ),
    ),
)


def home(request: HttpRequest) -> HttpResponse:
    """The front page: what Hokm is and how a hand is played."""
    return render(
        request,
        "home.html",
        {
            "glossary": HOKM_GLOSSARY,
            "court_piece_glossary": COURT_PIECE_GLOSSARY,
            "variants": VARIANTS,
        },
    )
