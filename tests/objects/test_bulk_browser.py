"""Bulk edit with its dry run, and a kanban move the service refuses (422)
and the board rolls back, in Chromium against the real sandbox; the job runs
in a worker thread (tests/objects/jobs_support.py)."""

from __future__ import annotations

import json
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
    """A sandbox of this module's own: the objects these tests make never
    crowd the shared sandbox's first page of objects (other tests look there)."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def board(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    """Every-type object with 12 records (stage Won for every fifth, else Lead)
    and a browser logged in with the sandbox's demo key."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(12)]
    user = django_user_model.objects.create_user(username="bulky", password="bulk edits are fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"base": live_server.url, "key": obj["key"], "object": obj, "records": records, "service": service}


def option_id(obj: dict, field_key: str, label: str) -> str:
    field = next(f for f in obj["fields"] if f["key"] == field_key)
    return next(o["id"] for o in field["options"] if o["label"] == label)


@pytest.mark.browser
def test_bulk_edit_after_its_dry_run(board, page: Page, monkeypatch):
    lead = option_id(board["object"], "stage", "Lead")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{board['base']}/objects/{board['key']}/records/?f.stage={lead}")
    rows = page.locator("table.records tbody:not(.records-more) tr")
    expect(rows.first).to_be_visible()
    chosen = [rows.nth(i).locator("th[scope=row]").inner_text() for i in range(3)]
    for i in range(3):
        rows.nth(i).get_by_role("checkbox").check()
    expect(page.locator("#bulk-count")).to_have_text("3 selected")
    page.screenshot(path=str(SCREENSHOTS / "records-selection-1366.png"))
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(SCREENSHOTS / "records-selection-375.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.get_by_role("button", name="Bulk edit").click()

    expect(page.get_by_role("heading", name=re.compile("^Bulk edit"))).to_be_visible()
    expect(page.get_by_text("3 selected")).to_be_visible()
    page.get_by_label("Field to change").select_option(label="Stage (Stage)")
    page.get_by_label("New stage").select_option(label="Won")
    page.get_by_role("button", name="Dry run").click()

    # The dry run: how many will change, a sample (now and after), nothing written yet.
    expect(page.get_by_role("heading", name="Dry run: nothing is written yet")).to_be_visible()
    expect(page.locator(".dry-run__count")).to_contain_text("3 of 3")
    sample = page.locator(".dry-run__sample tbody tr")
    expect(sample).to_have_count(3)
    expect(sample.first.locator("td").nth(0)).to_have_text("Lead")
    expect(sample.first.locator("td").nth(1)).to_have_text("Won")
    stored = {
        r["id"]: r for r in board["service"].get(f"/v1/objects/{board['key']}/records", params={"limit": 100})["data"]
    }
    assert sum(1 for r in stored.values() if r["values"]["stage"] == option_id(board["object"], "stage", "Won")) == 3
    page.screenshot(path=str(SCREENSHOTS / "bulk-dry-run-1366.png"), full_page=True)

    with worker_thread(monkeypatch):
        page.get_by_role("button", name=re.compile("^Start: Set Stage to Won on 3 selected")).click()
        expect(page.get_by_role("heading", name="Bulk edit")).to_be_visible()
        expect(page.locator(".job")).to_have_attribute("data-status", "done", timeout=20_000)
        expect(page.locator(".job__numbers")).to_contain_text("3 of 3")
        expect(page.locator(".job__numbers")).to_contain_text("3 done")
        page.set_viewport_size({"width": 375, "height": 800})
        page.screenshot(path=str(SCREENSHOTS / "bulk-job-375.png"), full_page=True)

    won = option_id(board["object"], "stage", "Won")
    after = board["service"].get(
        f"/v1/objects/{board['key']}/records", params={"limit": 100, "filter": json.dumps({"stage": won})}
    )["data"]
    titles = {r["values"]["name"] for r in after}
    assert set(chosen) <= titles
    assert len(after) == 3 + 3  # 3 were Won already (records 0, 5 and 10)


@pytest.mark.browser
def test_kanban_move_refused_with_422_is_rolled_back(board, page: Page):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{board['base']}/objects/{board['key']}/kanban/")
    lead_list = page.locator('.kanban-cards[data-label="Lead"]')
    won_list = page.locator('.kanban-cards[data-label="Won"]')
    expect(lead_list.locator(".kanban-card")).to_have_count(9)
    expect(won_list.locator(".kanban-card")).to_have_count(3)
    page.screenshot(path=str(SCREENSHOTS / "kanban-1366.png"), full_page=True)

    # A drag to Won is saved.
    first = lead_list.locator(".kanban-card").first
    moved_title = first.locator(".kanban-card__title").inner_text()
    first.locator(".kanban-card__title").drag_to(won_list)
    expect(won_list.locator(".kanban-card")).to_have_count(4)
    expect(page.locator("#kanban-status")).to_contain_text(f"Moved “{moved_title}” to Won", timeout=10_000)
    won = option_id(board["object"], "stage", "Won")
    moved = board["service"].get(
        f"/v1/objects/{board['key']}/records", params={"limit": 100, "filter": json.dumps({"stage": won})}
    )["data"]
    assert moved_title in {r["values"]["name"] for r in moved}

    # Meanwhile a colleague removes the option "Won": the service now refuses it (422).
    lead = option_id(board["object"], "stage", "Lead")
    board["service"].patch(
        f"/v1/objects/{board['key']}",
        json={
            "fields": [{"key": "stage", "label": "Stage", "type": "stage", "options": [{"id": lead, "label": "Lead"}]}]
        },
    )
    card = lead_list.locator(".kanban-card").first
    title = card.locator(".kanban-card__title").inner_text()
    # The keyboard way: "Move to…" then Move.
    card.get_by_label(f"Move “{title}” to").select_option(label="Won")
    card.get_by_role("button", name="Move").click()
    refused = lead_list.locator(".kanban-card", has_text=title)
    expect(refused.locator(".kanban-card__error")).to_contain_text("must be one of", timeout=10_000)
    expect(lead_list.locator(".kanban-card")).to_have_count(8)
    expect(won_list.locator(".kanban-card")).to_have_count(4)
    expect(page.locator(".kanban-count").nth(0)).to_have_text("8")
    expect(page.locator("#kanban-status")).to_contain_text("was put back in Lead")
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(SCREENSHOTS / "kanban-422-375.png"), full_page=True)
    # The board scrolls in its own box: nothing in it (the cards' hidden labels either) widens the page.
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    record = next(r for r in board["records"] if r["values"]["name"] == title)
    assert board["service"].get(f"/v1/objects/{board['key']}/records/{record['id']}")["values"]["stage"] == lead


@pytest.mark.browser
def test_show_more_adds_a_columns_next_cards_and_they_move_like_the_others(board, page: Page, monkeypatch):
    from objects import kanban

    monkeypatch.setattr(kanban, "CARDS_PER_COLUMN", 5)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{board['base']}/objects/{board['key']}/kanban/")
    lead_list = page.locator('.kanban-cards[data-label="Lead"]')
    won_list = page.locator('.kanban-cards[data-label="Won"]')
    lead_count = page.locator(".kanban-count").nth(0)
    expect(lead_list.locator(".kanban-card")).to_have_count(5)
    expect(lead_count).to_have_text("5+")

    page.get_by_role("link", name="Show more").first.click()
    expect(lead_list.locator(".kanban-card")).to_have_count(9)
    expect(lead_count).to_have_text("9")
    expect(page.locator("#kanban-more-1").get_by_role("link", name="Show more")).to_have_count(0)

    # A card that came with "Show more" moves by keyboard like any other.
    card = lead_list.locator(".kanban-card").last
    title = card.locator(".kanban-card__title").inner_text()
    card.get_by_label(f"Move “{title}” to").select_option(label="Won")
    card.get_by_role("button", name="Move").click()
    expect(page.locator("#kanban-status")).to_contain_text(f"Moved “{title}” to Won", timeout=10_000)
    expect(lead_count).to_have_text("8")
    expect(won_list.locator(".kanban-card", has_text=title)).to_have_count(1)
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(SCREENSHOTS / "kanban-show-more-375.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
