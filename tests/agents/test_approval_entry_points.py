"""Every place a person decides an approval (the approvals page, the run
page, the inbox's line leading to the queue's card) posts to the one decision view, and that view decides by
the risk the service gives the approval just before, never by what the page
showed: here each page draws the approval as a `send` (a plain "Approve"),
the service meanwhile lists it as `destructive`, and the plain approve is
refused with nothing sent (respx)."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.inbox import tasks
from tests.agents.support import HTMX
from tests.html import one, parse, texts
from tests.inbox.support import AGENT_ID, APPROVAL_ID, RUN_ID, approval_body, mock_workspace


@pytest.fixture(autouse=True)
def approver(user):
    from dashboard.audit.testing import make_approver

    return make_approver(user)


def approvals_page(remote, client) -> str:
    mock_workspace(remote, now=timezone.now(), approvals=[approval_body(risk="send")])
    return client.get(reverse("agents:approvals")).content.decode()


def run_page(remote, client) -> str:
    mock_workspace(remote, now=timezone.now())
    run = {
        "id": RUN_ID,
        "agent_id": AGENT_ID,
        "status": "waiting",
        "waiting_for": {"kind": "approval", "approval_id": APPROVAL_ID},
        "approvals": [approval_body(risk="send")],
    }
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json=run))
    return client.get(reverse("agents:run", args=[RUN_ID])).content.decode()


def inbox_page(remote, client, api_key) -> str:
    """The inbox's line leads to exactly this approval in the queue: its card there decides."""
    mock_workspace(remote, now=timezone.now(), approvals=[approval_body(risk="send")])
    tasks.refresh_workspace(api_key.workspace_id)
    inbox = client.get(reverse("inbox:index")).content.decode()
    decide = one(inbox, f"#inbox-approval{APPROVAL_ID} a[data-inbox-primary]")
    assert f"approval={APPROVAL_ID}" in decide["href"]
    return client.get(decide["href"]).content.decode()


@pytest.mark.parametrize("entry", ["approvals", "run", "inbox"])
def test_each_entry_point_approves_by_the_services_risk(entry, remote, api_key, logged_in_client):
    if entry == "approvals":
        page = approvals_page(remote, logged_in_client)
    elif entry == "run":
        page = run_page(remote, logged_in_client)
    else:
        page = inbox_page(remote, logged_in_client, api_key)
    form = one(page, f"li#approval-{APPROVAL_ID} form.approval__actions")
    assert form["action"] == reverse("agents:approval_decide", args=[APPROVAL_ID])
    assert texts(form, "button") == ["Approve", "Reject"]  # the page believed it a plain `send`
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    # Since the page was drawn, the service lists the approval as destructive.
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [approval_body(risk="destructive")], "next_cursor": None})
    )
    decide = remote.post(f"/v1/approvals/{APPROVAL_ID}")
    reads_before = listing.call_count  # the same route as the page's own list read, if it had one

    response = logged_in_client.post(form["action"], {**fields, "decision": "approve"}, **HTMX)

    assert response["HX-Retarget"] == f"#approval-{APPROVAL_ID}-messages"
    assert texts(parse(response.content), "[role=alert] p") == [
        "This destructive action needs a confirmation: use “Approve…” and check the exact input first."
    ]
    assert decide.call_count == 0 and listing.call_count == reads_before + 1
