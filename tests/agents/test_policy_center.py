"""The policy center against a real sandbox (this module's own seeded one):
an "always allow" made through the console is listed with who granted it;
"Stop allowing" is refused without its acknowledgement (nothing sent), then
goes through the builder and is verified on the sandbox. "Reject and
re-instruct" rejects at the service and sends the instruction into the
run's thread, both in the audit trail."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.live.models import TrackedOperation
from tests.html import one, select, text_of, texts

HTMX = {"HTTP_HX_REQUEST": "true"}


def service(handle, path: str, **params) -> dict:
    answer = httpx.get(
        f"{handle.base_url}{path}", params=params, headers={"Authorization": f"Bearer {handle.demo_key}"}
    )
    answer.raise_for_status()
    return answer.json()


def pending_row(client, risk: str) -> tuple[str, dict]:
    page = client.get(reverse("agents:approvals")).content
    row = next(item for item in select(page, "li.approval--pending") if f"risk--{risk}" in one(item, ".risk")["class"])
    form = one(row, "form.approval__actions")
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    return row["id"].removeprefix("approval-"), fields


def lead_qualifier(handle) -> dict:
    agents = service(handle, "/v1/agents", limit=100)["data"]
    summary = next(agent for agent in agents if agent["name"] == "Lead qualifier")
    return service(handle, f"/v1/agents/{summary['id']}")


def test_a_grant_is_listed_with_its_granter_and_taken_back_through_the_builder(sandbox_client, seeded_sandbox, user):
    approval_id, fields = pending_row(sandbox_client, "send")
    sandbox_client.post(
        reverse("agents:approval_decide", args=[approval_id]),
        {**fields, "decision": "always", "note": "Summaries are fine."},
        **HTMX,
    )
    agent = lead_qualifier(seeded_sandbox)
    assert "send" in agent["profile"]["always_allowed"]

    page = sandbox_client.get(reverse("agents:policy"))
    card = one(page.content, f"#agent-{agent['id']}")
    (grant,) = texts(card, ".policy-grant > p")
    assert grant.startswith("send actions without asking. Allowed by " + user.get_username())
    assert grant.endswith("“Summaries are fine.”.")
    form = one(card, "form.policy-revoke")
    posted = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    revoke = reverse("agents:grant_revoke", args=[agent["id"]])

    refused = sandbox_client.post(revoke, posted)
    assert refused.status_code == 400
    assert "Check the box first" in text_of(one(refused.content, f"#agent-{agent['id']} form.policy-revoke"))
    assert "send" in lead_qualifier(seeded_sandbox)["profile"]["always_allowed"]  # nothing was sent

    done = sandbox_client.post(revoke, {**posted, "understood": "on"}, follow=True)
    assert "send" not in lead_qualifier(seeded_sandbox)["profile"]["always_allowed"]
    said = " ".join(texts(done.content, ".messages li, .alert-success, [role=status]"))
    assert "Lead qualifier no longer lists send actions as always allowed" in said
    assert select(one(done.content, f"#agent-{agent['id']}"), ".policy-grant") == []
    patch = AuditEntry.objects.get(idempotency_key=posted["idempotency_key"])
    assert patch.method == "PATCH" and patch.status == 200


@pytest.mark.parametrize("stream", [False])
def test_reject_and_reinstruct_rejects_then_sends_the_instruction_into_the_runs_thread(
    sandbox_client, seeded_sandbox, settings, stream
):
    settings.AGENTS_STREAM_ANSWERS = stream
    approval_id, _ = pending_row(sandbox_client, "destructive")
    url = reverse("agents:approval_reinstruct", args=[approval_id])
    form = one(sandbox_client.get(url).content, "form.reinstruct-form")
    posted = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    assert posted["run_id"] and posted["agent_id"]

    empty = sandbox_client.post(url, posted)
    assert empty.status_code == 400 and "Write the instruction." in text_of(one(empty.content, "form.reinstruct-form"))

    message = "Only delete the lost deals from before 2024, and list them first."
    response = sandbox_client.post(url, {**posted, "message": message})

    assert response.status_code == 302
    approvals = service(seeded_sandbox, "/v1/approvals", status="all", limit=100)["data"]
    assert next(item for item in approvals if item["id"] == approval_id)["status"] == "rejected"
    run = service(seeded_sandbox, f"/v1/runs/{posted['run_id']}")
    operation = TrackedOperation.objects.get(remote_id=posted["key_message"])
    assert operation.title == message and operation.context["thread_id"] == run["thread_id"]
    reject = AuditEntry.objects.get(idempotency_key=posted["key_reject"])
    sent = AuditEntry.objects.get(idempotency_key=posted["key_message"])
    assert (reject.method, reject.status) == ("POST", 200)
    assert sent.method == "POST" and sent.path.endswith("/runs") and sent.status in (200, 202)
    assert response["Location"].endswith(f"?thread={run['thread_id']}")

    # Posted again (a retry): the same two keys, so nothing is rejected or sent twice.
    again = sandbox_client.post(url, {**posted, "message": message})
    assert again.status_code == 302
    assert AuditEntry.objects.filter(idempotency_key__in=[posted["key_reject"], posted["key_message"]]).count() == 2
    assert TrackedOperation.objects.filter(remote_id=posted["key_message"]).count() == 1
