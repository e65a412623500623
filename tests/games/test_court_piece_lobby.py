"""Court Piece (R9) in the lobby: its table settings on the create-a-table form, each with its
one line, the defaults of the common game (R9.10.1, R9.11), the quick start and the API, the
rematch that keeps the settings, and Hokm tables that take none of them."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.tokens import token_create
from games.engine import CourtPieceOptions
from games.lobby.services import TableError, play_against_computer, table_create
from games.models import Match, Table
from games.play.rematch import match_rematch
from games.play.services import SeatSpec, match_create
from tests.accounts.players import client_for, make_player
from tests.games.factories import UserFactory, table_form_data

pytestmark = pytest.mark.django_db

DEFAULTS = CourtPieceOptions().to_json()


def court_form(**overrides: str | None) -> dict[str, str]:
    return table_form_data(variant="court-piece", target="1", **overrides)


def test_the_form_explains_every_setting_in_one_line_R9_11():
    page = client_for(UserFactory()).get(reverse("games:table_create")).content.decode()
    assert 'data-only-variants="court-piece"' in page
    for line in (
        "Tricks pile up in the middle; a player collects the pile by winning two tricks in a row.",
        "With Double Sir: two tricks in a row won with aces do not collect.",
        "A player who cannot follow suit may ask to see it, and must then trump.",
        "A court won by the dealing side counts 3 courts.",
        "First deal only: the seat that turns up the ace of this suit calls trump.",
        "Optional: after this many deals, the side with more courts wins.",
    ):
        assert line in page
    # The goon court is on by default, every other setting off (the sensible defaults).
    assert re.search(r'<input type="checkbox" name="goon_court"[^>]* checked>', page)
    assert re.search(r'<input type="checkbox" name="double_sir"[^>]*>', page)
    assert not re.search(r'<input type="checkbox" name="double_sir"[^>]* checked>', page)
    assert reverse("rules_court_piece") in page and reverse("rules_hokm") in page


def test_a_court_piece_table_keeps_its_settings_R9_11():
    client = client_for(UserFactory())
    response = client.post(
        reverse("games:table_create"),
        court_form(
            double_sir="on",
            ace_rule="on",
            hidden_trump="blind",
            goon_court=None,
            ace_caller="H",
            max_deals="9",
        ),
    )
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.variant == "court-piece" and table.target == 1
    assert table.options == {
        "double_sir": True,
        "ace_rule": True,
        "hidden_trump": "blind",
        "goon_court": False,
        "ace_caller": "H",
    }
    assert table.max_deals == 9
    page = client.get(reverse("games:table_detail", args=[table.pk])).content.decode()
    for fact in ("to 1 court", "Double Sir with the ace rule", "blind hidden trump"):
        assert fact in page
    assert "no goon court" in page and "ace caller: hearts" in page and "at most 9 deals" in page


def test_the_ace_rule_without_double_sir_is_refused_and_nothing_is_created_R9_11():
    response = client_for(UserFactory()).post(
        reverse("games:table_create"), court_form(ace_rule="on", goon_court="on")
    )
    assert response.status_code == 200
    assert "The ace rule is played with Double Sir only." in response.content.decode()
    assert not Table.objects.exists()


def test_a_hokm_table_ignores_the_court_piece_fields():
    response = client_for(UserFactory()).post(
        reverse("games:table_create"),
        table_form_data(double_sir="on", hidden_trump="blind", max_deals="3"),
    )
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.variant == "hokm4" and table.options == {} and table.max_deals is None


def test_the_service_refuses_settings_for_hokm_and_mixes_r9_11_does_not_allow():
    user = UserFactory()
    common = {
        "user": user,
        "name": "",
        "target": 1,
        "turn_clock_seconds": 30,
        "is_private": False,
        "allow_spectators": True,
        "fill_with_computer": False,
        "computer_level": "medium",
        "partner_draw": False,
    }
    with pytest.raises(TableError, match="Only Court Piece"):
        table_create(variant="hokm4", options={"double_sir": True}, **common)
    with pytest.raises(TableError, match="no such table setting"):
        table_create(variant="court-piece", options={"trumps": True}, **common)
    with pytest.raises(TableError, match="most deals"):
        table_create(variant="court-piece", max_deals=0, **common)
    with pytest.raises(TableError, match="partners"):
        table_create(variant="court-piece", **(common | {"partner_draw": True}))
    assert not Table.objects.exists()


def test_quick_start_plays_court_piece_to_one_court_R9_10_1(settings):
    settings.HOKM_AUTOPLAY = "off"
    response = client_for(UserFactory()).post(
        reverse("games:play_computer"), {"variant": "court-piece", "computer_level": "easy"}
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert (match.variant, match.target, match.options) == ("court-piece", 1, DEFAULTS)
    assert [s.computer_level for s in match.seats.order_by("index")] == [None] + ["easy"] * 3


def api_post(body: dict) -> tuple[int, dict]:
    raw = token_create(user=make_player("lale"), name="bot")[1]
    response = Client().post(
        "/api/matches/",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    return response.status_code, response.json()


def test_the_api_starts_court_piece_with_its_settings(settings):
    settings.HOKM_AUTOPLAY = "off"
    status, data = api_post(
        {"variant": "court-piece", "options": {"hidden_trump": "chosen"}, "max_deals": 3}
    )
    assert status == 201, data
    match = Match.objects.get(pk=data["match"])
    assert match.target == 1 and match.max_deals == 3
    assert match.options == DEFAULTS | {"hidden_trump": "chosen"}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"variant": "court-piece", "options": ["double_sir"]}, "bad_options"),
        ({"variant": "court-piece", "max_deals": "3"}, "bad_max_deals"),
        ({"variant": "court-piece", "options": {"ace_rule": True}}, "refused"),
        ({"variant": "court-piece", "options": {"hidden_trump": "sometimes"}}, "refused"),
        ({"variant": "hokm4", "options": {"double_sir": True}}, "refused"),
    ],
)
def test_the_api_refuses_bad_settings_and_starts_nothing(body, code):
    status, data = api_post(body)
    assert status == 400 and data["error"]["code"] == code, data
    assert not Match.objects.exists()


def test_a_rematch_keeps_the_table_settings(settings):
    settings.HOKM_AUTOPLAY = "off"
    ali, sara = UserFactory(), UserFactory()
    options = DEFAULTS | {"double_sir": True, "hidden_trump": "chosen"}
    table = Table.objects.create(
        name="t",
        variant="court-piece",
        target=1,
        options=options,
        max_deals=4,
        turn_clock_seconds=30,
    )
    match = match_create(
        variant="court-piece",
        target=1,
        table=table,
        options=options,
        max_deals=4,
        seats=[
            SeatSpec(name="ali", user=ali),
            SeatSpec(name="c1", computer_level="easy"),
            SeatSpec(name="sara", user=sara),
            SeatSpec(name="c3", computer_level="easy"),
        ],
    )
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    rematch = match_rematch(match=match.pk, user=ali)
    assert rematch.options == options and rematch.max_deals == 4


def test_play_again_keeps_the_table_settings(settings):
    settings.HOKM_AUTOPLAY = "off"
    user = UserFactory()
    client = client_for(user)
    options = DEFAULTS | {"double_sir": True, "ace_rule": True, "hidden_trump": "blind"}
    match = play_against_computer(
        user=user, variant="court-piece", options=options, max_deals=5, target=2
    )
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    form = re.search(r'<form id="play-again".*?</form>', page, re.DOTALL).group(0)
    fields = {k: html.unescape(v) for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', form)}
    response = client.post(reverse("games:play_computer"), fields)
    assert response.status_code == 302
    again = Match.objects.latest("pk")
    assert again.pk != match.pk
    assert (again.options, again.max_deals, again.target) == (options, 5, 2)
