"""A table of 50,000 records in Chromium (#39, "Large tables"): it scrolls on
without paging, and however far one scrolls the DOM holds a bounded window
of rows: its elements (document.querySelectorAll('*')) stay within 1.5x of
those of the page at 100 rows. Positions are told (aria-rowindex), a row
selected stays selected after it gave way and is checked again when it comes
back, and the arrow keys go on past the rows loaded. 1280 px, then 375 px
(the page scrolls, not the grid's box). axe checks every swap (tests/axe.py).
One setup for the module: 50,000 records written straight into the
sandbox's store (seconds)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from sandbox.fixtures import EVERY_TYPE_FIELDS
from tests.helpers import SCREENSHOTS, csp_violations, running_sandbox
from tests.objects.support import PlainClient, console_on_sandbox, session_cookie

MANY = 50_000
FAR = 300  # rows scrolled past the first page: six slices, two windows' worth

NODES = "() => document.querySelectorAll('*').length"
# Scrolls the grid's box (or, on a phone, the page) to its end until the row at `index` is in the DOM.
SCROLL_TO_ROW = """([index, down]) => {
  const wrap = document.querySelector('.records-wrap');
  const box = getComputedStyle(wrap).overflowY === 'visible' ? document.scrollingElement : wrap;
  box.scrollTop = down ? box.scrollHeight : 0;
  return document.querySelector('#records-grid tr[aria-rowindex="' + index + '"]') !== null;
}"""


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture(scope="module")
def huge(sandbox):
    """An object of three fields with 50,000 records: Deal 00000 has 0 seats, and so on."""
    fields = [f for f in EVERY_TYPE_FIELDS if f["key"] in ("name", "seats", "active")]
    obj = PlainClient(sandbox).post(
        "/v1/objects", json={"singular_name": "Lead", "plural_name": "Leads", "title_field": "name", "fields": fields}
    )
    started = time.perf_counter()
    sandbox.insert_records(
        obj["id"], [{"name": f"Deal {i:05d}", "seats": i, "active": i % 2 == 0} for i in range(MANY)]
    )
    print(f"seeded {MANY} records in {time.perf_counter() - started:.1f} s")
    return obj


def scroll_until(page: Page, index: int, *, down: bool = True) -> None:
    page.wait_for_function(
        SCROLL_TO_ROW, arg=[index, down], polling=150, timeout=120_000
    )  # a slice of 50,000 records: the sandbox reads them all


@pytest.mark.browser
def test_50000_records_scroll_on_in_a_window_of_rows(
    huge, sandbox, settings, live_server, transactional_db, django_user_model, page: Page
):
    user = django_user_model.objects.create_user(username="wendy", password="long tables scroll on")
    console_on_sandbox(sandbox, settings, None, user)
    url = f"{live_server.url}/objects/{huge['key']}/records/?sort=seats&limit=100"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    # Far, at 1280 px, in a context of its own: axe after every slice would take minutes (it checks below).
    context = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_cookies([session_cookie(user, live_server.url)])
    wide = context.new_page()
    violations = csp_violations(wide)
    wide.goto(url)
    expect(wide.locator("#records-grid tbody").first.locator("tr")).to_have_count(100)
    at_100 = wide.evaluate(NODES)
    # A row selected on the first page.
    wide.get_by_role("checkbox", name="Select Deal 00001").check()
    expect(wide.locator("#bulk-count")).to_have_text("1 selected")

    scroll_until(wide, 100 + FAR + 2)
    far = wide.evaluate(NODES)
    wide.screenshot(path=SCREENSHOTS / "large-table-far-1280.png")
    assert far <= 1.5 * at_100, (far, at_100)
    last = wide.locator(f'#records-grid tr[aria-rowindex="{100 + FAR + 2}"]')
    expect(last.locator("th.record-title")).to_have_text(f"Deal {100 + FAR:05d}")
    expect(wide.locator("#records-grid")).to_have_attribute("aria-rowcount", "-1")  # the end not read yet
    # The first page gave way to a spacer; its selected row stays selected (for the bulk actions).
    expect(wide.get_by_role("link", name="Deal 00001", exact=True)).to_have_count(0)
    expect(wide.locator("#bulk-count")).to_have_text("1 selected")
    # The pager pages no more: the rows go on.
    expect(wide.locator("nav.pager")).to_be_hidden()

    # Back at the top: the first rows again, by the address that read them, the selection with them.
    scroll_until(wide, 2, down=False)
    expect(wide.locator('#records-grid tr[aria-rowindex="2"] th.record-title')).to_have_text("Deal 00000")
    expect(wide.get_by_role("checkbox", name="Select Deal 00001")).to_be_checked()
    assert wide.evaluate(NODES) <= 1.5 * at_100

    # The arrow keys go on past the last row loaded.
    bottom = wide.locator("#records-grid tbody[data-slice] tr").last
    index = int(bottom.get_attribute("aria-rowindex"))
    bottom.locator("th.record-title a").focus()
    wide.keyboard.press("ArrowDown")
    expect(wide.locator(f'#records-grid tr[aria-rowindex="{index + 1}"] th.record-title a')).to_be_focused()
    context.close()
    assert violations == []

    # A phone, axe watching every swap: the page scrolls, the window the same, a spacer above.
    page.set_viewport_size({"width": 375, "height": 740})
    page.context.add_cookies([session_cookie(user, live_server.url)])
    page.goto(url)
    expect(page.locator("#records-grid tbody").first.locator("tr")).to_have_count(100)
    phone_at_100 = page.evaluate(NODES)
    scroll_until(page, 100 + 100 + 2)  # two slices: the second makes the first page give way
    expect(page.locator("#records-grid tbody[data-spacer]").first).to_be_attached()
    page.screenshot(path=SCREENSHOTS / "large-table-far-375.png")
    assert page.evaluate(NODES) <= 1.5 * phone_at_100
    expect(page.locator('#records-grid tr[aria-rowindex="202"] td[data-label="Seats"]')).to_have_text("200")


ROWS_SHOWN = """() => {
  const rows = document.querySelectorAll('#records-grid tbody[data-slice] tr[aria-rowindex]');
  const last = Math.max(...Array.from(rows, (row) => Number(row.getAttribute('aria-rowindex'))));
  return [last - 1, document.querySelector('.records-shown').textContent];
}"""


@pytest.mark.browser
def test_the_count_shown_follows_the_rows_loaded_and_the_rowcount_the_background_total(
    sandbox, settings, live_server, transactional_db, django_user_model, page: Page, monkeypatch
):
    from tests.objects.support import tally_steps_inline

    count_now = tally_steps_inline(monkeypatch)  # the background count runs when this test says
    fields = [f for f in EVERY_TYPE_FIELDS if f["key"] in ("name", "seats")]
    obj = PlainClient(sandbox).post(
        "/v1/objects",
        json={"singular_name": "Prospect", "plural_name": "Prospects", "title_field": "name", "fields": fields},
    )
    sandbox.insert_records(obj["id"], [{"name": f"Lead {i:04d}", "seats": i} for i in range(1_000)])
    user = django_user_model.objects.create_user(username="vera", password="counts follow the rows")
    console_on_sandbox(sandbox, settings, None, user)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.context.add_cookies([session_cookie(user, live_server.url)])
    page.goto(f"{live_server.url}/objects/{obj['key']}/records/?sort=seats&limit=100")
    expect(page.locator("#records-total")).to_have_text("counting the total…")

    scroll_until(page, 100 + 100 + 2)  # the page and a slice at least: not the end
    loaded, said = page.evaluate(ROWS_SHOWN)
    assert loaded >= 200 and said == f"{loaded} shown, more after"
    grid = page.locator("#records-grid")
    expect(grid).to_have_attribute("aria-rowcount", "-1")  # neither the end read nor the total counted

    assert count_now() >= 1  # the total counted; the toolbar's poll brings it (every 2 s)
    expect(page.locator("#records-total")).to_have_text("1,000 in all", timeout=10_000)
    expect(grid).to_have_attribute("aria-rowcount", "1001")  # the records and the header row
    assert page.locator('#records-grid tr[aria-rowindex="1001"]').count() == 0  # the end still unread

    scroll_until(page, 1001)
    expect(page.locator(".records-shown")).to_have_text("1,000 shown, that is all")
    expect(grid).to_have_attribute("aria-rowcount", "1001")
