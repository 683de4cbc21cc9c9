"""Delete → trash → restore in Chromium against the real sandbox (the job in
a worker thread, tests/objects/jobs_support.py): the delete says where the
record went and offers Undo, the restore brings it back with its link, the
old address leads to the new one, and purging empties the trash in words.
axe runs on every page and swap (tests/axe.py); focus is checked after each."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS, running_sandbox
from tests.objects.jobs_support import worker_thread


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def deals(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(4)]
    service.post(
        f"/v1/objects/{obj['key']}/records/{records[1]['id']}/relationships",
        json={"relation_key": "sister_deal", "target": {"object": obj["key"], "id": records[2]["id"]}},
    )
    user = django_user_model.objects.create_user(username="tina", password="the trash is fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"base": live_server.url, "key": obj["key"], "records": records}


def focused_text(page: Page) -> str:
    return page.evaluate("() => (document.activeElement && document.activeElement.textContent || '').trim()")


@pytest.mark.browser
def test_delete_then_restore_from_the_trash_then_purge(deals, page: Page, monkeypatch):
    base, key = deals["base"], deals["key"]
    first = deals["records"][1]
    with worker_thread(monkeypatch):
        page.goto(f"{base}/objects/{key}/records/{first['id']}/")
        page.get_by_role("link", name="Delete").click()
        expect(page.get_by_text("keeps both in the trash")).to_be_visible()
        page.get_by_role("button", name="Delete this record").click()
        expect(page).to_have_url(re.compile(rf"/objects/{key}/records/$"))
        message = page.locator("#messages")
        expect(message).to_contain_text("“Deal 001” moved to the trash")

        # Undo (in the message) asks first; the trash lists it, whose Restore asks the same.
        message.get_by_role("link", name="Undo").click()
        expect(page.get_by_role("heading", name="Restore “Deal 001”")).to_be_visible()
        expect(page.locator("main")).to_contain_text("and 1 link")
        page.get_by_role("link", name="Trash", exact=True).click()
        expect(page.get_by_role("heading", name="Trash")).to_be_visible()
        expect(page.locator("table.trash__table tbody tr")).to_have_count(1)
        page.get_by_role("link", name="Restore Deal 001").click()
        expect(page.get_by_role("heading", name="Restore “Deal 001”")).to_be_visible()
        page.get_by_role("button", name="Restore this record").click()
        opened = page.get_by_role("link", name="Open the restored record")
        expect(opened).to_be_visible(timeout=20_000)
        # The last swap of the job's progress moves focus to what comes next.
        expect(opened).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Deal 001")).to_be_visible()
        expect(page.locator("#relationships")).to_contain_text("Deal 002")
        expect(page.locator("#history")).to_contain_text("Restored from the trash")
        restored_url = page.url
        assert first["id"] not in restored_url
        # The old address leads to the restored record.
        page.goto(f"{base}/objects/{key}/records/{first['id']}/")
        expect(page).to_have_url(restored_url)

        # Delete another, then remove it from the trash for good.
        page.goto(f"{base}/objects/{key}/records/{deals['records'][3]['id']}/")
        page.get_by_role("link", name="Delete").click()
        page.get_by_role("button", name="Delete this record").click()
        expect(page.locator("#messages")).to_contain_text("moved to the trash")
        page.get_by_role("link", name="Trash", exact=True).click()
        page.get_by_label("Deal 003").check()
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Remove the selected for good").click()
        status = page.get_by_role("status").filter(has_text="removed from the trash for good")
        expect(status).to_be_visible()
        expect(status).to_be_focused()
        expect(page.locator("#trash-list")).to_contain_text("The trash is empty")
        page.set_viewport_size({"width": 375, "height": 800})
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(SCREENSHOTS / "trash-empty.png"), full_page=True)
