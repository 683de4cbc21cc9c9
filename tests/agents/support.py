"""Helpers of the Agents tests: the respx-mocked service's secret, storing a
sandbox demo-workspace key for a user, and the idempotency keys of a page's
forms."""

from __future__ import annotations

import httpx

from dashboard.keys.testing import stored_api_key
from tests.html import select

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
