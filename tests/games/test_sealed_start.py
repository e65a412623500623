"""A match's first shuffles are sealed before anyone is dealt (R8.4; RECORD.md, "Fair deals"):
the flips' and hand 0's commitments show on the page that starts the match (a table, the quick
start, the seek panel, ``GET /api/seal/``) before the players' pages send their seeds, and the
match deals from exactly those shuffles, each seat's seed in its place.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.tokens import token_create
from games.engine.record import check_record
from games.history.records import match_export_record
from games.lobby.seeks import seek_create
from games.lobby.services import (
    TableError,
    fair_seal_of,
    play_against_computer,
    table_client_seed,
    table_join_seat,
    table_start,
)
from games.models import FairSeal, Hand, Match, Seat, Table
from games.play import fairness
from tests.accounts.players import client_for, make_player
from tests.games.factories import UserFactory, api_match_start, match_play, open_table

pytestmark = pytest.mark.django_db

COMMIT_FIELD = re.compile(r'name="shuffle_commit" value="([0-9a-f]{64})"')


def _first(match: Match) -> tuple[dict, dict]:
    """The flips' block and hand 0's, as the match stores them."""
    match.refresh_from_db()
    return match.draw_fair, Hand.objects.get(match=match, number=0).fair


def _page_commits(client: Client, url: str) -> set[str]:
    page = client.get(url).content.decode()
    return set(COMMIT_FIELD.findall(page))


def test_a_table_seals_its_first_shuffles_when_it_opens_R8_4() -> None:
    table = open_table(variant="hokm2")
    seal = table.fair_start
    assert set(seal) == {"draw", "hand"}
    for block in seal.values():
        assert block["commit"] == fairness.commit_of(fairness.seed_from_hex(block["server_seed"]))
        assert block["client_seeds"] == ["", ""]
    assert seal["draw"]["server_seed"] != seal["hand"]["server_seed"]


def test_the_table_page_shows_the_commitment_and_never_the_seed_R8_4() -> None:
    table = open_table(variant="hokm2")
    for viewer in (client_for(table.created_by), Client()):
        page = viewer.get(reverse("games:table_detail", args=[table.pk])).content.decode()
        commit = table.fair_start["hand"]["commit"]
        assert commit[:12] in page, "the commitment is not shown"
        for block in table.fair_start.values():
            assert block["server_seed"] not in page


def test_the_seats_seeds_go_into_the_sealed_shuffles_the_match_deals_from_R8_4() -> None:
    creator, guest = make_player("roya"), make_player("kaveh")
    table = open_table(user=creator, variant="hokm2", target=1)
    commit = fairness.seal_commit(table.fair_start)
    # The creator's page answers at once (static/js/app.js); the guest's seed comes with his seat.
    answer = client_for(creator).post(
        reverse("games:table_seed", args=[table.pk]),
        {"shuffle_commit": commit, "client_seed": "roya's seed"},
    )
    assert answer.status_code == 204
    match = table_join_seat(
        table=table, user=guest, seat_index=1, commit=commit, client_seed="kaveh's seed"
    )
    assert match is not None
    draw, hand = _first(match)
    for block, sealed in ((draw, table.fair_start["draw"]), (hand, table.fair_start["hand"])):
        assert block["commit"] == sealed["commit"]
        assert block["server_seed"] == sealed["server_seed"]
        assert block["client_seeds"] == ["roya's seed", "kaveh's seed"]
    # Played out, the record's flips and first hand verify against the commitments shown.
    match_play(match)
    record = match_export_record(match=match)
    assert check_record(record)["valid"], check_record(record)
    assert record["hands"][0]["fair"]["commit"] == commit
    assert record["hakem_draw"]["fair"]["commit"] == table.fair_start["draw"]["commit"]


def test_a_stale_commitment_or_a_bad_seed_changes_nothing_R8_4() -> None:
    creator = make_player("roya")
    table = open_table(user=creator, variant="hokm2")
    commit = fairness.seal_commit(table.fair_start)
    url = reverse("games:table_seed", args=[table.pk])
    client = client_for(creator)
    for sent in (
        {"shuffle_commit": "0" * 64, "client_seed": "late"},
        {"shuffle_commit": commit, "client_seed": "a|b"},
        {"shuffle_commit": commit, "client_seed": "x" * 65},
    ):
        response = client.post(url, sent)
        assert response.status_code == 409, sent
        assert response.content.decode().strip()
        assert Seat.objects.get(table=table, index=0).client_seed == ""
    with pytest.raises(TableError):
        table_client_seed(table=table, user=make_player("nobody"), commit=commit, client_seed="x")


def test_a_player_who_moves_seat_keeps_his_seed_and_one_who_leaves_loses_it_R8_4() -> None:
    table = open_table(variant="hokm4")
    commit = fairness.seal_commit(table.fair_start)
    guest = make_player("kaveh")
    table_join_seat(table=table, user=guest, seat_index=1, commit=commit, client_seed="mine")
    table_join_seat(table=table, user=guest, seat_index=2)
    seats = {seat.index: seat.client_seed for seat in Seat.objects.filter(table=table)}
    assert seats[1] == "" and seats[2] == "mine"


def test_a_page_that_never_answered_adds_the_empty_string_R8_4() -> None:
    creator = make_player("roya")
    table = open_table(user=creator, variant="hokm3", fill_with_computer=True)
    match = table_start(table=table, user=creator)
    draw, hand = _first(match)
    assert hand["commit"] == fairness.seal_commit(table.fair_start)
    assert draw["client_seeds"] == hand["client_seeds"] == ["", "", ""]


def test_the_start_button_carries_the_creators_seed_R8_4() -> None:
    creator = make_player("roya")
    table = open_table(user=creator, variant="court-piece", fill_with_computer=True)
    commit = fairness.seal_commit(table.fair_start)
    match = table_start(table=table, user=creator, commit=commit, client_seed="roya")
    draw, hand = _first(match)
    assert draw["commit"] == table.fair_start["draw"]["commit"]
    assert hand["client_seeds"] == ["roya", "", "", ""]


def test_the_draw_for_partners_moves_each_seed_with_its_player_R8_4() -> None:
    people = [make_player(name) for name in ("a1", "b2", "c3", "d4")]
    table = open_table(user=people[0], variant="hokm4", partner_draw=True)
    commit = fairness.seal_commit(table.fair_start)
    seeds = [f"seed of {p.username}" for p in people]
    table_client_seed(table=table, user=people[0], commit=commit, client_seed=seeds[0])
    match = None
    for index, person in enumerate(people[1:], start=1):
        match = table_join_seat(
            table=table, user=person, seat_index=index, commit=commit, client_seed=seeds[index]
        )
    assert match is not None
    draw, hand = _first(match)
    assert draw["client_seeds"] == seeds, "the flips are dealt to the seats people sat in"
    by_seat = {seat.index: seat.user.username for seat in match.seats.select_related("user")}
    assert hand["client_seeds"] == [f"seed of {by_seat[i]}" for i in range(4)]


def test_the_quick_start_deals_from_the_seal_its_page_showed_R8_4() -> None:
    user = make_player("shirin")
    client = client_for(user)
    commits = _page_commits(client, reverse("games:lobby"))
    assert commits == {fair_seal_of(user=user).commit}
    (commit,) = commits
    response = client.post(
        reverse("games:play_computer"),
        {"variant": "hokm4", "shuffle_commit": commit, "client_seed": "from my page"},
    )
    assert response.status_code == 302
    match = Match.objects.get(seats__user=user)
    draw, hand = _first(match)
    assert hand["commit"] == commit
    assert hand["client_seeds"] == ["from my page", "", "", ""]
    assert draw["client_seeds"] == ["from my page", "", "", ""]
    # Used up: the next page shows a new seal.
    assert _page_commits(client, reverse("games:lobby")) - {commit}
    assert not FairSeal.objects.filter(seal__hand__commit=commit).exists()


def test_a_quick_start_with_another_seal_is_sealed_anew_without_its_seed_R8_4() -> None:
    user = make_player("shirin")
    mine = fair_seal_of(user=user).commit
    match = play_against_computer(
        user=user, variant="hokm2", commit="f" * 64, client_seed="chosen after the seal?"
    )
    _draw, hand = _first(match)
    assert hand["commit"] not in (mine, "f" * 64)
    assert hand["client_seeds"] == ["", ""], "a seed sent for another seal is not used"
    assert FairSeal.objects.get(user=user).commit == mine, "his own seal is still his"


def test_a_seal_sized_for_four_deals_a_two_player_game_R8_4() -> None:
    user = make_player("shirin")
    commit = fair_seal_of(user=user).commit
    match = play_against_computer(user=user, variant="hokm2", commit=commit, client_seed="s")
    draw, hand = _first(match)
    assert hand["commit"] == commit
    assert draw["client_seeds"] == hand["client_seeds"] == ["s", ""]


def test_a_program_gets_the_commitment_before_it_starts_a_match_R8_4() -> None:
    user = make_player("lale")
    _, raw = token_create(user=user, name="bot")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert Client().get("/api/seal/").status_code == 401
    sealed = Client().get("/api/seal/", **auth)
    assert sealed.status_code == 200
    shown = sealed.json()
    assert set(shown) == {"commit", "draw_commit"}
    assert "server_seed" not in sealed.content.decode()
    assert Client().get("/api/seal", **auth).json() == shown, "the same seal until it is used"
    assert Client().post("/api/seal/", **auth).status_code == 405

    response = api_match_start(
        raw, {"variant": "hokm3", "commit": shown["commit"], "client_seed": "bot seed"}
    )
    assert response.status_code == 201, response.content
    draw, hand = _first(Match.objects.get(pk=response.json()["match"]))
    assert (draw["commit"], hand["commit"]) == (shown["draw_commit"], shown["commit"])
    assert hand["client_seeds"] == ["bot seed", "", ""]

    for bad in ({"commit": 7}, {"client_seed": ["x"]}):
        refused = api_match_start(raw, {"variant": "hokm3", **bad})
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "bad_seed"


def test_a_bad_seed_on_the_quick_start_starts_nothing_R8_4() -> None:
    user = make_player("shirin")
    commit = fair_seal_of(user=user).commit
    with pytest.raises(TableError):
        play_against_computer(user=user, variant="hokm2", commit=commit, client_seed="a|b")
    assert not Table.objects.filter(created_by=user).exists()
    assert FairSeal.objects.get(user=user).commit == commit, "not used up by a refused start"


def test_a_seek_deals_from_the_oldest_seekers_seal_with_each_seekers_seed_R8_4() -> None:
    first, second = UserFactory(username="first"), UserFactory(username="second")
    sealed = fair_seal_of(user=first).seal
    assert (
        seek_create(
            user=first,
            variant="hokm2",
            clock_seconds=30,
            channel_name="test.first",
            commit=fairness.seal_commit(sealed),
            client_seed="first's",
        )
        is None
    )
    match = seek_create(
        user=second,
        variant="hokm2",
        clock_seconds=30,
        channel_name="test.second",
        commit=fair_seal_of(user=second).commit,
        client_seed="second's",
    )
    assert match is not None
    draw, hand = _first(match)
    assert (draw["commit"], hand["commit"]) == (sealed["draw"]["commit"], sealed["hand"]["commit"])
    by_seat = {s.index: s.user.username for s in match.seats.select_related("user")}
    expected = {"first": "first's", "second": "second's"}
    assert hand["client_seeds"] == [expected[by_seat[i]] for i in range(2)]
    assert not FairSeal.objects.filter(user=first).exists(), "the oldest seal is used up"


def test_staff_never_see_or_filter_on_a_sealed_shuffle_R8_4(admin_client) -> None:
    table = open_table(variant="hokm2")
    seeds = [block["server_seed"] for block in table.fair_start.values()]
    page = admin_client.get(reverse("admin:games_table_change", args=[table.pk]))
    assert page.status_code == 200
    assert not any(seed in page.content.decode() for seed in seeds)
    listing = reverse("admin:games_table_changelist")
    assert admin_client.get(listing, {"fair_start__contains": seeds[0][:2]}).status_code == 400

    seeker = UserFactory(username="seeker")
    commit = fair_seal_of(user=seeker).commit
    sealed = FairSeal.objects.get(user=seeker).seal
    seek_create(
        user=seeker,
        variant="hokm4",
        clock_seconds=30,
        channel_name="test.seeker",
        commit=commit,
        client_seed="mine",
    )
    seek = seeker.seek
    assert seek.fair_start == sealed
    page = admin_client.get(reverse("admin:games_seek_change", args=[seek.pk]))
    assert page.status_code == 200
    assert sealed["hand"]["server_seed"] not in page.content.decode()
    assert sealed["draw"]["server_seed"] not in page.content.decode()
    listing = reverse("admin:games_seek_changelist")
    assert admin_client.get(listing, {"fair_start__isnull": "False"}).status_code == 400
