"""A 10,000-row CSV import with a few bad rows, in Chromium against the real
sandbox: upload, columns matched by label, the dry run's progress and its
problems, the import's progress, the service's 422 placed on its row in the
downloaded report, and a rerun that writes nothing twice (counted in the
sandbox's own store)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object
from tests.helpers import SCREENSHOTS, running_sandbox
from tests.objects.jobs_support import worker_thread

ROWS = 10_000
CHECK_BAD = {5: ("Seats", "many"), 17: ("Stage", "Someday")}  # refused by the dry run (field rules)
SERVICE_BAD = 4000  # a phone the service refuses (422): the dry run cannot know its rule
# How long the page may wait for 10,000 writes: a bound, not a speed check (bench/ measures speed).
# The console, its worker and the sandbox share one process here, so each write costs a few ms of
# one core: about 100 s alone, and it took more than 240 s on a CI machine that was also busy.
DONE_WITHIN_MS = 900_000


def import_csv(path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Name", "seats", "PHONE", "Stage", "Comment (ignored)"])
        for n in range(1, ROWS + 1):
            row = [f"Imported {n:05d}", str(n % 50), f"+1 555 {n:06d}", "Won" if n % 2 else "lead", "x"]
            if n in CHECK_BAD:
                column, value = CHECK_BAD[n]
                row[{"Seats": 1, "Stage": 3}[column]] = value
            if n == SERVICE_BAD:
                row[2] = "call me maybe"
            writer.writerow(row)


def record_count(sandbox, obj: dict) -> int:
    return sandbox.store.count("record", where={"object_id": obj["id"]})


@pytest.fixture(scope="module")
def sandbox():
    """A sandbox of this module's own: the objects these tests make never
    crowd the shared sandbox's first page of objects (other tests look there)."""
    with running_sandbox() as handle:
        yield handle


@pytest.mark.browser
def test_ten_thousand_rows_with_bad_ones_and_a_rerun_that_writes_nothing_twice(
    live_server, sandbox, settings, transactional_db, django_user_model, page: Page, monkeypatch, tmp_path
):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.OBJECTS_JOB_CHUNK = 500
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    user = django_user_model.objects.create_user(username="importer", password="imports are fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    source = tmp_path / "people.csv"
    import_csv(source)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    page.goto(f"{live_server.url}/objects/{obj['key']}/records/")
    page.get_by_role("link", name="Import CSV").click()
    page.get_by_label("CSV file").set_input_files(str(source))
    page.get_by_role("button", name="Upload and map the columns").click()

    # Columns matched by label or key, whatever the case; the types shown.
    expect(page.get_by_role("heading", name="Map the columns")).to_be_visible()
    expect(page.get_by_text("10,000 rows")).to_be_visible()
    expect(page.get_by_label("Name")).to_have_value("name")
    expect(page.get_by_label("seats")).to_have_value("seats")
    expect(page.get_by_label("PHONE")).to_have_value("phone")
    expect(page.get_by_label("Stage")).to_have_value("stage")
    expect(page.get_by_label("Comment (ignored)")).to_have_value("")
    expect(page.locator(".import-map__table")).to_contain_text("Number")
    page.screenshot(path=str(SCREENSHOTS / "import-map-1366.png"), full_page=True)

    with worker_thread(monkeypatch):
        page.get_by_role("button", name="Check every row (dry run)").click()
        expect(page.locator(".job progress")).to_be_visible()
        expect(page.locator(".job")).to_have_attribute("data-status", "checked", timeout=60_000)
        expect(page.get_by_role("status").filter(has_text="will be imported")).to_contain_text(
            "9,998 rows will be imported"
        )
        failures = page.locator(".job__failures tbody tr")
        expect(failures).to_have_count(2)
        expect(failures.nth(0)).to_contain_text("Seats")
        expect(failures.nth(1)).to_contain_text("“Someday” is not one of")
        assert record_count(sandbox, obj) == 0  # a dry run writes nothing

        page.get_by_role("button", name="Import 9,998 rows").click()
        expect(page.locator(".job")).to_have_attribute("data-status", "running", timeout=10_000)
        page.screenshot(path=str(SCREENSHOTS / "import-running-1366.png"), full_page=True)
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=DONE_WITHIN_MS)
        expect(page.locator(".job")).to_contain_text("9,997 imported, 3 rows with problems")
        row_4000 = page.locator(".job__failures tbody tr", has_text="4001")  # its line: the header is line 1
        expect(row_4000).to_contain_text("must be a phone number")
        expect(row_4000.locator("code")).to_contain_text("req")
        assert record_count(sandbox, obj) == ROWS - 3

        with page.expect_download() as download_info:
            page.get_by_role("link", name="Download the problems (CSV)").click()
        report = list(csv.reader(io.StringIO(Path(download_info.value.path()).read_text(encoding="utf-8-sig"))))
        assert report[0] == [
            "Line",
            "Name",
            "seats",
            "PHONE",
            "Stage",
            "Comment (ignored)",
            "Problem",
            "Fields",
            "Request id",
        ]
        by_row = {line[0]: line for line in report[1:]}
        assert set(by_row) == {"6", "18", "4001"}  # the spreadsheet's lines
        assert by_row["4001"][3] == "call me maybe"
        assert "must be a phone number" in by_row["4001"][6]
        assert by_row["4001"][7] == "phone"
        assert by_row["4001"][8]
        assert by_row["6"][2] == "many"

        # Run again: the same keys, so the service replays every row: nothing is written twice.
        page.get_by_role("button", name="Run again").click()
        expect(page.locator(".job")).to_have_attribute("data-status", "running", timeout=10_000)
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=DONE_WITHIN_MS)
        page.set_viewport_size({"width": 375, "height": 800})
        page.screenshot(path=str(SCREENSHOTS / "import-done-375.png"), full_page=True)
    assert record_count(sandbox, obj) == ROWS - 3
