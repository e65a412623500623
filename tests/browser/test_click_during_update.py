"""A card pressed while the table is being redrawn is still played.

Every state the server sends redraws the whole table (``#table`` is swapped out of band). A click
is a press and a release on the same element; when a message lands between the two, the press was
on a card that is no longer in the page and the release on its new copy, and the browser sends no
click: the player saw his card go down under his finger and nothing happened. The page holds the
server's messages back while a button is down on the table, and shows them once it is released.

The message that arrives mid-click is made here by hand, so that it lands exactly between the
press and the release: the page's own socket is given again the last table it received (as when
someone's connection changes the presence marks, R8.1), through the socket's own message event.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    TURN_OR_BANNER,
    hokm2_against_computer,
    match_state,
    played_cards,
)

pytestmark = pytest.mark.django_db(transaction=True)

# Keeps the page's sockets and the last table each one brought, to send it again on request.
SOCKET_PROBE = """
(() => {
  const Native = window.WebSocket;
  const sockets = [];
  function Recording(url, protocols) {
    const socket = new Native(url, protocols);
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string" && event.data.includes('id="table"')) {
        socket.__lastTable = event.data;
      }
    });
    sockets.push(socket);
    return socket;
  }
  Recording.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach((name) => {
    Recording[name] = Native[name];
  });
  window.WebSocket = Recording;
  window.__hokmRedraw = () => {
    const socket = sockets[sockets.length - 1];
    socket.dispatchEvent(new MessageEvent("message", { data: socket.__lastTable }));
  };
})();
"""


def _press_card_while_table_redrawn(page: Page) -> str:
    """Press the first playable card, let a table message arrive, release; the card's text."""
    # The table may still be redrawn by the server until the button is down (a presence
    # change): read where the card is again until it holds still long enough to be read.
    box = None
    while box is None:
        box = page.locator("#table .hand button[data-card]:not([disabled])").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 3
    page.mouse.move(x, y)
    page.mouse.down()
    # From the press on, the page holds the server's messages: the button under the pointer now
    # is the one pressed, whatever came in before.
    pressed = page.evaluate_handle(
        "([x, y]) => document.elementFromPoint(x, y).closest('button[data-card]')", [x, y]
    )
    card = pressed.evaluate("(button) => button.dataset.card")
    page.evaluate("() => window.__hokmRedraw()")
    # The message came in while the button was down: the card pressed is still the one shown.
    assert pressed.evaluate("(element) => element.isConnected"), "the table was redrawn mid-click"
    page.mouse.up()
    return card


def test_a_card_pressed_while_a_message_arrives_is_played_R4_4(open_page) -> None:
    page = open_page()
    page.add_init_script(SOCKET_PROBE)
    match_id, hakem = hokm2_against_computer(page, "roya")
    if hakem:
        page.locator("#table button[data-suit='S']").click()
        expect(page.locator("#table .trump__name")).to_have_text("Spades")

    assert page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value() == "turn"
    card = _press_card_while_table_redrawn(page)

    # The click went through: the card left the hand and the server has it played, once.
    expect(page.locator(f"#table .hand [data-card='{card}']")).to_have_count(0)
    _, state = match_state(match_id)
    assert card in {c.text for c in played_cards(state.hand)}
    # The message held back was shown after the click, and the table went on from there.
    assert page.wait_for_function(TURN_OR_BANNER, polling="raf").json_value() in {"turn", "banner"}
