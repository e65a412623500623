"""The sign-up form's own checks work in the browser: the username's pattern is one Chromium
accepts (it compiles an input's pattern with the "v" flag, and ignores a pattern that fails)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_username_pattern_is_checked_by_the_browser(open_page) -> None:
    page = open_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text))
    page.goto("/accounts/signup/")
    field = page.locator("input[name=username]")
    field.fill("no spaces!")
    assert field.evaluate("(input) => input.validity.patternMismatch") is True
    field.fill("good_name-1")
    assert field.evaluate("(input) => input.validity.valid") is True
    assert not [text for text in errors if "pattern" in text.lower()]
