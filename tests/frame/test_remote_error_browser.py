"""A remote error's page at 375 px (found by trying it as a user would): the
service's 400 for an address it cannot read names its request id, a
40-character code that wraps inside the message box instead of widening the
page. Against the real sandbox, axe on the page (tests/axe.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import csp_violations
from tests.objects.support import session_cookie


@pytest.mark.browser
def test_a_remote_errors_request_id_wraps_on_a_phone(
    live_server, sandbox, settings, transactional_db, django_user_model, page: Page
):
    from dashboard.api import ServiceClient
    from dashboard.keys.testing import store_sandbox_key

    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="rosa", password="phones wrap long ids")
    store_sandbox_key(user, ServiceClient(api_key=sandbox.demo_key), sandbox.demo_key)
    violations = csp_violations(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.context.add_cookies([session_cookie(user, live_server.url)])

    page.goto(f"{live_server.url}/agents/not-an-agent-id/")  # the service answers 400: not an id it reads

    request_id = page.locator(".remote-error-request-id code")
    expect(request_id).to_be_visible()
    assert request_id.inner_text().startswith("req_")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert violations == []
