""" "All N matching this filter" in Chromium on the real sandbox: ticking it
ticks and locks every line, says the count, Clear undoes it all; rejecting
with it decides every send approval the console keeps (the batch run by a
worker thread), and the pending send ones leave the sandbox. axe checks the
queue (tests/conftest.py's `page`)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.inbox import services as inbox_services
from tests.agents.support import log_in
from tests.agents.test_browser_queue import batch_worker, new_approval, pending, workspace_of

pytestmark = pytest.mark.browser
__all__ = ["batch_worker"]  # the fixture, used by name


def test_all_matching_is_ticked_said_cleared_and_rejects_every_matching_approval(
    console, seeded_sandbox, batch_worker, page: Page
):
    for n in range(3):
        new_approval(seeded_sandbox, f"Lead for the filter {n}")
    sends = [a for a in pending(seeded_sandbox) if a["risk"] == "send"]
    inbox_services.workspace_refresh(workspace_id=workspace_of("mona"), watched=True)
    log_in(page, console.url + "/approvals/?risk=send")

    everything = page.get_by_label(f"All {len(sends)} waiting approvals matching this filter")
    lines = page.get_by_role("list", name="Approvals").get_by_role("checkbox")
    expect(lines).to_have_count(len(sends))
    everything.check()
    for n in range(len(sends)):
        expect(lines.nth(n)).to_be_checked()
        expect(lines.nth(n)).to_be_disabled()
    state = page.get_by_role("status").filter(has_text="matching this filter are selected")
    expect(state).to_have_text(f"All {len(sends)} approvals matching this filter are selected. Clear selection")
    page.get_by_role("button", name="Clear selection").click()
    expect(everything).not_to_be_checked()
    expect(lines.first).not_to_be_checked()
    expect(lines.first).to_be_enabled()
    expect(state).to_be_hidden()

    page.get_by_label("Select all on this page").check()
    expect(lines.last).to_be_checked()
    page.get_by_label("Select all on this page").uncheck()
    everything.check()
    page.get_by_role("button", name="Reject selected").click()
    expect(page.locator(".approval-batch")).to_contain_text(f"done: {len(sends)} rejected", timeout=30_000)
    assert not [a for a in pending(seeded_sandbox) if a["risk"] == "send"]
