"""Roll back in Chromium against a real sandbox (#36's browser test): from
the conversation pane's Versions, an earlier document version made current
again; once its revision turn completes, the pane shows that version's
words again and the versions list has one more. On a phone's 375 px, no
sideways scroll; axe checks every document (the `page` fixture)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from studio.models import DocumentVersion
from studio.services import turn_continue, turn_start
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form
from tests.live.support import store_key
from tests.studio.support import polled_to_the_end

pytestmark = pytest.mark.browser

FIRST = "A one-pager for our spring bicycle sale: 20% off city bikes, free helmet with every bike."
SECOND = "Make it about e-bikes instead: 15% off e-bikes, a free lock with every e-bike, open Sundays."


def test_an_earlier_version_made_current_shows_in_the_pane(
    page: Page, live_server, sandbox, settings, transactional_db, django_user_model, eager_celery
):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    key = store_key(user, sandbox.demo_key)
    first = polled_to_the_end(
        sandbox, turn_start(key=key, studio="document", message=FIRST, auto=True, idempotency_key=new_idempotency_key())
    )
    second = polled_to_the_end(
        sandbox, turn_continue(key=key, turns=[first], message=SECOND, auto=True, idempotency_key=new_idempotency_key())
    )
    assert DocumentVersion.objects.count() == 2

    page.goto(live_server.url + reverse("studio:turn", args=[second.pk]))
    fill_login_form(page, "dora")
    pane = page.locator("#artifact-pane")
    expect(pane).to_contain_text("e-bikes")
    pane.get_by_role("link", name="Versions").click()
    expect(page.get_by_role("heading", name="Kept versions")).to_be_visible()
    page.set_viewport_size({"width": 375, "height": 812})
    page.get_by_role("link", name="Make version 1 the current version").click()
    expect(page.get_by_role("heading", name="Make this the current version")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    page.screenshot(path=str(SCREENSHOTS / "studio-restore-phone.png"), full_page=True)
    page.get_by_role("button", name="Send the revision turn").click()
    expect(page.get_by_text("the current version again", exact=False)).to_be_visible()

    restore = TrackedOperation.objects.exclude(pk__in=[first.pk, second.pk]).get()
    polled_to_the_end(sandbox, restore)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(live_server.url + reverse("studio:turn", args=[restore.pk]))
    expect(page.locator("#artifact-pane")).to_contain_text("city bikes")
    assert DocumentVersion.objects.count() == 3
