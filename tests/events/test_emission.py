"""Each area emits at the point where the console sees the thing happen, and
the receiver gets it signed: a record edited through the console's safe edit
(against the real sandbox), an approval the inbox refresh reads for the first
time and the decision the console's flow sends (the sandbox's ask-first
agent), a tracked run the poller's after-final hook finds failed, a stepped
job's end (the one job engine)."""

from __future__ import annotations

import uuid

import pytest
from standardwebhooks import Webhook

from agents.decisions import DECIDED, DecisionAsked, approval_decision
from agents.reading import read_approval
from dashboard.api import ServiceClient
from dashboard.events.models import Delivery, Event
from dashboard.events.sending import delivery_send
from dashboard.events.services import endpoint_create
from dashboard.inbox.services import workspace_refresh
from dashboard.jobs import engine
from dashboard.jobs.kinds import JobKind, Step, register_job_kind, unregister_job_kind
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import store_sandbox_key
from dashboard.live import registry
from dashboard.live.models import TrackedOperation
from dashboard.live.outcomes import run_on_final
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from objects.models import ObjectJob
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import form_values, one
from tests.reach.conftest import fresh_approval

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def on_sandbox(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    key = store_sandbox_key(user, service, sandbox.demo_key)
    return service, key


def endpoint_for(key: ApiKey, receiver, types: list[str]):
    return endpoint_create(
        workspace_id=key.workspace_id, by=None, label="Receiver", url=receiver.url, event_types=types
    )


def delivered(receiver, secret: str) -> list[dict]:
    """Send what waits, and what the receiver verified."""
    for pk in Delivery.objects.filter(status="pending").values_list("pk", flat=True):
        assert delivery_send(delivery_id=pk) == "delivered"
    return [Webhook(secret).verify(call.body, call.headers) for call in receiver.calls]


def test_a_record_edited_through_the_console_is_an_event(on_sandbox, logged_in_client, receiver):
    service, key = on_sandbox
    obj = create_every_type_object(service)
    record = service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(1)})
    _, secret = endpoint_for(key, receiver, ["record.changed"])
    edit = f"/objects/{obj['key']}/records/{record['id']}/edit/"
    data = form_values(one(logged_in_client.get(edit).content, "form#record-form"))

    assert logged_in_client.post(edit, {**data, "name": "Renamed deal"}).status_code == 302

    (body,) = delivered(receiver, secret)
    assert body["type"] == "record.changed"
    assert {k: body["data"][k] for k in ("object_key", "record_id", "action", "changed_by")} == {
        "object_key": obj["key"],
        "record_id": record["id"],
        "action": "edit",
        "changed_by": key.user.get_username(),
    }
    assert [f["field"] for f in body["data"]["fields"]] == ["name"]
    assert sandbox_key_absent(receiver, key)


def sandbox_key_absent(receiver, key: ApiKey) -> bool:
    from dashboard.keys.crypto import decrypt_secret

    secret = decrypt_secret(key.encrypted_secret).encode()
    return all(secret not in call.body for call in receiver.calls)


def test_an_approval_requested_then_decided_through_the_console(on_sandbox, sandbox, receiver):
    service, key = on_sandbox
    _, secret = endpoint_for(key, receiver, ["approval.requested", "approval.decided"])
    approval = fresh_approval(sandbox)

    workspace_refresh(workspace_id=key.workspace_id)
    workspace_refresh(workspace_id=key.workspace_id)  # read again: not news any more
    requested = Event.objects.filter(type="approval.requested", key__endswith=approval["id"])
    assert requested.count() == 1

    person_role_set(user=key.user, role=Role.APPROVER)  # deciding approvals is an Approver's, in this workspace
    asked = DecisionAsked(approval_id=approval["id"], decision="reject", idempotency_key=f"reject-{approval['id']}")
    outcome = approval_decision(key=key, client=ServiceClient(api_key=sandbox.demo_key), asked=asked)
    assert outcome.outcome == DECIDED

    bodies = {
        body["type"]: body for body in delivered(receiver, secret) if body["data"]["approval_id"] == approval["id"]
    }
    summary = read_approval(approval)["summary"]
    assert summary and bodies["approval.requested"]["data"]["summary"] == summary
    decided = bodies["approval.decided"]["data"]
    assert (decided["decision"], decided["decided_by"], decided["via"]) == (
        "rejected",
        key.user.get_username(),
        "in the console",
    )
    assert sandbox_key_absent(receiver, key)


def test_a_run_the_poller_finds_failed_is_one_event(on_sandbox, user, receiver):
    _, key = on_sandbox
    _, secret = endpoint_for(key, receiver, ["run.failed"])
    op = TrackedOperation.objects.create(
        owner_key=key, started_by=user, kind="agents.run", remote_id="run_failed_1", title="Qualify Ada",
        status="failed", is_final=True,
        snapshot={"id": "run_failed_1", "agent_id": "ag_1", "status": "failed", "error": {"message": "Tool timed out"}},
    )  # fmt: skip
    kind = registry.get_kind("agents.run")
    run_on_final(kind, [op.pk])
    run_on_final(kind, [op.pk])  # a retried batch: the same happening

    (body,) = delivered(receiver, secret)
    assert body["type"] == "run.failed"
    assert {k: body["data"][k] for k in ("run_id", "agent_id", "error", "title")} == {
        "run_id": "run_failed_1",
        "agent_id": "ag_1",
        "error": "Tool timed out",
        "title": "Qualify Ada",
    }


def test_a_chat_message_s_failed_run_is_the_same_event_as_the_run_s(on_sandbox, user, receiver):
    _, key = on_sandbox
    _, secret = endpoint_for(key, receiver, ["run.failed"])
    message = TrackedOperation.objects.create(
        owner_key=key, started_by=user, kind="agents.invocation", remote_id="idem-1", title="Hello",
        status="failed", is_final=True, context={"agent_id": "ag_2"},
        snapshot={"status": "failed", "run_id": "run_chat_1", "error": {"message": "Model refused"}},
    )  # fmt: skip
    run = TrackedOperation.objects.create(
        owner_key=key, started_by=user, kind="agents.run", remote_id="run_chat_1", title="Hello",
        status="failed", is_final=True, snapshot={"id": "run_chat_1", "status": "failed"},
    )  # fmt: skip
    run_on_final(registry.get_kind("agents.invocation"), [message.pk])
    run_on_final(registry.get_kind("agents.run"), [run.pk])  # followed too: the same run

    (body,) = delivered(receiver, secret)
    assert {k: body["data"][k] for k in ("run_id", "agent_id", "error")} == {
        "run_id": "run_chat_1",
        "agent_id": "ag_2",
        "error": "Model refused",
    }


@pytest.fixture
def quick_kind(monkeypatch):
    monkeypatch.setattr(engine, "send_step", lambda name, job_id, countdown=None: None)
    kind = register_job_kind(
        JobKind(
            name="test.quick", model=ObjectJob, chunk=lambda job: Step(done=True),
            active=ObjectJob.ACTIVE, done="done", stopped="stopped",
        )
    )  # fmt: skip
    yield kind
    unregister_job_kind(kind.name)


def test_a_job_s_end_is_one_event_stored_with_it(on_sandbox, user, receiver, quick_kind):
    _, key = on_sandbox
    _, secret = endpoint_for(key, receiver, ["job.finished"])
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(), owner_key=key, started_by=user, workspace_id=key.workspace_id,
        object_key="deals", kind=ObjectJob.KIND_EDIT, title="Bulk edit", status=ObjectJob.RUNNING,
    )  # fmt: skip
    assert engine.job_step(quick_kind.name, job.pk) == "done"
    assert engine.job_step(quick_kind.name, job.pk) == "skipped"  # final: no second event

    (body,) = delivered(receiver, secret)
    assert (body["type"], body["data"]["kind"], body["data"]["job_id"], body["data"]["status"]) == (
        "job.finished",
        "test.quick",
        job.pk,
        "done",
    )
