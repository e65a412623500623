"""Resigning a match (issue 22): the resigning side loses at once (R7.1's match is decided by
the resignation, R8's platform rules say who may), ratings count it as a loss, the record stays
valid but incomplete, and every page and socket says how the match ended."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from games.engine import IllegalActionError
from games.engine.record import check_record
from games.history.records import match_export_record
from games.models import Match, MatchEvent, MatchSeat, RatingChange
from games.play.services import (
    ResignRefusedError,
    match_resign,
    match_seat_leave,
    resign_allowed,
    resign_winner,
)
from games.ratings.services import match_outcome_of, ratings_rebuild
from moderation.models import Sanction
from tests.accounts.players import client_for
from tests.games.factories import COMPUTER, UserFactory, seated_match
from tests.live.match_sockets import CLOSE_WAIT, connect, frame_of_type, receive_html
from tests.ratings.matches import rated_match_create


def stored(match: Match) -> tuple:
    """What a refused resignation must leave as it was."""
    match.refresh_from_db()
    events = MatchEvent.objects.filter(match=match).count()
    return (match.status, match.version, match.winner_side, match.ended_by, events)


# -- the service -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_resigning_against_the_computer_loses_the_match_at_once_R8(people):
    ali = people[0]
    match = seated_match(ali, COMPUTER, COMPUTER, COMPUTER, target=7, play=False)
    version = match.version

    match_resign(match=match, seat=0)

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert (match.ended_by, match.resigned_seat) == ("resign", 0)
    assert match.winner_side == 1  # seats 1 and 3, his partner at seat 2 loses with him (R1.4)
    assert match.finished_at is not None
    assert match.step_at is None
    assert match.version == version + 1
    event = MatchEvent.objects.get(match=match, version=match.version)
    assert event.kind == "resign"
    assert event.data == {"seat": 0, "scores": [0, 0], "match_winner": 1}
    # Resigning is not leaving: no play ban for it (moderation bans those who leave, issue 6).
    assert MatchSeat.objects.get(match=match, index=0).status == MatchSeat.Status.PLAYING
    assert not Sanction.objects.filter(user=ali).exists()


@pytest.mark.parametrize(
    ("scores", "seat", "winner"),
    [
        ([0, 3, 5], 0, 2),  # the opponent with more points
        ([4, 3, 1], 0, 1),  # the resigning seat's own points do not count
        ([2, 2, 2], 0, 1),  # level: the first after the resigning seat in play order (R1.3)
        ([2, 2, 2], 2, 0),
        ([5, 1, 1], 0, 1),
    ],
)
def test_in_hokm3_the_leading_opponent_wins_a_resignation_R7_1(scores, seat, winner):
    assert resign_winner(variant="hokm3", scores=scores, seat=seat) == winner


@pytest.mark.parametrize(("variant", "seat", "winner"), [("hokm2", 1, 0), ("hokm4", 3, 0)])
def test_with_two_sides_the_other_side_wins_a_resignation_R7_1(variant, seat, winner):
    assert resign_winner(variant=variant, scores=[0, 6], seat=seat) == winner


@pytest.mark.django_db
def test_who_may_resign_a_person_alone_on_his_side_or_with_a_computer_partner_R8(people):
    ali, sara, reza, _ = people
    with_computer = seated_match(ali, sara, COMPUTER, reza, play=False)
    seats = list(with_computer.seats.order_by("index"))
    # Ali's partner (seat 2) is the computer; Sara's (seat 3) is Reza, a person.
    assert resign_allowed(variant="hokm4", seats=seats, seat=0)
    assert not resign_allowed(variant="hokm4", seats=seats, seat=1)
    three = seated_match(ali, sara, reza, variant="hokm3", play=False)
    assert all(
        resign_allowed(variant="hokm3", seats=list(three.seats.all()), seat=seat)
        for seat in range(3)
    )


@pytest.mark.django_db
def test_resigning_with_a_person_as_partner_is_refused_and_changes_nothing_R8(people):
    ali, sara, reza, mina = people
    match = seated_match(ali, sara, reza, mina, play=False)
    before = stored(match)

    with pytest.raises(ResignRefusedError) as refused:
        match_resign(match=match, seat=1)

    assert refused.value.code == "resign_not_allowed"
    assert "leave" in refused.value.message
    assert stored(match) == before


@pytest.mark.django_db
def test_a_computer_seat_cannot_resign_R8(people):
    match = seated_match(people[0], COMPUTER, play=False, variant="hokm2")
    before = stored(match)

    with pytest.raises(IllegalActionError, match="not a person's"):
        match_resign(match=match, seat=1)
    with pytest.raises(IllegalActionError):
        match_resign(match=match, seat=7)

    assert stored(match) == before


@pytest.mark.django_db
def test_resigning_twice_is_refused_with_a_clear_error_and_changes_nothing_R8(people):
    match = seated_match(people[0], COMPUTER, play=False, variant="hokm2")
    match_resign(match=match, seat=0)
    before = stored(match)

    with pytest.raises(ResignRefusedError) as refused:
        match_resign(match=match, seat=0)

    assert refused.value.code == "match_over"
    assert refused.value.message == "you resigned already: the match is over"
    assert stored(match) == before


@pytest.mark.django_db
def test_resigning_after_the_end_is_refused_and_changes_nothing_R7_1(people):
    match = seated_match(people[0], COMPUTER, variant="hokm2", target=1)  # played to its end
    before = stored(match)
    assert before[0] == Match.Status.FINISHED

    with pytest.raises(ResignRefusedError) as refused:
        match_resign(match=match, seat=0)

    assert (refused.value.code, refused.value.message) == ("match_over", "the match is over")
    assert stored(match) == before


@pytest.mark.django_db
def test_a_resigned_match_has_a_valid_incomplete_record(people):
    """RECORD.md: the hand being played when he resigned is not finished, so the record is
    valid and ``complete`` is false; nothing in it says who won."""
    match = seated_match(people[0], COMPUTER, COMPUTER, COMPUTER, target=7, play=False)
    match_resign(match=match, seat=0)

    verdict = check_record(json.loads(json.dumps(match_export_record(match=match))))

    assert verdict["valid"] is True
    assert verdict["complete"] is False
    assert verdict["winner"] is None


# -- ratings -----------------------------------------------------------------------------------


def rating_of(user, variant: str) -> int:
    return user.ratings.get(variant=variant).rating


@pytest.mark.django_db
def test_a_rated_resignation_is_a_loss_for_the_resigner_and_a_win_for_the_other_R8():
    arash, bahar = UserFactory(), UserFactory()
    match = rated_match_create("hokm2", [arash, bahar])

    match_resign(match=match, seat=1)

    changes = {c.seat: c for c in RatingChange.objects.filter(match=match)}
    assert (changes[0].won, changes[1].won) == (True, False)
    assert changes[0].rating_after > changes[0].rating_before
    assert changes[1].rating_after < changes[1].rating_before
    event = MatchEvent.objects.get(match=match, kind="resign")
    assert [(r["seat"], r["after"]) for r in event.data["ratings"]] == [
        (0, rating_of(arash, "hokm2")),
        (1, rating_of(bahar, "hokm2")),
    ]


@pytest.mark.django_db
def test_in_hokm3_a_rated_resigner_is_placed_last_whatever_his_points_R8():
    """He leads the loser who did not resign on points, yet ranks below him."""
    players = [UserFactory(), UserFactory(), UserFactory()]
    match = rated_match_create("hokm3", players)
    Match.objects.filter(pk=match.pk).update(scores=[0, 4, 1])

    match_resign(match=match, seat=1)

    match.refresh_from_db()
    assert match.winner_side == 2  # his leading opponent: 1 point against seat 0's none
    outcome = match_outcome_of(match, list(match.seats.order_by("index")))
    assert outcome.ranks == (2, 3, 1)
    changes = {c.seat: c for c in RatingChange.objects.filter(match=match)}
    assert [changes[s].won for s in range(3)] == [False, False, True]
    # From equal ratings: the resigner loses rating, and ends below the one he led on points.
    assert changes[1].rating_after < changes[1].rating_before
    assert changes[1].rating_after < changes[0].rating_after < changes[2].rating_after
    # The rebuild replays the resignation the same way.
    assert ratings_rebuild(write=False).ratings_differing == []


# -- the socket, and what the pages show ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_resign_over_the_socket_ends_the_match_for_every_socket_R8():
    ali = await database_sync_to_async(UserFactory)(username="ali")
    watcher = await database_sync_to_async(UserFactory)()
    match = await database_sync_to_async(seated_match)(
        ali, COMPUTER, COMPUTER, variant="hokm3", target=7, play=False
    )
    await database_sync_to_async(_public)(match)
    player = await connect(ali, match.pk)
    spectator = await connect(watcher, match.pk)
    page = await connect(ali, match.pk, api=False)
    await frame_of_type(player, "state")
    await frame_of_type(spectator, "state")

    # A spectator has no seat to resign.
    await spectator.send_to(text_data='{"type": "resign"}')
    refused = await frame_of_type(spectator, "error")
    assert refused["data"]["code"] == "not_seated"

    await player.send_to(text_data='{"type": "resign"}')
    for client in (player, spectator):
        frame = await frame_of_type(client, "event")
        assert frame["data"]["event"]["kind"] == "resign"
        assert frame["data"]["event"]["seat"] == 0
        assert frame["data"]["status"] == "finished"
        assert frame["data"]["ended_by"] == "resign"
        assert frame["data"]["resigned_seat"] == 0
        assert frame["data"]["match_winner"] == 1
    html = await receive_html(page, 'id="match-ending"')
    assert 'hx-swap-oob="true"' in html
    assert "You resigned" in html
    assert "You lose the match" in html
    # The table no longer offers to leave or resign.
    assert 'data-seat-form="resign"' not in html
    assert 'data-seat-form="leave"' not in html

    # Twice: refused, with its reason, and nothing changes.
    version = (await database_sync_to_async(Match.objects.get)(pk=match.pk)).version
    await player.send_to(text_data='{"type": "resign"}')
    again = await frame_of_type(player, "error")
    assert again["data"]["code"] == "match_over"
    assert again["data"]["message"] == "you resigned already: the match is over"
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).version == version
    for client in (player, spectator, page):
        await client.disconnect(timeout=CLOSE_WAIT)


def _public(match: Match) -> None:
    assert match.table is not None
    match.table.is_private = False
    match.table.allow_spectators = True
    match.table.save(update_fields=["is_private", "allow_spectators"])


@pytest.mark.django_db(transaction=True)
async def test_resign_refused_with_a_person_as_partner_says_so_on_the_page_R8():
    users = [await database_sync_to_async(UserFactory)() for _ in range(4)]
    match = await database_sync_to_async(seated_match)(*users, play=False)
    page = await connect(users[0], match.pk, api=False)
    await receive_html(page, 'id="table"')

    await page.send_to(text_data='{"type": "resign"}')

    flash = await receive_html(page, "flash__text")
    assert "Leave the match instead" in flash
    status = (await database_sync_to_async(Match.objects.get)(pk=match.pk)).status
    assert status == Match.Status.PLAYING
    await page.disconnect(timeout=CLOSE_WAIT)


@pytest.mark.django_db
def test_the_table_offers_resign_only_where_it_is_allowed_R8(people):
    ali, sara, reza, mina = people
    alone = seated_match(ali, COMPUTER, variant="hokm2", play=False)
    partner = seated_match(sara, reza, mina, UserFactory(), play=False)

    page = client_for(ali).get(reverse("games:match", args=[alone.pk])).content.decode()
    assert 'data-seat-form="resign"' in page
    assert 'data-seat-form="leave"' in page
    # The confirm dialog, outside the table, asks first; no browser confirm().
    assert 'id="confirm-dialog"' in page
    assert 'data-question="resign"' in page
    assert "window.confirm" not in page

    page = client_for(sara).get(reverse("games:match", args=[partner.pk])).content.decode()
    assert 'data-seat-form="resign"' not in page
    assert 'data-seat-form="leave"' in page


@pytest.mark.django_db
def test_pages_say_who_resigned_R8(people):
    ali, sara, reza, _ = people
    match = seated_match(ali, sara, reza, variant="hokm3", play=False)
    match_seat_leave(match=match, seat=2)  # nothing to do with the resignation
    match_resign(match=match, seat=1)

    mine = client_for(sara).get(reverse("games:match", args=[match.pk])).content.decode()
    theirs = client_for(ali).get(reverse("games:match", args=[match.pk])).content.decode()
    assert "You resigned" in mine
    assert "sara resigned" in theirs
    assert 'id="match-ending"' in theirs

    summary = client_for(ali).get(reverse("games:match_summary", args=[match.pk]))
    text = summary.content.decode()
    assert "Resigned" in text
    assert "sara</bdi> resigned: the match ended there." in text

    history = client_for(sara).get(reverse("games:my_games")).content.decode()
    assert "You resigned" in history
    assert "result-badge--lost" in history
    history = client_for(ali).get(reverse("games:my_games")).content.decode()
    assert "Resigned" in history
    assert "result-badge--playing" not in history
