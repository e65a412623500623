"""The public profile (/players/<username>/) and the settings page (/accounts/profile/)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import User
from games.history.stats import player_record
from games.models import Match
from games.play.services import SeatSpec, match_create
from tests.accounts.players import client_for, make_player
from tests.games.factories import UserFactory

pytestmark = pytest.mark.django_db


def finished_match(
    variant: str, seated: Sequence[User | None], *, winner_side: int, imported: bool = False
) -> Match:
    """A match made by the services with ``seated`` in seats 0, 1, ..., then marked finished."""
    seats = [
        SeatSpec(name=user.username if user else f"computer{i}", user=user)
        for i, user in enumerate(seated)
    ]
    match = match_create(variant=variant, target=7, seats=seats, seed=7)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED,
        winner_side=winner_side,
        finished_at=timezone.now(),
        imported=imported,
    )
    return match


def test_record_counts_finished_matches_and_wins_by_side() -> None:
    roya = make_player("roya")
    others = UserFactory.create_batch(3)
    # hokm4: seats 0 and 2 are side 0, seats 1 and 3 side 1 (R1.4).
    finished_match("hokm4", [roya, others[0], None, others[1]], winner_side=0)  # won
    finished_match("hokm4", [others[0], None, roya, others[1]], winner_side=0)  # won, seat 2
    finished_match("hokm4", [others[0], roya, None, None], winner_side=0)  # lost, side 1
    finished_match("hokm4", [others[0], None, others[1], roya], winner_side=1)  # won, seat 3
    # hokm3 and hokm2: every seat is a side of its own.
    finished_match("hokm3", [others[0], others[1], roya], winner_side=2)  # won
    finished_match("hokm3", [roya, others[1], others[2]], winner_side=2)  # lost
    finished_match("hokm2", [others[0], roya], winner_side=0)  # lost
    finished_match("hokm2-draw", [others[0], roya], winner_side=1)  # won

    assert player_record(user=roya) == player_record(user=roya).__class__(played=8, won=5)
    assert player_record(user=roya).won_percent == 62


def test_unfinished_and_imported_matches_do_not_count() -> None:
    roya = make_player("roya")
    computer_seats: list[User | None] = [None, None, None]
    match_create(
        variant="hokm4",
        target=7,
        seats=[SeatSpec(name="roya", user=roya), *(SeatSpec(name=f"c{i}") for i in range(3))],
    )
    finished_match("hokm4", [roya, *computer_seats], winner_side=0, imported=True)
    abandoned = finished_match("hokm4", [roya, *computer_seats], winner_side=0)
    Match.objects.filter(pk=abandoned.pk).update(status=Match.Status.ABANDONED)

    record = player_record(user=roya)
    assert (record.played, record.won) == (0, 0)
    assert record.won_percent is None

    finished_match("hokm4", [roya, *computer_seats], winner_side=1)
    assert (player_record(user=roya).played, player_record(user=roya).won) == (1, 0)


def test_profile_page_shows_names_date_joined_and_record() -> None:
    roya = make_player("roya", display_name="Roya K.")
    finished_match("hokm2", [roya, None], winner_side=0)
    finished_match("hokm2", [roya, None], winner_side=1)

    response = Client().get(reverse("games:profile", args=["roya"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Roya K." in html
    assert "@roya" in html
    assert f"Playing since {date_format(roya.date_joined, 'DATE_FORMAT')}" in html
    assert response.context["stats"].record.played == 2
    assert response.context["stats"].record.won == 1
    assert "50%" in html


def test_profile_escapes_the_display_name() -> None:
    make_player("roya", display_name="<script>alert(1)</script>")

    html = Client().get(reverse("games:profile", args=["roya"])).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_profile_of_unknown_or_inactive_player_is_404() -> None:
    make_player("gone", is_active=False)

    assert Client().get(reverse("games:profile", args=["nobody"])).status_code == 404
    assert Client().get(reverse("games:profile", args=["gone"])).status_code == 404


def test_profile_address_in_another_letter_case_leads_to_the_profile() -> None:
    """Usernames are unique in any letter case, so "/players/sara_k/" can only mean Sara_K."""
    make_player("Sara_K")
    make_player("gone", is_active=False)

    response = Client().get("/players/sara_k/")

    assert response.status_code == 301
    assert response["Location"] == reverse("games:profile", args=["Sara_K"])
    assert Client().get("/players/GONE/").status_code == 404


def test_profile_in_persian_is_right_to_left() -> None:
    make_player("roya")

    html = Client().get("/players/roya/", HTTP_ACCEPT_LANGUAGE="fa").content.decode()

    assert 'dir="rtl"' in html
    assert "بازی‌ها" in html


def test_a_profile_answers_head_like_every_other_page():
    """HEAD (link previews, uptime checks) got 405 on a profile, the one page to refuse it:
    the view took GET only where the others take the safe methods."""
    sara = make_player("سارا", display_name="سارا جان")
    url = reverse("games:profile", args=[sara.username])
    get, head = Client().get(url), Client().head(url)
    assert (get.status_code, head.status_code) == (200, 200)
    assert head.content == b""
    assert head["Content-Type"] == get["Content-Type"]


def test_head_on_an_unknown_player_is_404_and_post_stays_refused():
    assert Client().head(reverse("games:profile", args=["nobody"])).status_code == 404
    make_player("bahar")
    assert Client().post(reverse("games:profile", args=["bahar"])).status_code == 405


def test_settings_need_login() -> None:
    response = Client().get(reverse("accounts:settings"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_settings_change_the_display_name() -> None:
    roya = make_player("roya")
    client = client_for(roya)

    page = client.get(reverse("accounts:settings"))
    assert page.status_code == 200
    response = client.post(reverse("accounts:settings"), {"display_name": "  Roya   Karimi "})

    assert response.status_code == 302
    roya.refresh_from_db()
    assert roya.display_name == "Roya Karimi"
    # The header shows the name the player chose.
    assert "Roya Karimi" in client.get("/").content.decode()


def test_settings_refuse_a_staff_display_name() -> None:
    roya = make_player("roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:settings"), {"display_name": "Moderator"})

    assert response.status_code == 400
    assert "This name is kept for staff" in response.content.decode()
    roya.refresh_from_db()
    assert roya.display_name == ""


@pytest.mark.parametrize("name", ["Roya\x07Karimi", "\x01\x02", "Roya\x1b[31m", "Ro\x7fya"])
def test_settings_refuse_a_display_name_with_control_characters(name: str) -> None:
    """A bell or an escape draws nothing: a name of them alone would look empty at a table (as
    table names refuse them); the spaces among them are squeezed, the rest refused."""
    roya = make_player("roya")
    client = client_for(roya)

    response = client.post(reverse("accounts:settings"), {"display_name": name})

    assert response.status_code == 400
    assert "invisible characters" in response.content.decode()
    roya.refresh_from_db()
    assert roya.display_name == ""


def _zed_beside(username: str, display_name: str) -> tuple[User, Client]:
    """Zed, signed in, and another player ``username`` who goes by ``display_name``."""
    make_player(username, display_name=display_name)
    zed = make_player("zed")
    client = client_for(zed)
    return zed, client


@pytest.mark.parametrize(
    "name",
    [
        "alice",
        "ALICE",
        "Alice Rahimi",
        "alice rahimi",
        # Letters of another script that look the same pass for alice as well as her own do.
        "\u0410lice",  # Cyrillic capital A
        "\u0430lice",  # Cyrillic small a
        "\uff21\uff2c\uff29\uff23\uff25",  # fullwidth ALICE
        "Alice Rahim\u0456",  # Cyrillic small Byelorussian-Ukrainian I
        "\u0391lice Rahimi",  # Greek capital alpha
    ],
)
def test_settings_refuse_a_name_another_player_goes_by(name: str) -> None:
    """At a table only display names show: zed may not pass for alice, by her username or the
    name she chose, in any case or with look-alike letters."""
    zed, client = _zed_beside("alice", "Alice Rahimi")

    response = client.post(reverse("accounts:settings"), {"display_name": name})

    assert response.status_code == 400
    assert "Another player goes by that name" in response.content.decode()
    zed.refresh_from_db()
    assert zed.display_name == ""


def test_settings_refuse_a_persian_name_typed_with_arabic_letters() -> None:
    """An Arabic keyboard layout types yeh and kaf that look like the Persian ones."""
    zed, client = _zed_beside("kamran", "\u06a9\u0627\u0645\u06cc\u0627\u0631")  # کامیار

    look_alike = "\u0643\u0627\u0645\u064a\u0627\u0631"  # كاميار
    response = client.post(reverse("accounts:settings"), {"display_name": look_alike})

    assert response.status_code == 400
    zed.refresh_from_db()
    assert zed.display_name == ""


@pytest.mark.parametrize("name", ["Alicia", "Alice Rahim", "Alice Rahimi 2", "Малика"])
def test_settings_accept_a_name_that_only_resembles_another(name: str) -> None:
    zed, client = _zed_beside("alice", "Alice Rahimi")

    assert client.post(reverse("accounts:settings"), {"display_name": name}).status_code == 302
    zed.refresh_from_db()
    assert zed.display_name == name


def test_a_player_may_take_his_own_username_as_display_name() -> None:
    roya = make_player("roya")
    client = client_for(roya)
    assert client.post(reverse("accounts:settings"), {"display_name": "Roya"}).status_code == 302
    roya.refresh_from_db()
    assert roya.display_name == "Roya"


def test_settings_forms_are_csrf_protected() -> None:
    roya = make_player("roya")
    client = Client(enforce_csrf_checks=True)
    client.force_login(roya)

    response = client.post(reverse("accounts:settings"), {"display_name": "Roya"})

    assert response.status_code == 403
