"""The command palette in Chromium against the real sandbox, by keyboard
alone: Ctrl-K opens it, typing asks the server, the arrow chooses the record,
Enter lands on the record's page; on a phone it fits, and Esc closes it. axe
checks every page and every swap of the results (the `page` fixture)."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS, csp_violations


@pytest.fixture
def quokka(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service, name=f"Palette deals {uuid.uuid4().hex[:6]}")
    title = f"Quokka {uuid.uuid4().hex[:6]}"
    service.post(f"/v1/objects/{obj['key']}/records", json={"values": {**sample_values(2), "name": title}})
    user = django_user_model.objects.create_user(username="kim", password="palettes are quick to use")
    store_sandbox_key(user, service, sandbox.demo_key)
    browser_client = Client()
    browser_client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return {"server": live_server, "title": title}


@pytest.mark.browser
def open_palette(page: Page) -> None:
    """Ctrl+K on a page an Enter just opened: its scripts listen once it has loaded
    (a heading shows before that, and the key would go nowhere)."""
    page.wait_for_load_state("load")
    page.keyboard.press("Control+k")


def test_open_type_arrow_and_enter_land_on_the_record(quokka, page: Page):
    violations = csp_violations(page)
    page.goto(f"{quokka['server'].url}/agents/")
    dialog = page.get_by_role("dialog", name="Go to or find")
    expect(dialog).to_be_hidden()

    page.keyboard.press("Control+k")
    expect(dialog).to_be_visible()
    field = dialog.get_by_role("combobox", name="Go to or find")
    expect(field).to_be_focused()

    page.keyboard.type(quokka["title"])
    record = dialog.get_by_role("option", name=re.compile(re.escape(quokka["title"])))
    expect(record).to_be_visible()
    expect(dialog.locator("#palette-count")).to_have_text(re.compile(r"^1 result$"))
    expect(field).to_have_attribute("aria-expanded", "true")

    page.keyboard.press("ArrowDown")
    expect(record).to_have_attribute("aria-selected", "true")
    # Another region's swap meanwhile (the header's inbox poll) keeps the choice.
    page.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:afterSettle', {bubbles: true}))")
    expect(record).to_have_attribute("aria-selected", "true")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "palette.png"))
    expect(field).to_have_attribute("aria-activedescendant", record.get_attribute("id") or "")
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name=quokka["title"])).to_be_visible()

    # Again on the record's page, on a phone: the palette fits the screen, and Esc closes it.
    page.set_viewport_size({"width": 375, "height": 740})
    open_palette(page)
    expect(dialog).to_be_visible()
    page.keyboard.type("objects")
    expect(dialog.get_by_role("option", name=re.compile("^Objects")).first).to_be_visible()
    box = dialog.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    page.screenshot(path=str(SCREENSHOTS / "palette-phone.png"))
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert violations == []


@pytest.mark.browser
def test_enter_opens_the_top_hit_and_the_arrows_move_the_choice(quokka, page: Page):
    page.goto(f"{quokka['server'].url}/agents/")
    dialog = page.get_by_role("dialog", name="Go to or find")
    page.keyboard.press("Control+k")
    field = dialog.get_by_role("combobox", name="Go to or find")

    # Several results: the first is chosen as soon as they come; the arrows move the choice.
    page.keyboard.type("a")
    # The answer to "a" (the dialog asked for "" as it opened: that answer may come first).
    expect(dialog.locator("#palette-results")).to_have_attribute("data-palette-query", "a")
    options = dialog.get_by_role("listbox", name="Results").get_by_role("option")
    expect(options.nth(1)).to_be_visible()
    expect(options.first).to_have_attribute("aria-selected", "true")
    expect(field).to_have_attribute("aria-activedescendant", options.first.get_attribute("id") or "")
    page.keyboard.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(options.first).to_have_attribute("aria-selected", "false")
    expect(field).to_have_attribute("aria-activedescendant", options.nth(1).get_attribute("id") or "")
    page.keyboard.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "true")

    # The record's title: its answer's top hit is the record, chosen without an arrow; Enter opens it.
    field.fill("")
    page.keyboard.type(quokka["title"])
    record = dialog.get_by_role("option", name=re.compile(re.escape(quokka["title"])))
    expect(record).to_have_attribute("aria-selected", "true")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=quokka["title"])).to_be_visible()

    # Typed and Enter at once, before the answer comes: that answer's top hit opens, not a results page.
    open_palette(page)
    expect(field).to_be_focused()
    page.keyboard.type("Inbox")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    assert page.url.endswith("/inbox/")
