"""The Court Piece rules page fits a phone: nothing sticks out sideways, in English or in Persian
(right to left), with its example cards, the court chase and the glossary laid out."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}

# Every box on the page, against the width of the window; a box wider than the page would also
# make the document scroll sideways.
OVERFLOW = """
() => {
  const width = document.documentElement.clientWidth;
  const outside = [];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      const name = `${element.tagName.toLowerCase()}.${element.className}`;
      outside.push(`${name}: ${box.left}..${box.right}`);
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, outside };
}
"""


@pytest.mark.parametrize(("language", "direction"), [("en", "ltr"), ("fa", "rtl")])
def test_the_court_piece_rules_fit_a_phone(open_page, screenshot, language, direction) -> None:
    page = open_page(viewport=PHONE, locale=language)
    response = page.goto(reverse("rules_court_piece"))
    assert response is not None and response.ok

    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("html")).to_have_attribute("dir", direction)
    expect(page.locator(".chase .card")).to_have_count(10)
    expect(page.locator(".indicator .back")).to_be_visible()
    page.wait_for_load_state("load")  # the stylesheets
    screenshot(page, f"court-piece-{language}")

    layout = page.evaluate(OVERFLOW)
    assert layout["outside"] == []
    assert layout["scrollWidth"] <= layout["width"]
