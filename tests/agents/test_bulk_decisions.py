"""Bulk decisions with the service mocked (respx): 20 approvals approved as
one job while 3 were decided elsewhere, every call failing once and retried
(17 decided, 3 reported with who decided them, 20 audit lines, one key per
item on every try, 0 duplicate decisions); what a batch refuses before
anything starts; the progress poll."""

from __future__ import annotations

import uuid
from collections import defaultdict

import httpx
import pytest
from django.urls import reverse

from agents import bulk_decisions
from agents.models import ApprovalBatch, ApprovalBatchItem
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.jobs import engine
from tests.html import one, text_of, texts
from tests.jobs.support import finish_by_the_watch

AGENT_ID = "11111111-1111-4111-8111-111111111111"
HTMX = {"HTTP_HX_REQUEST": "true"}
IDS = [f"aaaaaaaa-0000-4000-8000-{n:012d}" for n in range(1, 21)]
DECIDED_ELSEWHERE = set(IDS[4:7])


def approval(approval_id: str, *, risk: str = "send") -> dict:
    return {
        "id": approval_id,
        "agent_id": AGENT_ID,
        "agent_name": "Lead qualifier",
        "run_id": str(uuid.uuid5(uuid.NAMESPACE_URL, approval_id)),
        "summary": f"Send the follow-up {approval_id[-2:]}",
        "input": {"to": "lead@example.com", "subject": "Hello", "body": "Hi"},
        "risk": risk,
        "can_always_allow": True,
        "status": "pending",
        "created_at": "2026-11-21T09:30:00.000Z",
    }


@pytest.fixture(autouse=True)
def approver(user):
    return make_approver(user)


@pytest.fixture
def steps(monkeypatch) -> list[int]:
    """The batch's step messages, run by `drain` in this thread (a stand-in for the worker)."""
    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, batch_id, countdown=None: sent.append(batch_id))
    return sent


def drain(sent: list[int], limit: int = 100) -> None:
    for _ in range(limit):
        if not sent:
            return
        # The countdown of a retry has passed (the step after a 5xx holds the lease until it is due).
        ApprovalBatch.objects.update(lease_until=None)
        engine.job_step(bulk_decisions.KIND, sent.pop(0))
    raise AssertionError("the batch never ended")


@pytest.fixture
def service(remote, api_key):
    """20 pending send approvals; every decision fails once (502) and is
    retried; 3 of them were decided elsewhere meanwhile (409, saying by whom)."""
    remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [approval(i) for i in IDS], "next_cursor": None})
    )
    calls: dict[str, list[str]] = defaultdict(list)

    def decide(request, approval_id):
        calls[approval_id].append(request.headers["Idempotency-Key"])
        if len(calls[approval_id]) == 1:
            return httpx.Response(502, json={"error": {"type": "server_error", "message": "Bad gateway"}})
        if approval_id in DECIDED_ELSEWHERE:
            return httpx.Response(
                409,
                json={
                    "error": {
                        "type": "conflict",
                        "message": "This approval was already decided (rejected).",
                        "details": {"status": ["rejected"], "decided_by": ["Morgan Member"]},
                    },
                    "request_id": "req_409",
                },
            )
        return httpx.Response(200, json={"approval": {**approval(approval_id), "status": "approved"}, "outcome": {}})

    remote.route(method="POST", path__regex=r"^/v1/approvals/(?P<approval_id>[0-9a-f-]+)$").mock(side_effect=decide)
    return calls


def start(client, ids, decision="approve", key=None):
    fields = {"decision": decision, "approval": ids, "idempotency_key": key or str(uuid.uuid4())}
    return client.post(reverse("agents:approval_batch_start"), fields, **HTMX)


def test_bulk_approve_of_20_with_3_decided_elsewhere_and_every_call_retried(service, steps, logged_in_client, api_key):
    response = start(logged_in_client, IDS)
    assert response.status_code == 200
    batch = ApprovalBatch.objects.get()
    assert "Approving 20 approvals" in text_of(one(response.content, ".approval-batch__head"))

    drain(steps)

    batch.refresh_from_db()
    assert batch.status == ApprovalBatch.DONE
    outcomes = {item.approval_id: item for item in batch.items.all()}
    assert sum(item.outcome == ApprovalBatchItem.DECIDED for item in outcomes.values()) == 17
    for approval_id in DECIDED_ELSEWHERE:
        assert outcomes[approval_id].outcome == ApprovalBatchItem.ALREADY
        assert outcomes[approval_id].message == "Already decided by Morgan Member (rejected)"
    # Every call was made twice, with the same key: the service replays, never decides twice.
    assert set(service) == set(IDS)
    for approval_id, keys in service.items():
        assert keys == [bulk_decisions.decision_key(batch, approval_id)] * 2
    assert len({keys[0] for keys in service.values()}) == 20
    # One audit line per decision (the retry updated it), each naming the agent and the outcome.
    entries = AuditEntry.objects.filter(kind=AuditEntry.KIND_DECISION, details__bulk=str(batch.uid))
    assert entries.count() == 20
    assert sorted(entries.values_list("status", flat=True)) == [200] * 17 + [409] * 3
    refused = entries.get(details__approval_id=IDS[4])
    assert refused.summary == "Tried to approve “Send the follow-up 05”: already decided by Morgan Member (rejected)"
    assert refused.details["agent_name"] == "Lead qualifier" and refused.details["via"] == "bulk"
    assert refused.username == "alice"

    # The progress: a final poll answers 286 with each item's outcome.
    status_url = reverse("agents:approval_batch_status", args=[batch.pk])
    final = logged_in_client.get(status_url, **HTMX)
    assert final.status_code == 286
    assert "17 approved, 3 already decided" in text_of(one(final.content, ".approval-batch__head"))
    assert texts(final.content, ".approval-batch__note") == ["Already decided by Morgan Member (rejected)"] * 3
    version = bulk_decisions.batch_version(batch)
    assert logged_in_client.get(status_url, {"v": version}, **HTMX).status_code == 204


def test_a_double_submit_is_one_batch(service, steps, logged_in_client):
    key = str(uuid.uuid4())
    start(logged_in_client, IDS[:3], key=key)
    start(logged_in_client, IDS[:3], key=key)
    assert ApprovalBatch.objects.count() == 1 and ApprovalBatchItem.objects.count() == 3


@pytest.mark.parametrize(
    ("ids", "problem"),
    [
        ([], "Select at least one approval first."),
        ([str(uuid.uuid4()) for _ in range(51)], "At most 50 approvals are decided together; 51 were selected."),
    ],
)
def test_an_empty_or_too_big_selection_starts_nothing(service, steps, logged_in_client, ids, problem):
    response = start(logged_in_client, ids)
    assert text_of(one(response.content, "[role=alert]")) == problem
    assert not ApprovalBatch.objects.exists() and not steps


def test_a_destructive_action_is_never_approved_in_bulk_whatever_the_form_says(
    remote, api_key, steps, logged_in_client
):
    delete = {**approval(IDS[0], risk="destructive"), "summary": "Delete 3 stale deals"}
    remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [delete, approval(IDS[1])], "next_cursor": None})
    )
    decide = remote.route(method="POST", path__regex=r"^/v1/approvals/")
    response = start(logged_in_client, IDS[:2])
    assert "Delete 3 stale deals" in text_of(one(response.content, "[role=alert]"))
    assert not ApprovalBatch.objects.exists() and not decide.called
    # Rejecting needs no confirmation: a destructive action may be rejected with the others.
    start(logged_in_client, IDS[:2], decision="reject")
    assert ApprovalBatch.objects.get().decision == "reject"


def test_someone_who_is_not_an_approver_cannot_start_one(service, steps, logged_in_client, user):
    from dashboard.people.backends import person_role_set
    from dashboard.people.roles import Role

    person_role_set(user=user, role=Role.MEMBER)
    response = start(logged_in_client, IDS[:2])
    assert "Only Approvers decide approvals" in response.content.decode()
    assert not ApprovalBatch.objects.exists()


def test_another_persons_batch_is_not_shown(service, steps, logged_in_client, other_user):
    start(logged_in_client, IDS[:2])
    batch = ApprovalBatch.objects.get()
    logged_in_client.force_login(other_user)
    assert logged_in_client.get(reverse("agents:approval_batch", args=[batch.pk])).status_code == 404


def test_a_batch_whose_every_step_message_is_lost_is_finished_by_the_watch(service, logged_in_client, monkeypatch):
    assert start(logged_in_client, IDS[:6]).status_code == 200  # its first message stays in the outbox
    batch = ApprovalBatch.objects.get()
    # Every decision fails once (502): waits in between, and each next message is lost too.
    assert finish_by_the_watch(monkeypatch, batch) >= 2
    batch.refresh_from_db()
    assert batch.status == ApprovalBatch.DONE
    outcomes = set(batch.items.values_list("outcome", flat=True))
    assert (
        outcomes <= {ApprovalBatchItem.DECIDED, ApprovalBatchItem.ALREADY} and ApprovalBatchItem.TO_DO not in outcomes
    )
