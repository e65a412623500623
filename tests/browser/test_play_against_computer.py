"""A new person signs up, confirms the address, and plays a whole hand against the computer, all by
clicking in Chromium."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from playwright.sync_api import expect

from games.models import CardPlay, MatchSeat
from games.play.rendering import seat_name

from .helpers import (
    TURN_OR_BANNER,
    confirmation_link,
    match_state,
    table_version,
    wait_match_live,
)

pytestmark = pytest.mark.django_db(transaction=True)

USERNAME = "dariush"
ADDRESS = "dariush@example.com"
PASSWORD = "Kh0sh-Bakht-2026"


#: The card has left the player's hand: the server took it and sent the table after it.
_CARD_TAKEN = """
  ([card, version]) => {
    const table = document.querySelector("#table");
    return table !== null && Number(table.dataset.version) > version
      && table.querySelector(`.hand button[data-card="${card}"]`) === null;
  }
"""


def test_signup_play_against_computer_whole_hand(
    open_page, screenshot, live_server_email_dir
) -> None:
    page = open_page()

    # Sign up: username, email, password twice.
    page.goto("/accounts/signup/")
    page.locator("main input[name=username]").fill(USERNAME)
    page.locator("main input[name=email]").fill(ADDRESS)
    page.locator("main input[name=password1]").fill(PASSWORD)
    page.locator("main input[name=password2]").fill(PASSWORD)
    screenshot(page, "1-signup")
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/accounts/confirm-email/$"))
    expect(page.locator("main")).to_contain_text("We have sent an email to you for verification")
    screenshot(page, "2-email-sent")
    assert not EmailAddress.objects.get(email=ADDRESS).verified

    # The link in the email, opened in the same browser, confirms as it opens: he is signed in.
    page.goto(confirmation_link(live_server_email_dir, ADDRESS))
    expect(page).to_have_url(re.compile(r"/lobby/$"))
    expect(page.locator(".site-header .nav-player")).to_have_text(USERNAME)
    assert EmailAddress.objects.get(email=ADDRESS).verified

    # The lobby: one click starts a four-player match against the computer, at the medium
    # level unless another is chosen.
    quick_start = page.locator("form[action$='/play/computer/']")
    expect(quick_start).to_be_visible()
    expect(quick_start.locator("input[name=computer_level]:checked")).to_have_value("medium")
    screenshot(page, "4-lobby")
    quick_start.locator("button[name=variant][value=hokm4]").click()
    match_id = wait_match_live(page)
    page.evaluate("() => { window.__hokm.holdOnBanner = true; }")
    table = page.locator("#table")
    expect(table).to_have_attribute("data-hand", "1")
    seat = MatchSeat.objects.get(match_id=match_id, user__username=USERNAME).index
    assert seat == 0
    scores = page.locator(".scoreboard .score__points strong")
    expect(scores).to_have_text(["0", "0"])
    hand = page.locator("#table .hand button[data-card]")

    # The trump call: his own if the draw made him the Hakem, else the computer Hakem's.
    match, state = match_state(match_id)
    hakem_badge = page.locator("#table .seat.is-you .seat-badge--hakem")
    if state.hand.hakem == seat:
        expect(hakem_badge).to_be_visible()
        expect(page.locator("#table .prompt")).to_contain_text("Call the hokm")
        expect(hand).to_have_count(5)  # the Hakem sees only his first five cards (R3.1)
        expect(page.locator("#table button[data-suit]")).to_have_count(4)
        screenshot(page, "5-call-trump")
        page.locator("#table button[data-suit='H']").click()
        expect(page.locator("#table .trump__name")).to_have_text("Hearts")
    else:
        expect(hakem_badge).to_have_count(0)
        expect(page.locator("#table button[data-suit]")).to_have_count(0)
        expect(page.locator("#table .trump")).not_to_have_class(re.compile(r"trump--none"))
        trump_suit = match_state(match_id)[1].hand.trump
        assert trump_suit is not None
        expect(page.locator("#table .trump")).to_have_class(
            re.compile(rf"trump--{trump_suit.value.lower()}\b")
        )
    expect(page.locator("#table .trump__name")).not_to_have_text("not called yet")

    # A whole hand: each time it is his turn, click a card he may play.
    played: list[str] = []
    while True:
        outcome = page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value()
        if outcome == "banner":
            break
        assert table.get_attribute("data-hand") == "1", "the hand ended without a banner"
        if played:
            # His previous card is in the last finished trick, which he can look at.
            expect(page.locator(f"#table .last-trick [data-card='{played[-1]}']")).to_have_count(1)
        else:
            screenshot(page, "6-first-turn")
            expect(hand).to_have_count(13)
        expect(page.locator("#table .status__turn.is-you")).to_be_visible()
        choice = page.locator("#table .hand button[data-card]:not([disabled])").first
        card = choice.get_attribute("data-card")
        version = table_version(page)
        choice.click()
        page.wait_for_function(_CARD_TAKEN, arg=[card, version])
        played.append(card)
        assert len(played) <= 13

    # The end of the hand, as the server decided it.
    banner = page.locator("#table .banner")
    expect(banner).to_be_visible()
    screenshot(page, "7-hand-end")
    match, state = match_state(match_id)
    result = state.results[0]
    assert 7 <= len(played) <= 13
    assert played == list(
        CardPlay.objects.filter(hand__match_id=match_id, hand__number=0, seat=seat)
        .order_by("trick__number")
        .values_list("card", flat=True)
    )
    # The banner names each side as the plates do: a computer by its level and seat.
    names = [
        seat_name(row) for row in MatchSeat.objects.filter(match_id=match_id).order_by("index")
    ]
    ours = result.winner == seat % 2
    if result.hakem_kot:
        title = "Hakem Kot!"
    elif result.kot:
        title = "Kot!"
    else:
        title = "You win the hand" if ours else "You lose the hand"
    expect(banner.locator(".banner__title")).to_have_text(title)
    winners = f"{names[result.winner]} & {names[result.winner + 2]}"
    plural = "point" if result.points == 1 else "points"
    how = "took the first 7 tricks" if result.kot else "take the hand"
    expect(banner.locator(".banner__detail")).to_have_text(
        f"{winners} {how}: {result.points} {plural}"
    )
    side_tricks = [result.tricks_won[s] + result.tricks_won[s + 2] for s in (0, 1)]
    assert max(side_tricks) == 7
    expect(banner.locator(".banner__tricks")).to_have_text(
        re.compile(rf"Tricks\s*{side_tricks[0]}\s*–\s*{side_tricks[1]}")
    )
    expect(banner).to_have_class(re.compile(r"\bis-yours\b" if ours else r"\bis-theirs\b"))
    expect(banner).to_contain_text("The next hand follows on its own.")
    if result.kot:
        expect(banner).to_have_class(re.compile(r"\bbanner--(hakem-)?kot\b"))
    # The match score moved by the hand's points, for the side that won it (his side first).
    expected_scores = [str(result.points), "0"] if ours else ["0", str(result.points)]
    expect(scores).to_have_text(expected_scores)
    assert match.scores == ([result.points, 0] if result.winner == 0 else [0, result.points])

    # The next hand follows on its own: the page, loaded again, is at hand 2 with the score kept.
    page.reload()
    wait_match_live(page)
    expect(table).to_have_attribute("data-hand", "2")
    expect(page.locator("#table .table-info")).to_contain_text("Hand 2")
    expect(scores).to_have_text(expected_scores)
    screenshot(page, "8-next-hand")
