"""The grid that fits the screen, and the focus after every swap, in
Chromium against the real sandbox over HTTP, axe watching every page and
swap (tests/conftest.py's page): at 1366x900 the grid's sideways scrollbar is on screen, numbers are
right-aligned in tabular figures, a linked-record column shows chips that
open the records; the focus stays on the sort link after sorting, moves to
the grid after paging, into the link form on "Add a link" and to the new link
once made, and to the error summary (which links to the field) after a failed
save of a long record form."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, csp_violations
from tests.objects.support import record_url


@pytest.mark.browser
def test_at_1366_the_scrollbar_is_on_screen_and_focus_survives_sort_and_paging(grid, page: Page):
    violations = csp_violations(page)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?view=all")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(25)

    # The box scrolls sideways (the table is wider) and ends on screen.
    wrap = page.locator(".records-wrap")
    sizes = wrap.evaluate("el => ({scroll: el.scrollWidth, client: el.clientWidth})")
    assert sizes["scroll"] > sizes["client"]
    box = wrap.bounding_box()
    assert box and box["y"] + box["height"] <= 900
    # Numbers and currency: right-aligned, tabular figures.
    seats = page.locator("table.records tbody:not(.records-more) tr").first.locator("td.num").first
    style = seats.evaluate("el => [getComputedStyle(el).textAlign, getComputedStyle(el).fontVariantNumeric]")
    assert style[0] == "right" and "tabular-nums" in style[1]
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-fit-1366.png"))

    # Sorting by keyboard keeps the focus on the column's sort link.
    page.get_by_role("link", name="Seats", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.locator("th[aria-sort=ascending]")).to_contain_text("Seats")
    expect(page.get_by_role("link", name=re.compile("^Seats"))).to_be_focused()

    # The next page: no "Next" there, so the focus moves to the grid it changed.
    page.get_by_role("link", name="Next page").focus()
    page.keyboard.press("Enter")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(5)
    expect(page.locator(".records-wrap")).to_be_focused()
    assert violations == []


@pytest.mark.browser
def test_linked_column_add_a_link_and_a_failed_save_move_the_focus(grid, page: Page):
    violations = csp_violations(page)
    page.set_viewport_size({"width": 1366, "height": 900})
    target = grid["records"][7]

    # "Add a link": its form opens with the focus in its first field.
    page.goto(record_url(grid, 2))
    page.get_by_role("link", name="Add a link").focus()
    page.keyboard.press("Enter")
    kind = page.get_by_label("Kind of link")
    expect(kind).to_be_focused()
    kind.fill("partner")
    page.get_by_label("or its id").fill(target["id"])
    page.get_by_role("button", name="Link").click()
    # The new link takes the focus.
    expect(page.locator("#relationships a.link-title", has_text="Deal 007")).to_be_focused()

    # The grid: "Partner" is offered in the column picker; its column shows a chip that opens Deal 007.
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?view=all&sort=name")
    page.get_by_text("Columns", exact=True).click()
    page.get_by_label("Partner").check()
    page.get_by_role("button", name="Save columns").click()
    header = page.locator("table.records thead th", has_text="Partner (linked)")
    expect(header).to_be_visible()

    def row(title: str):
        return page.locator(
            "table.records tbody:not(.records-more) tr", has=page.locator("th.record-title", has_text=title)
        )

    # Both ends show the link (the column lists links in both directions).
    expect(row("Deal 007").locator("a.chip--link")).to_have_text("Deal 002")
    chip = row("Deal 002").locator("a.chip--link")
    expect(chip).to_have_text("Deal 007")
    chip.click()
    expect(page).to_have_url(re.compile(f"/records/{target['id']}/"))

    # A failed save on the long record form: the focus goes to the summary, which links to the field.
    page.goto(record_url(grid, 3) + "edit/")
    page.get_by_label("Email").fill("not an address")
    page.get_by_role("button", name="Save changes").click()
    summary = page.locator(".error-summary")
    expect(summary).to_be_focused()
    link = summary.get_by_role("link", name=re.compile("^Email: "))
    link.click()
    expect(page.get_by_label("Email")).to_be_focused()
    expect(page.get_by_label("Email")).to_have_value("not an address")  # nothing typed is lost
    assert violations == []
