"""The key form in Chromium at 375 px against the real sandbox: a label error
keeps the pasted key in its box (htmx's hx-preserve; the answer holds no key),
and the key is then stored with that same paste. axe runs on every swap."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.keys.models import ApiKey
from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form


@pytest.fixture
def console(live_server, sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="ines", password=PASSWORD)
    return live_server, user


@pytest.mark.browser
def test_a_label_error_keeps_the_pasted_key_at_375_px(console, sandbox, page: Page):
    server, user = console
    violations = csp_violations(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(server.url + "/settings/keys/add/")
    fill_login_form(page, "ines")
    expect(page.get_by_role("heading", name="Add an API key")).to_be_visible()
    expect(page.get_by_role("link", name="Create one in the workspace's API key settings")).to_be_visible()

    # The browser's maxlength stops typing at 100; the server's check is what a
    # pasted or scripted label meets, so the test lifts the browser's limit.
    page.locator("#id_label").evaluate("input => input.removeAttribute('maxlength')")
    page.get_by_label("Label").fill("L" * 101)
    page.get_by_label("API key").fill(sandbox.demo_key)
    page.get_by_role("button", name="Check and save key").click()

    expect(page.locator("#id_label_error")).to_contain_text("at most 100 characters")
    expect(page.get_by_label("API key")).to_have_value(sandbox.demo_key)
    assert sandbox.demo_key not in page.content()  # the DOM holds it as the input's value, never in markup
    page.screenshot(path=str(SCREENSHOTS / "add-key-label-error-375.png"), full_page=True)

    # Empty the label: the same paste is stored under the workspace's name.
    page.get_by_label("Label").fill("")
    page.get_by_role("button", name="Check and save key").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    assert ApiKey.objects.get(user=user).label == "Acme Marketing"
    assert not violations
