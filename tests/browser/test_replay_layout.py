"""The replay on a phone, measured in a real Chromium (issue 22): the seat plates, their counts of
tricks, the cards of the trick with their players' names and the status line under them are drawn
apart, a trick half played and whole, in English and in Persian. Screenshots go to
tests/screenshots/layout/.
"""

from __future__ import annotations

import pytest

from .layout_helpers import OVERLAPS, TRICK_INDEX_COVERED, held_match, open_held, shot

pytestmark = pytest.mark.django_db(transaction=True)

BOARD = {
    "plate": ".rp-table .rp-plate",
    "tricks": ".rp-table .seat__tricks",
    "card": ".rp-table .trick .card",
    "who": ".rp-table .trick__who",
    "status": ".rp-table .rp-status > *",
    "hand": ".rp-table .rp-hand",
}
TOUCHING = [["plate", "tricks"], ["card", "who", "anywhere"]]


@pytest.mark.parametrize(
    ("size", "language", "steps", "cards"),
    [
        ("phone", "en", 6, 2),
        ("phone", "fa", 8, 4),
        ("narrow", "en", 8, 4),
        ("narrow", "fa", 7, 3),
    ],
)
def test_the_phone_replay_keeps_seats_counts_and_trick_apart(
    open_page, base_url, size, language, steps, cards
) -> None:
    """On a phone the replay's card across the table, with its player's name over it, touched
    that player's plate, and the side cards came close to the side plates and their counts."""
    match = held_match("hokm4", hakem=0, target=1, until=lambda state: state.is_over)
    page = open_held(open_page, base_url, size, language, f"/match/{match.pk}/replay/")
    for _ in range(steps):
        page.locator("[data-go=next-card]").click()
    assert page.locator(".rp-table .trick .card").count() == cards
    page.locator(".rp-table").scroll_into_view_if_needed()
    shot(page, f"replay-{size}-{language}-{cards}")
    assert page.evaluate(OVERLAPS, [BOARD, TOUCHING]) == []
    assert page.evaluate(TRICK_INDEX_COVERED) == []
