"""A person makes an access token at phone width, by keyboard where it
matters, uses it against the live console, and revokes it (axe watches
every page through the `page` fixture)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from dashboard.audit.testing import make_approver
from tests.agents.support import store_demo_key
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, tokens_sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = tokens_sandbox.base_url
    user = django_user_model.objects.create_user(username="dana", password=PASSWORD)
    make_approver(user)
    store_demo_key(user, tokens_sandbox)
    return live_server


def test_a_token_made_at_375_px_works_once_shown_and_stops_when_revoked(console, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(console.url + "/account/tokens/")
    fill_login_form(page, "dana")
    expect(page.get_by_role("heading", name="Access tokens", level=1)).to_be_visible()

    page.get_by_label("Name").fill("Release script")
    page.get_by_label("read: Read every area").check()
    page.get_by_label("decide: Decide approvals").check()
    page.get_by_role("button", name="Make the token").press("Enter")

    shown = page.get_by_role("textbox", name="Token", exact=True)
    expect(shown).to_be_visible()
    token = shown.input_value()
    assert token.startswith("wsc_")
    assert not page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "token-made-375.png"), full_page=True)
    expect(page.get_by_role("row", name="Release script")).to_contain_text("decide, read")

    me = httpx.get(console.url + "/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["token"]["scopes_in_force"] == ["decide", "read"]

    page.get_by_role("button", name="Revoke Release script").click()
    expect(page.get_by_role("status")).to_contain_text("Revoked “Release script”")
    refused = httpx.get(console.url + "/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401 and "was revoked" in refused.json()["error"]["message"]
