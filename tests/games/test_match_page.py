"""The live match page (games.play.views): who may see it, as which seat, and what it holds."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import reverse

from games.engine import view
from games.models import Match
from games.play.rendering import render_table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec
from tests.games.factories import MatchFactory, TableFactory, UserFactory, match_play
from tests.games.rendered_cards import without_public_draw

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [UserFactory() for _ in range(4)]


def _match(players, *, allow_spectators=True, table=True, variant="hokm4", private=False) -> Match:
    seats = [SeatSpec(name=f"{user.username}-seat", user=user) for user in players]
    kwargs = {"variant": variant, "seats": seats}
    if table:
        kwargs["table"] = TableFactory(
            variant=variant, allow_spectators=allow_spectators, is_private=private
        )
    match = MatchFactory(**kwargs)
    # Into the tricks, so that hands are dealt and a trick is on the table.
    match_play(match, rng_seed=1, until=lambda s: len(s.hand.tricks) >= 1 and s.hand.current)
    return Match.objects.get(pk=match.pk)


def _url(match: Match) -> str:
    return reverse("games:match", kwargs={"match_id": match.pk})


def _shown_cards(html: str) -> set[str]:
    # The first-Hakem flips are public (R2.2) and drawn from their own shuffle (R2.6).
    return set(re.findall(r'data-card="([2-9TJQKA][SHDC])"', without_public_draw(html)))


def test_seated_player_sees_his_own_seat_R8_3(client, players):
    match = _match(players)
    state = match_state_build(match=match)
    for seat, user in enumerate(players):
        client.force_login(user)
        response = client.get(_url(match))
        assert response.status_code == 200
        html = response.content.decode()
        assert f'data-seat="{seat}"' in re.search(r'<div id="table"[^>]*>', html).group(0)
        own = set(view(state.hand, seat)["hand"])
        played = {card.text for card in state.hand.played}
        assert own <= _shown_cards(html)
        assert _shown_cards(html) <= own | played


def test_page_embeds_the_fragment_inside_the_socket(client, players):
    match = _match(players)
    client.force_login(players[2])
    html = client.get(_url(match)).content.decode()
    assert f'ws-connect="/ws/match/{match.pk}/"' in html
    assert 'hx-ext="ws"' in html
    wrapper = html.index(f'ws-connect="/ws/match/{match.pk}/"')
    table = html.index('<div id="table" hx-swap-oob="true"')
    assert wrapper < table
    fragment = render_table(
        match=match,
        seats=list(match.seats.order_by("index")),
        state=match_state_build(match=match),
        seat=2,
    )
    assert fragment in html
    assert "js/match.js" in html and "hx-ws-2" in html


def test_spectator_sees_no_hand_when_the_table_allows_R8_3(client, players):
    match = _match(players, allow_spectators=True)
    client.force_login(UserFactory())
    response = client.get(_url(match))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="hand' not in html
    assert "You are watching this match." in html
    assert _shown_cards(html) <= {c.text for c in match_state_build(match=match).hand.played}


def test_anonymous_spectator_allowed_when_the_table_allows(client, players):
    match = _match(players, allow_spectators=True)
    response = client.get(_url(match))
    assert response.status_code == 200
    assert "data-seat=" not in re.search(r'<div id="table"[^>]*>', response.content.decode())[0]


def test_spectator_refused_when_the_table_says_no(client, players):
    match = _match(players, allow_spectators=False)
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 403


def test_anonymous_goes_to_login_when_spectators_are_refused(client, players):
    match = _match(players, allow_spectators=False)
    response = client.get(_url(match))
    assert response.status_code == 302
    assert response["Location"] == f"{resolve_url(settings.LOGIN_URL)}?next={_url(match)}"


def test_seated_player_plays_even_when_spectators_are_refused(client, players):
    match = _match(players, allow_spectators=False)
    client.force_login(players[1])
    assert client.get(_url(match)).status_code == 200


def test_private_table_match_needs_its_invite_link_to_watch(client, players):
    match = _match(players, private=True)
    assert client.get(_url(match)).status_code == 302  # anonymous: sign in first
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404  # a stranger who guessed the id
    invite = reverse("games:table_invite", kwargs={"code": match.table.invite_code})
    client.get(invite)  # opening the invite link lets this browser watch
    assert client.get(_url(match)).status_code == 200


def test_an_imported_match_is_its_importers_only(client, players):
    importer = UserFactory()
    match = _match(players, table=False)
    Match.objects.filter(pk=match.pk).update(imported=True, imported_by=importer)
    assert client.get(_url(match)).status_code == 302  # to sign in
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404
    client.force_login(importer)
    assert client.get(_url(match)).status_code == 200


def test_a_match_whose_table_was_deleted_is_its_players_only(client, players):
    match = _match(players, private=True, allow_spectators=False)
    match.table.delete()
    client.force_login(UserFactory())
    assert client.get(_url(match)).status_code == 404
    client.force_login(players[1])
    assert client.get(_url(match)).status_code == 200


def test_unknown_match_is_404(client):
    assert client.get(reverse("games:match", kwargs={"match_id": 999999})).status_code == 404


def test_page_only_reads(client, players):
    match = _match(players)
    client.force_login(players[0])
    assert client.post(_url(match)).status_code == 405


def test_page_query_count_is_pinned(client, players, django_assert_num_queries):
    # Session, user, his sanctions (moderation.middleware), match with its table, seats, hands, the
    # current hand's plays, who is connected (R8.2), the chat.
    match = _match(players)
    client.force_login(players[0])
    with django_assert_num_queries(9):
        assert client.get(_url(match)).status_code == 200
    client.logout()
    with django_assert_num_queries(6):
        assert client.get(_url(match)).status_code == 200


def test_page_query_count_does_not_grow_with_the_match(client, players, django_assert_num_queries):
    seats = [SeatSpec(name=user.username, user=user) for user in players]
    match = MatchFactory(variant="hokm4", seats=seats, table=TableFactory())
    match_play(match, rng_seed=2, until=lambda s: s.hand_number >= 2 and len(s.hand.tricks) >= 3)
    client.force_login(players[3])
    with django_assert_num_queries(9):
        assert client.get(_url(match)).status_code == 200
