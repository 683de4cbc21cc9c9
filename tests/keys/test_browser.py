"""The whole key path in Chromium, against the real sandbox over HTTP."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import active_key_for
from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form


@pytest.fixture
def console(live_server, sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="carol", password=PASSWORD)
    return live_server, user


def log_in(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    fill_login_form(page, "carol")


def add_key_through_the_form(page: Page, *, label: str, secret: str) -> None:
    page.get_by_label("Label").fill(label)
    page.get_by_label("API key").fill(secret)
    page.get_by_role("button", name="Check and save key").click()


@pytest.mark.browser
def test_log_in_add_keys_see_account_and_switch_workspace(console, sandbox, page: Page):
    server, user = console
    violations = csp_violations(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    page.goto(server.url + "/")
    page.screenshot(path=str(SCREENSHOTS / "login.png"))
    log_in(page, server.url)
    expect(page.get_by_text("Add an API key to get started")).to_be_visible()

    # A refused key: a message in place, nothing stored, the secret not kept in the field.
    page.get_by_role("main").get_by_role("link", name="Add an API key").click()
    add_key_through_the_form(page, label="Old key", secret=sandbox.mint_key("revoked"))
    expect(page.get_by_text("The service refused this key")).to_be_visible()
    expect(page.get_by_label("Label")).to_have_value("Old key")
    expect(page.get_by_label("API key")).to_have_value("")
    page.screenshot(path=str(SCREENSHOTS / "add-key-refused.png"), full_page=True)
    assert not ApiKey.objects.filter(user=user).exists()

    # The demo workspace's key: checked, stored, active.
    add_key_through_the_form(page, label="Acme demo", secret=sandbox.demo_key)
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("added for workspace Acme Marketing")
    expect(page.get_by_role("row", name="Acme demo")).to_contain_text("Acme Marketing")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", name="Account")).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text("Acme Marketing")
    expect(page.get_by_role("main")).to_contain_text("Europe/Berlin")
    expect(page.get_by_role("link", name="Account")).to_have_attribute("aria-current", "page")
    page.screenshot(path=str(SCREENSHOTS / "account.png"), full_page=True)

    # A second key, of another workspace: stored, not active yet.
    page.goto(server.url + "/settings/keys/add/")
    add_key_through_the_form(page, label="Globex", secret=sandbox.mint_key("other_workspace"))
    expect(page.get_by_role("row", name="Globex")).to_contain_text("Globex Research")
    assert active_key_for(user=user).workspace_name == "Acme Marketing"
    page.screenshot(path=str(SCREENSHOTS / "keys.png"), full_page=True)

    # Switch from the header menu.
    page.get_by_role("banner").locator(".switcher > summary").click()
    page.screenshot(path=str(SCREENSHOTS / "switcher-open.png"))
    page.get_by_role("button", name="Globex Research").click()
    expect(page.get_by_role("banner").locator(".switcher > summary")).to_contain_text("Globex Research")
    expect(page.get_by_role("status")).to_contain_text("Now working in Globex Research")
    assert active_key_for(user=user).workspace_name == "Globex Research"

    page.get_by_role("link", name="Account").click()
    expect(page.get_by_role("main")).to_contain_text("America/New_York")

    # Check again re-runs /v1/me in place.
    page.get_by_role("banner").locator(".switcher > summary").click()
    page.get_by_role("banner").get_by_role("link", name="Manage keys").click()
    page.get_by_role("button", name="Check again Acme demo").click()
    expect(page.get_by_role("row", name="Acme demo")).to_contain_text("works")

    assert violations == []
    assert sandbox.demo_key not in page.content()
