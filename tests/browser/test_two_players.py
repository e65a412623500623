"""Two people, each in a browser of their own, at one two-player table: the lobby shows the new
table live, the second one sits down, both land on the match, and each sees the other's moves
without reloading, while neither page ever holds a card its player may not see."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, expect

from games.models import MatchSeat

from .helpers import (
    assert_not_reloaded,
    assert_page_shows_only_what_seat_may_see,
    hakem_draw_cards,
    leaked_cards,
    log_in,
    mark_page,
    match_state,
    page_html_without_draw,
    played_cards,
    table_version,
    verified_user,
    wait_match_live,
    wait_socket_open,
)

pytestmark = pytest.mark.django_db(transaction=True)

TABLE_NAME = "Arash and Bahar"

_NEWER_TABLE = """
  (version) => Number(document.querySelector("#table")?.dataset.version) > version
"""


@dataclass
class Player:
    name: str
    page: Page
    frames: list[str] = field(default_factory=list)  # every WebSocket frame the page received


@dataclass
class TwoPlayerMatch:
    match_id: int
    by_seat: dict[int, Player]


def _recording_frames(page: Page, frames: list[str]) -> None:
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framereceived",
            lambda payload: frames.append(payload if isinstance(payload, str) else repr(payload)),
        ),
    )


@pytest.fixture
def two_players_at_table(open_page, screenshot) -> TwoPlayerMatch:
    """Arash opens a public two-player table through the form; Bahar, on a phone-sized screen,
    sees it appear in her lobby, takes the free seat, and the match starts for both."""
    verified_user("arash")
    verified_user("bahar")
    arash = Player("arash", open_page())
    bahar = Player("bahar", open_page(viewport={"width": 390, "height": 844}, is_mobile=True))
    for player in (arash, bahar):
        _recording_frames(player.page, player.frames)
        log_in(player.page, player.name)

    # Bahar waits in the lobby, its socket open, while there is no table yet.
    wait_socket_open(bahar.page)
    tables = bahar.page.locator("#lobby-tables")
    expect(tables).to_contain_text("No open tables right now")
    mark_page(bahar.page)

    arash.page.goto("/tables/new/")
    arash.page.locator("select[name=variant]").select_option("hokm2")
    arash.page.locator("input[name=name]").fill(TABLE_NAME)
    # The longest clock a public table has (R8.1): on a loaded machine these tests take a while
    # between two moves, and a clock running out would play for the person the test is driving.
    arash.page.locator("select[name=turn_clock_seconds]").select_option("60")
    screenshot(arash.page, "1-create-table")
    arash.page.get_by_role("button", name="Open the table").click()
    expect(arash.page).to_have_url(re.compile(r"/tables/\d+/$"))
    expect(arash.page.locator("#table-seats")).to_contain_text("1 of 2 seated")
    expect(arash.page.locator("#table-seats .seat--you")).to_contain_text("arash")

    # The table appears in Bahar's lobby by itself.
    listed = tables.locator(".lobby-table", has_text=TABLE_NAME)
    expect(listed).to_be_visible()
    expect(listed).to_contain_text("1/2")
    expect(listed).to_contain_text("arash")
    assert_not_reloaded(bahar.page)
    screenshot(bahar.page, "2-lobby-live")

    listed.get_by_role("link", name="Take a seat").click()
    expect(bahar.page).to_have_url(re.compile(r"/tables/\d+/$"))
    expect(bahar.page.locator("#table-seats")).to_contain_text("arash")
    bahar.page.get_by_role("button", name="Sit here").click()

    # The last seat taken starts the match: both pages go there.
    match_id = wait_match_live(bahar.page)
    assert wait_match_live(arash.page) == match_id
    seats = dict(MatchSeat.objects.filter(match_id=match_id).values_list("user__username", "index"))
    assert sorted(seats.values()) == [0, 1]
    return TwoPlayerMatch(match_id, {seats["arash"]: arash, seats["bahar"]: bahar})


def _play_first_legal_card(player: Player) -> str:
    choice = player.page.locator("#table .hand button[data-card]:not([disabled])").first
    card = choice.get_attribute("data-card")
    version = table_version(player.page)
    choice.click()
    player.page.wait_for_function(_NEWER_TABLE, arg=version)
    return card


def test_two_players_at_one_table_see_each_others_moves(
    two_players_at_table: TwoPlayerMatch, screenshot: Callable
) -> None:
    match_id, by_seat = two_players_at_table.match_id, two_players_at_table.by_seat
    _, state = match_state(match_id)
    hakem, other = by_seat[state.hand.hakem], by_seat[1 - state.hand.hakem]
    for player in (hakem, other):
        mark_page(player.page)
        expect(player.page.locator("#table .seat-badge--hakem")).to_have_count(1)
        expect(player.page.locator("#table .trump__name")).to_have_text("not called yet")

    # Only the Hakem may call, from his first five cards; the other waits with no cards.
    expect(hakem.page.locator("#table button[data-suit]")).to_have_count(4)
    expect(hakem.page.locator("#table .hand button[data-card]")).to_have_count(5)
    expect(other.page.locator("#table button[data-suit]")).to_have_count(0)
    expect(other.page.locator("#table .hand button[data-card]")).to_have_count(0)
    expect(other.page.locator("#table .center")).to_contain_text(
        f"Hakem {hakem.name} is choosing the hokm"
    )
    screenshot(hakem.page, f"3-call-{hakem.name}")
    screenshot(other.page, f"3-waiting-{other.name}")

    # The Hakem calls spades: the other page shows it, and her cards, without a reload.
    hakem.page.locator("#table button[data-suit='S']").click()
    expect(other.page.locator("#table .trump")).to_have_class(re.compile(r"\btrump--s\b"))
    expect(other.page.locator("#table .trump__name")).to_have_text("Spades")
    expect(other.page.locator("#table .hand button[data-card]")).to_have_count(13)
    expect(hakem.page.locator("#table .trump__name")).to_have_text("Spades")
    expect(hakem.page.locator("#table .hand button[data-card]")).to_have_count(13)

    # The Hakem leads (R4.1); the other sees the card arrive in the middle of the table.
    _, state = match_state(match_id)
    assert state.hand.to_act == state.hand.hakem
    expect(hakem.page.locator("#table .status__turn.is-you")).to_have_text("Your lead")
    expect(other.page.locator("#table .status__turn")).to_have_text(f"{hakem.name} to play")
    led = _play_first_legal_card(hakem)
    seen = other.page.locator(f"#table .center .trick__card:has([data-card='{led}'])")
    expect(seen).to_be_visible()
    expect(seen.locator(".trick__who")).to_have_text(hakem.name)
    expect(other.page.locator("#table .status__turn.is-you")).to_have_text("Your turn")
    his_backs = other.page.locator(f"#table .seat[data-seat='{state.hand.hakem}'] .backs")
    expect(his_backs).to_have_attribute("aria-label", "12 cards in hand")
    screenshot(other.page, f"4-sees-lead-{other.name}")

    # Then she plays, and he sees her card beside his own.
    answered = _play_first_legal_card(other)
    seen = hakem.page.locator(f"#table .center .trick__card:has([data-card='{answered}'])")
    expect(seen).to_be_visible()
    expect(seen.locator(".trick__who")).to_have_text(other.name)
    expect(hakem.page.locator(f"#table .center [data-card='{led}']")).to_be_visible()
    expect(hakem.page.locator("#table .status__took")).to_be_visible()
    screenshot(hakem.page, f"5-sees-answer-{hakem.name}")

    _, state = match_state(match_id)
    assert [card.text for card in state.hand.tricks[0].cards] == [led, answered]
    for player in (hakem, other):
        assert_not_reloaded(player.page)
        expect(player.page.locator("#flash")).to_be_empty()


def test_hidden_cards_never_reach_the_page(two_players_at_table: TwoPlayerMatch) -> None:
    match_id, by_seat = two_players_at_table.match_id, two_players_at_table.by_seat

    def check_both() -> None:
        for seat, player in by_seat.items():
            assert_page_shows_only_what_seat_may_see(player.page, match_id, seat)

    # While the Hakem chooses: he holds his first five, she holds nothing.
    match, state = match_state(match_id)
    hakem = by_seat[state.hand.hakem]
    expect(hakem.page.locator("#table .hand button[data-card]")).to_have_count(5)
    check_both()

    hakem.page.locator("#table button[data-suit='D']").click()
    for player in by_seat.values():
        expect(player.page.locator("#table .trump__name")).to_have_text("Diamonds")
    check_both()

    # A few tricks, whoever is on turn playing a card he may; both pages looked at after each.
    for _ in range(6):
        _, state = match_state(match_id)
        _play_first_legal_card(by_seat[state.hand.to_act])
        check_both()
    match, state = match_state(match_id)
    assert len(state.hand.tricks) == 3 and state.hand.result is None

    # Nor did any WebSocket frame carry a card hidden from its page at the end (cards played
    # are public; a seat's own cards it holds; all others are hidden from it for the whole hand).
    draw = hakem_draw_cards(match)
    assert draw, "hand 1 has a Hakem draw"
    for seat, player in by_seat.items():
        tables = [frame for frame in player.frames if 'id="table"' in frame]
        assert len(tables) >= 8, f"seat {seat} received too few tables: {len(tables)}"
        hidden = set(state.hand.deck) - set(state.hand.holdings[seat]) - played_cards(state.hand)
        assert len(hidden) == 26 + 13 - 3
        for frame in tables:
            assert leaked_cards(page_html_without_draw(player.page, frame), hidden) == []
