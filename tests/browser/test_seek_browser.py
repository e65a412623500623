"""Four people, each in a browser of their own (one on a phone), press "Play rated now" for Hokm
with four players in the lobby: the first three wait, watching the time and the range of ratings
grow; the fourth completes the group, which his own seek pairs at once, and all four land at one
rated match with the partners balanced by rating."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Match, MatchSeat, Rating, Seek

from .helpers import log_in, verified_user, wait_match_live

pytestmark = pytest.mark.django_db(transaction=True)

#: Within one window (100) of each other, so the group forms as soon as the fourth asks; the
#: balanced split is 1540 + 1460 against 1520 + 1480.
RATINGS = {"kaveh": 1540, "leila": 1520, "nima": 1480, "parisa": 1460}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}


def _seek(page: Page) -> None:
    """Choose Hokm for four and the 60 s clock in the live seek panel, and press the button."""
    panel = page.locator("#seek-panel")
    # The form comes over the lobby's socket: once it is there, the socket is open.
    expect(panel.locator("form[ws-send]")).to_be_visible()
    panel.locator("input[name=variant][value=hokm4]").check()
    panel.locator("input[name=clock][value='60']").check()
    panel.get_by_role("button", name="Play rated now").click()


def test_four_people_press_play_rated_now_and_land_at_one_match(open_page, screenshot) -> None:
    pages: dict[str, Page] = {}
    for name, rating in RATINGS.items():
        user = verified_user(name)
        Rating.objects.create(user=user, variant="hokm4", mu=25, sigma=2, rating=rating, games=20)
        page = open_page(**PHONE) if name == "parisa" else open_page()
        log_in(page, name)  # the lobby, where the seek panel is
        pages[name] = page

    first = pages["kaveh"]
    screenshot(first, "1-lobby")
    for name in ("kaveh", "leila", "nima"):
        _seek(pages[name])
        waiting = pages[name].locator("#seek-panel .seek-wait")
        expect(waiting).to_contain_text("Looking for players: Hokm, four players, 60 s per turn")
        expect(waiting.get_by_role("button", name="Cancel")).to_be_visible()
    assert Seek.objects.count() == 3
    # The page counts the wait, and the range widens with it (10 points a second).
    expect(first.locator("[data-seek-elapsed]")).not_to_have_text("0:00")
    low = int(first.locator("[data-seek-low]").inner_text())
    assert low < RATINGS["kaveh"] - 100, low
    screenshot(first, "2-waiting")

    parisa = pages["parisa"]
    expect(parisa.locator("#seek-panel form[ws-send]")).to_be_visible()
    screenshot(parisa, "3-phone-seek-form")
    _seek(parisa)

    match_ids = {name: wait_match_live(page) for name, page in pages.items()}
    assert len(set(match_ids.values())) == 1, match_ids
    match = Match.objects.get(pk=match_ids["parisa"])
    assert match.rated and match.clock_seconds == 60 and match.variant == "hokm4"
    seats = dict(MatchSeat.objects.filter(match=match).values_list("index", "user__username"))
    team_a = {seats[0], seats[2]}
    team_b = {seats[1], seats[3]}
    assert sum(RATINGS[n] for n in team_a) == sum(RATINGS[n] for n in team_b) == 3000
    assert team_a in ({"kaveh", "parisa"}, {"leila", "nima"})
    assert not Seek.objects.exists()
    expect(parisa).to_have_url(re.compile(rf"/match/{match.pk}/$"))
    screenshot(parisa, "4-phone-at-the-match")
