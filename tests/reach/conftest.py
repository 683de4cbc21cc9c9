"""Fixtures of notifications: a workspace with a pending approval in the
inbox's stored rows (as the refresh keeps them), approvers and an
Administrator holding working keys of it, and a local HTTP receiver
standing in for a chat webhook."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from django.utils import timezone

from dashboard.audit.testing import make_administrator, make_approver
from dashboard.inbox.models import WaitingItem
from dashboard.keys.testing import stored_api_key
from tests.http_receiver import HttpReceiver

WORKSPACE = "ws-reach"
APPROVAL_ID = "aaaaaaaa-0000-4000-8000-00000000000a"
AGENT_ID = "11111111-1111-4111-8111-111111111111"


@pytest.fixture(autouse=True)
def key_encryption(settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.REACH_WEBHOOK_ALLOW_HTTP = True
    settings.CONSOLE_BASE_URL = "https://console.example.com"


def pending_approval(
    *, risk: str = "send", minutes_ago: float = 5, approval_id: str = APPROVAL_ID, input: dict | None = None
) -> WaitingItem:
    """A pending approval as the inbox refresh stores it (agents' source)."""
    requested = timezone.now() - timedelta(minutes=minutes_ago)
    return WaitingItem.objects.create(
        workspace_id=WORKSPACE,
        source="agents",
        remote_id=f"approval:{approval_id}",
        kind="approval",
        data={
            "approval": {
                "id": approval_id,
                "agent_id": AGENT_ID,
                "run_id": "bbbbbbbb-0000-4000-8000-000000000001",
                "summary": "Send the welcome email to dana@example.com",
                "risk": risk,
                "status": "pending",
                "created_at": requested.isoformat(),
                **({"input": input} if input is not None else {}),
            },
            "agent_name": "Lead qualifier",
        },
        since=requested,
        settle_path=f"/v1/approvals/{approval_id}",
        refreshed_at=timezone.now(),
    )


def member(django_user_model, username: str, *, email: str = "", admin: bool = False):
    person = django_user_model.objects.create_user(
        username=username, password="a long enough passphrase", email=email or f"{username}@example.com"
    )
    (make_administrator if admin else make_approver)(person)
    stored_api_key(user=person, secret=f"svc_sk_{username}0123456789abcdefghijklmnop", workspace_id=WORKSPACE)
    return person


@pytest.fixture
def dana(db, django_user_model):
    return member(django_user_model, "dana")


@pytest.fixture
def admin_ada(db, django_user_model):
    return member(django_user_model, "ada", admin=True)


@pytest.fixture
def receiver():
    # A local chat webhook (tests/http_receiver.py): keeps every JSON body posted to it; answers `status`.
    handle = HttpReceiver(path="/hooks/T000/B000/secret")
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def real_smtp(settings, smtp_server):
    handler, port = smtp_server
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.DEFAULT_FROM_EMAIL = "Console <console@example.com>"
    return handler


# --- decisions from a message, against a real sandbox over HTTP -------------------------


@pytest.fixture(scope="module")
def decide_sandbox():
    """A real sandbox of the module's own (its approvals are decided there)."""
    from tests.helpers import running_sandbox

    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def on_sandbox(decide_sandbox, settings):
    settings.SERVICE_BASE_URL = decide_sandbox.base_url
    return decide_sandbox


def sandbox_approver(django_user_model, handle, username: str):
    """An Approver with email, holding a fresh demo-workspace key of `handle`."""
    from tests.helpers import PASSWORD

    person = django_user_model.objects.create_user(
        username=username, password=PASSWORD, email=f"{username}@example.com"
    )
    make_approver(person)
    stored_api_key(user=person, secret=handle.mint_key("demo"), workspace_name="Acme Marketing")
    return person


@pytest.fixture
def decisions_counted(decide_sandbox, monkeypatch) -> list[str]:
    """Every decision call the sandbox receives (POST /v1/approvals/<id>), as its path."""
    calls: list[str] = []
    dispatch = decide_sandbox.app.dispatch

    def counting(req):
        if req.method == "POST" and req.path.startswith("/v1/approvals/"):
            calls.append(req.path)
        return dispatch(req)

    monkeypatch.setattr(decide_sandbox.app, "dispatch", counting)
    return calls


def service(handle, method: str, path: str, **kwargs):
    import httpx

    headers = {"Authorization": f"Bearer {handle.demo_key}"}
    return httpx.request(method, f"{handle.base_url}{path}", headers=headers, timeout=60, **kwargs)


def fresh_approval(handle, *, agent: str = "Lead qualifier", note: str = "A new lead: Ada at Acme") -> dict:
    """A run of an ask-first agent of the demo seed, waiting for a new approval: that approval."""
    before = {a["id"] for a in service(handle, "GET", "/v1/approvals", params={"limit": 100}).json()["data"]}
    agents = service(handle, "GET", "/v1/agents").json()["data"]
    agent_id = next(item["id"] for item in agents if item["name"] == agent)
    assert service(handle, "POST", f"/v1/agents/{agent_id}/runs", json={"message": note}).json()["status"] == "waiting"
    after = service(handle, "GET", "/v1/approvals", params={"limit": 100}).json()["data"]
    (new,) = [a for a in after if a["id"] not in before]
    return new


def approval_status(handle, approval_id: str) -> str:
    listed = service(handle, "GET", "/v1/approvals", params={"limit": 100, "status": "all"}).json()["data"]
    return next(a["status"] for a in listed if a["id"] == approval_id)


def approve_link_of(body: str, approval_id: str) -> str:
    """The Approve link of one approval in an email (a message lists every approval due for its person)."""
    lines = body.splitlines()
    at = next(n for n, line in enumerate(lines) if f"approval={approval_id}" in line)
    return next(line.split(": ", 1)[1] for line in lines[at:] if line.strip().startswith("Approve:"))
