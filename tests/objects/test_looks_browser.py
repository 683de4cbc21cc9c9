"""More ways to look, in Chromium against the real sandbox: the kanban's
full width, fields on cards and counted sums; the calendar's months by
keyboard and its agenda on a phone; the gallery; a chart counted in the
background (polled to its end), saved as a view and opened again. axe
checks every page and swap (tests/conftest.py's `page`); 375 px screens
never scroll sideways."""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.jobs import engine
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS
from tests.objects.support import no_sideways_scroll


@pytest.fixture
def looks(live_server, sandbox, settings, transactional_db, django_user_model, page: Page, monkeypatch):
    """An object of every field type with 30 records, a browser logged in,
    and counts run by the live server's thread once their row is stored (the
    worker's part, in process)."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    for i in range(30):
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
    user = django_user_model.objects.create_user(username="lena", password="looking is fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    monkeypatch.setattr(
        engine,
        "send_step",
        lambda kind, tally_id, countdown=None: transaction.on_commit(lambda: engine.job_step(kind, tally_id)),
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"base": live_server.url, "key": obj["key"]}


@pytest.mark.browser
def test_the_kanban_full_width_with_fields_on_cards_and_sums(looks, page: Page):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{looks['base']}/objects/{looks['key']}/kanban/")
    columns = page.locator(".kanban-column")
    expect(columns).to_have_count(3)
    # Every column in view at once: the board is not held to the page's ~1115 px column.
    board = page.locator(".kanban").bounding_box()
    assert board and board["width"] > 1200
    last = columns.nth(2).bounding_box()
    assert last and last["x"] + last["width"] <= 1366
    # The empty "No value" column is folded, and opens.
    fold = columns.nth(2).locator("details.kanban-fold")
    expect(fold).not_to_have_attribute("open", "")
    page.get_by_text("Fields on cards").click()
    page.get_by_label("Close date").check()
    page.get_by_label("Sum per column").select_option(label="Amount")
    page.get_by_role("button", name="Show", exact=True).click()
    expect(page.locator("#kanban-tally")).to_contain_text("Every card counted and amount summed")
    lead = sum(round(i * 101.25, 2) for i in range(30) if i % 5)
    expect(page.locator("#kanban-sum-1")).to_have_text(f"Amount: {lead:,.2f}")
    expect(page.locator("#kanban-count-1")).to_have_text("24")
    expect(page.locator(".kanban-card").first.locator(".kanban-card__fields dt")).to_have_text("Close date")
    page.screenshot(path=str(SCREENSHOTS / "kanban-fields-sums-1366.png"))
    page.set_viewport_size({"width": 375, "height": 800})
    no_sideways_scroll(page)


@pytest.mark.browser
def test_the_calendar_by_keyboard_and_its_agenda_on_a_phone(looks, page: Page):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{looks['base']}/objects/{looks['key']}/calendar/?date=meeting_at&month=2026-10")
    expect(page.get_by_role("heading", name="October 2026")).to_be_visible()
    next_month = page.get_by_role("link", name="Next month")
    next_month.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="November 2026")).to_be_visible()
    expect(page).to_have_url(re.compile(r"month=2026-11"))
    # sample_values: meetings on 1-28 November, 30 records.
    expect(page.locator(".look-calendar__grid .look-calendar__entries a")).to_have_count(30)
    expect(page.get_by_role("status").filter(has_text="30 records in November 2026")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "calendar-1366.png"))
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator(".look-calendar__agenda")).to_be_visible()
    expect(page.locator(".look-calendar__grid")).to_be_hidden()
    no_sideways_scroll(page)
    page.locator(".look-calendar__agenda a").first.click()
    expect(page).to_have_url(re.compile(r"/records/[^/]+/$"))


@pytest.mark.browser
def test_the_gallery_shows_a_card_per_record(looks, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{looks['base']}/objects/{looks['key']}/gallery/")
    cards = page.locator(".look-gallery__card")
    expect(cards).to_have_count(24)
    # img.example.test is not a host the image policy lists: a placeholder naming it, no broken picture.
    expect(cards.first.locator(".image-elsewhere")).to_contain_text("img.example.test")
    no_sideways_scroll(page)
    page.get_by_role("link", name="Next page").click()
    expect(cards).to_have_count(6)


@pytest.mark.browser
def test_a_chart_counted_in_the_background_saved_and_opened_again(looks, page: Page):
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{looks['base']}/objects/{looks['key']}/records/")
    page.get_by_role("link", name="Chart").click()
    page.get_by_label("Show").select_option(label="Sum")
    page.get_by_label("grouped by").select_option(label="Stage (Stage)")
    page.get_by_role("button", name="Show", exact=True).click()
    table = page.locator(".look-chart__table")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(page.locator("svg.chart rect.chart-bar")).to_have_count(2)
    expect(table.locator("tbody tr").first.locator("th")).to_have_text("Lead")
    page.screenshot(path=str(SCREENSHOTS / "chart-1366.png"))
    page.get_by_text("Save this chart").click()
    page.get_by_label("View name").fill("Amount by stage")
    page.get_by_role("button", name="Save view").click()
    expect(page.get_by_role("heading", name=re.compile("Amount by stage$"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"/chart/\?.*view=\d+"))
    page.set_viewport_size({"width": 375, "height": 800})
    no_sideways_scroll(page)
