"""The end of a match against the computer offers the same game again in one click: the banner's
"Play again" submits the match page's form to the quick start, with the variant, the computer
level and the target of the match just played (R7.1: the match ends at its target)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.engine import get_variant
from games.lobby.services import play_against_computer
from games.models import FairSeal, Match
from games.play.rendering import render_table
from games.play.selectors import match_state_build
from games.play.services import SeatSpec
from tests.accounts.players import client_for
from tests.games.factories import MatchFactory, UserFactory, match_play

pytestmark = pytest.mark.django_db

PLAY_AGAIN_BUTTON = re.compile(r'<button type="submit" form="play-again"[^>]*>Play again</button>')


def _page(user, match: Match) -> str:
    client = client_for(user)
    response = client.get(reverse("games:match", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _form_fields(page: str) -> dict[str, str]:
    start = page.index('<form id="play-again"')
    form = page[start : page.index("</form>", start)]
    assert f'action="{reverse("games:play_computer")}"' in form
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([\w-]+)">', form))
    assert fields.pop("csrfmiddlewaretoken")
    return fields


@pytest.mark.parametrize(("variant", "level"), [("hokm2", "hard"), ("hokm3", "easy")])
def test_match_against_the_computer_ends_with_play_again_R7_1(variant: str, level: str) -> None:
    user = UserFactory(username="shirin")
    match = play_against_computer(user=user, variant=variant, target=1, computer_level=level)
    assert PLAY_AGAIN_BUTTON.search(_page(user, match)) is None, "offered before the end"

    match_play(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    page = _page(user, match)
    assert PLAY_AGAIN_BUTTON.search(page), "no Play again at the end of the match"
    fields = _form_fields(page)
    # R8.4: the next match's first shuffles, sealed before it is asked for.
    commit = fields.pop("shuffle_commit")
    assert commit == FairSeal.objects.get(user=user).commit
    assert fields == {"variant": variant, "computer_level": level, "target": "1"}

    client = client_for(user)
    sent = fields | {"shuffle_commit": commit, "client_seed": "shirin's own"}
    response = client.post(reverse("games:play_computer"), sent)
    again = Match.objects.exclude(pk=match.pk).get(seats__user=user)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:match", args=[again.pk])
    assert (again.variant, again.target, again.status) == (variant, 1, Match.Status.PLAYING)
    assert {s.computer_level for s in again.seats.exclude(user=user)} == {level}
    first = again.hands.get(number=0).fair
    assert first["commit"] == commit
    assert first["client_seeds"] == ["shirin's own"] + [""] * (len(first["client_seeds"]) - 1)
    assert not FairSeal.objects.filter(user=user, seal__hand__commit=commit).exists(), "used up"


def test_match_between_people_offers_no_play_again() -> None:
    people = [UserFactory(username=name) for name in ("arash", "bahar")]
    match = MatchFactory(
        variant="hokm2", target=1, seats=[SeatSpec(name=p.username, user=p) for p in people]
    )
    match_play(match)
    page = _page(people[0], match)
    assert "Replay the match" in page, "the end-of-match banner is not shown"
    assert PLAY_AGAIN_BUTTON.search(page) is None
    assert 'id="play-again"' not in page


def test_spectator_of_a_computer_match_gets_no_play_again() -> None:
    """Only the player of the match is offered its game again; a spectator's table has no button
    (the form is not in his page either)."""
    user = UserFactory(username="dara")
    match = play_against_computer(user=user, variant="hokm2", target=1, computer_level="medium")
    match_play(match)
    match.refresh_from_db()
    state = match_state_build(match=match)
    seats = list(match.seats.order_by("index"))
    watched = render_table(match=match, seats=seats, state=state, seat=None)
    played = render_table(match=match, seats=seats, state=state, seat=0)
    assert get_variant("hokm2").players == len(seats)
    assert PLAY_AGAIN_BUTTON.search(played)
    assert PLAY_AGAIN_BUTTON.search(watched) is None
