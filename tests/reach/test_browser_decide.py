"""An emailed Approve, in Chromium against a real sandbox: the email reaches
a real SMTP server; Ben, signed in, opens the link Dana forwarded him and
is told it is hers; Dana opens it in another browser, signs in, sees the
exact input and approves; the service has one decision. axe runs on every
page of both browsers (tests/axe.py)."""

from __future__ import annotations

from email import message_from_bytes

import pytest
from playwright.sync_api import Browser, Page, expect

from dashboard.inbox.services import workspace_refresh
from dashboard.keys.models import ApiKey
from dashboard.reach.models import Delivery, NotificationPreference
from dashboard.reach.sending import delivery_step
from tests.axe import check_now, watch_with_axe
from tests.helpers import fill_login_form
from tests.reach.conftest import approval_status, approve_link_of, fresh_approval, sandbox_approver

pytestmark = pytest.mark.browser


def test_an_emailed_link_decides_for_its_person_only_in_a_browser(
    live_server,
    transactional_db,
    on_sandbox,
    decisions_counted,
    settings,
    django_user_model,
    real_smtp,
    page: Page,
    browser: Browser,
):
    settings.CONSOLE_BASE_URL = live_server.url
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    sandbox_approver(django_user_model, on_sandbox, "ben")
    NotificationPreference.objects.create(user=dana, approval_risks=["send"])
    approval = fresh_approval(on_sandbox)
    workspace_refresh(workspace_id=ApiKey.objects.get(user=dana).workspace_id)
    assert delivery_step(delivery_id=Delivery.objects.get(item_key=f"approval:{approval['id']}").pk) == "sent"
    body = message_from_bytes(real_smtp.received[0].content).get_payload()
    link = approve_link_of(body, approval["id"])

    # Ben, signed in, opens the link Dana forwarded him.
    page.goto(f"{live_server.url}/accounts/login/")
    fill_login_form(page, "ben")
    page.goto(link)
    expect(page.locator("#decide-outcome")).to_contain_text("This link is for dana, and you are signed in as ben")
    expect(page.locator(".approval")).to_have_count(0)

    # Dana, in her own browser, signs in from the link and decides.
    context = browser.new_context()
    own = context.new_page()
    watch = watch_with_axe(own)
    own.goto(link)
    own.get_by_role("link", name="Sign in as dana").click()
    fill_login_form(own, "dana")
    expect(own.get_by_role("heading", name="Decide an approval")).to_be_visible()
    expect(own.locator(f"#approval-{approval['id']}")).to_contain_text("Exactly what will run")
    assert decisions_counted == []  # every GET so far (a mail scanner's too) decided nothing
    own.get_by_role("button", name="Approve").click()
    expect(own.locator("#decide-outcome")).to_contain_text("Approved: ")
    check_now(own, watch)
    assert watch.failures() == []
    context.close()

    assert decisions_counted == [f"/v1/approvals/{approval['id']}"]
    assert approval_status(on_sandbox, approval["id"]) == "approved"
