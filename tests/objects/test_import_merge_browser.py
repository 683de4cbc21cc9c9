"""A merge import in Chromium against the real sandbox: a semicolon file
whose columns are named loosely ("Full name", "E-mail address") is matched
to the fields, a required field left unmapped is flagged before the dry run
(focus on the message, nothing chosen lost), rows are matched to records by
email, the dry run counts what will be created, updated and skipped, only
the changed record is written, and the same file imported again changes
nothing and says so (counted in the sandbox's own store)."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS, running_sandbox
from tests.objects.jobs_support import worker_thread

CSV_TEXT = (
    "Full name;E-mail address;Seats\n"
    "Deal 000;buyer0@example.test;0\n"
    "Deal 001;buyer1@example.test;3\n"
    "Deal 002;buyer2@example.test;99\n"
    "Zoë Müller;new@example.test;1\n"
)


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


def record_count(sandbox, obj: dict) -> int:
    return sandbox.store.count("record", where={"object_id": obj["id"]})


def upload(page: Page, url: str, path) -> None:
    page.goto(url)
    page.get_by_role("link", name="Import CSV").click()
    page.get_by_label("CSV file").set_input_files(str(path))
    page.get_by_role("button", name="Upload and map the columns").click()
    expect(page.get_by_role("heading", name="Map the columns")).to_be_visible()


@pytest.mark.browser
def test_a_merge_import_updates_what_differs_and_a_second_one_changes_nothing(
    live_server, sandbox, settings, transactional_db, django_user_model, page: Page, monkeypatch, tmp_path
):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    for i in range(3):
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
    user = django_user_model.objects.create_user(username="merger", password="merging is fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    source = tmp_path / "buyers.csv"
    source.write_text(CSV_TEXT, encoding="cp1252")  # a spreadsheet's own encoding, semicolons
    records_url = f"{live_server.url}/objects/{obj['key']}/records/"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    upload(page, records_url, source)
    expect(page.get_by_text("Windows-1252 text separated by semicolons")).to_be_visible()
    expect(page.get_by_label("Full name")).to_have_value("name")
    expect(page.get_by_label("E-mail address")).to_have_value("email")
    expect(page.get_by_label("Seats", exact=True)).to_have_value("seats")
    expect(page.get_by_label("Match existing records by")).to_have_value("email")
    expect(page.get_by_label("Update the record it matches (only the fields that differ)")).to_be_checked()
    expect(page.locator(".import-example", has_text="buyer0@example.test")).to_be_visible()

    # Name unmapped and no key: flagged before any dry run, focus on the message, the choices kept.
    page.get_by_label("Full name").select_option("")
    page.get_by_label("Match existing records by").select_option("")
    page.get_by_role("button", name="Check every row (dry run)").click()
    alert = page.locator("#import-map-errors")
    expect(alert).to_contain_text("No column fills the required field Name")
    expect(alert).to_be_focused()
    expect(page.get_by_label("E-mail address")).to_have_value("email")
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "import-merge-map-375.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_label("Full name").select_option("name")
    page.get_by_label("Match existing records by").select_option("email")
    page.get_by_label("Update the record it matches (only the fields that differ)").check()
    with worker_thread(monkeypatch):
        page.get_by_role("button", name="Check every row (dry run)").click()
        expect(page.locator(".job")).to_have_attribute("data-status", "checked", timeout=30_000)
        expect(page.locator(".dry-run__tally")).to_have_text(
            "1 will be created, 1 updated, 2 skipped (2 with no change)."
        )
        assert record_count(sandbox, obj) == 3
        page.get_by_role("button", name="Import 2 rows").click()
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=30_000)
        expect(page.locator(".job__tally")).to_contain_text("2 rows were already up to date, 1 created, 1 updated.")
        assert record_count(sandbox, obj) == 4
        page.screenshot(path=str(SCREENSHOTS / "import-merge-done-1366.png"), full_page=True)

        # The same file again: nothing to write, and the page says so.
        upload(page, records_url, source)
        page.get_by_role("button", name="Check every row (dry run)").click()
        expect(page.locator(".job")).to_have_attribute("data-status", "checked", timeout=30_000)
        expect(page.locator(".dry-run__tally")).to_have_text(
            "0 will be created, 0 updated, 4 skipped (4 with no change)."
        )
        expect(page.get_by_text("4 rows are already up to date: importing would change nothing.")).to_be_visible()
        expect(page.get_by_role("button", name="Import 0 rows")).to_be_disabled()
    assert record_count(sandbox, obj) == 4
    found = service.get(f"/v1/objects/{obj['key']}/records", params={"search": "Zoë Müller"})["data"]
    assert [r["values"]["name"] for r in found] == ["Zoë Müller"]
