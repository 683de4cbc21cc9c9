""" "All N matching this filter" in the approvals queue's bulk selection: the
count offered from the approvals the console keeps, the page's queries the
same at 50 and 1,000 waiting; the batch made of every approval matching the
filter when the form is sent (read again, never the page's list), refused in
words where it would approve a destructive one; and, at the real sandbox with
1,000 waiting, exactly the matching ones decided by the one batch job."""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents import bulk_decisions
from agents.models import ApprovalBatch, ApprovalBatchItem
from dashboard.inbox.models import WaitingItem
from dashboard.inbox.services import workspace_refresh
from dashboard.jobs import engine
from tests.agents.support import agents_page, approval, store_demo_key
from tests.helpers import running_sandbox
from tests.html import one, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}


def stored_pending(count: int, *, workspace_id: str = "ws-test", every: int = 2, risk: str = "write") -> list[str]:
    """`count` pending approvals as the inbox refresh keeps them; one in `every` of risk `risk`, the rest send.
    Returns the ids of the `risk` ones."""
    since = timezone.now() - timedelta(hours=2)
    rows, picked = [], []
    for number in range(count):
        approval_id = f"aaaaaaaa-0000-4000-8000-{number:012d}"
        chosen = risk if number % every == 0 else "send"
        if chosen == risk:
            picked.append(approval_id)
        body = approval(approval_id, risk=chosen, summary=f"Action {number}")
        rows.append(
            WaitingItem(
                workspace_id=workspace_id,
                source="agents",
                remote_id=f"approval:{approval_id}",
                kind="approval",
                data={"approval": body, "agent_name": "Lead qualifier"},
                since=since,
                settle_path=f"/v1/approvals/{approval_id}",
                refreshed_at=timezone.now(),
            )
        )
    WaitingItem.objects.bulk_create(rows)
    return picked


@pytest.fixture
def service(remote, api_key, approver):
    """The service's first page of pending approvals (25 of them) and its agents."""
    page = [approval(f"aaaaaaaa-0000-4000-8000-{n:012d}", risk="write" if n % 2 == 0 else "send") for n in range(25)]
    remote.get("/v1/approvals").mock(return_value=httpx.Response(200, json={"data": page, "next_cursor": "c2"}))
    remote.get("/v1/agents").mock(return_value=agents_page())
    return remote


@pytest.fixture
def steps(monkeypatch) -> list[int]:
    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, batch_id, countdown=None: sent.append(batch_id))
    return sent


def queries_of(client, url: str) -> tuple[int, bytes]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured.captured_queries), response.content


def test_all_matching_is_offered_with_its_count_and_the_queue_page_queries_stay_flat_from_50_to_1000(
    service, logged_in_client
):
    url = reverse("agents:approvals") + "?risk=write"
    stored_pending(50)
    logged_in_client.get(url)  # warm: the session's first page, the deadlines' cache
    at_50, page = queries_of(logged_in_client, url)
    label = one(page, "label.approval-bulk__matching")
    assert text_of(label) == "All 25 waiting approvals matching this filter"

    WaitingItem.objects.all().delete()
    stored_pending(1000)
    logged_in_client.get(url)  # warm alike: the header's count is kept per state of the inbox's rows
    at_1000, page = queries_of(logged_in_client, url)
    assert at_1000 == at_50, f"{at_50} queries with 50 waiting, {at_1000} with 1,000"
    assert text_of(one(page, "label.approval-bulk__matching")) == "All 500 waiting approvals matching this filter"
    form = one(page, "form#bulk-decide-form")
    hidden = {field.get("name"): field.get("value") for field in form.select("input[type=hidden]")}
    assert (hidden["agent"], hidden["risk"], hidden["age"]) == ("", "write", "")
    assert one(form, "input[name=matching]").get("type") == "checkbox"  # works without JavaScript
    assert one(form, "[data-bulk-clear]").get("type") == "button"


def test_the_batch_takes_every_approval_matching_the_filter_when_sent_not_the_pages_list(
    service, steps, logged_in_client
):
    write_ids = stored_pending(60)  # 30 write, 30 send
    fields = {
        "decision": "reject",
        "idempotency_key": str(uuid.uuid4()),
        "matching": "on",
        "risk": "write",
        "agent": "",
        "age": "",
        "approval": [write_ids[0]],  # what the page had ticked: not what decides
    }
    # One more write approval arrived after the page was drawn: the batch, read when sent, has it.
    newer = "bbbbbbbb-0000-4000-8000-000000000001"
    WaitingItem.objects.create(
        workspace_id="ws-test",
        source="agents",
        remote_id=f"approval:{newer}",
        kind="approval",
        data={"approval": approval(newer, risk="write"), "agent_name": "Lead qualifier"},
        since=timezone.now(),
        settle_path=f"/v1/approvals/{newer}",
        refreshed_at=timezone.now(),
    )
    response = logged_in_client.post(reverse("agents:approval_batch_start"), fields, **HTMX)
    assert response.status_code == 200
    batch = ApprovalBatch.objects.get()
    assert set(batch.items.values_list("approval_id", flat=True)) == {*write_ids, newer}
    assert "Rejecting 31 approvals" in text_of(one(response.content, ".approval-batch__head"))
    assert steps == [batch.pk]  # the one batch job, started


def test_all_matching_refuses_in_words_to_approve_destructive_ones_and_more_than_the_limit(
    service, steps, logged_in_client, settings, monkeypatch
):
    stored_pending(10, every=5, risk="destructive")
    # The service's own word on each risk (what the batch checks): the same ten.
    ten = [row.data["approval"] for row in WaitingItem.objects.order_by("id")]
    service.get("/v1/approvals").mock(return_value=httpx.Response(200, json={"data": ten, "next_cursor": None}))
    fields = {"decision": "approve", "idempotency_key": str(uuid.uuid4()), "matching": "on", "risk": "", "age": ""}
    response = logged_in_client.post(reverse("agents:approval_batch_start"), fields, **HTMX)
    assert text_of(one(response.content, "[role=alert]")) == (
        "2 of the 10 approvals matching this filter are destructive or spend actions, approved one at a time "
        "after checking the exact input: filter by another risk to approve the rest together."
    )
    monkeypatch.setattr(bulk_decisions, "MAX_MATCHING", 5)
    fields = {**fields, "decision": "reject", "idempotency_key": str(uuid.uuid4())}
    response = logged_in_client.post(reverse("agents:approval_batch_start"), fields, **HTMX)
    assert text_of(one(response.content, "[role=alert]")) == (
        "At most 5 approvals are decided together; 10 match this filter: narrow it (an agent, a risk, an age)."
    )
    assert not ApprovalBatch.objects.exists() and not steps


@pytest.fixture
def thousand_waiting(settings, user, approver):
    """A sandbox of this test's own with 1,000 pending approvals of the demo
    workspace (its seed's, and clones of one of them: 40 `write`, the rest
    `send`), kept by the console's refresh."""
    with running_sandbox() as handle:
        settings.SERVICE_BASE_URL = handle.base_url
        key = store_demo_key(user, handle)
        seeded = [a for a in handle.store.list("approval") if a["status"] == "pending"]
        model = next(a for a in seeded if a["risk"] == "send")
        clones = []
        for number in range(1000 - len(seeded)):
            clone = {k: v for k, v in model.items() if k not in ("id", "_seq", "created_at", "updated_at")}
            clone.update(risk="write" if number < 40 else "send", summary=f"Clone {number}", can_always_allow=True)
            clones.append(clone)
        handle.store.insert_many("approval", clones, workspace_id=model["workspace_id"])
        workspace_refresh(workspace_id=key.workspace_id, watched=True)
        yield handle, key


@pytest.mark.django_db(transaction=True)
def test_at_the_sandbox_with_1000_waiting_all_matching_approves_exactly_the_filters_ones(
    thousand_waiting, steps, logged_in_client
):
    handle, key = thousand_waiting
    approved_before = {a["id"] for a in handle.store.list("approval") if a["status"] == "approved"}
    assert WaitingItem.objects.filter(workspace_id=key.workspace_id, kind="approval").count() == 1000
    page = logged_in_client.get(reverse("agents:approvals") + "?risk=write").content
    matching = [a for a in handle.store.list("approval") if a["status"] == "pending" and a["risk"] == "write"]
    assert text_of(one(page, "label.approval-bulk__matching")) == (
        f"All {len(matching)} waiting approvals matching this filter"
    )

    fields = {"decision": "approve", "idempotency_key": str(uuid.uuid4()), "matching": "on", "risk": "write"}
    logged_in_client.post(reverse("agents:approval_batch_start"), {**fields, "agent": "", "age": ""}, **HTMX)
    for _ in range(len(matching)):  # the engine's steps, run here in turn (the worker's part)
        if not steps:
            break
        engine.job_step(bulk_decisions.KIND, steps.pop(0))
    batch = ApprovalBatch.objects.get()
    assert batch.status == ApprovalBatch.DONE
    assert batch.items.filter(outcome=ApprovalBatchItem.DECIDED).count() == len(matching)

    after = {a["id"]: a for a in handle.store.list("approval")}
    approved = {i for i, a in after.items() if a["status"] == "approved"} - approved_before
    assert approved == {a["id"] for a in matching}  # exactly the filter's, each once
    assert sum(1 for a in after.values() if a["status"] == "pending") == 1000 - len(matching)
