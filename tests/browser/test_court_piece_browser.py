"""A person plays Court Piece against three computer players with hidden trump (``chosen``) and
Double Sir, all by clicking in Chromium, on a phone and on a desktop: he lays his indicator by
clicking one of his five cards and reads its suit as hidden ("Hearts, hidden"), plays his
cards, asks for trump in a deal another seat called when he cannot follow suit and sees it
revealed, is bound to trump,
watches the Double Sir pile grow, and sees each deal's banner.

The match is the lobby's one click against the computer, dealt from a seed that reaches those
moments (``court_piece_helpers.find_seed`` plays it out with the pure engine first). At each of
his turns the test reads the match from the database (nothing moves while he decides), checks the
page against it (his cards, the cards he may play, the trump box, the pile) and clicks what he
plays.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from games.engine import Card
from games.engine.actions import ChooseIndicator, PlayCard, RevealTrump
from games.engine.court_piece import CourtPieceDeal, DealOutcome, DealPhase, playable_cards
from games.models import MatchSeat
from games.play.rendering import seat_name

from .court_piece_helpers import (
    PERSON,
    TARGET,
    court_piece_against_computer,
    find_seed,
    person_action,
    suit_title,
    trump_box_text,
)
from .helpers import (
    TURN_OR_BANNER,
    log_in,
    match_state,
    table_version,
    verified_user,
    wait_match_live,
    wait_table_version,
)

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1366, "height": 657}},
}
#: What one viewport's run may take, the seed search and the log-in included.
BUDGET_SECONDS = 60

#: The card has left the player's hand: the server took it and sent the table after it.
_CARD_TAKEN = """
  ([card, version]) => {
    const table = document.querySelector("#table");
    return table !== null && Number(table.dataset.version) > version
      && table.querySelector(`.hand button[data-card="${card}"]`) === null;
  }
"""

#: The person's cards on the page: all of them, and those he may click now.
_HAND = """
  () => {
    const buttons = [...document.querySelectorAll("#table .hand button[data-card]")];
    return {
      all: buttons.map((b) => b.dataset.card).sort(),
      playable: buttons.filter((b) => !b.disabled).map((b) => b.dataset.card).sort(),
    };
  }
"""


def _texts(cards) -> list[str]:
    return sorted(card.text for card in cards)


def _hold_on_banner(page: Page) -> None:
    page.evaluate("() => { window.__hokm.holdOnBanner = true; }")


def _reload(page: Page) -> None:
    page.reload()
    wait_match_live(page)
    _hold_on_banner(page)


def _check_turn(page: Page, deal: CourtPieceDeal, hand_number: int) -> None:
    """The page at the person's turn shows the deal as the server holds it."""
    table = page.locator("#table")
    expect(table).to_have_attribute("data-hand", str(hand_number))
    shown = page.evaluate(_HAND)
    assert shown["all"] == _texts(deal.holdings[PERSON]), "his hand"
    if deal.phase is DealPhase.CALL:
        assert shown["playable"] == _texts(deal.first5), "he lays one of his first five"
        return
    assert shown["playable"] == _texts(playable_cards(deal)), "the cards he may play"
    expect(table.locator(".trump__name")).to_have_text(trump_box_text(deal))
    trump_box = table.locator(".trump")
    if deal.revealed:
        expect(trump_box).not_to_have_class(re.compile(r"\btrump--hidden\b"))
        expect(trump_box).to_have_class(re.compile(rf"\btrump--{deal.trump.value.lower()}\b"))
    else:
        expect(trump_box).to_have_class(re.compile(r"\btrump--hidden\b"))
    # The Double Sir pile: the tricks lying face down on the felt, counted.
    pile = table.locator(".felt > .pile")
    expect(pile).to_be_visible()
    expect(pile.locator(".pile__count")).to_have_text(str(len(deal.pile)))
    expect(pile.locator(".back--pile")).to_have_count(2 if deal.pile else 0)
    expect(table.locator(".status__turn.is-you")).to_be_visible()
    # Visible is not enough: nothing may lie over the count, the turn or the ask button.
    for selector in (".felt > .pile .pile__count", ".status__turn.is-you", ".reveal-button"):
        if table.locator(selector).count():
            assert _on_top(page, f"#table {selector}"), f"{selector} is covered"


_ON_TOP = """selector => {
    const element = document.querySelector(selector);
    const box = element.getBoundingClientRect();
    const points = [[0.5, 0.5], [0.2, 0.5], [0.8, 0.5]];
    return points.every(([x, y]) => {
        const found = document.elementFromPoint(box.left + box.width * x, box.top + box.height * y);
        return found !== null && (element.contains(found) || found.contains(element));
    });
}"""


def _on_top(page: Page, selector: str) -> bool:
    """Whether the element is what the page shows at its middle and both sides (scrolled to)."""
    page.locator(selector).scroll_into_view_if_needed()
    return page.evaluate(_ON_TOP, selector)


def _click_card(page: Page, card: Card) -> None:
    version = table_version(page)
    page.locator(f"#table .hand button[data-card='{card.text}']").click()
    page.wait_for_function(_CARD_TAKEN, arg=[card.text, version])


def _banner_title(summary, ours: bool) -> str:
    result = summary.result
    if summary.streak_court:
        return "Seven in a row!"
    if result.outcome is DealOutcome.FIFTY_TWO:
        return "52-court!"
    if result.outcome is DealOutcome.COURT:
        return "Goon court!" if result.goon else "Court!"
    return "You win the deal" if ours else "You lose the deal"


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_court_piece_hidden_trump_and_double_sir_by_clicking(
    open_page, screenshot, base_url, size
) -> None:
    started = time.monotonic()
    plan = find_seed()
    username = f"golnar-{size}"
    user = verified_user(username)
    match_id = court_piece_against_computer(user, plan.seed)
    shot = 0

    def take(name: str) -> None:
        nonlocal shot
        shot += 1
        screenshot(page, f"{size}-{shot:02d}-{name}")

    page = open_page(**SIZES[size])
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": base_url}])
    log_in(page, username)
    page.goto(f"/match/{match_id}/")
    wait_match_live(page)
    _hold_on_banner(page)
    table = page.locator("#table")
    expect(table.locator(".court-strip")).to_contain_text("Double Sir")
    expect(table.locator(".court-strip")).to_contain_text("Hidden trump")
    seats = list(MatchSeat.objects.filter(match_id=match_id).order_by("index"))
    assert seats[PERSON].user_id == user.pk
    names = [seat_name(row) for row in seats]

    laid_indicator = asked = pile_shot = False
    largest_pile = 0
    for deal_number in range(plan.deals):
        hand_number = deal_number + 1
        while True:
            outcome = page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value()
            match, state = match_state(match_id)
            if outcome == "banner":
                break
            # His turn: nothing moves until he plays, so the page must come to the stored match.
            wait_table_version(page, match.version)
            deal = state.deal
            assert len(state.summaries) == deal_number, "a deal ended without its banner"
            _check_turn(page, deal, hand_number)
            largest_pile = max(largest_pile, len(deal.pile))
            action = person_action(deal)

            if isinstance(action, ChooseIndicator):
                # He is the caller: he lays one of his five cards face down (R9.14.1).
                assert deal_number == plan.indicator_deal
                expect(table.locator(".seat.is-you .seat-badge--hakem")).to_have_text(
                    re.compile(r"Caller")
                )
                expect(table.locator(".prompt")).to_contain_text("Choose trump in secret")
                choices = table.locator(".hand button.is-indicator-choice:not([disabled])")
                expect(choices).to_have_count(5)
                take("choose-indicator")
                _click_card(page, action.card)
                expect(table.locator(".trump__name")).to_have_text(
                    f"{suit_title(action.card.suit, 'en')}, hidden"
                )
                expect(table.locator(".trump")).to_have_class(re.compile(r"\btrump--hidden\b"))
                # The rest is dealt (R9.4.1): 13 cards but the indicator, which is not in his
                # hand until the reveal (R9.14.3).
                expect(table.locator(".hand button[data-card]")).to_have_count(12)
                take("indicator-hidden")
                laid_indicator = True

            elif isinstance(action, RevealTrump):
                # Another seat called; he cannot follow the suit led, so he may ask (R9.14.2.1).
                assert deal_number == plan.ask_deal and deal.caller != PERSON
                assert deal.led_suit is not None
                assert all(card.suit != deal.led_suit for card in deal.holdings[PERSON])
                expect(table.locator(".trump__name")).to_have_text("hidden, face down")
                expect(table.locator(".trump .back--indicator")).to_be_visible()
                ask = table.locator("form.reveal-form button[data-reveal]")
                expect(ask).to_have_text("Ask for trump")
                expect(table.locator(".reveal-form")).to_contain_text("you must trump if you can")
                take("ask-for-trump")
                version = table_version(page)
                ask.click()
                page.wait_for_function(
                    "(v) => Number(document.querySelector('#table')?.dataset.version) > v",
                    arg=version,
                )
                match, state = match_state(match_id)
                wait_table_version(page, match.version)
                deal = state.deal
                assert deal.reveal is not None and deal.reveal.seat == PERSON
                assert deal.must_trump == PERSON
                trump = deal.trump
                # The reveal: the suit in the box for everyone, the face-down card gone.
                expect(table.locator(".trump__name")).to_have_text(suit_title(trump))
                expect(table.locator(".trump")).not_to_contain_text("hidden")
                expect(table.locator(".trump")).not_to_have_class(re.compile(r"trump--hidden"))
                expect(table.locator(".trump")).to_have_class(
                    re.compile(rf"\btrump--{trump.value.lower()}\b")
                )
                expect(ask).to_have_count(0)
                # He must trump (R9.14.4): his trumps are the cards he may click, and only them.
                trumps = [card for card in deal.holdings[PERSON] if card.suit == trump]
                others = [card for card in deal.holdings[PERSON] if card.suit != trump]
                assert trumps and others
                shown = page.evaluate(_HAND)
                assert shown["playable"] == _texts(trumps)
                assert shown["all"] == _texts(deal.holdings[PERSON])
                for card in others:
                    expect(table.locator(f".hand button[data-card='{card.text}']")).to_be_disabled()
                take("must-trump")

                # The same table in Persian, right to left.
                page.context.add_cookies(
                    [{"name": "django_language", "value": "fa", "url": base_url}]
                )
                _reload(page)
                expect(page.locator("html")).to_have_attribute("lang", "fa")
                expect(page.locator("html")).to_have_attribute("dir", "rtl")
                expect(table.locator(".trump__name")).to_have_text(suit_title(trump, "fa"))
                assert page.evaluate(_HAND)["playable"] == _texts(trumps)
                take("must-trump-fa")
                page.context.add_cookies(
                    [{"name": "django_language", "value": "en", "url": base_url}]
                )
                _reload(page)
                expect(page.locator("html")).to_have_attribute("lang", "en")
                wait_table_version(page, match.version)
                _click_card(page, playable_cards(deal)[0])
                asked = True

            else:
                assert isinstance(action, PlayCard)
                if len(deal.pile) >= 3 and not pile_shot:
                    take("pile")
                    pile_shot = True
                _click_card(page, action.card)

        # The deal's end, as the server decided it (the table is held still on it).
        summary = state.summaries[deal_number]
        result = summary.result
        ours = result.winner == PERSON % 2
        banner = table.locator(".banner")
        expect(banner).to_be_visible()
        expect(table).to_have_attribute("data-hand", str(hand_number))
        expect(banner.locator(".banner__title")).to_have_text(_banner_title(summary, ours))
        winners = f"{names[result.winner]} & {names[result.winner + 2]}"
        if summary.courts:
            plural = "court" if summary.courts == 1 else "courts"
            detail = f"{winners} score {summary.courts} {plural}"
        else:
            detail = f"{winners} took 7 tricks: no court this deal"
        expect(banner.locator(".banner__detail")).to_have_text(detail)
        side_tricks = result.side_tricks
        expect(banner.locator(".banner__tricks")).to_have_text(
            re.compile(rf"Tricks\s*{side_tricks[0]}\s*–\s*{side_tricks[1]}")
        )
        expect(banner).to_have_class(re.compile(r"\bis-yours\b" if ours else r"\bis-theirs\b"))
        if result.outcome is not DealOutcome.WON:
            expect(banner).to_have_class(re.compile(r"\bbanner--(hakem-)?kot\b"))
        expect(banner).to_contain_text("The next deal follows on its own.")
        scores = [str(score) for score in summary.scores]
        expect(table.locator(".scoreboard .score__points strong")).to_have_text(scores)
        expect(table.locator(".scoreboard .score__target").first).to_have_text(f"/{TARGET}")
        take(f"deal-{hand_number}-banner")

        if deal_number + 1 < plan.deals:
            # On to the next deal: let the page take updates again and load it afresh.
            page.evaluate(
                "() => { window.__hokm.hold = false; window.__hokm.holdOnBanner = false; }"
            )
            page.reload()
            wait_match_live(page)
            expect(table).to_have_attribute("data-hand", str(hand_number + 1))
            _hold_on_banner(page)

    assert laid_indicator and asked
    assert largest_pile >= 2, "the Double Sir pile never held more than one trick"
    took = time.monotonic() - started
    assert took < BUDGET_SECONDS, f"{size}: {took:.0f} s"
