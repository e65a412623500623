"""A player's looks and sounds (accounts.preferences): stored on his account or a visitor's session,
set through POST /account/preferences/, and shown on every page as <html data-…> attributes."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse

from accounts.models import Back, Face, Theme, User
from accounts.preferences import SESSION_KEY, UiPrefs
from tests.accounts.players import client_for, make_player
from tests.games.factories import COMPUTER, TableFactory, seated_match

pytestmark = pytest.mark.django_db

URL = "/account/preferences/"
#: What prefs.js sends; a browser's own form post says "navigate" instead.
SCRIPT = {"headers": {"X-Requested-With": "fetch"}}
HTML_ATTRIBUTES = re.compile(
    r"<html [^>]*?"
    r' data-theme="(?P<theme>[a-z]+)" data-face="(?P<face>[a-z]+)" data-back="(?P<back>[a-z]+)"'
    r' data-sound="(?P<sound>on|off)" data-volume="(?P<volume>\d+)"'
    r' data-motion="(?P<motion>on|off)" data-notify="(?P<notify>on|off)">'
)


def html_prefs(client: Client, url: str) -> dict[str, str]:
    response = client.get(url)
    assert response.status_code == 200
    found = HTML_ATTRIBUTES.search(response.content.decode())
    assert found, "the <html> start tag carries every preference"
    return found.groupdict()


def stored(user: User) -> tuple[object, ...]:
    user.refresh_from_db()
    return (user.theme, user.face, user.back, user.sound, user.volume, user.motion, user.notify)


def test_the_endpoint_has_its_address() -> None:
    assert reverse("accounts:preferences") == URL


def test_at_least_seven_themes_decks_and_backs_with_the_defaults_of_the_old_look() -> None:
    assert len(Theme.values) >= 7 and len(Face.values) >= 7 and len(Back.values) >= 7
    for wanted in ("felt", "night", "wood", "carpet", "contrast", "light", "jaipur"):
        assert wanted in Theme.values
    assert "large" in Face.values and "four" in Face.values
    assert UiPrefs() == UiPrefs("felt", "classic", "lattice", True, 70, True, False)


def test_a_new_player_has_the_defaults() -> None:
    user = make_player()
    assert stored(user) == ("felt", "classic", "lattice", True, 70, True, False)


def test_a_script_sets_any_subset_and_gets_204() -> None:
    user = make_player()
    client = client_for(user)
    response = client.post(URL, {"theme": "carpet", "sound": "off", "volume": "35"}, **SCRIPT)
    assert response.status_code == 204
    assert stored(user) == ("carpet", "classic", "lattice", False, 35, True, False)
    response = client.post(URL, {"face": "four", "back": "girih", "notify": "on"}, **SCRIPT)
    assert response.status_code == 204
    assert stored(user) == ("carpet", "four", "girih", False, 35, True, True)


def test_an_htmx_request_gets_204_too() -> None:
    user = make_player()
    response = client_for(user).post(URL, {"motion": "off"}, headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert stored(user)[5] is False


def test_a_fetch_without_the_header_is_told_apart_by_sec_fetch_mode() -> None:
    user = make_player()
    response = client_for(user).post(URL, {"theme": "night"}, headers={"Sec-Fetch-Mode": "cors"})
    assert response.status_code == 204


def test_a_plain_form_post_goes_back_with_a_message() -> None:
    user = make_player()
    client = client_for(user)
    response = client.post(URL, {"theme": "wood"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("accounts:settings")
    assert "Your looks and sounds are saved." in response.content.decode()
    assert stored(user)[0] == "wood"


def test_a_plain_form_switch_takes_the_last_value_the_checkbox_after_the_hidden_off() -> None:
    user = make_player()
    client = client_for(user)
    client.post(URL, {"sound": ["off", "on"], "motion": ["off"]})
    assert stored(user)[3:6] == (True, 70, False)


def test_a_plain_form_post_goes_back_to_next_on_this_site_only() -> None:
    user = make_player()
    client = client_for(user)
    response = client.post(URL, {"theme": "light", "next": "/rules/hokm/"})
    assert response["Location"] == "/rules/hokm/"
    response = client.post(URL, {"theme": "light", "next": "https://evil.example/"})
    assert response["Location"] == reverse("accounts:settings")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"theme": "disco"}, "“disco” is not a table theme."),
        ({"face": "tarot"}, "“tarot” is not a set of card fronts."),
        ({"back": "x"}, "“x” is not a card back."),
        ({"sound": "loud"}, "Sound is “on” or “off”, not “loud”."),
        ({"volume": "101"}, "100"),
        ({"volume": "-1"}, "0"),
        ({"volume": "half"}, "The volume is a whole number from 0 to 100."),
        ({"motion": "yes"}, "Motion is “on” or “off”, not “yes”."),
        ({"notify": ""}, "Notifications needs a value."),
        ({}, "Nothing to change."),
    ],
)
def test_a_bad_value_gets_400_with_the_reason_and_changes_nothing(data, reason) -> None:
    user = make_player()
    client = client_for(user)
    # A good value beside the bad one is not stored either.
    response = client.post(URL, {"theme": "night", **data} if data else data, **SCRIPT)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert stored(user) == ("felt", "classic", "lattice", True, 70, True, False)


def test_a_bad_value_in_the_plain_form_shows_the_settings_page_with_400() -> None:
    user = make_player()
    response = client_for(user).post(URL, {"theme": "disco"})
    assert response.status_code == 400
    assert "“disco” is not a table theme." in response.content.decode()
    assert stored(user)[0] == "felt"


def test_the_endpoint_needs_csrf() -> None:
    user = make_player()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(URL, {"theme": "night"}, **SCRIPT).status_code == 403
    client.get(reverse("accounts:settings"))
    token = client.cookies["csrftoken"].value
    response = client.post(
        URL, {"theme": "night"}, headers={"X-CSRFToken": token, "X-Requested-With": "fetch"}
    )
    assert response.status_code == 204
    assert stored(user)[0] == "night"


def test_the_endpoint_takes_only_post() -> None:
    assert client_for(make_player()).get(URL).status_code == 405


def test_a_visitor_keeps_his_choice_in_the_session(client: Client) -> None:
    response = client.post(URL, {"theme": "jaipur", "face": "large", "volume": "0"}, **SCRIPT)
    assert response.status_code == 204
    assert client.session[SESSION_KEY]["theme"] == "jaipur"
    prefs = html_prefs(client, "/")
    assert prefs == {
        "theme": "jaipur",
        "face": "large",
        "back": "lattice",
        "sound": "on",
        "volume": "0",
        "motion": "on",
        "notify": "off",
    }
    assert User.objects.filter(theme="jaipur").count() == 0


def test_a_visitor_with_a_bad_value_in_his_session_gets_the_default(client: Client) -> None:
    session = client.session
    session[SESSION_KEY] = {"theme": "gone", "volume": 500, "sound": "yes", "face": "four"}
    session.save()
    prefs = html_prefs(client, "/")
    assert (prefs["theme"], prefs["volume"], prefs["sound"], prefs["face"]) == (
        "felt",
        "70",
        "on",
        "four",
    )


def test_a_visitor_plain_form_post_goes_home(client: Client) -> None:
    response = client.post(URL, {"back": "paisley"})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_a_player_sees_his_own_choice_and_not_the_session(client: Client) -> None:
    client.post(URL, {"theme": "night"}, **SCRIPT)
    user = make_player(theme="wood", sound=False)
    client.force_login(user)
    prefs = html_prefs(client, "/")
    assert (prefs["theme"], prefs["sound"]) == ("wood", "off")


def test_the_context_processor_gives_ui_prefs(client: Client) -> None:
    user = make_player(face="bold", notify=True)
    response = client_for(user).get("/")
    assert response.context["ui_prefs"] == UiPrefs(face="bold", notify=True)


def test_the_head_links_the_looks_and_the_script() -> None:
    html = Client().get("/").content.decode()
    assert 'href="/static/css/themes.css"' in html
    assert 'href="/static/css/faces.css"' in html
    assert re.search(r'<script src="/static/js/prefs.js" defer></script>', html)
    assert '<meta name="hokm-prefs-url" content="/account/preferences/">' in html
    assert '<script id="hokm-prefs-choices" type="application/json">' in html


def test_the_choice_shows_on_the_rules_pages() -> None:
    user = make_player(theme="contrast", face="four", back="tile", motion=False)
    client = client_for(user)
    for url in (reverse("rules_hokm"), reverse("rules_court_piece")):
        prefs = html_prefs(client, url)
        assert (prefs["theme"], prefs["face"], prefs["back"], prefs["motion"]) == (
            "contrast",
            "four",
            "tile",
            "off",
        )


def test_the_choice_shows_at_the_table_and_in_the_replay() -> None:
    user = make_player(theme="carpet", face="persian", back="girih", volume=12)
    playing = seated_match(user, COMPUTER, COMPUTER, COMPUTER, play=False, table=TableFactory())
    finished = seated_match(user, COMPUTER, COMPUTER, COMPUTER)
    client = client_for(user)
    for url in (
        reverse("games:match", kwargs={"match_id": playing.pk}),
        reverse("games:replay", kwargs={"match_id": finished.pk}),
    ):
        prefs = html_prefs(client, url)
        assert (prefs["theme"], prefs["face"], prefs["back"], prefs["volume"]) == (
            "carpet",
            "persian",
            "girih",
            "12",
        )


def test_a_page_rendered_without_the_request_shows_the_defaults() -> None:
    assert render_to_string("_html_prefs.html") == ""


# -- the high-contrast theme (static/css/themes.css) -------------------------------------------


def _theme_colours(theme: str) -> dict[str, str]:
    css = (settings.BASE_DIR / "static" / "css" / "themes.css").read_text()
    block = re.search(rf'\[data-theme="{theme}"\] \{{(.*?)\n\}}', css, re.S)
    assert block, theme
    return dict(re.findall(r"(--[a-z-]+): (#[0-9a-f]{3,6});", block.group(1)))


def _contrast(one: str, two: str) -> float:
    def luminance(colour: str) -> float:
        digits = colour.lstrip("#")
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_high_contrast_theme_has_at_least_7_to_1_everywhere() -> None:
    colours = _theme_colours("contrast")
    for text in ("--ink", "--ink-muted", "--gold"):
        for ground in ("--felt", "--felt-dark", "--table-panel", "--table-bar", "--page"):
            ratio = _contrast(colours[text], colours[ground])
            assert ratio >= 7, f"{text} on {ground}: {ratio:.1f}"
    for ink in ("--theme-black", "--theme-red", "--card-red", "--card-ink"):
        ratio = _contrast(colours[ink], colours["--card"])
        assert ratio >= 7, f"{ink} on the cards: {ratio:.1f}"
