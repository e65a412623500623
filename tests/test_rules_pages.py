"""The rules pages (hokm_site/rules.py): Hokm (R1 to R8) and Court Piece (R9), in English and
Persian, with example cards drawn by the table's card template, linked from the home page and from
each other; and the glossary with R9's words."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from hokm_site.views import COURT_PIECE_GLOSSARY, GLOSSARY, HOKM_GLOSSARY

HOKM = reverse("rules_hokm")
COURT_PIECE = reverse("rules_court_piece")


def _page(client: Client, path: str, language: str) -> str:
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _cards(html: str) -> list[str]:
    """The cards drawn by templates/games/_card.html, in R1.2 notation."""
    return re.findall(r'class="card card--[a-z][^"]*" data-card="([2-9TJQKA][SHDC])"', html)


def test_the_rules_pages_have_their_addresses() -> None:
    assert HOKM == "/rules/hokm/"
    assert COURT_PIECE == "/rules/court-piece/"


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_hokm_page_covers_the_game_R1_to_R8(client: Client, language: str) -> None:
    html = _page(client, HOKM, language)

    for anchor in ("players", "hakem", "deal", "tricks", "hand", "next-hand", "match", "variants"):
        assert f'id="{anchor}"' in html, anchor
    for code in ("hokm4", "hokm3", "hokm2", "hokm2-draw"):
        assert f"<code>{code}</code>" in html, code
    for rule in ("R2.2", "R3.1", "R4.2", "R5.2", "R6.2", "R7.1"):
        assert rule in html, rule
    # The Hakem's five cards and a trick, on the table's own card faces, the winner marked.
    assert _cards(html) == ["AH", "KH", "9H", "4C", "JD", "KS", "AS", "2H", "7S"]
    assert "/static/css/cards.css" in html and "/static/css/rules.css" in html
    winner = html.index("is-winner")
    assert html.index('data-card="2H"') > winner > html.index('data-card="AS"')
    assert f'href="{COURT_PIECE}"' in html


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_court_piece_page_covers_R9_and_every_table_setting(
    client: Client, language: str
) -> None:
    html = _page(client, COURT_PIECE, language)

    for anchor in (
        "players",
        "dealer",
        "deal",
        "tricks",
        "court",
        "seven",
        "next-deal",
        "match",
        "settings",
        "double-sir",
        "ace-rule",
        "hidden-trump",
        "goon-court",
        "ace-caller",
        "words",
    ):
        assert f'id="{anchor}"' in html, anchor
    for rule in ("R9.3", "R9.4.2", "R9.6.1", "R9.7.4", "R9.8", "R9.9", "R9.10.1", "R9.11"):
        assert rule in html, rule
    for rule in ("R9.12", "R9.13", "R9.14.1", "R9.14.4", "R9.16"):
        assert rule in html, rule
    cards = _cards(html)
    assert cards[:9] == ["AS", "QS", "8S", "KD", "3C", "QC", "KC", "5C", "AH"]
    # The court chase: the winning cards of tricks 1 to 10, and three tricks never played.
    chase = html[html.index('class="chase"') : html.index('class="chase-legend"')]
    assert len(_cards(chase)) == 10
    assert chase.count("chase__trick--calling") == 9
    assert chase.count("chase__trick--dealing") == 1
    assert chase.count("chase__trick--unplayed") == 3
    # Hidden trump: the caller's four cards and the indicator face down beside them.
    indicator = html[html.index("example-cards indicator") :]
    assert _cards(indicator)[:4] == ["KH", "9H", "6C", "2D"]
    assert 'class="back"' in indicator
    assert f'href="{HOKM}"' in html


def test_the_pages_are_in_english_by_default(client: Client) -> None:
    hokm = _page(client, HOKM, "en")
    court_piece = _page(client, COURT_PIECE, "en")

    assert 'lang="en"' in hokm and 'dir="ltr"' in hokm
    for text in ("How to play Hokm", "Hakem Kot", "Kot:", "the first team to reach 7 points"):
        assert text.lower() in hokm.lower(), text
    for text in (
        "How to play Court Piece",
        "trump-caller",
        "52-court",
        "goon court",
        "Seven deals in a row",
        "Double Sir",
        "Ace rule",
        "Hidden trump",
        "Asking for trump",
        "Ace caller",
        "ace of spades",  # a card's spoken name, from card_face
    ):
        assert text.lower() in court_piece.lower(), text


def test_the_pages_are_translated_into_persian_right_to_left(client: Client) -> None:
    hokm = _page(client, HOKM, "fa")
    court_piece = _page(client, COURT_PIECE, "fa")

    for html in (hokm, court_piece):
        assert 'lang="fa"' in html and 'dir="rtl"' in html
        assert "Following suit and winning tricks" not in html
    assert "حاکم کت" in hokm
    assert "How to play Hokm" not in hokm
    assert "How to play Court Piece" not in court_piece
    assert "Asking for trump" not in court_piece
    assert "آس پیک" in court_piece  # the ace of spades' spoken name, in Persian


def test_home_links_both_rules_pages(client: Client) -> None:
    for language in ("en", "fa"):
        html = _page(client, "/", language)

        assert f'href="{HOKM}"' in html
        assert f'href="{COURT_PIECE}"' in html


def test_the_glossary_holds_R9_words_with_their_spellings() -> None:
    terms = {entry.term: entry for entry in COURT_PIECE_GLOSSARY}

    assert set(terms) == {
        "Rang / rung",
        "Sar / sir",
        "Do sar",
        "Court / coat / kot",
        "Baavan / bavney",
        "Goon court",
        "Ekka / ikka",
        "Hukum",
        "Pees",
    }
    assert (terms["Rang / rung"].urdu, terms["Rang / rung"].hindi) == ("رنگ", "रंग")
    assert (terms["Baavan / bavney"].urdu, terms["Baavan / bavney"].hindi) == ("باون", "बावन")
    assert terms["Goon court"].urdu == terms["Goon court"].hindi == ""
    assert set(GLOSSARY) == set(HOKM_GLOSSARY) | set(COURT_PIECE_GLOSSARY)
    assert all(entry.persian for entry in HOKM_GLOSSARY)


@pytest.mark.parametrize("path", ["/", COURT_PIECE])
def test_the_court_piece_glossary_is_shown_in_both_languages(client: Client, path: str) -> None:
    english = _page(client, path, "en")
    persian = _page(client, path, "fa")

    for html in (english, persian):
        for spelling in ("Baavan / bavney", "باون", "बावन", "Goon court", "کوٹ", "कोट"):
            assert spelling in html, spelling
    with translation.override("en"):
        meanings = [str(entry.meaning) for entry in COURT_PIECE_GLOSSARY]
    with translation.override("fa"):
        persian_meanings = [str(entry.meaning) for entry in COURT_PIECE_GLOSSARY]
    for meaning, persian_meaning in zip(meanings, persian_meanings, strict=True):
        assert persian_meaning != meaning
        assert escape(meaning) in english
        assert escape(persian_meaning) in persian
