"""Downloading a match's ``hokm-record/1`` file (games.history.views.match_record_download): only
once the match is over (R8.3), to whoever may see the match, with a useful file name."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest
from django.urls import reverse

from games.engine.record import check_record
from games.history.records import match_export_record, match_import_record
from games.history.selectors import record_file_names
from games.models import Match
from games.play.services import SeatSpec
from tests.games.factories import (
    COMPUTER,
    MatchFactory,
    TableFactory,
    UserFactory,
    match_play,
    seated_match,
)

pytestmark = pytest.mark.django_db


def url(match: Match) -> str:
    return reverse("games:match_record", kwargs={"match_id": match.pk})


def file_names(response) -> tuple[str, str]:
    """The plain and the UTF-8 file name of an attachment."""
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;")
    plain = re.search(r'filename="([^"]+)"', disposition).group(1)
    extended = re.search(r"filename\*=UTF-8''(\S+)", disposition).group(1)
    return plain, unquote(extended)


def test_a_finished_match_downloads_a_record_that_checks(client, people):
    match = seated_match(*people, target=3, rng_seed=2)
    client.force_login(people[1])
    response = client.get(url(match))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    document = json.loads(response.content)
    assert document["format"] == "hokm-record/1"
    assert document["players"] == ["ali", "sara", "reza", "mina"]
    verdict = check_record(document)
    assert verdict["valid"] is True and verdict["complete"] is True
    assert verdict["score"] == match.scores and verdict["winner"] == match.winner_side
    assert len(verdict["hands"]) == match.hands.count()


def test_the_file_is_named_after_variant_day_players_and_match(client, people):
    match = seated_match(*people, rng_seed=1)
    client.force_login(people[0])
    plain, extended = file_names(client.get(url(match)))
    day = match.created_at.date().isoformat()
    expected = f"hokm-hokm4-{day}-ali-sara-reza-mina-match{match.pk}.json"
    assert plain == extended == expected


def test_names_in_any_script_stay_in_the_utf8_file_name(client):
    ali, sara = UserFactory(username="ali", display_name="علی"), UserFactory(username="sara")
    # Seats carry the names shown at the table: a display name in Persian for the first player.
    seats = [SeatSpec(name="علی", user=ali), SeatSpec(name="sara", user=sara), SeatSpec(name="Bob")]
    match = MatchFactory(variant="hokm3", target=1, seats=seats, seed=11)
    match = match_play(match, rng_seed=11).match
    client.force_login(sara)
    response = client.get(url(match))
    plain, extended = file_names(response)
    day = match.created_at.date().isoformat()
    assert plain == f"hokm-hokm3-{day}-sara-bob-match{match.pk}.json"
    assert plain.isascii()
    assert extended == f"hokm-hokm3-{day}-علی-sara-bob-match{match.pk}.json"
    assert response["Content-Disposition"].isascii()


def test_file_name_of_odd_names():
    match = Match(pk=12, variant="hokm2-draw")
    match.created_at = match.created_at.replace(year=2025, month=3, day=1, hour=12)
    plain, extended = record_file_names(match=match, players=['Dr. "X" / Y', "  "])
    assert plain == extended == "hokm-hokm2-draw-2025-03-01-dr-x-y-match12.json"


def test_an_abandoned_match_downloads_too(client, people):
    finished = seated_match(*people, target=3, rng_seed=2)
    document = match_export_record(match=finished)
    document["hands"][-1]["tricks"] = document["hands"][-1]["tricks"][:3]
    importer = people[0]
    imported = match_import_record(document=document, imported_by=importer)
    assert imported.status == Match.Status.ABANDONED
    client.force_login(importer)
    response = client.get(url(imported))
    assert response.status_code == 200
    verdict = check_record(json.loads(response.content))
    assert verdict["valid"] is True and verdict["complete"] is False


def test_refused_while_the_match_is_being_played_R8_3(client, people):
    match = seated_match(*people, play=False)
    client.force_login(people[0])  # even to a player of the match
    response = client.get(url(match))
    assert response.status_code == 403
    assert "Content-Disposition" not in response
    html = response.content.decode()
    assert "can be downloaded when the match ends" in html
    # No card of the hand being played reaches the page (the refusal is the summary page).
    assert "data-card=" not in html


def test_refused_to_a_stranger_at_a_private_table(client, people):
    table = TableFactory(is_private=True, created_by=people[0])
    match = seated_match(*people, table=table, rng_seed=1)
    client.force_login(UserFactory(username="stranger"))
    assert client.get(url(match)).status_code == 404


def test_a_visitor_is_sent_to_sign_in_for_a_private_match(client, people):
    table = TableFactory(is_private=True, created_by=people[0])
    match = seated_match(*people, table=table, rng_seed=1)
    response = client.get(url(match))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_refused_to_anyone_but_its_importer(client, people):
    finished = seated_match(*people, rng_seed=1)
    imported = match_import_record(
        document=match_export_record(match=finished), imported_by=people[2]
    )
    client.force_login(people[0])
    assert client.get(url(imported)).status_code == 404
    client.force_login(people[2])
    assert client.get(url(imported)).status_code == 200


def test_a_public_finished_match_downloads_for_anyone(client, people):
    match = seated_match(people[0], COMPUTER, people[1], COMPUTER, table=TableFactory(), rng_seed=1)
    response = client.get(url(match))
    assert response.status_code == 200
    assert check_record(json.loads(response.content))["valid"] is True


def test_query_count_does_not_grow_with_hands(client, people, django_assert_num_queries):
    short = seated_match(*people, target=1, rng_seed=5)
    long = seated_match(*people, target=5, rng_seed=3)
    assert long.hands.count() > 3 * short.hands.count()
    client.force_login(people[0])
    # session, user, his sanctions, the match, "is he seated?", then the record: seats, hands,
    # plays
    with django_assert_num_queries(8):
        client.get(url(short))
    with django_assert_num_queries(8):
        client.get(url(long))
