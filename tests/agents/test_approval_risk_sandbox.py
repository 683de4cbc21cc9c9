"""The service decides what is destructive: against a real sandbox (a module
of its own, so its seeded "Delete records in deals." approval is untouched
by other modules), an approve posted with a forged `risk` and without the
confirmation is refused and the approval stays pending at the service; the
confirmed approve goes, and the audit trail keeps the service's risk."""

from __future__ import annotations

import httpx
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from tests.html import one, select, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}
SUMMARY = "Delete records in deals."


def service_status(handle, approval_id: str) -> str:
    """The approval's status as the service lists it (read straight from the sandbox)."""
    answer = httpx.get(
        f"{handle.base_url}/v1/approvals",
        params={"status": "all", "limit": 100},
        headers={"Authorization": f"Bearer {handle.demo_key}"},
    )
    return next(item["status"] for item in answer.json()["data"] if item["id"] == approval_id)


def destructive_row(client) -> tuple[str, dict]:
    """The destructive approval's id and what its form posts (hidden fields)."""
    queue = client.get(reverse("agents:approvals")).content
    listed = next(item for item in select(queue, "li.approval-item--pending") if SUMMARY in text_of(item))
    # Its detail (the pane, or its own page) carries the decision form.
    page = client.get(reverse("agents:approval", args=[listed["data-approval-id"]])).content
    row = next(item for item in select(page, "li.approval--pending") if SUMMARY in text_of(item))
    assert "risk--destructive" in one(row, ".risk")["class"]
    form = one(row, "form.approval__actions")
    assert form.select("input[name=risk]") == []  # the form carries no risk to forge
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    return row["id"].removeprefix("approval-"), fields


def test_an_approve_with_a_forged_risk_is_refused_and_only_the_confirmed_approve_goes(sandbox_client, seeded_sandbox):
    # One scenario (not two tests): the module's sandbox has one such approval, and its order matters.
    approval_id, fields = destructive_row(sandbox_client)
    decide = reverse("agents:approval_decide", args=[approval_id])

    for forged in ("", "low"):
        response = sandbox_client.post(decide, {**fields, "risk": forged, "decision": "approve"}, **HTMX)
        assert response.status_code == 200
        assert response["HX-Retarget"] == f"#approval-{approval_id}-messages"
        assert text_of(one(response.content, "[role=alert]")) == (
            "This destructive action needs a confirmation: use “Approve…” and check the exact input first."
        )
        assert service_status(seeded_sandbox, approval_id) == "pending"
    assert not AuditEntry.objects.filter(idempotency_key=fields["key_approve"]).exists()

    response = sandbox_client.post(
        decide, {**fields, "risk": "low", "decision": "approve-confirmed", "note": "Checked."}, **HTMX
    )

    assert one(response.content, f"li#approval-{approval_id}")["data-status"] == "approved"
    assert service_status(seeded_sandbox, approval_id) == "approved"
    entry = AuditEntry.objects.get(idempotency_key=fields["key_approve"])
    assert entry.details["risk"] == "destructive" and entry.summary == f"Approved: {SUMMARY}"
