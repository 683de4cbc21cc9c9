"""Find and merge duplicates in Chromium against the real sandbox (the job
in a worker thread, tests/objects/jobs_support.py), by keyboard: from a
record's page to its twins, compare with a value chosen per field, the dry
run, the merge as a job, then its Undo. axe runs on every page (tests/axe.py);
at 375 px the page never scrolls sideways (the comparison scrolls in its region)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from tests.helpers import SCREENSHOTS, running_sandbox
from tests.objects.jobs_support import worker_thread


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def firms(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = service.post(
        "/v1/objects",
        json={
            "singular_name": "Firm",
            "plural_name": "Firms",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Email", "key": "email", "type": "email"},
                {"label": "Seats", "key": "seats", "type": "number"},
            ],
        },
    )
    key = obj["key"]
    kept = service.post(f"/v1/objects/{key}/records", json={"values": {"name": "ACME Corp.", "seats": 10}})
    twin = service.post(
        f"/v1/objects/{key}/records", json={"values": {"name": "acme corp", "email": "a@acme.io", "seats": 12}}
    )
    other = service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Globex"}})
    service.post(
        f"/v1/objects/{key}/records/{twin['id']}/relationships",
        json={"relation_key": "parent", "target": {"object": key, "id": other["id"]}},
    )
    user = django_user_model.objects.create_user(username="mia", password="merging twins is tidy")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"base": live_server.url, "key": key, "kept": kept, "twin": twin, "service": service}


def _wide(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth")


@pytest.mark.browser
def test_find_compare_merge_and_undo_by_keyboard(firms, page: Page, monkeypatch):
    base, key, kept = firms["base"], firms["key"], firms["kept"]
    with worker_thread(monkeypatch):
        page.goto(f"{base}/objects/{key}/records/{kept['id']}/")
        page.get_by_role("link", name="Find duplicates of this record").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Find duplicates")).to_be_visible()
        expect(page.get_by_role("status")).to_contain_text("1 group of likely twins by Name with this record")
        page.get_by_role("link", name=re.compile("Compare and merge")).focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Compare and merge")).to_be_visible()
        page.set_viewport_size({"width": 375, "height": 800})
        assert not _wide(page)
        page.set_viewport_size({"width": 1280, "height": 800})
        # The twin's seats, chosen by keyboard (Space on its radio).
        seats = page.get_by_label(re.compile("Seats from record 2"))
        seats.focus()
        page.keyboard.press("Space")
        expect(seats).to_be_checked()
        page.get_by_role("button", name="Review the merge").focus()
        page.keyboard.press("Enter")
        review = page.locator(".merge-review")
        expect(review).to_contain_text("Seats → 12")
        expect(review).to_contain_text("1 link moved")
        page.screenshot(path=str(SCREENSHOTS / "merge-review.png"), full_page=True)
        page.get_by_role("button", name="Merge", exact=True).focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("status").filter(has_text="Finished")).to_be_visible(timeout=20_000)
        values = firms["service"].get(f"/v1/objects/{key}/records/{kept['id']}")["values"]
        assert (values["seats"], values["email"]) == (12, "a@acme.io")

        page.get_by_role("button", name="Undo this job").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_text("no call that removes a link")).to_be_visible(timeout=20_000)
        values = firms["service"].get(f"/v1/objects/{key}/records/{kept['id']}")["values"]
        assert (values["seats"], values.get("email")) == (10, None)
        page.set_viewport_size({"width": 375, "height": 800})
        assert not _wide(page)
