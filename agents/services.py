"""Writes of the Agents area. Every write carries the Idempotency-Key of the
form it came from (minted when the form was rendered); slow ones (builder
turns, activation, decisions, runs) use the transport's long timeout."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from dashboard.keys.errors import NoActiveKeyError
from dashboard.keys.selectors import active_key_for
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track

if TYPE_CHECKING:
    from dashboard.api import ServiceClient


def _path_id(value: str) -> str:
    return quote(str(value), safe="")


def agent_create(*, client: ServiceClient, name: str, message: str, auto: bool, idempotency_key: str) -> dict:
    """Draft a new agent from a brief (`POST /v1/agents`): an agent build."""
    body: dict[str, Any] = {"message": message, "auto": bool(auto)}
    if name:
        body["name"] = name
    return client.post("/v1/agents", json=body, idempotency_key=idempotency_key, slow=True)


def agent_change(*, client: ServiceClient, agent_id: str, message: str, auto: bool, idempotency_key: str) -> dict:
    """A builder turn on the draft (`PATCH /v1/agents/{id}` with a message);
    also how a `needs_input` build's questions are answered."""
    return client.patch(
        f"/v1/agents/{_path_id(agent_id)}",
        json={"message": message, "auto": bool(auto)},
        idempotency_key=idempotency_key,
        slow=True,
    )


def agent_rename(*, client: ServiceClient, agent_id: str, name: str, idempotency_key: str) -> dict:
    """`name` alone renames (no credits)."""
    return client.patch(f"/v1/agents/{_path_id(agent_id)}", json={"name": name}, idempotency_key=idempotency_key)


def agent_activate(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    """Publish a version and set up wake-ups; 422 with `details.issues` when the plan isn't ready."""
    return client.post(f"/v1/agents/{_path_id(agent_id)}/activate", idempotency_key=idempotency_key, slow=True)


def agent_pause(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    return client.post(f"/v1/agents/{_path_id(agent_id)}/pause", idempotency_key=idempotency_key)


def approval_decide(
    *, client: ServiceClient, approval_id: str, decision: str, always: bool, idempotency_key: str
) -> dict:
    """Approve (the action runs now and the run resumes) or reject. Can take
    minutes: the transport waits up to the slow timeout."""
    body: dict[str, Any] = {"decision": decision}
    if always:
        body["always"] = True
    return client.post(f"/v1/approvals/{_path_id(approval_id)}", json=body, idempotency_key=idempotency_key, slow=True)


# --- tracked operations ------------------------------------------------------------


def invocation_start(
    *, user, agent_id: str, message: str, thread_id: str | None, idempotency_key: str, payload: dict | None = None
) -> TrackedOperation:
    """Send a chat message in background mode and record it for the live
    poller, which repeats the same request with the same key until the
    invocation is finished (spec: "Repeat the same request with the same key
    to poll"). The remote id is the key itself: one row per message."""
    from agents.live import INVOCATION_KIND

    key = active_key_for(user=user)
    if key is None:
        raise NoActiveKeyError()
    body: dict[str, Any] = {"background": True}
    if message:
        body["message"] = message
    if payload is not None:
        body["payload"] = payload
    if thread_id:
        body["thread_id"] = str(thread_id)
    response = key.client().request(
        "POST", f"/v1/agents/{_path_id(agent_id)}/runs", json=body, idempotency_key=idempotency_key, slow=True
    )
    answer = response.data if isinstance(response.data, dict) else {}
    return operation_track(
        owner_key=key,
        user=user,
        kind=INVOCATION_KIND,
        remote_id=idempotency_key,
        title=message or f"Event {json.dumps(payload, ensure_ascii=False)}",
        snapshot=answer,
        context={
            "agent_id": str(agent_id),
            # What the poll repeats, byte for byte (never a secret). Kept as
            # text: a JSONB column would reorder the keys of the body.
            "body_json": json.dumps(body, ensure_ascii=False),
            "idempotency_key": idempotency_key,
            "thread_id": str(answer.get("thread_id") or thread_id or ""),
            "run_id": str(answer.get("run_id") or ""),
            "request_id": response.request_id or "",
        },
    )


def run_follow(*, user, run: dict) -> TrackedOperation | None:
    """Have the live poller follow a run that isn't finished (the run page
    shows it updating). Following the same run again returns the same row."""
    from agents.live import RUN_KIND
    from agents.reading import read_run

    key = active_key_for(user=user)
    read = read_run(run)
    if key is None or not read["id"]:
        return None
    return operation_track(
        owner_key=key,
        user=user,
        kind=RUN_KIND,
        remote_id=read["id"],
        title=read["event_message"] or f"Run {read['id'][:8]}",
        snapshot=run,
        context={"agent_id": read["agent_id"]},
    )
