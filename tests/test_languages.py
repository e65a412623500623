"""Every player's own language (issue 23): Persian with Persian digits and Solar Hijri dates, Urdu
and Hindi throughout, the language switch in each language's own name, the browser's language the
first time and the player's choice after that, on every device; times in the reader's zone."""

from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import User
from games.history.forms import HistoryFilterForm
from games.lobby.forms import TableForm
from hokm_site.timezones import LANGUAGE_ZONES
from lib.calendars import format_date, jalali_iso, parse_date
from lib.numerals import ascii_digits, localize_format, localize_html, localize_text
from tests.accounts.players import client_for, make_player

PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹"
ARABIC_SCRIPT = re.compile(r"[\u0600-\u06FF]")
DEVANAGARI = re.compile(r"[\u0900-\u097F]")
# 27 November 2026 is 6 Azar 1405 in the Solar Hijri calendar.
NOVEMBER_27 = dt.datetime(2026, 11, 27, 10, 30, tzinfo=dt.UTC)


def _text(html: str) -> str:
    """The prose of a page: its body without tags, scripts and styles."""
    body = html[html.index("<body") :]
    body = re.sub(r"<(script|style|textarea)\b.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"<[^>]+>", " ", body)


# -- Digits ----------------------------------------------------------------------------------------


def test_persian_and_urdu_text_gets_persian_digits_and_markup_stays_as_written() -> None:
    html = (
        '<p data-n="12" title="3">Hand 3 of 7 &#39;x&#39; <bdi>sara92</bdi> '
        '<bdi dir="ltr">+15</bdi> <span translate="no">10<b>5</b></span> '
        "<script>if (a<2) { b = 4; }</script> 8<textarea>12</textarea><code>hokm4</code> 9</p>"
    )
    for language in ("fa", "ur"):
        out = localize_html(html, language)
        assert out == (
            '<p data-n="12" title="3">Hand ۳ of ۷ &#39;x&#39; <bdi>sara92</bdi> '
            '<bdi dir="ltr">+۱۵</bdi> <span translate="no">10<b>5</b></span> '
            "<script>if (a<2) { b = 4; }</script> ۸<textarea>12</textarea><code>hokm4</code> ۹</p>"
        )
    # English and Hindi readers read 0-9: the page is returned as it is.
    assert localize_html(html, "en") is html
    assert localize_html(html, "hi") is html


def test_nested_elements_left_as_written_end_where_they_end() -> None:
    html = '<div translate="no">1<div>2</div>3</div>4<bdi>5<bdi dir="ltr">6</bdi>7</bdi>8'
    assert (
        localize_html(html, "fa")
        == '<div translate="no">1<div>2</div>3</div>۴<bdi>5<bdi dir="ltr">6</bdi>7</bdi>۸'
    )


def test_safe_html_stays_safe_and_the_title_is_prose() -> None:
    out = localize_html(mark_safe("<title>Match 12</title><b>1</b>"), "fa")
    assert isinstance(out, SafeString)
    assert out == "<title>Match ۱۲</title><b>۱</b>"
    assert localize_text("0/7 · 28s", "ur") == "۰/۷ · ۲۸s"


def test_sentences_built_in_python_change_their_numbers_not_their_names() -> None:
    template = "%(names)s won the hand: %(points)d points"
    values = {"names": "ali2 & sara", "points": 3}
    with translation.override("fa"):
        assert (
            localize_format(template, values, names=("names",))
            == "ali2 & sara won the hand: ۳ points"
        )
    with translation.override("hi"):
        assert (
            localize_format(template, values, names=("names",))
            == "ali2 & sara won the hand: 3 points"
        )


@given(st.text(alphabet="0123456789abc<>&;/ =\"'#", max_size=60))
def test_only_digits_change(html: str) -> None:
    # Whatever the markup, localizing changes digits and nothing else, and reading the digits
    # back gives the text it started from.
    out = localize_html(html, "fa")
    assert len(out) == len(html)
    assert ascii_digits(out) == html


def test_forms_read_every_digit_set() -> None:
    assert ascii_digits("۱۴۰۵/۰۹/۰۶") == "1405/09/06"
    assert ascii_digits("١٢٣") == "123"  # Arabic-Indic
    assert ascii_digits("१२३") == "123"  # Devanagari
    form = TableForm(data={"variant": "hokm4", "target": "۵", "turn_clock_seconds": "۶۰"})
    form.is_valid()
    assert form.cleaned_data.get("target") == 5, form.errors


# -- Calendars -------------------------------------------------------------------------------------


def test_persian_dates_are_solar_hijri_and_the_others_gregorian() -> None:
    tehran = zoneinfo.ZoneInfo("Asia/Tehran")
    with timezone.override(tehran):
        with translation.override("fa"):
            assert format_date(NOVEMBER_27, "DATE_FORMAT") == "6 آذر 1405"
            assert format_date(NOVEMBER_27, "DATETIME_FORMAT") == "6 آذر 1405، ساعت 14:00"
            assert format_date(NOVEMBER_27, "SHORT_DATE_FORMAT") == "1405/09/06"
        with translation.override("ur"):
            assert format_date(NOVEMBER_27, "DATE_FORMAT") == "27 نومبر 2026"
        with translation.override("hi"):
            assert format_date(NOVEMBER_27, "DATE_FORMAT") == "27 नवंबर 2026"
            assert format_date(NOVEMBER_27, "SHORT_DATETIME_FORMAT") == "27-11-2026, 14:00"
        with translation.override("en"):
            assert format_date(NOVEMBER_27, "DATE_FORMAT") == "Nov. 27, 2026"


def test_a_date_is_read_in_either_calendar() -> None:
    assert parse_date("1405/09/06") == dt.date(2026, 11, 27)
    assert parse_date("1405-9-6") == dt.date(2026, 11, 27)
    assert parse_date("2026-11-27") == dt.date(2026, 11, 27)
    assert parse_date("1403/12/30") == dt.date(2025, 3, 20)  # 1403 is a leap year
    assert parse_date("1404/12/30") is None  # 1404 is not
    assert parse_date("2026-02-30") is None
    assert parse_date("yesterday") is None
    assert jalali_iso(dt.date(2026, 11, 27)) == "1405/09/06"


@pytest.mark.django_db
def test_the_history_date_filter_takes_jalali_dates_in_persian_digits() -> None:
    with translation.override("fa"):
        form = HistoryFilterForm(data={"date_from": "۱۴۰۵/۰۹/۰۶", "date_to": "2026-11-30"})
        assert form.is_valid(), form.errors
        assert form.cleaned_data["date_from"] == dt.date(2026, 11, 27)
        # Shown back in Persian as the Jalali date in Persian digits, in a text field: no
        # browser's date picker knows the Solar Hijri calendar.
        html = str(form["date_from"])
        assert 'type="text"' in html and 'value="۱۴۰۵/۰۹/۰۶"' in html
        bad = HistoryFilterForm(data={"date_from": "۱۴۰۵/۱۳/۰۱"})
        assert not bad.is_valid()
        assert "date_from" in bad.errors
    with translation.override("ur"):
        html = str(HistoryFilterForm(data={"date_from": "2026-11-27"})["date_from"])
        assert 'type="date"' in html and 'value="2026-11-27"' in html


# -- Pages -----------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "direction", "script", "name"),
    [
        ("fa", "rtl", ARABIC_SCRIPT, "فارسی"),
        ("ur", "rtl", ARABIC_SCRIPT, "اردو"),
        ("hi", "ltr", DEVANAGARI, "हिंदी"),
    ],
)
def test_each_language_has_its_pages_direction_and_font(
    client: Client, language: str, direction: str, script: re.Pattern[str], name: str
) -> None:
    for path in (
        "/",
        reverse("rules_hokm"),
        reverse("rules_court_piece"),
        reverse("account_login"),
    ):
        html = client.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert f'<html lang="{language}" dir="{direction}"' in html, path
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
        assert heading and script.search(heading.group(1)), (path, heading)
    # The switch names each language in its own words, the page's own chosen.
    options = dict(re.findall(r'<option value="(\w+)" lang="\1"[^>]*>([^<]+)</option>', html))
    assert options == {"en": "English", "fa": "فارسی", "ur": "اردو", "hi": "हिंदी"}
    assert f'<option value="{language}" lang="{language}" selected>{name}</option>' in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fa", "ur"])
def test_persian_and_urdu_pages_show_numbers_in_persian_digits(
    client: Client, language: str
) -> None:
    player = make_player("nima7", date_joined=NOVEMBER_27)
    html = (
        client_for(player)
        .get(reverse("games:profile", args=[player.username]), HTTP_ACCEPT_LANGUAGE=language)
        .content.decode()
    )
    text = _text(html)
    assert re.search(f"[{PERSIAN_DIGITS}]", text)
    # The name is written as its owner wrote it, digits included, and the page's own numbers are
    # in Persian digits: what is left in 0-9 is names only.
    assert "nima7" in text
    assert re.findall(r"[0-9]+", text.replace("nima7", "")) == []
    if language == "fa":
        assert "۶ آذر ۱۴۰۵" in text  # joined on 6 Azar 1405
    else:
        assert "۲۷ نومبر ۲۰۲۶" in text


@pytest.mark.django_db
def test_hindi_pages_keep_western_digits(client: Client) -> None:
    player = make_player("asha", date_joined=NOVEMBER_27)
    html = client.get(
        reverse("games:profile", args=[player.username]), HTTP_ACCEPT_LANGUAGE="hi"
    ).content.decode()
    assert "27 नवंबर 2026" in _text(html)
    assert not re.search(f"[{PERSIAN_DIGITS}]", html)


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "words"), [("ur", "پاس ورڈ"), ("hi", "पासवर्ड")])
def test_account_pages_emails_and_form_errors_are_translated(
    client: Client, language: str, words: str
) -> None:
    make_player("farah", email="farah@example.com")
    response = client.post(
        reverse("account_reset_password"),
        {"email": "farah@example.com"},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert words in mail.outbox[0].subject + mail.outbox[0].body
    assert not re.search(r"\b(Password|Reset|You're receiving)\b", mail.outbox[0].body)
    # Django's own validation message, from the site's Urdu and Hindi catalogue of Django's words.
    signup = client.post(
        reverse("account_signup"),
        {"username": "", "email": "x@example.com", "password1": "a", "password2": "a"},
        HTTP_ACCEPT_LANGUAGE=language,
    ).content.decode()
    assert "This field is required." not in signup
    with translation.override(language):
        assert translation.gettext("This field is required.") != "This field is required."


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["ur", "hi"])
def test_the_json_api_speaks_the_request_language(client: Client, language: str) -> None:
    response = client.get(reverse("games:api_match_start"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 405
    error = json.loads(response.content)["error"]
    assert error["code"] == "method_not_allowed"
    script = ARABIC_SCRIPT if language == "ur" else DEVANAGARI
    assert script.search(error["message"]), error


# -- The player's language -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_browser_language_chooses_first_and_the_choice_is_kept_on_every_device() -> None:
    player = make_player("kamran")
    phone = client_for(player)
    # The first visit: the browser's language.
    assert '<html lang="ur" dir="rtl"' in phone.get("/", HTTP_ACCEPT_LANGUAGE="ur").content.decode()
    # The switch saves the choice on the account.
    response = phone.post(reverse("set_language"), {"language": "hi", "next": "/"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.language == "hi"
    # Another device, whose browser says English: the player sees his Hindi, and the cookie the
    # page's sockets read is set to it.
    laptop = client_for(player)
    response = laptop.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert '<html lang="hi" dir="ltr"' in response.content.decode()
    assert response.cookies["django_language"].value == "hi"
    # A language the site does not speak is not saved.
    laptop.post(reverse("set_language"), {"language": "xx", "next": "/"})
    player.refresh_from_db()
    assert player.language == "hi"


@pytest.mark.django_db
def test_until_a_player_chooses_each_browser_shows_its_own_language() -> None:
    player = make_player("parisa")
    client = Client()
    response = client.post(
        reverse("account_login"),
        {"login": "parisa", "password": "felt-and-seven-tricks"},
        HTTP_ACCEPT_LANGUAGE="fa",
    )
    assert response.status_code == 302
    assert User.objects.get(pk=player.pk).language == ""
    assert '<html lang="ur"' in client.get("/", HTTP_ACCEPT_LANGUAGE="ur").content.decode()


# -- Time zones ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_times_are_in_the_browser_zone_else_the_language_country() -> None:
    player = make_player("reza", date_joined=dt.datetime(2026, 11, 26, 22, 0, tzinfo=dt.UTC))
    url = reverse("games:profile", args=[player.username])
    client = Client()
    # 22:00 UTC on 26 November is already 27 November in Tehran (UTC+3:30): 6 Azar.
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    assert "۶ آذر ۱۴۰۵" in html
    client.cookies["tz"] = "America/New_York"
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="fa").content.decode()
    assert "۵ آذر ۱۴۰۵" in html
    # A zone the database does not know is ignored, not an error.
    client.cookies["tz"] = "Mars/Olympus"
    assert client.get(url, HTTP_ACCEPT_LANGUAGE="fa").status_code == 200
    assert LANGUAGE_ZONES == {"fa": "Asia/Tehran", "ur": "Asia/Karachi", "hi": "Asia/Kolkata"}
