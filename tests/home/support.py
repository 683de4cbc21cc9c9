"""Helpers of the home page tests."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from dashboard.api import ServiceClient
from dashboard.inbox.tasks import refresh_workspace
from dashboard.keys.testing import store_sandbox_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from dashboard.people.backends import person_role_set
from tests.html import one, parse, select, text_of

TURN_TITLE = "Build a landing page for our spring sale"
ARTIFACT_NAME = "Spring sale site"
RUN_ERROR = "The CRM did not answer."
RENAMED_TO = "Northwind renewal"
WRITE_ACTIONS = ("New turn", "Chat with an agent", "New record")
SECTION_TITLES = [
    "What needs you",
    "Running now",
    "Your recent Studio conversations",
    "Runs that failed or wait (last 24 hours)",
    "Records you edited",
]


def sandbox_person(django_user_model, handle, *, username: str, role: str, kind: str):
    user = django_user_model.objects.create_user(username=username, password="x" * 20)
    person_role_set(user=user, role=role)
    secret = handle.mint_key(kind)
    key = store_sandbox_key(user, ServiceClient(api_key=secret), secret)
    return user, key


def sandbox_ids(key) -> dict[str, str]:
    """An agent and a deal of the sandbox (remote reads made here, before any count)."""
    client = key.client()
    agents = client.get("/v1/agents")["data"]
    deal = client.get("/v1/objects/deals/records", params={"limit": 1})["data"][0]
    return {
        "agent": next(agent["id"] for agent in agents if agent["name"] == "Lead qualifier"),
        "other_agent": next(agent["id"] for agent in agents if agent["name"] == "Weekly pipeline report"),
        "deal": deal["id"],
    }


def give_work(user, key, handle) -> dict[str, str]:
    """The workspace's inbox read once (as beat's refresh would), and the
    person's own work: a website turn still building (a conversation about
    an artifact), a message whose agent run failed an hour ago, a chat message, and a
    deal they renamed through the console."""
    from objects.services import record_change_log

    ids = sandbox_ids(key)
    refresh_workspace(key.workspace_id)
    operation_track(
        owner_key=key,
        kind="studio.turn",
        remote_id=f"turn-{user.pk}",
        title=TURN_TITLE,
        snapshot={
            "id": f"turn-{user.pk}",
            "status": "building",
            "conversation_id": f"conv-{user.pk}",
            "studio": "website",
            "artifact": {"id": "site-1", "name": ARTIFACT_NAME, "kind": "website"},
        },
        context={"studio": "website"},
    )
    # A message of theirs whose run failed (a run a list only tracked is the workspace's, never theirs).
    failed = operation_track(
        owner_key=key,
        kind="agents.invocation",
        remote_id=f"failed-message-{user.pk}",
        title="Qualify the new leads",
        snapshot={
            "run_id": f"run-{user.pk}",
            "agent_id": ids["agent"],
            "status": "failed",
            "error": {"message": RUN_ERROR},
        },
        context={"agent_id": ids["agent"]},
    )
    TrackedOperation.objects.filter(pk=failed.pk).update(
        status="failed", is_final=True, created_at=timezone.now() - timedelta(hours=1)
    )
    message = operation_track(
        owner_key=key,
        kind="agents.invocation",
        remote_id=f"message-{user.pk}",
        title="How did last week go?",
        snapshot={"status": "completed", "run_id": f"chat-run-{user.pk}"},
        context={"agent_id": ids["other_agent"]},
    )
    TrackedOperation.objects.filter(pk=message.pk).update(status="completed", is_final=True)
    record_change_log(
        user=user,
        workspace_id=key.workspace_id,
        object_key="deals",
        record_id=ids["deal"],
        action="edit",
        before={"name": "Nova Capital - Product launch"},
        after={"name": RENAMED_TO},
        fields=[],
    )
    return ids


def section(page, title: str):
    """The home page's section whose heading is `title`."""
    return next(element for element in select(page, "section.home-section") if text_of(one(element, "h2")) == title)


def home_page(html: bytes):
    return parse(html.decode())
