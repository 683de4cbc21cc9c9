"""The System status page in Chromium (axe on the page and on every swap of
its polled region): an administrator reads it by its headings and tables, it
fits a phone's 375 px, and the region swaps in what changed."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from dashboard.keys.models import ApiKey
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.helpers import PASSWORD, fill_login_form
from tests.live.support import SECRET, store_key

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, sandbox, settings, transactional_db, django_user_model, alive):
    settings.SERVICE_BASE_URL = sandbox.base_url
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    person_role_set(user=admin, role=Role.ADMINISTRATOR)
    return live_server


def test_an_administrator_reads_the_status_on_a_phone_and_sees_a_refusal_arrive(console, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(console.url + "/accounts/login/?next=/system/status/")
    fill_login_form(page, "ada")

    expect(page.get_by_role("heading", name="System status", level=1)).to_be_visible()
    expect(page.get_by_text("Ready.")).to_be_visible()
    for name in ("Readiness", "The remote service", "Errors in the last hour", "Stored keys the service refused"):
        expect(page.get_by_role("heading", name=name, level=2)).to_be_visible()
    expect(page.get_by_role("table", name="What /readyz checks, part by part")).to_be_visible()
    expect(page.get_by_text("No stored key is refused.")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1  # tables become cards; the page never scrolls sideways

    # A key is refused meanwhile: the next poll (every 5 s) swaps it in.
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.get(username="ada")
    key = store_key(owner, SECRET, "Acme Marketing")
    ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now())
    refused = page.get_by_role("table", name="Stored API keys the service answered 401 to", exact=False)
    expect(refused.get_by_role("rowheader", name="Acme Marketing")).to_be_visible(timeout=15_000)
    assert SECRET not in page.content()
