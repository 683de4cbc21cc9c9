"""Helpers of the inbox tests."""

from __future__ import annotations

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key


def sandbox_member(user, handle, kind: str = "demo"):
    """Store a fresh sandbox key of `kind` (demo: admin, member, readonly:
    viewer; all of the workspace Acme Marketing) as `user`'s active key, with
    the workspace id /v1/me reports, so teammates share one inbox."""
    secret = handle.mint_key(kind)
    return store_sandbox_key(user, ServiceClient(api_key=secret), secret)


AGENT_ID = "11111111-1111-4111-8111-111111111111"
OTHER_AGENT_ID = "22222222-2222-4222-8222-222222222222"
APPROVAL_ID = "aaaaaaaa-0000-4000-8000-000000000002"
RUN_ID = "bbbbbbbb-0000-4000-8000-000000000001"
FAILED_RUN_ID = "bbbbbbbb-0000-4000-8000-000000000002"
OLD_FAILED_RUN_ID = "bbbbbbbb-0000-4000-8000-000000000003"
TIMER_RUN_ID = "bbbbbbbb-0000-4000-8000-000000000004"
HTMX = {"HTTP_HX_REQUEST": "true"}


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def approval_body(*, approval_id: str = APPROVAL_ID, risk: str = "destructive", status: str = "pending") -> dict:
    return {
        "id": approval_id,
        "agent_id": AGENT_ID,
        "run_id": RUN_ID,
        "summary": "Delete 3 stale deals",
        "input": {"ids": [1, 2, 3]},
        "risk": risk,
        "can_always_allow": False,
        "status": status,
        "created_at": "2026-11-21T09:30:00.000Z",
    }


def mock_workspace(remote, *, now, approvals=None, runs=None):
    """The service of a workspace with two agents: a pending destructive
    approval (whose run waits for it), a run woken by a webhook that failed
    an hour ago, one that failed long ago, and one waiting for a time."""
    import httpx

    remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": AGENT_ID, "name": "Stale deal cleaner", "status": "active"},
                    {"id": OTHER_AGENT_ID, "name": "Weekly pipeline report", "status": "active"},
                ],
                "next_cursor": None,
            },
        )
    )
    remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": approvals if approvals is not None else [approval_body()]})
    )
    from datetime import timedelta

    waiting = {
        "id": RUN_ID,
        "agent_id": AGENT_ID,
        "status": "waiting",
        "waiting_for": {"kind": "approval", "approval_id": APPROVAL_ID},
        "event": {"kind": "chat", "message": "Clean up the lost deals"},
        "created_at": iso(now - timedelta(minutes=30)),
    }
    timer = {**waiting, "id": TIMER_RUN_ID, "waiting_for": {"kind": "time"}}
    failed = {
        "id": FAILED_RUN_ID,
        "agent_id": OTHER_AGENT_ID,
        "status": "failed",
        "event": {"kind": "webhook", "payload": {"deal": 7}},
        "error": {"type": "agent_error", "message": "The CRM did not answer."},
        "created_at": iso(now - timedelta(hours=1)),
        "completed_at": iso(now - timedelta(hours=1)),
    }
    old = {
        **failed,
        "id": OLD_FAILED_RUN_ID,
        "created_at": "2020-01-01T00:00:00Z",
        "completed_at": "2020-01-01T00:00:00Z",
    }
    by_status = runs if runs is not None else {"waiting": [waiting, timer], "failed": [failed, old]}

    def runs_of(request, agent_id):
        status = request.url.params.get("status")
        items = [run for run in by_status.get(status, []) if run["agent_id"] == agent_id]
        return httpx.Response(200, json={"data": items, "next_cursor": None})

    remote.get(url__regex=r"/v1/agents/(?P<agent_id>[^/]+)/runs").mock(side_effect=runs_of)


def sandbox_key_revoked(handle, key_id: str, revoked: bool = True) -> None:
    """Revoke (or restore) a key at the sandbox, as a workspace admin would in
    the service's API settings: every call with it then answers 401."""
    handle.revoke_key(key_id, revoked=revoked)


def approval_decision_ready(remote, api_key, client):
    """An approver's inbox showing the pending approval (refreshed from the
    mocked service), its card in the queue the inbox's line leads to, the
    approval answering "approved" once decided and the service, read again,
    no longer listing it. Returns the card's decision form, its hidden fields
    and the decision's route."""
    import httpx
    from django.urls import reverse
    from django.utils import timezone

    from dashboard.audit.testing import make_approver
    from dashboard.inbox import tasks
    from tests.html import one, parse

    make_approver(api_key.user)
    mock_workspace(remote, now=timezone.now())
    tasks.refresh_workspace(api_key.workspace_id)
    # The inbox's line leads to the approval's card in the queue, which decides.
    decide_link = one(
        parse(client.get(reverse("inbox:index")).content.decode()),
        f"#inbox-approval{APPROVAL_ID} a[data-inbox-primary]",
    )
    form = one(
        parse(client.get(decide_link["href"]).content.decode()), f"li#approval-{APPROVAL_ID} form.approval__actions"
    )
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    decide = remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        return_value=httpx.Response(200, json={"approval": {**approval_body(status="approved")}})
    )
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json={"id": RUN_ID, "status": "completed"}))
    mock_workspace(remote, now=timezone.now(), approvals=[approval_body(status="approved")], runs={})
    return form, fields, decide
