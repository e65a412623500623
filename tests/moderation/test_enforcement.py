"""What sanctions stop at once, over HTTP and in the services: signing in, staying signed in,
chatting, playing; a voided match leaves the statistics; a finished match calls the quitters'
play bans. Sanctions are written straight to the table here (``moderation.services`` has its own
tests); ``sanction_enforce`` is called as the moderation services call it after their commit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.tokens import token_create
from games.history.selectors import HistoryFilters, history_page
from games.history.stats import favourite_partner, player_record, recent_results
from games.lobby.services import (
    TableError,
    play_against_computer,
    table_join_seat,
    table_start,
)
from games.models import ComputerLevel, Match, MatchSeat, Seat, Table
from games.play.chat import ChatError, chat_post
from games.play.services import SeatSpec, match_create
from moderation.enforcement import sanction_enforce, sanction_until
from moderation.models import Sanction
from tests.accounts.players import PASSWORD, make_player
from tests.accounts.players import sanction_in_force as sanction
from tests.games.factories import api_match_start, match_play, open_table

pytestmark = pytest.mark.django_db


def log_in(client, user: User):
    return client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})


def test_the_end_of_a_sanction_names_its_time_zone(db) -> None:
    """ "8:40 p.m." alone says nothing to a player in another zone: the site's zone is named."""
    mute = sanction(make_player(), Sanction.Kind.MUTE, minutes=30)
    assert sanction_until(mute).endswith(" UTC")


# -- signing in and staying signed in ------------------------------------------------------------


def test_a_suspended_player_cannot_log_in_and_is_told_why_and_until_when(client) -> None:
    roya = make_player("roya")
    suspension = sanction(roya, Sanction.Kind.SUSPEND, minutes=90, reason="Insults at table 7")
    response = log_in(client, roya)
    assert response.status_code == 403
    html = response.content.decode()
    assert "Your account is suspended" in html
    assert "Insults at table 7" in html
    assert sanction_until(suspension) in html
    assert "_auth_user_id" not in client.session
    # The page's own links do not let him in either.
    assert client.get(reverse("games:lobby")).wsgi_request.user.is_anonymous


def test_a_banned_player_is_refused_until_further_notice(client) -> None:
    sina = make_player("sina")
    sanction(sina, Sanction.Kind.BAN, minutes=None, reason="Cheating with a partner")
    html = log_in(client, sina).content.decode()
    assert "Your account is banned until further notice: Cheating with a partner" in html
    assert "_auth_user_id" not in client.session


def test_an_ended_or_lifted_suspension_lets_the_player_in(client) -> None:
    roya = make_player("roya")
    ended = sanction(roya, Sanction.Kind.SUSPEND)
    Sanction.objects.filter(pk=ended.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    lifted = sanction(roya, Sanction.Kind.BAN, minutes=None)
    Sanction.objects.filter(pk=lifted.pk).update(lifted_at=timezone.now())
    sanction(roya, Sanction.Kind.MUTE)  # a mute does not keep anyone out
    response = log_in(client, roya)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(roya.pk)


def test_a_signed_in_player_is_signed_out_on_his_next_request_and_shown_why(client) -> None:
    roya = make_player("roya")
    client.force_login(roya)
    assert client.get(reverse("games:lobby")).status_code == 200
    suspension = sanction(roya, Sanction.Kind.SUSPEND, minutes=30, reason="Stalling on purpose")
    sanction_enforce(suspension)
    response = client.get(reverse("games:lobby"))
    assert response.status_code == 403
    html = response.content.decode()
    assert "Stalling on purpose" in html and sanction_until(suspension) in html
    assert "_auth_user_id" not in client.session
    # Signed out: the next page is a visitor's.
    assert client.get(reverse("games:lobby")).wsgi_request.user.is_anonymous


def test_other_sanctions_leave_a_signed_in_player_alone(client) -> None:
    roya = make_player("roya")
    client.force_login(roya)
    for kind in (Sanction.Kind.WARN, Sanction.Kind.MUTE, Sanction.Kind.PLAY_BAN):
        sanction_enforce(sanction(roya, kind))
    assert client.get(reverse("games:lobby")).status_code == 200
    assert client.session["_auth_user_id"] == str(roya.pk)


def test_a_suspended_player_stands_up_from_tables_waiting_for_players() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    own = open_table(roya)
    other = open_table(sina)
    table_join_seat(table=other, user=roya, seat_index=2)
    sanction_enforce(sanction(roya, Sanction.Kind.SUSPEND))
    assert not Seat.objects.filter(user=roya).exists()
    own.refresh_from_db()
    other.refresh_from_db()
    assert own.status == Table.Status.CLOSED  # nobody is left at it
    assert other.status == Table.Status.OPEN
    assert Seat.objects.filter(table=other, user=sina).exists()


# -- chat ----------------------------------------------------------------------------------------


def _two_player_match(users: list[User]) -> Match:
    return match_create(
        variant="hokm2",
        target=1,
        seed=3,
        seats=[SeatSpec(name=u.username, user=u) for u in users],
    )


def test_a_muted_player_is_refused_with_the_reason_and_the_end_then_chats_again() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    match = _two_player_match([roya, sina])
    mute = sanction(roya, Sanction.Kind.MUTE, minutes=15, reason="Shouting at everyone")
    with pytest.raises(ChatError) as refused:
        chat_post(match=match, user=roya, seat=0, text="hello")
    assert refused.value.code == "muted"
    assert "Shouting at everyone" in refused.value.message
    assert sanction_until(mute) in refused.value.message
    # Quick phrases too; the other player is not muted.
    with pytest.raises(ChatError, match="muted"):
        chat_post(match=match, user=roya, seat=0, phrase="hello")
    chat_post(match=match, user=sina, seat=1, text="hi")
    # The mute ends: he writes again.
    Sanction.objects.filter(pk=mute.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert chat_post(match=match, user=roya, seat=0, text="sorry").text == "sorry"


# -- play bans -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [Sanction.Kind.PLAY_BAN, Sanction.Kind.SUSPEND])
def test_a_play_banned_player_cannot_create_join_start_or_play_the_computer(kind) -> None:
    roya, sina = make_player("roya"), make_player("sina")
    table = open_table(sina)
    own = open_table(roya, fill_with_computer=True)
    ban = sanction(roya, kind, minutes=10, reason="Left 2 matches")
    until = sanction_until(ban)
    attempts = [
        lambda: open_table(roya),
        lambda: table_join_seat(table=table, user=roya, seat_index=1),
        lambda: table_start(table=own, user=roya),
        lambda: play_against_computer(user=roya),
    ]
    for attempt in attempts:
        with pytest.raises(TableError) as refused:
            attempt()
        assert until in refused.value.message and "Left 2 matches" in refused.value.message
    if kind == Sanction.Kind.PLAY_BAN:
        assert "You may not play until" in refused.value.message
    assert not MatchSeat.objects.filter(user=roya).exists()
    # Once it ends he plays again.
    Sanction.objects.filter(pk=ban.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert table_join_seat(table=table, user=roya, seat_index=1) is None


def test_the_api_refuses_to_start_a_match_for_a_play_banned_player() -> None:
    roya = make_player("roya")
    _, raw = token_create(user=roya, name="bot")
    ban = sanction(roya, Sanction.Kind.PLAY_BAN, minutes=30, reason="Left a match")
    response = api_match_start(raw, {"variant": "hokm2"})
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "play_banned"
    assert sanction_until(ban) in error["message"] and "Left a match" in error["message"]
    assert not Match.objects.exists()


# -- statistics ----------------------------------------------------------------------------------


def test_a_voided_match_disappears_from_the_statistics_and_has_no_result_in_my_games() -> None:
    roya, sina = make_player("roya"), make_player("sina")
    seats = [roya, None, sina, None]
    for seed in (1, 2):
        match = match_create(
            variant="hokm4",
            target=1,
            seed=seed,
            seats=[
                SeatSpec(name=u.username, user=u)
                if u
                else SeatSpec(name=f"c{i}", computer_level=ComputerLevel.MEDIUM)
                for i, u in enumerate(seats)
            ],
        )
        match_play(match, rng_seed=seed)
    assert player_record(user=roya).played == 2
    assert favourite_partner(user=roya).played == 2
    assert len(recent_results(user=roya)) == 2

    Match.objects.filter(pk=match.pk).update(voided=True)
    assert player_record(user=roya).played == 1
    assert favourite_partner(user=roya).played == 1
    assert len(recent_results(user=roya)) == 1
    # "My games" still lists it, without a result, and a result filter leaves it out.
    rows = history_page(user=roya, filters=HistoryFilters()).rows
    voided = [row for row in rows if row.match.pk == match.pk]
    assert len(rows) == 2 and voided[0].result is None
    won = history_page(user=roya, filters=HistoryFilters(result="won")).rows
    lost = history_page(user=roya, filters=HistoryFilters(result="lost")).rows
    assert match.pk not in {row.match.pk for row in won + lost}
    assert len(won + lost) == 1


# -- the quitters' hook --------------------------------------------------------------------------


def test_a_finished_match_calls_the_quitters_play_bans_once_after_commit(
    monkeypatch, django_capture_on_commit_callbacks
) -> None:
    import moderation.services

    calls: list[int] = []
    monkeypatch.setattr(
        moderation.services, "quitters_penalise", lambda *, match_id: calls.append(match_id)
    )
    roya, sina = make_player("roya"), make_player("sina")
    match = _two_player_match([roya, sina])
    with django_capture_on_commit_callbacks(execute=True):
        played = match_play(match, rng_seed=4)
        assert calls == []  # not before the commit
    assert played.match.status == Match.Status.FINISHED
    assert calls == [match.pk]
