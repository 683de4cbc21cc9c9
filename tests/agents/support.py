"""Helpers of the Agents tests: the respx-mocked service's secret, storing a
sandbox demo-workspace key for a user, and the idempotency keys of a page's
forms."""

from __future__ import annotations

import re

import httpx
from django.urls import reverse
from django.utils import timezone

from dashboard.inbox.models import WaitingItem
from dashboard.keys.testing import stored_api_key
from tests.html import one, select, text_of

SECRET = "svc_sk_agnt0123456789abcdefghijklmnopqrstuvwxyzABCD"


def store_demo_key(user, handle):
    """A fresh demo-workspace key of the sandbox `handle`, active for `user`."""
    return stored_api_key(
        user=user, secret=handle.mint_key("demo"), workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin"
    )


def log_in(page, url: str, username: str = "mona") -> None:
    """Open `url` in the browser and log in on the page it leads to."""
    from tests.helpers import fill_login_form

    page.goto(url)
    fill_login_form(page, username)


def form_keys(html: str) -> list[str]:
    return [field["value"] for field in select(html, "input[name=idempotency_key]")]


AGENT_ID = "22222222-2222-4222-8222-222222222222"
RUN_ID = "cccccccc-0000-4000-8000-000000000001"
THREAD_ID = "dddddddd-0000-4000-8000-000000000001"
HTMX = {"HTTP_HX_REQUEST": "true"}


def full_agent(**extra) -> dict:
    body = {
        "id": AGENT_ID,
        "object": "agent",
        "name": "Welcome emails",
        "status": "draft",
        "active_version_id": None,
        "created_at": "2026-11-20T08:00:00.000Z",
        "updated_at": "2026-11-21T08:00:00.000Z",
        "profile": {
            "purpose": "Welcome new contacts",
            "instructions": "Be brief",
            "autonomy": "ask_first",
            "model": "standard",
            "tools": ["email", {"name": "records"}],
        },
        "plan": {
            "nodes": [
                {"id": "n1", "kind": "trigger", "label": "New contact"},
                {"id": "n2", "kind": "email", "label": "Send the welcome email", "config": {"to": None}},
            ],
            "edges": [{"from": "n1", "to": "n2"}],
        },
        "wakeups": [
            {"id": "w1", "kind": "object_created", "config": {"object": "contacts"}, "deployment": None},
            {
                "id": "w2",
                "kind": "webhook",
                "deployment": {"status": "live", "endpoint": "https://hooks.example/v1/hooks/SECRET-TOKEN"},
            },
        ],
        "schedule": [{"description": "Every day at 08:00", "next_run_at": "2026-11-22T07:00:00.000Z"}],
        "validation": {
            "ready": False,
            "issues": [
                {
                    "code": "missing_recipient",
                    "node_id": "n2",
                    "field": "to",
                    "message": "The email step has no recipient.",
                }
            ],
        },
        "pending_approvals": 2,
    }
    body.update(extra)
    return body


def error(status: int, error_type: str, text: str = "no", **details) -> httpx.Response:
    body = {"error": {"type": error_type, "message": text}, "request_id": f"req_{status}"}
    if details:
        body["error"]["details"] = details
    return httpx.Response(status, json=body)


def agent_id_named(client, name: str) -> str:
    return agent_id_in(client.get(reverse("agents:index")).content, name)


def agent_id_in(listing: str | bytes, name: str) -> str:
    """The id in the address of the listing's link named `name`."""
    (href,) = [link["href"] for link in select(listing, "a[href^='/agents/']") if text_of(link) == name]
    return re.fullmatch(r"/agents/([0-9a-f-]{36})/", href).group(1)


AGENT_ID = "11111111-1111-4111-8111-111111111111"

SEND_ID = "aaaaaaaa-0000-4000-8000-000000000001"

DELETE_ID = "aaaaaaaa-0000-4000-8000-000000000002"

RUN_ID = "bbbbbbbb-0000-4000-8000-000000000001"

HTMX = {"HTTP_HX_REQUEST": "true"}


def approval(approval_id: str = SEND_ID, *, risk: str = "send", status: str = "pending", **extra) -> dict:
    body = {
        "id": approval_id,
        "agent_id": AGENT_ID,
        "run_id": RUN_ID,
        "summary": "Send the welcome email to dana@example.com" if risk == "send" else "Delete 3 stale deals",
        "input": {"to": "dana@example.com", "subject": "Welcome", "body": "Hi Dana"}
        if risk == "send"
        else {"ids": [1, 2, 3]},
        "risk": risk,
        "can_always_allow": risk in ("send", "write"),
        "status": status,
        "created_at": "2026-11-21T09:30:00.000Z",
    }
    body.update(extra)
    return body


def agents_page() -> httpx.Response:
    return httpx.Response(
        200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier", "status": "active"}], "next_cursor": None}
    )


def row(html, approval_id: str):
    return one(html, f"li#approval-{approval_id}")


def decision_fields(html, approval_id: str, decision: str) -> dict:
    """What the row's form posts when the button of `decision` is pressed."""
    form = one(row(html, approval_id), "form.approval__actions")
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    fields["note"] = form.select_one("textarea[name=note]").get_text()
    assert form.select_one(f"button[name=decision][value={decision}]"), f"no {decision} button"
    return {**fields, "decision": decision}


def store(workspace_id: str, body: dict, name: str = "Lead qualifier") -> WaitingItem:
    """A pending approval as the inbox's refresh keeps it."""
    return WaitingItem.objects.create(
        workspace_id=workspace_id,
        source="agents",
        remote_id=f"approval:{body['id']}",
        kind="approval",
        data={"approval": body, "agent_name": name},
        since=timezone.now(),
        settle_path=f"/v1/approvals/{body['id']}",
        refreshed_at=timezone.now(),
    )
