"""The grid grouped, in Chromium against the sandbox over HTTP (axe on every
page and swap): groups collapsed and opened by keyboard, a column's footer
aggregate chosen and kept in the address, another field to group by, the
table's footer "of the N shown" while every record is counted behind (no
worker here), and the grouped grid on a 375 px phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, csp_violations


@pytest.mark.browser
def test_groups_collapse_by_keyboard_and_footers_are_chosen_and_kept(grid, page: Page):
    violations = csp_violations(page)
    records = f"{grid['server'].url}/objects/{grid['key']}/records/"
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(records + "?sort=name&group=stage")
    groups = page.locator("table.records tbody.records-group")
    expect(groups).to_have_count(2)
    expect(groups.nth(0).locator("tr.records-group-head")).to_have_text(re.compile(r"Lead\s+20 records"))
    expect(groups.nth(1).locator("tr.records-group-head")).to_have_text(re.compile(r"Won\s+5 records"))

    # A group's button, by keyboard: Enter collapses it, Space opens it again.
    toggle = groups.nth(1).get_by_role("button", name="Won")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(groups.nth(1).locator("tr:not(.records-group-head)").first).to_be_hidden()
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(groups.nth(1).locator("tr.records-foot")).to_be_visible()

    # The table's footer: the page's 25 while every record is counted behind.
    footer = page.locator("table.records tfoot tr.records-foot")
    expect(footer.locator("th")).to_have_text("Total of the 25 shown")
    page.get_by_label("Footer of Seats").select_option("sum")
    expect(page).to_have_url(re.compile(r"agg\.seats=sum"))
    # Seats are 3 x i for Deal 000 to 024.
    expect(page.locator("table.records tfoot .records-foot__value").nth(1)).to_have_text("900")
    expect(page.locator("tbody.records-group").nth(1).locator("tr.records-foot")).to_contain_text("Sum 150")

    # Another field to group by keeps the chosen footers.
    page.get_by_label("Group by").select_option("active")
    expect(page).to_have_url(re.compile(r"group=active"))
    expect(page).to_have_url(re.compile(r"agg\.seats=sum"))
    expect(page.locator("table.records tbody.records-group")).to_have_count(2)
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-grouped-1366.png"))

    # A phone: no sideways scroll, the footer's values labelled.
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(records + "?sort=name&group=stage&agg.seats=sum")
    expect(page.locator("table.records tbody.records-group")).to_have_count(2)
    expect(page.locator("table.records tfoot td[data-label='Seats']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-grouped-375.png"))
    assert violations == []
