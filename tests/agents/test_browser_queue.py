"""The approvals queue as a manager works it, in Chromium against a real
sandbox over HTTP (a module of its own: its seeded approvals are decided
here): an approval made in the service appears on the open queue and in
the header within 5 s of the refresh that sees it; j / k / a / r decide
with the destructive confirmation kept; a bulk approve of 20 while 3 are
decided elsewhere (17 approved, 3 reported by whom, 20 audit lines, each
approval decided once at the service); the queue at 375 px; "All N
matching this filter" ticked, said, cleared, and rejecting every matching
one. axe runs on every page and swap (tests/axe.py)."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import Page, expect

from dashboard.audit.models import AuditEntry
from dashboard.inbox import services as inbox_services
from dashboard.keys.models import ApiKey
from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser

SEND = 'Send the email "When a new lead is added" to sales@acme.example.'


def service(handle, method: str, path: str, key: str | None = None, **kwargs) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key or handle.demo_key}"}
    return httpx.request(method, f"{handle.base_url}{path}", headers=headers, timeout=60, **kwargs)


def lead_qualifier(handle) -> str:
    agents = service(handle, "GET", "/v1/agents").json()["data"]
    return next(agent["id"] for agent in agents if agent["name"] == "Lead qualifier")


def new_approval(handle, note: str) -> None:
    """A run of the ask-first Lead qualifier: it waits for a new send approval."""
    answer = service(handle, "POST", f"/v1/agents/{lead_qualifier(handle)}/runs", json={"message": note})
    assert answer.json()["status"] == "waiting"


def pending(handle) -> list[dict]:
    return service(handle, "GET", "/v1/approvals", params={"limit": 100}).json()["data"]


def workspace_of(username: str) -> str:
    return ApiKey.objects.get(user__username=username).workspace_id


@pytest.fixture
def batch_worker(monkeypatch):
    """A worker in a thread running bulk decisions' steps (the objects jobs' stand-in for Celery)."""
    from tests.objects.jobs_support import worker_thread

    with worker_thread(monkeypatch):
        yield


def test_a_new_approval_reaches_the_open_queue_and_the_header_within_5_s_of_the_refresh(
    console, seeded_sandbox, page: Page
):
    workspace_id = workspace_of("mona")
    inbox_services.workspace_refresh(workspace_id=workspace_id)  # what the console knew already
    log_in(page, console.url + "/approvals/")
    rows = page.get_by_role("list", name="Approvals").get_by_role("listitem")
    shown = len(pending(seeded_sandbox))
    expect(rows).to_have_count(shown)
    header = page.locator("#inbox-header")
    before = int(header.get_attribute("data-inbox-count"))
    detail_note = page.locator("#approval-detail textarea[name=note]")
    detail_note.fill("Half-typed: checking with sales")

    # The page's polls mark the workspace watched: its approvals are read every few seconds.
    deadline = time.monotonic() + 10
    while workspace_id not in inbox_services.workspaces_watched():
        assert time.monotonic() < deadline, "no poll marked the workspace watched"
        page.wait_for_timeout(200)
    new_approval(seeded_sandbox, "New lead: Ada Lovelace")
    inbox_services.workspace_refresh(workspace_id=workspace_id, watched=True)  # the refresh that sees it

    expect(rows).to_have_count(shown + 1, timeout=5_000)
    expect(rows.nth(shown)).to_contain_text("Lead qualifier")
    expect(header).to_have_attribute("data-inbox-count", str(before + 1), timeout=5_000)
    # Nothing shown was redrawn: the note typed in the detail is still there.
    expect(detail_note).to_have_value("Half-typed: checking with sales")
    sends = sum(1 for a in pending(seeded_sandbox) if a["risk"] == "send")
    expect(page.locator("#approval-counts")).to_contain_text(f"{sends} send")
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-live.png"), full_page=True)


def test_keyboard_decide_keeps_the_destructive_confirmation(console, seeded_sandbox, page: Page):
    if not any(a["risk"] == "send" for a in pending(seeded_sandbox)):
        new_approval(seeded_sandbox, "New lead: Grace Hopper")
    log_in(page, console.url + "/approvals/")
    rows = page.get_by_role("list", name="Approvals").get_by_role("listitem")
    selected = re.compile(r"approval-item--selected")
    send = rows.filter(has_text=SEND).first
    destructive = rows.filter(has_text="Delete records in deals.")
    send_id, destructive_id = send.get_attribute("data-approval-id"), destructive.get_attribute("data-approval-id")

    # j moves to the next approval and opens it in the pane; k goes back.
    rows.first.get_by_role("link").first.focus()
    page.keyboard.press("j")
    expect(rows.nth(1)).to_have_class(selected)
    expect(page.locator(f"#approval-detail #approval-{rows.nth(1).get_attribute('data-approval-id')}")).to_be_visible()
    page.keyboard.press("k")
    expect(rows.nth(0)).to_have_class(selected)

    # r rejects the selected one.
    send.get_by_role("link").first.click()
    expect(page.locator("#approval-detail")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator(f"#approval-detail #approval-{send_id}")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator(f"#approval-{send_id}")).to_have_attribute("data-status", "rejected")
    expect(send).to_contain_text("Rejected by mona")  # its line in the list says so too
    expect(send.get_by_role("checkbox")).to_have_count(0)
    # Who is on it sits under a pending card only: decided in place, its buttons go.
    expect(page.locator("#approval-detail .approval__claim")).to_be_hidden()

    # "I'm on it" under the card comes back to the queue with the same approval selected, for everyone to see.
    destructive.get_by_role("link").first.click()
    pane = page.locator("#approval-detail")
    expect(pane.locator(f"#approval-{destructive_id}")).to_be_visible()
    pane.get_by_role("button", name="I'm on it").click()
    expect(page).to_have_url(re.compile(rf"/approvals/\?.*approval={destructive_id}"))
    expect(pane.locator(".reach-claim .badge")).to_have_text("mona is on it")

    # a on a destructive action only opens its confirmation: nothing is sent until "Yes".
    destructive.get_by_role("link").first.click()
    card = page.locator(f"#approval-{destructive_id}")
    expect(card).to_be_visible()
    expect(page.locator("#approval-detail")).not_to_have_attribute("aria-busy", "true")
    page.keyboard.press("a")
    confirm = card.get_by_role("button", name="Yes, approve exactly this")
    expect(confirm).to_be_focused()
    assert next(a for a in pending(seeded_sandbox) if a["id"] == destructive_id)["status"] == "pending"
    page.keyboard.press("Enter")
    expect(card).to_have_attribute("data-status", "approved")


def test_bulk_approve_of_20_with_3_decided_elsewhere(console, seeded_sandbox, batch_worker, page: Page):
    for n in range(20 - sum(1 for a in pending(seeded_sandbox) if a["risk"] == "send")):
        new_approval(seeded_sandbox, f"New lead number {n}")
    sends = [a for a in pending(seeded_sandbox) if a["risk"] == "send"]
    assert len(sends) == 20
    # What the watched workspace's quick refresh keeps (beat, every 10 s while the queue is open).
    inbox_services.workspace_refresh(workspace_id=workspace_of("mona"), watched=True)
    log_in(page, console.url + "/approvals/")
    # The lines' boxes (the filter's "Assigned to me" is a checkbox too).
    boxes = page.get_by_role("list", name="Approvals").get_by_role("checkbox")
    expect(boxes).to_have_count(20)  # the destructive one is decided alone
    pane = page.get_by_role("region", name="The selected approval")
    expect(pane.get_by_role("button", name="Approve", exact=True)).to_be_visible()  # the first one, pending
    expect(page.locator("#approval-counts")).to_contain_text("20 send")
    for n in range(20):
        boxes.nth(n).check()

    # Meanwhile a teammate decides three of them in the service.
    teammate = seeded_sandbox.mint_key("member")
    for approval in sends[:3]:
        assert (
            service(
                seeded_sandbox, "POST", f"/v1/approvals/{approval['id']}", teammate, json={"decision": "reject"}
            ).status_code
            == 200
        )

    page.get_by_role("button", name="Approve selected").click()
    progress = page.locator(".approval-batch")
    expect(progress).to_contain_text("done: 17 approved, 3 already decided", timeout=30_000)
    expect(progress.get_by_text("Already decided by Morgan Member (rejected)")).to_have_count(3)
    expect(progress.get_by_text("no longer listed")).to_have_count(0)  # each named as the console kept it
    expect(boxes).to_have_count(0)  # settled: they left the pending list
    # The counts and the pane follow the batch: the pane's approval, decided by it, is read again.
    expect(page.locator("#approval-counts")).not_to_contain_text("send")
    expect(pane.locator("[data-approval-card]")).not_to_have_attribute("data-status", "pending")
    expect(pane.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-bulk.png"), full_page=True)

    statuses = {
        a["id"]: a["status"]
        for a in service(seeded_sandbox, "GET", "/v1/approvals", params={"status": "all", "limit": 100}).json()["data"]
    }
    assert sorted(statuses[a["id"]] for a in sends) == ["approved"] * 17 + ["rejected"] * 3
    entries = AuditEntry.objects.filter(kind=AuditEntry.KIND_DECISION, details__has_key="bulk")
    assert entries.count() == 20
    assert sorted(entries.values_list("status", flat=True)) == [200] * 17 + [409] * 3


def test_the_queue_at_375_px_opens_an_approval_as_its_own_page(console, seeded_sandbox, page: Page):
    if not pending(seeded_sandbox):
        new_approval(seeded_sandbox, "New lead: Katherine Johnson")
    page.set_viewport_size({"width": 375, "height": 800})
    log_in(page, console.url + "/approvals/")
    rows = page.get_by_role("list", name="Approvals").get_by_role("listitem")
    expect(rows.first).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    expect(page.get_by_role("region", name="The selected approval")).to_be_hidden()
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-375.png"), full_page=True)
    rows.first.get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/approvals/[0-9a-f-]{36}/$"))
    expect(page.get_by_role("button", name="Reject")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


# "All N matching this filter": ticking it ticks and locks every line, says the count, Clear undoes it all;
# rejecting with it decides every send approval the console keeps (the batch run by a worker thread).
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
