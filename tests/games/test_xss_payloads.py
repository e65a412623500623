"""Names, table names, chat lines and report comments carrying HTML and script appear as text
everywhere: pages, htmx fragments, socket fragments, JSON frames, the downloaded record, the admin.

A display name takes any text through the settings form, and a table name through the table
form; a username cannot (the sign-up rules allow letters, digits, ``_`` and ``-``), so one is
forced into the database, as an old or imported account could hold one. Every HTML response
must hold no payload as it was written, and must show the payloads it displays escaped (else the
check would pass on a page that shows nothing); JSON holds them exactly, as data. The chat's own
escaping over both sockets is in tests/live/test_chat.py.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import urlencode

from accounts.models import User
from accounts.roles import MODERATORS_GROUP
from games.models import ChatMessage, Match, Table
from games.play.chat import chat_post
from games.play.services import SeatSpec
from moderation import services as moderation
from moderation.models import Report
from tests.accounts.players import client_for, make_player
from tests.games.factories import MatchFactory, match_play
from tests.games.lobby_sockets import application as page_application
from tests.live.match_sockets import APP

#: The display name of a player, set through the settings form (at most 40 characters).
DISPLAY = '"><img src=x onerror=alert(1)>'
#: A username forced into the database (the sign-up rules refuse it; no "/", which no URL of a
#: profile could hold).
USERNAME = "<svg onload=alert(2)>"
#: A table's name, through the table form.
TABLE = "<script>alert(3)</script>"
#: Chat lines.
CHAT = ["</textarea><script>alert(4)</script>", "'><b onmouseover=alert(5)>x</b>"]
#: A report's comment.
COMMENT = "<iframe src=javascript:alert(6)>"
PAYLOADS = [DISPLAY, USERNAME, TABLE, *CHAT, COMMENT]
#: The history's filters, holding names.
FILTER = "?" + urlencode({"opponent": USERNAME, "partner": DISPLAY})


class _Elements(HTMLParser):
    """Every element of a page as a browser's parser would see it: (tag, attributes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def assert_escaped(html: str, shown: list[str], *, where: str) -> None:
    """No payload as written, and none that became markup; each of ``shown`` escaped."""
    for payload in PAYLOADS:
        assert payload not in html, (where, payload)
    for payload in shown:
        assert escape(payload) in html, (where, payload)
    parser = _Elements()
    parser.feed(html)
    for tag, attrs in parser.elements:
        # The site has no event handler attribute and no inline script (hokm_site/csp.py), so
        # one here was injected.
        assert not [name for name in attrs if name.startswith("on")], (where, tag, attrs)
        assert tag not in ("iframe", "svg", "img") or attrs.get("src") != "x", (where, tag)
        if tag == "script":
            assert attrs.get("src") or attrs.get("type") == "application/json", (where, attrs)


def world() -> dict[str, Any]:
    """Players, an open table, a live match and a finished one, chat and a report, all with
    payloads in them."""
    staff = make_player("mina", is_staff=True, is_superuser=True)
    staff.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    alice = make_player("alice")
    response = client_for(alice).post(reverse("accounts:settings"), {"display_name": DISPLAY})
    assert response.status_code == 302
    evil = make_player("evil")
    User.objects.filter(pk=evil.pk).update(username=USERNAME)
    alice.refresh_from_db()
    evil.refresh_from_db()
    assert (str(alice), str(evil)) == (DISPLAY, USERNAME)

    form = {
        "name": TABLE,
        "variant": "hokm4",
        "target": "7",
        "turn_clock_seconds": "30",
        "allow_spectators": "on",
        "computer_level": "medium",
    }
    response = client_for(alice).post(reverse("games:table_create"), form)
    assert response.status_code == 302
    table = Table.objects.get(name=TABLE)
    client_for(evil).post(reverse("games:table_join", args=[table.pk, 2]))

    seats = [
        SeatSpec(name=str(alice), user=alice),
        SeatSpec(name="Computer 1", computer_level="easy"),
        SeatSpec(name=str(evil), user=evil),
        SeatSpec(name="Computer 3", computer_level="easy"),
    ]
    live = MatchFactory(table=Table.objects.create(name=TABLE, variant="hokm4"), seats=seats)
    finished = MatchFactory(
        table=Table.objects.create(name=TABLE, variant="hokm4"), seats=seats, target=1
    )
    for match in (live, finished):
        chat_post(match=match, user=alice, seat=0, text=CHAT[0])
        chat_post(match=match, user=evil, seat=2, text=CHAT[1])
    match_play(finished)
    assert Match.objects.get(pk=finished.pk).status == Match.Status.FINISHED
    report = moderation.report_create(
        reporter=alice, reported=evil, reason="chat_abuse", comment=COMMENT, match=finished
    )
    return {
        "staff": staff,
        "alice": alice,
        "evil": evil,
        "table": table,
        "live": live,
        "finished": finished,
        "report": report,
    }


@pytest.fixture
def payloads(db: None) -> dict[str, Any]:
    return world()


NAMES = [DISPLAY, USERNAME]


def admin_url(name: str, args: list[int] | None = None) -> str:
    return reverse(f"admin:{name}", args=args)


def pages(w: dict[str, Any]) -> list[tuple[str, str, str, list[str]]]:
    """(what, who, URL, the payloads it shows)."""
    live, finished, table, evil = w["live"].pk, w["finished"].pk, w["table"].pk, w["evil"].pk
    chat_line = ChatMessage.objects.first().pk
    report = w["report"].pk
    return [
        ("lobby", "alice", reverse("games:lobby"), [TABLE, *NAMES]),
        ("table", "alice", reverse("games:table_detail", args=[table]), [TABLE, *NAMES]),
        ("live match", "alice", reverse("games:match", args=[live]), [*NAMES, *CHAT]),
        ("live match, spectator", "staff", reverse("games:match", args=[live]), [*NAMES, *CHAT]),
        ("history", "alice", reverse("games:my_games"), NAMES),
        ("history filtered", "alice", reverse("games:my_games") + FILTER, NAMES),
        ("summary", "alice", reverse("games:match_summary", args=[finished]), NAMES),
        ("replay", "alice", reverse("games:replay", args=[finished]), NAMES),
        ("profile", "alice", reverse("games:profile", args=[USERNAME]), NAMES),
        ("own profile", "alice", reverse("games:profile", args=["alice"]), [DISPLAY]),
        ("settings", "alice", reverse("accounts:settings"), [DISPLAY]),
        ("moderation queue", "staff", reverse("moderation:moderation_queue"), NAMES),
        (
            "report",
            "staff",
            reverse("moderation:moderation_report", args=[report]),
            [*NAMES, *CHAT, COMMENT],
        ),
        (
            "moderation player",
            "staff",
            reverse("moderation:moderation_player", args=[USERNAME]),
            [*NAMES, COMMENT],
        ),
        ("admin users", "staff", admin_url("accounts_user_changelist"), NAMES),
        (
            "admin user",
            "staff",
            admin_url("accounts_user_change", args=[evil]),
            [USERNAME],
        ),
        ("admin tables", "staff", admin_url("games_table_changelist"), [TABLE, DISPLAY]),
        (
            "admin table",
            "staff",
            admin_url("games_table_change", args=[table]),
            [TABLE, *NAMES],
        ),
        ("admin chat", "staff", admin_url("games_chatmessage_changelist"), [*CHAT, *NAMES]),
        (
            "admin chat line",
            "staff",
            admin_url("games_chatmessage_change", args=[chat_line]),
            [DISPLAY, CHAT[0]],
        ),
        ("admin match seats", "staff", admin_url("games_matchseat_changelist"), NAMES),
        (
            "admin match",
            "staff",
            admin_url("games_match_change", args=[finished]),
            [TABLE, *NAMES],
        ),
    ]


def test_every_page_shows_the_payloads_as_text(payloads):
    users = {"alice": payloads["alice"], "staff": payloads["staff"]}
    for what, who, url, shown in pages(payloads):
        response = client_for(users[who]).get(url)
        assert response.status_code == 200, (what, response.status_code)
        assert response["Content-Type"].startswith("text/html"), what
        assert_escaped(response.content.decode(), shown, where=what)


def test_htmx_fragments_show_the_payloads_as_text(payloads):
    client = client_for(payloads["alice"])
    headers = {"HX-Request": "true"}
    for query, shown in (("", [USERNAME]), (FILTER, [])):
        fragment = client.get(reverse("games:my_games") + query, headers=headers)
        html = fragment.content.decode()
        assert fragment.status_code == 200 and "<html" not in html
        assert_escaped(html, shown, where=f"history fragment {query}")


def test_the_replay_data_holds_the_names_exactly_and_escaped_for_a_script_element(payloads):
    page = client_for(payloads["alice"]).get(
        reverse("games:replay", args=[payloads["finished"].pk])
    )
    html = page.content.decode()
    (data,) = re.findall(r'<script id="replay-data" type="application/json">(.*?)</script>', html)
    assert "<" not in data and ">" not in data
    names = [seat["name"] for seat in json.loads(data)["seats"]]
    assert names[0] == DISPLAY and names[2] == USERNAME


def test_the_downloaded_record_holds_the_names_exactly_as_json(payloads):
    response = client_for(payloads["alice"]).get(
        reverse("games:match_record", args=[payloads["finished"].pk])
    )
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "<" not in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record["players"][0] == DISPLAY and record["players"][2] == USERNAME


def test_the_report_form_and_its_answers_show_the_names_as_text(payloads):
    alice = client_for(payloads["alice"])
    page = alice.get(reverse("moderation:report", args=[USERNAME]))
    assert page.status_code == 200
    assert_escaped(page.content.decode(), [USERNAME], where="report form")
    assert Report.objects.filter(comment=COMMENT).exists()


# -- sockets -------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_socket_fragments_and_frames_carry_the_payloads_as_text():
    w = await database_sync_to_async(world)()

    json_socket = WebsocketCommunicator(APP, f"/ws/api/match/{w['live'].pk}/")
    json_socket.scope["user"] = w["alice"]
    assert (await json_socket.connect())[0]
    frames = {}
    while {"state", "chat_history"} - frames.keys():
        frame = json.loads(await json_socket.receive_from(timeout=5))
        frames[frame["type"]] = frame
    names = [player["name"] for player in frames["state"]["data"]["players"]]
    assert names[0] == DISPLAY and names[2] == USERNAME
    lines = [(m["name"], m["text"]) for m in frames["chat_history"]["data"]["messages"]]
    assert lines == [(DISPLAY, CHAT[0]), (USERNAME, CHAT[1])]
    await json_socket.disconnect()

    html_socket = WebsocketCommunicator(APP, f"/ws/match/{w['live'].pk}/")
    html_socket.scope["user"] = w["evil"]
    assert (await html_socket.connect())[0]
    table = await html_socket.receive_from(timeout=5)
    assert_escaped(table, NAMES, where="table fragment")
    chat = await html_socket.receive_from(timeout=5)
    assert_escaped(chat, [*NAMES, *CHAT], where="chat fragment")
    await html_socket.disconnect()

    for path, shown in (
        ("/ws/lobby/", [TABLE, DISPLAY]),
        (f"/ws/table/{w['table'].pk}/", NAMES),
    ):
        page = WebsocketCommunicator(page_application(user=w["alice"]), path)
        assert (await page.connect())[0]
        assert_escaped(await page.receive_from(timeout=5), shown, where=path)
        await page.disconnect()
