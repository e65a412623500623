"""A match's summary page (games.history.views.match_summary): players by side, the final
score, the score after each hand and each hand's Hakem, trump, tricks, result and points; who may
see it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.engine import get_variant
from games.history.records import match_export_record, match_import_record
from games.history.selectors import match_summary_build
from games.models import Hand, Match
from tests.games.factories import (
    COMPUTER,
    TableFactory,
    UserFactory,
    engine_hand_search,
    match_play,
    seated_match,
)

pytestmark = pytest.mark.django_db


def url(match: Match) -> str:
    return reverse("games:match_summary", kwargs={"match_id": match.pk})


@pytest.fixture
def long_match(people):
    """A whole match to 7 points: many hands."""
    match = seated_match(*people, target=7, rng_seed=3)
    assert match.status == Match.Status.FINISHED and match.hands.count() > 5
    return match


def hand_rows(html: str) -> dict[int, str]:
    """Each hand's row of the running table, by its 1-based number."""
    rows = re.findall(r'<tr id="h(\d+)"[^>]*>(.*?)</tr>', html, re.S)
    return {int(number): row for number, row in rows}


def test_players_by_side_final_score_and_winner_R1_4(client, people, long_match):
    client.force_login(people[0])
    response = client.get(url(long_match))
    assert response.status_code == 200
    html = response.content.decode()
    summary = response.context["summary"]
    # Seats 0 and 2 against 1 and 3, the viewer's team first.
    assert [[p.name for p in side.players] for side in summary.sides] == [
        ["ali", "reza"],
        ["sara", "mina"],
    ]
    assert [side.score for side in summary.sides] == long_match.scores
    winner = summary.sides[long_match.winner_side]
    assert winner.winner and summary.winner == winner
    assert f"{winner.names.replace('&', '&amp;')}</bdi> won the match." in html
    assert "Hokm, four players" in html and "Playing to 7" in html
    assert "Final score" in html and "Finished" in html


def test_each_hand_hakem_trump_tricks_result_and_running_score(client, people, long_match):
    client.force_login(people[1])  # on side 1: the running table reads side 1 first
    html = client.get(url(long_match)).content.decode()
    rows = hand_rows(html)
    hands = list(Hand.objects.filter(match=long_match).order_by("number"))
    assert sorted(rows) == list(range(1, len(hands) + 1))
    variant = get_variant("hokm4")
    names = ["ali", "sara", "reza", "mina"]
    running = [0, 0]
    suit_names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    for hand in hands:
        row = rows[hand.number + 1]
        running[hand.winner_side] += hand.points
        tricks = [0, 0]
        for seat, count in enumerate(hand.tricks_won):
            tricks[variant.side_of(seat)] += count
        assert f"<bdi>{names[hand.hakem]}</bdi>" in row
        assert symbols[hand.trump] in row and suit_names[hand.trump] in row
        cells = re.findall(r'<span class="tally[^"]*">(.*?)</span></td>', row, re.S)
        numbers = [[int(n) for n in re.findall(r"<span>(\d+)</span>", cell)] for cell in cells]
        assert numbers == [[tricks[1], tricks[0]], [running[1], running[0]]]
        team = "Team A" if hand.winner_side == 0 else "Team B"
        assert team in row and f"+{hand.points} point" in row
        assert f'href="/match/{long_match.pk}/replay/#h{hand.number + 1}"' in row
    assert running == long_match.scores


def test_summary_selector_reads_the_stored_results(people, long_match):
    summary = match_summary_build(match=long_match, viewer=people[0])
    hands = list(Hand.objects.filter(match=long_match).order_by("number"))
    assert [line.number for line in summary.hands] == [h.number + 1 for h in hands]
    assert [line.anchor for line in summary.hands][:2] == ["h1", "h2"]
    assert summary.hands[-1].scores_after == long_match.scores
    for line, hand in zip(summary.hands, hands, strict=True):
        assert line.hakem.seat == hand.hakem
        assert line.trump.code == hand.trump
        assert line.points == hand.points and line.kot == hand.kot
        assert line.winner.index == hand.winner_side
        assert sum(line.tricks) == sum(hand.tricks_won)


@pytest.mark.parametrize(("hakem_kot", "label"), [(False, "Kot"), (True, "Hakem Kot")])
def test_kot_and_hakem_kot_are_marked_R5_2(client, people, hakem_kot, label):
    seed = engine_hand_search(
        "hokm4", lambda hand: hand.result.kot and hand.result.hakem_kot == hakem_kot
    )
    # The hand the engine found is the match's first: same seed for the deal and the moves.
    match = seated_match(*people, target=7, seed=seed, play=False)
    match_play(match, rng_seed=seed, until=lambda state: state.hand_number == 1)
    client.force_login(people[0])
    row = hand_rows(client.get(url(match)).content.decode())[1]
    badges = re.findall(r'<span class="kot-badge[^"]*">(.*?)</span>', row)
    assert badges == [label]
    assert f"+{3 if hakem_kot else 2} points" in row


def test_three_players_each_a_side_of_his_own(client, people):
    match = seated_match(people[0], people[1], COMPUTER, variant="hokm3", target=1, rng_seed=2)
    client.force_login(people[1])
    response = client.get(url(match))
    summary = response.context["summary"]
    assert [[p.name for p in side.players] for side in summary.sides] == [
        ["sara"],
        ["ali"],
        ["Medium bot 3"],
    ]
    assert [side.label for side in summary.sides] == ["sara", "ali", "Medium bot 3"]
    assert "(computer)" in response.content.decode()
    assert "Team A" not in response.content.decode()


# While the match is being played, and after.


def test_a_match_being_played_offers_its_table_not_its_record_R8_3(client, people):
    match = seated_match(*people, play=False)
    client.force_login(people[2])
    html = client.get(url(match)).content.decode()
    assert reverse("games:match_record", args=[match.pk]) not in html
    assert "The record can be downloaded when the match ends." in html
    assert f'href="/match/{match.pk}/"' in html and "Back to the table" in html
    assert "being played" in html


def test_a_finished_match_offers_its_record(client, people, long_match):
    client.force_login(people[3])
    html = client.get(url(long_match)).content.decode()
    assert f'href="{reverse("games:match_record", args=[long_match.pk])}" download' in html
    assert f'href="/match/{long_match.pk}/"' not in html


def test_a_spectator_is_offered_to_watch(client, people):
    match = seated_match(*people, play=False)
    client.force_login(UserFactory(username="watcher"))
    html = client.get(url(match)).content.decode()
    assert "Watch the live table" in html


def test_an_imported_match_says_by_whom(client, people, long_match):
    importer = UserFactory(username="archivist")
    imported = match_import_record(
        document=match_export_record(match=long_match), imported_by=importer
    )
    client.force_login(importer)
    html = client.get(url(imported)).content.decode()
    assert "Imported by <bdi>archivist</bdi>" in html
    assert "Back to the table" not in html and "Watch the live table" not in html
    assert len(hand_rows(html)) == long_match.hands.count()


# Who may see it: a match one may not see is answered 404, as if it did not exist; a visitor
# who is not signed in is sent to sign in first, as on the live page.


@pytest.fixture
def private_match(people):
    table = TableFactory(is_private=True, created_by=people[0])
    return seated_match(*people, table=table, play=False)


def test_a_player_sees_his_private_match(client, people, private_match):
    client.force_login(people[3])
    assert client.get(url(private_match)).status_code == 200


def test_a_stranger_is_refused_a_private_match(client, private_match):
    client.force_login(UserFactory(username="stranger"))
    assert client.get(url(private_match)).status_code == 404


def test_a_visitor_is_sent_to_sign_in_for_a_private_match(client, private_match):
    response = client.get(url(private_match))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert "next=" in response["Location"]


def test_the_invite_link_opens_a_private_match(client, private_match):
    client.force_login(UserFactory(username="guest"))
    client.get(reverse("games:table_invite", args=[private_match.table.invite_code]))
    assert client.get(url(private_match)).status_code == 200


def test_no_spectators_means_no_summary_for_strangers(client, people):
    table = TableFactory(allow_spectators=False)
    match = seated_match(*people, table=table, play=False)
    client.force_login(UserFactory(username="stranger"))
    assert client.get(url(match)).status_code == 404
    client.force_login(people[1])
    assert client.get(url(match)).status_code == 200


def test_an_imported_match_is_its_importers_alone(client, people, long_match):
    importer = UserFactory(username="archivist")
    imported = match_import_record(
        document=match_export_record(match=long_match), imported_by=importer
    )
    client.force_login(people[0])
    assert client.get(url(imported)).status_code == 404


def test_a_public_match_is_open_to_anyone(client, people):
    match = seated_match(*people, table=TableFactory(), play=False)
    assert client.get(url(match)).status_code == 200


def test_an_unknown_match_is_404(client, people):
    client.force_login(people[0])
    assert client.get("/match/999999/summary/").status_code == 404


# A fixed number of queries, whatever the number of hands.


def test_query_count_does_not_grow_with_hands(
    client, people, long_match, django_assert_num_queries
):
    short = seated_match(*people, target=1, rng_seed=5)
    assert short.hands.count() == 1
    client.force_login(people[0])
    # session, user, his sanctions (moderation.middleware), the match, "is he seated?"
    # (games.play.access), the seats, the hands
    with django_assert_num_queries(7):
        client.get(url(short))
    with django_assert_num_queries(7):
        response = client.get(url(long_match))
    assert len(hand_rows(response.content.decode())) == long_match.hands.count()


def test_a_voided_match_has_no_winner_and_says_why(client, people):
    match = seated_match(*people, rng_seed=1)
    assert match.status == Match.Status.FINISHED and match.winner_side is not None
    Match.objects.filter(pk=match.pk).update(voided=True)
    client.force_login(people[0])
    html = client.get(url(match)).content.decode()
    assert "A moderator voided this match" in html
    assert "won the match." not in html
    assert "score-side--winner" not in html and "Winner" not in html
