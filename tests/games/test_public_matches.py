"""A public table's match, once over, is anyone's to see, signed out too, as a finished lichess game
is (issue 22): its live page, summary, replay and record, and a player's list of public games. A
private table's match stays its players', an imported one its importer's, and a match in play
keeps the spectators' rules (games.play.access). Its cards: R8.3."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from games.history.records import match_export_record, match_import_record
from games.models import Match
from games.play.access import match_public, match_viewable
from games.play.chat import chat_post
from games.play.selectors import match_state_build
from games.play.services import match_resign
from tests.games.factories import TableFactory, UserFactory, match_play, seated_match
from tests.games.rendered_cards import without_public_draw
from tests.live.match_sockets import connect, frame_of_type

PAGES = ["games:match", "games:match_summary", "games:replay", "games:match_record"]


def _url(name: str, match: Match) -> str:
    return reverse(name, kwargs={"match_id": match.pk})


def _finished(people, **table) -> Match:
    return seated_match(*people, table=TableFactory(**table))


def _in_play(people, **table) -> Match:
    return seated_match(*people, table=TableFactory(**table), play=False)


def _sent_to_sign_in(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith(reverse("account_login"))


# -- the rule ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("spectators", [True, False])
def test_the_public_finished_match_is_reachable_signed_out(client, people, spectators):
    match = _finished(people, allow_spectators=spectators)
    for name in PAGES:
        response = client.get(_url(name, match))
        assert response.status_code == 200, name
    record = client.get(_url("games:match_record", match))
    assert record["Content-Disposition"].startswith("attachment;")
    assert json.loads(record.content)["format"] == "hokm-record/1"


@pytest.mark.django_db
def test_a_private_finished_match_is_not_reachable_signed_out(client, people):
    match = _finished(people, is_private=True, created_by=people[0])
    for name in PAGES:
        assert _sent_to_sign_in(client.get(_url(name, match))), name


@pytest.mark.django_db
def test_a_private_finished_match_is_not_found_by_a_stranger_but_opens_for_its_players(
    client, people
):
    match = _finished(people, is_private=True, created_by=people[0])
    client.force_login(UserFactory(username="stranger"))
    for name in PAGES:
        assert client.get(_url(name, match)).status_code == 404, name
    client.force_login(people[2])
    for name in PAGES:
        assert client.get(_url(name, match)).status_code == 200, name


@pytest.mark.django_db
def test_a_public_finished_match_opens_for_another_signed_in_player(client, people):
    match = _finished(people, allow_spectators=False)
    client.force_login(UserFactory(username="stranger"))
    for name in PAGES:
        assert client.get(_url(name, match)).status_code == 200, name


@pytest.mark.django_db
def test_an_abandoned_public_match_is_public_too(client, people):
    match = _in_play(people, allow_spectators=False)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABANDONED)
    for name in PAGES:
        assert client.get(_url(name, match)).status_code == 200, name


@pytest.mark.django_db
def test_a_match_in_play_keeps_the_spectators_rules(client, people):
    match = _in_play(people, allow_spectators=False)
    assert not match_public(match)
    response = client.get(_url("games:match", match))
    assert _sent_to_sign_in(response)
    client.force_login(UserFactory(username="stranger"))
    assert client.get(_url("games:match", match)).status_code == 403
    for name in ("games:match_summary", "games:replay", "games:match_record"):
        assert client.get(_url(name, match)).status_code == 404, name


@pytest.mark.django_db
def test_an_imported_match_stays_its_importer_s(client, people):
    finished = _finished(people)
    importer = UserFactory(username="archivist")
    imported = match_import_record(
        document=match_export_record(match=finished), imported_by=importer
    )
    assert not match_public(imported)
    for name in ("games:match_summary", "games:replay", "games:match_record"):
        assert _sent_to_sign_in(client.get(_url(name, imported))), name
    client.force_login(people[0])
    assert client.get(_url("games:replay", imported)).status_code == 404
    client.force_login(importer)
    assert client.get(_url("games:replay", imported)).status_code == 200


@pytest.mark.django_db
def test_a_match_whose_table_was_deleted_stays_its_players(people):
    match = _finished(people)
    match.table.delete()
    match.refresh_from_db()
    assert not match_public(match)
    assert not match_viewable(match=match, user=AnonymousUser())
    assert match_viewable(match=match, user=people[1])


# -- what a stranger sees of it (R8.3) -----------------------------------------------------------


@pytest.mark.django_db
def test_the_finished_match_page_shows_a_stranger_no_hand_R8_3(client, people):
    match = _in_play(people, allow_spectators=False)
    match_play(match, rng_seed=1, until=lambda s: len(s.hand.tricks) >= 2 and s.hand.current)
    # Ended mid-hand (abandoned): the replay shows that hand face up; the live page no more
    # than a spectator's view, which holds no hand.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABANDONED)
    html = client.get(_url("games:match", match)).content.decode()
    assert 'class="hand' not in html
    shown = set(re.findall(r'data-card="([2-9TJQKA][SHDC])"', without_public_draw(html)))
    assert shown <= {card.text for card in match_state_build(match=match).hand.played}


@pytest.mark.django_db
def test_the_chat_of_a_table_without_spectators_stays_its_players(client, people):
    match = _in_play(people, allow_spectators=False)
    chat_post(match=match, user=people[0], seat=0, text="just between us")
    match_play(match, rng_seed=3)
    assert "just between us" not in client.get(_url("games:match", match)).content.decode()
    client.force_login(people[1])
    assert "just between us" in client.get(_url("games:match", match)).content.decode()


@pytest.mark.django_db
def test_the_chat_of_a_table_with_spectators_is_read_as_it_was(client, people):
    match = _in_play(people, allow_spectators=True)
    chat_post(match=match, user=people[0], seat=0, text="hello watchers")
    match_play(match, rng_seed=3)
    assert "hello watchers" in client.get(_url("games:match", match)).content.decode()


# -- the share button ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["games:match_summary", "games:replay"])
def test_a_public_finished_match_offers_to_share_it(client, people, name):
    html = client.get(_url(name, _finished(people))).content.decode()
    assert "data-share-button" in html
    assert "js/share.js" in html
    assert 'aria-live="polite"' in html


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["games:match_summary", "games:replay"])
def test_no_share_button_for_a_private_match_or_one_in_play(client, people, name):
    client.force_login(people[0])
    private = _finished(people, is_private=True, created_by=people[0])
    assert "data-share-button" not in client.get(_url(name, private)).content.decode()
    playing = _in_play(people)
    assert "data-share-button" not in client.get(_url(name, playing)).content.decode()


@pytest.mark.django_db
def test_the_finished_match_page_knows_it_may_be_shared(client, people):
    assert client.get(_url("games:match", _finished(people))).context["shareable"] is True
    assert client.get(_url("games:match", _in_play(people))).context["shareable"] is False


# -- a player's public games ---------------------------------------------------------------------


def _games_url(user) -> str:
    return reverse("games:player_games", kwargs={"username": user.username})


@pytest.mark.django_db
def test_a_player_s_public_games_are_listed_for_anyone(client, people):
    public = _finished(people, allow_spectators=False)
    private = _finished(people, is_private=True, created_by=people[0])
    playing = _in_play(people)
    imported = match_import_record(
        document=match_export_record(match=public), imported_by=people[1]
    )
    response = client.get(_games_url(people[1]))
    assert response.status_code == 200
    listed = [row.match.pk for row in response.context["history"].rows]
    assert listed == [public.pk]
    html = response.content.decode()
    assert _url("games:replay", public) in html and _url("games:match_summary", public) in html
    for hidden in (private, playing, imported):
        assert _url("games:replay", hidden) not in html
    assert "Sign in to play" in html


@pytest.mark.django_db
def test_a_player_s_public_games_are_seen_from_his_seat(client, people):
    match = _finished(people)
    row = client.get(_games_url(people[1])).context["history"].rows[0]
    assert row.seat == 1 and row.side == 1
    assert row.result == ("won" if match.winner_side == 1 else "lost")


@pytest.mark.django_db
def test_a_player_s_public_games_say_who_resigned_R8(client, people):
    match = seated_match(*people[:3], variant="hokm3", table=TableFactory(), play=False)
    match_resign(match=match, seat=1)
    assert '<span class="history-mark history-mark--resigned"><bdi>sara</bdi> resigned</span>' in (
        client.get(_games_url(people[1])).content.decode()
    )
    assert '<span class="history-mark history-mark--resigned">Resigned</span>' in (
        client.get(_games_url(people[0])).content.decode()
    )


@pytest.mark.django_db
def test_a_player_s_public_games_follow_his_name_and_refuse_unknown_ones(client, people):
    response = client.get(reverse("games:player_games", kwargs={"username": "SARA"}))
    assert response.status_code == 301 and response["Location"] == _games_url(people[1])
    missing = reverse("games:player_games", kwargs={"username": "nobody"})
    assert client.get(missing).status_code == 404


@pytest.mark.django_db
def test_the_player_s_own_public_games_point_to_my_games(client, people):
    client.force_login(people[0])
    html = client.get(_games_url(people[0])).content.decode()
    assert reverse("games:my_games") in html


# -- the socket of the finished match's page -----------------------------------------------------


async def _visitor_socket(*, spectators: bool, chat: str) -> tuple[dict, dict]:
    """The first state and the chat history a signed-out visitor's socket gets from a finished
    public match whose first player wrote ``chat`` while it was played."""

    def finished() -> Match:
        people = [UserFactory() for _ in range(4)]
        match = _in_play(people, allow_spectators=spectators)
        chat_post(match=match, user=people[0], seat=0, text=chat)
        match_play(match, rng_seed=3)
        return match

    match = await database_sync_to_async(finished)()
    socket = await connect(AnonymousUser(), match.pk)
    state = await frame_of_type(socket, "state")
    history = await frame_of_type(socket, "chat_history")
    await socket.disconnect()
    return state, history


@pytest.mark.django_db(transaction=True)
async def test_a_signed_out_visitor_s_socket_watches_a_finished_public_match():
    state, _ = await _visitor_socket(spectators=False, chat="gg")
    assert state["data"]["seat"] is None
    assert state["data"]["status"] == Match.Status.FINISHED


@pytest.mark.django_db(transaction=True)
async def test_a_visitor_s_socket_reads_no_chat_of_a_table_without_spectators():
    _, history = await _visitor_socket(spectators=False, chat="just between us")
    assert history["data"]["messages"] == []
