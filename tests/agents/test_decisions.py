"""One decision flow (agents/decisions.py) for every path that decides: the
queue's card (the view its keys press), a bulk decision's item and "Reject
and re-instruct". With the service mocked (respx): each path writes the same
audit words, a 409 reads the same in every path (naming the console person
who decided when the console knows it), and a retry reuses the decision's
Idempotency-Key."""

from __future__ import annotations

import uuid

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from agents import bulk_decisions, policy
from agents.models import ApprovalBatch, ApprovalBatchItem
from dashboard.api.paths import api_path
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.audit.wording import entries_in_words
from dashboard.inbox.models import WaitingItem
from tests.html import one, text_of

AGENT_ID = "11111111-1111-4111-8111-111111111111"
APPROVAL_ID = "aaaaaaaa-0000-4000-8000-000000000001"
RUN_ID = "bbbbbbbb-0000-4000-8000-000000000001"
THREAD_ID = "dddddddd-0000-4000-8000-000000000001"
SUMMARY = "Send the welcome email to dana@example.com"
HTMX = {"HTTP_HX_REQUEST": "true"}
PATHS = ("queue", "bulk", "re-instruct")


def approval(*, status: str = "pending") -> dict:
    return {
        "id": APPROVAL_ID,
        "agent_id": AGENT_ID,
        "run_id": RUN_ID,
        "summary": SUMMARY,
        "input": {"to": "dana@example.com", "subject": "Welcome", "body": "Hi Dana"},
        "risk": "send",
        "can_always_allow": True,
        "status": status,
        "created_at": "2026-11-21T09:30:00.000Z",
    }


@pytest.fixture(autouse=True)
def approver(user):
    return make_approver(user)


@pytest.fixture
def service(remote, api_key):
    """The approval pending at first, the agents' list, its run (with its
    conversation) and the run a re-instruction starts; the agents' names as
    the inbox refresh keeps them."""
    WaitingItem.objects.create(
        workspace_id=api_key.workspace_id,
        source="agents",
        remote_id="agent-names",
        kind="agent-names",
        data={"names": {AGENT_ID: "Lead qualifier"}},
        refreshed_at=timezone.now(),
    )
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [approval()], "next_cursor": None})
    )
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier", "status": "active"}], "next_cursor": None}
        )
    )
    remote.get(f"/v1/runs/{RUN_ID}").mock(
        return_value=httpx.Response(
            200, json={"id": RUN_ID, "agent_id": AGENT_ID, "thread_id": THREAD_ID, "status": "running"}
        )
    )
    remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            202, json={"id": "eeeeeeee-0000-4000-8000-000000000001", "status": "queued", "thread_id": THREAD_ID}
        )
    )
    return listing


def decide(path: str, *, client, api_key, user, key: str) -> tuple[str, object]:
    """Reject the approval along `path` with the decision's key `key`:
    answers what the person is shown (or the error raised)."""
    if path == "queue":
        # What the card's form posts when Reject (or the queue's r key) is pressed.
        fields = {
            "decision": "reject",
            "note": "",
            "key_approve": str(uuid.uuid4()),
            "key_reject": key,
            "key_always": str(uuid.uuid4()),
            "agent_id": AGENT_ID,
            "agent_name": "Lead qualifier",
        }
        response = client.post(reverse("agents:approval_decide", args=[APPROVAL_ID]), fields, **HTMX)
        return text_of(one(response.content, f"li#approval-{APPROVAL_ID}")), response
    if path == "bulk":
        batch = ApprovalBatch.objects.create(
            uid=uuid.uuid4(), workspace_id=api_key.workspace_id, owner_key=api_key, started_by=user, decision="reject"
        )
        item = ApprovalBatchItem.objects.create(
            batch=batch,
            position=0,
            approval_id=APPROVAL_ID,
            agent_id=AGENT_ID,
            agent_name="Lead qualifier",
            summary=SUMMARY,
            risk="send",
        )
        # The batch's keys are its own (uuid5 of the batch): the test reads which one it used.
        bulk_decisions.decide_item(batch, item, api_key.client(max_retries=0))
        item.refresh_from_db()
        return item.message, bulk_decisions.decision_key(batch, APPROVAL_ID)
    try:
        policy.reject_and_reinstruct(
            key=api_key,
            approval_id=APPROVAL_ID,
            run_id=RUN_ID,
            agent_id=AGENT_ID,
            message="Send it to dana@initech.example instead.",
            reject_key=key,
            message_key=str(uuid.uuid4()),
        )
    except Exception as exc:  # the 409 of an approval approved by someone: the view words it
        return str(exc), exc
    return "", None


def entry_words(api_key, key: str) -> str:
    entry = AuditEntry.objects.get(idempotency_key=key)
    return entries_in_words([entry], workspace_id=api_key.workspace_id)[0].words


def used_key(path: str, key: str, answer: object) -> str:
    return answer if path == "bulk" else key  # type: ignore[return-value]


def test_every_path_writes_the_same_audit_words(service, remote, logged_in_client, api_key, user):
    decided = remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="rejected"), "outcome": None})
    )
    lines = {}
    for path in PATHS:
        key = str(uuid.uuid4())
        _, answer = decide(path, client=logged_in_client, api_key=api_key, user=user, key=key)
        entry = AuditEntry.objects.get(idempotency_key=used_key(path, key, answer))
        assert entry.kind == AuditEntry.KIND_DECISION and entry.status == 200
        assert entry.username == "alice"
        lines[path] = (entry.summary, entry_words(api_key, entry.idempotency_key))
    assert decided.call_count == 3
    # One phrasing for the fact; the path that decided said after it, never instead of it.
    assert {summary for summary, _ in lines.values()} == {f"Rejected: {SUMMARY}"}
    assert lines == {
        "queue": (f"Rejected: {SUMMARY}", f"Rejected: {SUMMARY} (an approval of Lead qualifier)"),
        "bulk": (f"Rejected: {SUMMARY}", f"Rejected: {SUMMARY} (an approval of Lead qualifier; in a bulk decision)"),
        "re-instruct": (
            f"Rejected: {SUMMARY}",
            f"Rejected: {SUMMARY} (an approval of Lead qualifier; to send a corrected instruction)",
        ),
    }


def conflict(who: str | None) -> httpx.Response:
    details: dict = {"status": ["approved"]}
    if who:
        details["decided_by"] = [who]
    return httpx.Response(
        409,
        json={
            "error": {"type": "conflict", "message": "This approval was already decided.", "details": details},
            "request_id": "req_409",
        },
    )


@pytest.mark.parametrize(
    ("console_decider", "words"),
    [
        # The service names its key's owner; the console knows nothing better.
        (False, "Already decided by Dana Admin (approved)"),
        # Bob decided it through this console: he is named, not the service key's owner.
        (True, "Already decided by bob (approved)"),
    ],
)
def test_a_409_reads_the_same_in_every_path(
    service, remote, logged_in_client, api_key, user, other_user, console_decider, words
):
    remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(return_value=conflict("Dana Admin"))
    service.mock(return_value=httpx.Response(200, json={"data": [approval(status="approved")], "next_cursor": None}))
    if console_decider:
        AuditEntry.objects.create(
            user=other_user,
            username="bob",
            workspace_id=api_key.workspace_id,
            area="approvals",
            kind=AuditEntry.KIND_DECISION,
            method="POST",
            path=api_path("/v1/approvals/{}", APPROVAL_ID),
            idempotency_key=str(uuid.uuid4()),
            status=200,
            summary=f"Approved: {SUMMARY}",
        )
    expected_line = f"Tried to reject “{SUMMARY}”: {words[0].lower()}{words[1:]}"
    for path in PATHS:
        key = str(uuid.uuid4())
        shown, answer = decide(path, client=logged_in_client, api_key=api_key, user=user, key=key)
        if path == "queue":
            assert f"{words}: your decision was not sent. (request id req_409)" in shown
        elif path == "bulk":
            assert shown == words
        else:
            assert "already decided" in shown  # raised for the view's remote error in place
        entry = AuditEntry.objects.get(idempotency_key=used_key(path, key, answer))
        assert entry.status == 409 and entry.kind == AuditEntry.KIND_DECISION
        assert entry.summary == expected_line
        assert entry.details["outcome"] == words
        assert entry_words(api_key, entry.idempotency_key).startswith(expected_line)


def test_a_retry_of_a_decision_reuses_its_key(service, remote, logged_in_client):
    """The service fails (503) on every try of the first post; the person
    presses Reject again on the row left in place: the same decision, the
    same key, one audit entry."""
    decided = remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        side_effect=[
            httpx.Response(503, json={"error": {"type": "unavailable", "message": "Try again."}}),
            httpx.Response(503, json={"error": {"type": "unavailable", "message": "Try again."}}),
            httpx.Response(503, json={"error": {"type": "unavailable", "message": "Try again."}}),
            httpx.Response(200, json={"approval": approval(status="rejected"), "outcome": None}),
        ]
    )
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    form = one(one(page, f"li#approval-{APPROVAL_ID}"), "form.approval__actions")
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    fields.update(decision="reject", note="")
    url = reverse("agents:approval_decide", args=[APPROVAL_ID])

    failed = logged_in_client.post(url, fields, **HTMX)
    assert failed.headers["HX-Retarget"] == f"#approval-{APPROVAL_ID}-messages"  # the row and its keys stay
    again = logged_in_client.post(url, fields, **HTMX)
    assert one(again.content, f"li#approval-{APPROVAL_ID}")["data-status"] == "rejected"

    keys = [call.request.headers["Idempotency-Key"] for call in decided.calls]
    assert len(keys) == 4 and set(keys) == {fields["key_reject"]}
    assert AuditEntry.objects.filter(idempotency_key=fields["key_reject"]).count() == 1


# --- the queue follows a decision in the same answer -------------------------------------

OTHER_ID = "aaaaaaaa-0000-4000-8000-000000000002"


def keep_pending(api_key, *approvals: dict) -> None:
    """The pending approvals as the inbox refresh keeps them (what the counts read)."""
    for item in approvals:
        WaitingItem.objects.create(
            workspace_id=api_key.workspace_id,
            source="agents",
            remote_id=f"approval:{item['id']}",
            kind="approval",
            data={"approval": item, "agent_name": "Lead qualifier"},
            settle_path=api_path("/v1/approvals/{}", item["id"]),
            refreshed_at=timezone.now(),
        )


def triggers(response) -> dict:
    import json

    return json.loads(response.headers["HX-Trigger"])


def test_a_decision_on_the_queue_answers_its_line_the_counts_and_the_header(service, remote, logged_in_client, api_key):
    keep_pending(api_key, approval(), {**approval(), "id": OTHER_ID, "risk": "write", "summary": "Update a deal"})
    remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved"), "outcome": None})
    )
    _, response = decide_on_queue(logged_in_client, "approve")

    assert one(response.content, f"li#approval-{APPROVAL_ID}")["data-status"] == "approved"
    line = one(response.content, f"#queue-item-{APPROVAL_ID}")
    assert line["hx-swap-oob"] == "true" and "Approved" in text_of(line)
    counts = one(response.content, "#approval-counts")
    assert counts["hx-swap-oob"] == "true"
    assert text_of(counts) == "Waiting for a decision: 1 write"  # the decided send left at once
    assert "inbox-changed" in triggers(response)  # the header's badge reads again now, not at its interval


def decide_on_queue(client, decision: str):
    fields = {
        "decision": decision,
        "note": "",
        "key_approve": str(uuid.uuid4()),
        "key_reject": str(uuid.uuid4()),
        "key_always": str(uuid.uuid4()),
        "agent_id": AGENT_ID,
        "agent_name": "Lead qualifier",
    }
    response = client.post(
        reverse("agents:approval_decide", args=[APPROVAL_ID]),
        fields,
        HTTP_HX_CURRENT_URL="http://testserver" + reverse("agents:approvals"),
        **HTMX,
    )
    return fields, response


def test_a_bulk_batch_over_answers_the_counts_and_names_what_it_decided(logged_in_client, api_key, user):
    keep_pending(api_key, {**approval(), "id": OTHER_ID, "risk": "write", "summary": "Update a deal"})
    batch = ApprovalBatch.objects.create(
        uid=uuid.uuid4(),
        workspace_id=api_key.workspace_id,
        owner_key=api_key,
        started_by=user,
        decision="approve",
        status=ApprovalBatch.DONE,
    )
    ApprovalBatchItem.objects.create(
        batch=batch, position=0, approval_id=APPROVAL_ID, summary=SUMMARY, outcome="decided", message="Approved"
    )
    response = logged_in_client.get(
        reverse("agents:approval_batch_status", args=[batch.pk]),
        HTTP_HX_CURRENT_URL="http://testserver" + reverse("agents:approvals"),
        **HTMX,
    )
    assert response.status_code == 286
    assert text_of(one(response.content, "#approval-counts")) == "Waiting for a decision: 1 write"
    assert one(response.content, f"#queue-item-{APPROVAL_ID}")["hx-swap-oob"] == "delete"
    # The pane reads again the approval it shows if the batch decided it (static/js/approvals.js).
    assert triggers(response) == {"inbox-changed": {}, "approvals-decided": {"ids": [APPROVAL_ID]}}
