"""A member whose key was revoked in the product, in Chromium against a real
sandbox over HTTP (axe checks every page): Home and the inbox show her the
workspace while her key works; once its last check is a minute old, both
show the refusal in words instead, with the way to API keys, which says
which key was refused. Her teammate, signed in beside her, still sees it all."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from dashboard.audit.testing import make_approver
from dashboard.inbox.tasks import refresh_workspace
from dashboard.keys.models import ApiKey
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form
from tests.inbox.support import sandbox_member
from tests.keys.support import APPROVAL_TEXT, INTERVAL

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, own_sandbox, settings, transactional_db):
    settings.SERVICE_BASE_URL = own_sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    settings.KEY_RECHECK_SECONDS = INTERVAL
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return live_server


def log_in(page: Page, url: str, username: str) -> None:
    page.goto(url)
    fill_login_form(page, username)


def test_after_the_interval_home_and_the_inbox_refuse_her_and_her_teammate_sees_all(
    console, own_sandbox, django_user_model, page: Page, browser: Browser
):
    mona = make_approver(django_user_model.objects.create_user(username="mona", password=PASSWORD))
    bob = make_approver(django_user_model.objects.create_user(username="bob", password=PASSWORD))
    mona_key = sandbox_member(mona, own_sandbox)
    sandbox_member(bob, own_sandbox, "member")
    refresh_workspace(mona_key.workspace_id)
    try:
        log_in(page, console.url + "/", "mona")
        expect(page.get_by_text(APPROVAL_TEXT).first).to_be_visible()
        page.goto(console.url + "/inbox/")
        expect(page.get_by_text(APPROVAL_TEXT).first).to_be_visible()

        own_sandbox.revoke_key(mona_key.key_id)
        # A minute later (her last check moved back rather than waiting for it).
        ApiKey.objects.filter(pk=mona_key.pk).update(checked_at=timezone.now() - timedelta(seconds=INTERVAL + 1))

        for path in ("/", "/inbox/"):
            page.goto(console.url + path)
            expect(page.get_by_role("heading", name="The service refused your API key")).to_be_visible()
            expect(page.get_by_text(APPROVAL_TEXT)).to_have_count(0)
            expect(page.get_by_text("Until then the console shows none of this workspace's data.")).to_be_visible()
        page.screenshot(path=str(SCREENSHOTS / "key-revoked-inbox.png"), full_page=True)

        # The way out is API keys, which names the refused key; keyboard reaches it.
        link = page.get_by_role("link", name="Add a new API key")
        link.focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="API keys")).to_be_visible()
        expect(page.get_by_text("Refused by the service").first).to_be_visible()

        # Bob, signed in beside her: his key still works, he still sees the workspace.
        context = browser.new_context(viewport={"width": 375, "height": 800})
        try:
            bob_page = context.new_page()
            log_in(bob_page, console.url + "/inbox/", "bob")
            expect(bob_page.get_by_text(APPROVAL_TEXT).first).to_be_visible()
            bob_page.goto(console.url + "/")
            expect(bob_page.get_by_text(APPROVAL_TEXT).first).to_be_visible()
        finally:
            context.close()
    finally:
        own_sandbox.revoke_key(mona_key.key_id, revoked=False)
