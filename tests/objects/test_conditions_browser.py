"""An OR group in Chromium against the real sandbox, on a 375 px phone and
by keyboard: a field picked (a whole page: the bar changed), an option ticked with Space, applied with Enter; the rows, the
words and the address agree. axe checks every page and swap
(tests/conftest.py's `page`); the screen never scrolls sideways."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.objects.support import no_sideways_scroll

ROWS = "table.records tbody:not(.records-more) tr th[scope=row]"


@pytest.mark.browser
def test_an_or_group_by_keyboard_on_a_phone(grid, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?sort=name")
    page.get_by_text("Filters", exact=True).click()
    picker = page.get_by_label("New group with")
    picker.focus()
    # With htmx the form sends on change: picking is enough (without it, "Add an OR group").
    picker.select_option("stage")
    group = page.locator("fieldset.filter-or__group")
    expect(group).to_have_count(1)
    no_sideways_scroll(page)
    won = group.get_by_label("Won")
    won.focus()
    page.keyboard.press("Space")
    expect(won).to_be_checked()
    page.keyboard.press("Enter")  # submits the form (the table swapped by htmx)
    expect(page.locator(ROWS)).to_have_text([f"Deal {i:03d}" for i in range(0, 30, 5)])
    expect(page.locator(".filter-summary")).to_contain_text("Stage is “Won”")
    assert parse_qs(urlsplit(page.url).query)["or.1.1.f.stage"]
    no_sideways_scroll(page)
