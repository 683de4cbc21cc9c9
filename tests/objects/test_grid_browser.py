"""The admin's toolkit in Chromium against the real sandbox over HTTP, with
axe on every page and swap: two sessions editing one record (the lost
update, then a conflict settled by choice), inline cell edit by keyboard
(a 422 shown in place, Esc, arrow keys), history with undo, duplicate,
saved views, filters kept when returning from a record, and the grid on a
375 px phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.axe import check_now, watch_with_axe
from tests.helpers import SCREENSHOTS, csp_violations
from tests.objects.support import grid_cell, record_url, session_cookie


def stored(grid, index: int) -> dict:
    return grid["service"].get(f"/v1/objects/{grid['key']}/records/{grid['records'][index]['id']}")["values"]


def fact(page: Page, label: str):
    return page.locator("dl.facts dt", has_text=re.compile(f"^{label}$")).locator("xpath=following-sibling::dd[1]")


@pytest.mark.browser
def test_two_sessions_edit_one_record_no_lost_update_and_a_conflict_is_chosen(grid, page: Page):
    violations = csp_violations(page)
    other_context = page.context.browser.new_context()
    other_context.add_cookies([session_cookie(grid["user"], grid["server"].url)])
    other = other_context.new_page()
    other_watch = watch_with_axe(other)
    edit = record_url(grid, 4) + "edit/"

    # Tab A opens the form; tab B changes Seats and saves; A changes only Notes.
    page.goto(edit)
    other.goto(edit)
    other.get_by_label("Seats").fill("77")
    other.get_by_role("button", name="Save changes").click()
    expect(other.get_by_role("heading", level=1)).to_have_text("Deal 004")
    page.get_by_label("Notes").fill("Only the notes changed here")
    page.get_by_role("button", name="Save changes").click()

    # Seats kept B's value: the edit sent only Notes.
    expect(fact(page, "Seats")).to_have_text("77")
    expect(fact(page, "Notes")).to_have_text("Only the notes changed here")
    assert stored(grid, 4)["seats"] == 77

    # Now both change Seats: A is shown both values and chooses.
    page.goto(edit)
    other.goto(edit)
    other.get_by_label("Seats").fill("88")
    other.get_by_role("button", name="Save changes").click()
    expect(other.get_by_role("heading", level=1)).to_have_text("Deal 004")
    page.get_by_label("Seats").fill("99")
    page.get_by_label("Email").fill("a-side@example.test")
    page.get_by_role("button", name="Save changes").click()

    conflict = page.locator("[data-conflict=seats]")
    expect(conflict).to_contain_text("Keep yours: 99")
    expect(conflict).to_contain_text("Keep theirs: 88")
    expect(page.get_by_label("Seats")).to_have_value("99")  # nothing typed is lost
    page.screenshot(path=str(SCREENSHOTS / "objects-edit-conflict.png"), full_page=True)
    conflict.get_by_role("radio", name=re.compile("Keep theirs")).check()
    page.get_by_role("button", name="Save with these choices").click()

    expect(fact(page, "Seats")).to_have_text("88")
    expect(fact(page, "Email")).to_have_text("a-side@example.test")
    # Both of this console's changes are in the history, newest first.
    expect(page.locator("#history .history-item")).to_have_count(4)
    check_now(other, other_watch)
    other_context.close()
    assert other_watch.failures() == []
    assert violations == []


def cell(page: Page, row_title: str, column: str):
    return grid_cell(page, row_title, column)


@pytest.mark.browser
def test_inline_edit_by_keyboard_saves_cancels_and_shows_a_422_in_place(grid, page: Page):
    violations = csp_violations(page)
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?sort=name")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(25)

    # Arrow keys move from the title into the row's cells and down the column.
    page.get_by_role("link", name="Deal 000", exact=True).focus()
    page.keyboard.press("ArrowRight")
    notes = cell(page, "Deal 000", "Notes")
    expect(notes).to_be_focused()
    page.keyboard.press("ArrowRight")
    seats = cell(page, "Deal 000", "Seats")
    expect(seats).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(cell(page, "Deal 001", "Seats")).to_be_focused()
    page.keyboard.press("ArrowUp")

    # Enter opens the typed input; Enter saves.
    page.keyboard.press("Enter")
    field = seats.get_by_label("Seats of Deal 000")
    expect(field).to_be_focused()
    expect(field).to_have_attribute("type", "number")
    field.fill("321")
    page.keyboard.press("Enter")
    expect(seats).to_have_text("321")
    expect(seats).to_be_focused()
    expect(page.locator("#messages")).to_contain_text("Seats of “Deal 000” saved.")
    assert stored(grid, 0)["seats"] == 321

    # Esc cancels: nothing sent, the value as it was.
    seats.click()
    seats.get_by_label("Seats of Deal 000").fill("999")
    page.keyboard.press("Escape")
    expect(seats).to_have_text("321")
    expect(seats).to_be_focused()

    # A value the service refuses (422): its message in the cell, the value kept.
    phone = cell(page, "Deal 000", "Phone")
    # A click on its link would call the number: the keyboard reaches the cell and opens its editor.
    page.get_by_role("link", name="Deal 000", exact=True).focus()
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    expect(phone).to_be_focused()
    page.keyboard.press("Enter")
    phone.get_by_label("Phone of Deal 000").fill("call me maybe")
    page.keyboard.press("Enter")
    expect(phone.get_by_role("alert")).to_contain_text("must be a phone number")
    expect(phone.get_by_label("Phone of Deal 000")).to_have_value("call me maybe")
    page.screenshot(path=str(SCREENSHOTS / "objects-inline-422.png"))
    page.keyboard.press("Escape")
    expect(phone).to_have_text("+1 555 0100")
    assert stored(grid, 0)["phone"] == "+1 555 0100"

    # A choice field: its select, Enter saves the chosen option.
    status = cell(page, "Deal 000", "Status")
    status.click()
    status.get_by_label("Status of Deal 000").select_option(label="Open")
    status.get_by_label("Status of Deal 000").press("Enter")
    expect(status).to_have_text("Open")
    assert violations == []


@pytest.mark.browser
def test_history_undo_and_duplicate(grid, page: Page):
    violations = csp_violations(page)
    base = grid["server"].url
    page.goto(f"{base}/objects/{grid['key']}/records/?sort=name")
    seats = cell(page, "Deal 002", "Seats")
    seats.click()
    seats.get_by_label("Seats of Deal 002").fill("60")
    page.keyboard.press("Enter")
    expect(seats).to_have_text("60")

    page.get_by_role("link", name="Deal 002", exact=True).click()
    item = page.locator("#history .history-item").first
    expect(item).to_contain_text("Edited in the table by rita")
    expect(item.locator("tbody tr")).to_have_text(re.compile(r"Seats\s*6\s*60"))
    item.get_by_role("link", name="Undo this change").click()
    expect(page.get_by_role("heading", name="Undo a change")).to_be_visible()
    page.get_by_role("button", name="Undo this change").click()
    expect(fact(page, "Seats")).to_have_text("6")
    expect(page.locator("#history .history-item").first).to_contain_text("Undid a change by rita")
    expect(page.get_by_role("link", name="Undo this change")).to_have_count(0)
    page.screenshot(path=str(SCREENSHOTS / "objects-record-history.png"), full_page=True)

    page.get_by_role("link", name="Duplicate", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Duplicate of Deal 002")
    expect(page.get_by_label("Seats")).to_have_value("6")
    page.get_by_label("Name").fill("Deal 002 copy")
    page.get_by_role("button", name=re.compile("^Create ")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Deal 002 copy")
    expect(fact(page, "Seats")).to_have_text("6")
    expect(page.locator("#history .history-item").first).to_contain_text("Duplicated by rita")
    assert violations == []


@pytest.mark.browser
def test_saved_view_default_filters_kept_from_a_record_and_a_phone_sees_cards(grid, page: Page):
    violations = csp_violations(page)
    base = grid["server"].url
    records = f"{base}/objects/{grid['key']}/records/"
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(records + "?sort=name")
    # The total is counted in the background meanwhile (no worker here: it stays "counting").
    expect(page.locator(".records-count")).to_have_text("25 shown, more after · counting the total…")
    page.get_by_role("link", name="Next page").click()
    expect(page.locator(".records-count")).to_have_text("30 in all")

    # Filter, hide a column, save as a shared default view.
    page.goto(records + "?sort=name&f.status=Lost")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(10)
    page.get_by_text("Columns", exact=True).click()
    page.get_by_role("checkbox", name="Notes").uncheck()
    page.get_by_role("button", name="Save columns").click()
    expect(page.locator("table.records thead")).not_to_contain_text("Notes")
    page.get_by_text("Views", exact=True).click()
    page.get_by_label("Save this table as").fill("Lost deals")
    page.get_by_label("Share with the workspace's console users").check()
    page.get_by_label("Open it by default").check()
    page.get_by_role("button", name="Save view").click()
    expect(page.locator(".records-view-name")).to_have_text("Lost deals")
    export = page.get_by_role("link", name="Export CSV")
    expect(export).to_have_attribute("href", re.compile(r"view=\d+"))

    # The bare address opens the default view.
    page.goto(records)
    expect(page.locator(".records-view-name")).to_have_text("Lost deals")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(10)

    # Back from a record keeps the filters.
    page.locator("table.records tbody th a").first.click()
    page.get_by_role("link", name=re.compile("^Deals ")).click()
    expect(page).to_have_url(re.compile(r"status=opt-lost|status=Lost"))
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(10)

    # Density toggle, remembered.
    page.get_by_role("button", name="Compact rows").click()
    expect(page.get_by_role("button", name="Compact rows")).to_have_attribute("aria-pressed", "true")
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-1366.png"))

    # Sticky selection and title columns: after scrolling sideways they are
    # still at the left edge, the title right after the selection box.
    wrap = page.locator(".records-wrap")
    wrap.evaluate("el => { el.scrollLeft = 600; }")
    select_box = page.locator("table.records tbody td:first-child").first.bounding_box()
    title = page.locator("table.records tbody th").first.bounding_box()
    frame = wrap.bounding_box()
    assert select_box and title and frame
    assert abs(select_box["x"] - frame["x"]) < 3
    assert abs(title["x"] - (select_box["x"] + select_box["width"])) < 3

    # A phone sees each record as a card with its labelled values.
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(records)
    first = page.locator("table.records tbody:not(.records-more) tr").first
    expect(first.locator("td[data-label='Seats']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-375.png"))
    assert violations == []


@pytest.mark.browser
def test_inline_edit_of_a_cell_changed_meanwhile_offers_mine_or_theirs(grid, page: Page):
    violations = csp_violations(page)
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?sort=name")
    seats = cell(page, "Deal 003", "Seats")
    seats.click()
    field = seats.get_by_label("Seats of Deal 003")
    expect(field).to_be_focused()
    # Meanwhile someone else changes the same cell.
    record_id = grid["records"][3]["id"]
    grid["service"].patch(f"/v1/objects/{grid['key']}/records/{record_id}", json={"values": {"seats": 40}})
    field.fill("50")
    page.keyboard.press("Enter")

    conflict = seats.get_by_role("alert")
    expect(conflict).to_contain_text("Changed meanwhile to 40 (was 9")
    expect(seats.get_by_role("button", name="Save mine")).to_be_focused()
    seats.get_by_role("button", name="Keep theirs").click()
    expect(seats).to_have_text("40")
    assert stored(grid, 3)["seats"] == 40

    # Again, choosing mine this time. The editor must have read the record
    # before the other change lands, or there is nothing to conflict with.
    seats.click()
    field = seats.get_by_label("Seats of Deal 003")
    expect(field).to_be_focused()
    grid["service"].patch(f"/v1/objects/{grid['key']}/records/{record_id}", json={"values": {"seats": 41}})
    field.fill("55")
    page.keyboard.press("Enter")
    seats.get_by_role("button", name="Save mine").click()
    expect(seats).to_have_text("55")
    assert stored(grid, 3)["seats"] == 55
    assert violations == []


@pytest.mark.browser
def test_the_name_is_edited_in_place_by_f2_or_its_edit_button(grid, page: Page):
    violations = csp_violations(page)
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?sort=name")
    rows = page.locator("table.records tbody:not(.records-more) tr")
    expect(rows).to_have_count(25)

    # F2 on the title's link edits the name; Enter saves; the link keeps its address.
    link = page.get_by_role("link", name="Deal 004", exact=True)
    address = link.get_attribute("href")
    link.focus()
    page.keyboard.press("F2")
    field = rows.nth(4).get_by_label("Name of Deal 004")
    expect(field).to_be_focused()
    field.fill("Deal 004 renamed")
    page.keyboard.press("Enter")
    renamed = rows.nth(4).get_by_role("link", name="Deal 004 renamed", exact=True)
    expect(renamed).to_be_focused()
    assert renamed.get_attribute("href") == address
    expect(page.locator("#messages")).to_contain_text("Name of “Deal 004 renamed” saved.")
    assert stored(grid, 4)["name"] == "Deal 004 renamed"

    # With the pointer: the title under it offers "Edit"; Esc cancels and gives the link its focus back.
    rows.nth(5).get_by_role("link", name="Deal 005", exact=True).hover()
    rows.nth(5).get_by_role("button", name="Edit Name of Deal 005").click()
    field = rows.nth(5).get_by_label("Name of Deal 005")
    expect(field).to_be_focused()
    field.fill("Not kept")
    page.keyboard.press("Escape")
    expect(rows.nth(5).get_by_role("link", name="Deal 005", exact=True)).to_be_focused()
    assert stored(grid, 5)["name"] == "Deal 005"
    page.screenshot(path=str(SCREENSHOTS / "records-title-edit-1366.png"))
    assert violations == []
