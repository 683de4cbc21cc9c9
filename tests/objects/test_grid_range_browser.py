"""The grid's ranges in Chromium against the real sandbox (axe on every page
and swap): cells selected with Shift+arrow keys and announced, copied as
tab-separated text, a small block pasted from the focused cell into its dry
run, confirmed as one job, its values in the grid, then its one Undo; fill
down to its dry run; the dry run on a 375 px phone. The job runs in a worker
thread (tests/objects/jobs_support.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, csp_violations
from tests.objects.jobs_support import worker_thread
from tests.objects.support import grid_cell


def open_grid(page: Page, grid) -> None:
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/records/?sort=name")
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(25)  # the row that loads more aside
    page.wait_for_function("() => window.objectsGridRange")  # it comes after the page


@pytest.mark.browser
def test_select_copy_paste_confirm_and_undo_by_keyboard(grid, page: Page, monkeypatch):
    violations = csp_violations(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.set_viewport_size({"width": 1280, "height": 900})
    open_grid(page, grid)

    # From Deal 000's name, two cells right is Seats; Shift+arrows make a 2 x 2 range.
    page.get_by_role("link", name="Deal 000", exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator("#grid-range-status")).to_have_text("2 rows by 2 columns selected")
    expect(page.locator("table.records .is-in-range")).to_have_count(4)
    expect(grid_cell(page, "Deal 001", "Amount")).to_be_focused()
    page.screenshot(path=str(SCREENSHOTS / "grid-range-1280.png"))

    page.keyboard.press("Control+c")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == "0\t0.00\n3\t101.25"
    assert page.evaluate("() => window.objectsGridRange.tsv([['a\\tb', 'say \"hi\"'], ['x']])") == (
        '"a\tb"\t"say ""hi"""\nx'
    )

    # A block from a spreadsheet, pasted at the range's top-left cell (Deal 000's Seats).
    page.evaluate("() => navigator.clipboard.writeText('11\\t1,111.00\\r\\n12\\t2,222.00\\r\\n')")
    page.keyboard.press("Control+v")
    expect(page.get_by_role("heading", name="Dry run: nothing is written yet")).to_be_visible()
    expect(page.locator(".dry-run__count")).to_contain_text(re.compile(r"4 cells of 2 deals.* will change"))
    changes = page.locator(".grid-paste__changes tbody tr")
    expect(changes).to_have_count(4)
    expect(changes.first).to_have_text(re.compile(r"Deal 000\s*Seats\s*0\s*11"))
    page.screenshot(path=str(SCREENSHOTS / "grid-paste-dry-run-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "grid-paste-dry-run-375.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    with worker_thread(monkeypatch):
        page.get_by_role("button", name=re.compile("^Confirm: Paste of 2 rows by 2 columns")).click()
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=20_000)
        expect(page.locator(".job__numbers")).to_contain_text("2 done")
        open_grid(page, grid)
        expect(grid_cell(page, "Deal 000", "Seats")).to_have_text("11")
        expect(grid_cell(page, "Deal 001", "Amount")).to_have_text("2,222.00")
        page.go_back()
        page.get_by_role("button", name="Undo this job").click()
        expect(page.get_by_text(re.compile("^Undoes"))).to_be_visible()
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=20_000)
    open_grid(page, grid)
    expect(grid_cell(page, "Deal 000", "Seats")).to_have_text("0")
    expect(grid_cell(page, "Deal 001", "Amount")).to_have_text("101.25")

    # Fill down: Deal 000's Seats into the two rows below, through the same dry run.
    page.get_by_role("link", name="Deal 000", exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    expect(page.locator("#grid-range-status")).to_have_text("3 rows by 1 column selected")
    page.keyboard.press("Control+d")
    expect(page.get_by_role("heading", name=re.compile("^Fill down of 3 rows by 1 column"))).to_be_visible()
    expect(page.locator(".dry-run__count")).to_contain_text(re.compile(r"2 cells of 2 deals.* will change"))
    page.get_by_role("link", name="Cancel").click()
    expect(page.locator("table.records tbody:not(.records-more) tr")).to_have_count(25)  # the row that loads more aside

    # On a phone the grid still shows its rows (cards).
    page.set_viewport_size({"width": 375, "height": 800})
    expect(grid_cell(page, "Deal 000", "Seats")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "grid-range-375.png"))
    assert violations == []


@pytest.mark.browser
def test_in_german_the_range_and_the_fill_refusal_are_announced_in_german(grid, page: Page):
    """The script's words come from Django's JavaScript catalog (locale/de
    djangojs.po), plurals by ngettext: "1 Zeile", "2 Zeilen"."""
    violations = csp_violations(page)
    page.set_extra_http_headers({"Accept-Language": "de"})
    page.set_viewport_size({"width": 1280, "height": 900})
    open_grid(page, grid)
    expect(page.locator("html")).to_have_attribute("lang", "de")

    page.get_by_role("link", name="Deal 000", exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    expect(page.get_by_role("status").filter(has_text="2 Zeilen mal 2 Spalten ausgewählt")).to_have_count(1)
    # The grid's help says the range keys in German too (the script adds them).
    expect(page.locator("#records-grid-help")).to_contain_text("Strg+D füllt die oberste Zeile nach unten aus")

    page.keyboard.press("Shift+ArrowUp")  # one row, two columns: nothing to fill down
    expect(page.get_by_role("status").filter(has_text="1 Zeile mal 2 Spalten ausgewählt")).to_have_count(1)
    page.keyboard.press("Control+d")
    status = page.get_by_role("status").filter(has_text="Wählen Sie zwei oder mehr Zeilen aus")
    expect(status).to_have_text("Wählen Sie zwei oder mehr Zeilen aus, um nach unten auszufüllen")
    assert violations == []


@pytest.mark.browser
def test_without_the_catalog_the_range_is_announced_in_english(grid, page: Page):
    """The catalog's script did not load (blocked here): the range code keeps
    working with its English words (gettext, ngettext and interpolate guarded)."""
    page.route("**/i18n/**", lambda route: route.abort())
    page.set_extra_http_headers({"Accept-Language": "de"})
    open_grid(page, grid)
    assert page.evaluate("() => typeof window.gettext") == "undefined"

    page.get_by_role("link", name="Deal 000", exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    expect(page.get_by_role("status").filter(has_text="2 rows by 1 column selected")).to_have_count(1)


def centre(locator) -> tuple[float, float]:
    """Where the mouse points at a cell (scrolled into view first)."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def copied_block(page: Page, rows: list[str], columns: list[str]) -> str:
    """The range's cells as the grid shows them (a title, its link's text), as a spreadsheet would copy them."""

    def shown(row: str, column: str) -> str:
        cell = grid_cell(page, row, column)
        return (cell.get_by_role("link", name=row, exact=True) if column == "Name" else cell).inner_text().strip()

    return "\n".join("\t".join(shown(r, c) for c in columns) for r in rows)


@pytest.mark.browser
def test_a_range_by_mouse_drag_and_by_shift_click_selects_announces_and_copies(grid, page: Page):
    violations = csp_violations(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.set_viewport_size({"width": 1280, "height": 900})
    open_grid(page, grid)
    address = page.url

    # A drag from Deal 002's Seats to Deal 004's Amount: 3 rows by 2 columns, the end focused.
    start, end = grid_cell(page, "Deal 002", "Seats"), grid_cell(page, "Deal 004", "Amount")
    page.mouse.move(*centre(start))
    page.mouse.down()
    page.mouse.move(*centre(grid_cell(page, "Deal 003", "Seats")), steps=4)
    page.mouse.move(*centre(end), steps=4)
    page.mouse.up()
    expect(page.locator("#grid-range-status")).to_have_text("3 rows by 2 columns selected")
    expect(page.locator("table.records .is-in-range")).to_have_count(6)
    for name in ("Deal 002", "Deal 003", "Deal 004"):
        for column in ("Seats", "Amount"):
            expect(grid_cell(page, name, column)).to_have_class(re.compile(r"\bis-in-range\b"))
    expect(end).to_be_focused()
    # The drag opened no cell editor and selected no text.
    expect(page.locator("form[data-cell-editor]")).to_have_count(0)
    assert page.evaluate("() => String(window.getSelection())") == ""
    page.screenshot(path=str(SCREENSHOTS / "grid-range-drag-1280.png"))
    page.keyboard.press("Control+c")
    rows, columns = ["Deal 002", "Deal 003", "Deal 004"], ["Seats", "Amount"]
    assert page.evaluate("() => navigator.clipboard.readText()") == copied_block(page, rows, columns)

    # A plain click starts afresh: the range is gone, its announcement too, and the cell's editor opens
    # (as a click always did); Escape closes it unsaved.
    page.mouse.move(*centre(grid_cell(page, "Deal 010", "Seats")))
    page.mouse.down()
    page.mouse.up()
    expect(page.locator("table.records .is-in-range")).to_have_count(0)
    expect(page.locator("#grid-range-status")).to_have_text("")
    editor = page.locator("form[data-cell-editor]")
    expect(editor).to_have_count(1)
    editor.get_by_label("Seats of Deal 010").press("Escape")
    expect(editor).to_have_count(0)

    # Shift+click from the focused cell (Deal 005's Seats) to Deal 007's Amount.
    page.get_by_role("link", name="Deal 005", exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(grid_cell(page, "Deal 005", "Seats")).to_be_focused()
    grid_cell(page, "Deal 007", "Amount").click(modifiers=["Shift"])
    expect(page.locator("#grid-range-status")).to_have_text("3 rows by 2 columns selected")
    expect(page.locator("table.records .is-in-range")).to_have_count(6)
    expect(grid_cell(page, "Deal 005", "Seats")).to_have_class(re.compile(r"\bis-in-range\b"))
    expect(grid_cell(page, "Deal 007", "Amount")).to_have_class(re.compile(r"\bis-in-range\b"))
    expect(page.locator("form[data-cell-editor]")).to_have_count(0)

    # Shift+click again moves the end, the anchor kept: onto a title link, which it does not follow.
    grid_cell(page, "Deal 008", "Name").get_by_role("link").click(modifiers=["Shift"])
    expect(page.locator("#grid-range-status")).to_have_text("4 rows by 3 columns selected")  # Name to Seats
    expect(grid_cell(page, "Deal 008", "Name")).to_have_class(re.compile(r"\bis-in-range\b"))
    expect(grid_cell(page, "Deal 005", "Amount")).not_to_have_class(re.compile(r"\bis-in-range\b"))
    assert page.url == address and len(page.context.pages) == 1
    page.keyboard.press("Control+c")
    rows = ["Deal 005", "Deal 006", "Deal 007", "Deal 008"]
    headers = [h.strip().rstrip("▲▼ ").strip() for h in page.locator("table.records thead th").all_inner_texts()]
    between = headers[headers.index("Name") : headers.index("Seats") + 1]
    assert page.evaluate("() => navigator.clipboard.readText()") == copied_block(page, rows, between)

    # Shift+arrow keys go on from the range the pointer made.
    page.keyboard.press("Shift+ArrowDown")
    expect(page.locator("#grid-range-status")).to_have_text("5 rows by 3 columns selected")
    assert violations == []
