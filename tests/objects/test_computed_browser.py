"""Computed columns in Chromium against the real sandbox, on a phone's
width (375 px): a formula refused in words beside it with what was typed
kept, then fixed and added; the records grid shows it read-only, marked
computed. axe runs on every page and swap (tests/axe.py: none serious)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS
from tests.objects.support import no_sideways_scroll


@pytest.mark.browser
def test_a_formula_is_refused_in_place_then_added_and_shown_in_the_grid(grid, page: Page):
    url, key = grid["server"].url, grid["key"]
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{url}/objects/{key}/settings/")
    page.get_by_role("link", name="Computed columns").first.click()
    expect(page.get_by_role("heading", name=re.compile(r"^Computed columns of Deals"))).to_be_visible()
    expect(page.get_by_text("The service has no computed fields")).to_be_visible()

    page.get_by_label("Name", exact=True).fill("Per seat")
    page.get_by_label("Formula").fill("{Amount} / name")
    page.get_by_role("button", name="Add the column").click()
    expect(page.get_by_text("“/” needs numbers, but {Name} is text.")).to_be_visible()
    expect(page.get_by_label("Formula")).to_have_value("{Amount} / name")  # nothing typed lost
    expect(page.get_by_label("Name", exact=True)).to_have_value("Per seat")
    no_sideways_scroll(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "computed-error-375.png"), full_page=True)

    page.get_by_label("Formula").fill("ROUND({Amount} / seats, 2)")
    page.get_by_role("button", name="Add the column").click()
    expect(page.get_by_role("row", name="Per seat")).to_be_visible()

    page.goto(f"{url}/objects/{key}/records/?view=all")
    header = page.locator("th.records-computed-col")
    expect(header).to_have_count(1)
    expect(header).to_contain_text("Per seat")
    expect(header).to_contain_text("computed")
    no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / "computed-grid-375.png"), full_page=True)

    # Sorted by its header (the console's order, with htmx in place) on a wide screen: a phone's grid is cards.
    page.set_viewport_size({"width": 1280, "height": 800})
    header.get_by_role("link", name=re.compile(r"^Per seat")).click()
    expect(page.locator("th.records-computed-col")).to_have_attribute("aria-sort", "ascending")
    page.screenshot(path=str(SCREENSHOTS / "computed-sorted-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / "computed-sorted-375.png"), full_page=True)
