"""Writes of the Agents area. Every write carries the Idempotency-Key of the
form it came from (minted when the form was rendered); slow ones (builder
turns, activation, decisions, runs) use the transport's long timeout."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agents.live import INVOCATION_KIND, RUN_KIND
from agents.models import BuilderAnswer
from agents.reading import read_run
from dashboard.api.paths import api_path
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from dashboard.api import ServiceClient
    from dashboard.keys.models import ApiKey


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
        api_path("/v1/agents/{}", agent_id),
        json={"message": message, "auto": bool(auto)},
        idempotency_key=idempotency_key,
        slow=True,
    )


def agent_rename(*, client: ServiceClient, agent_id: str, name: str, idempotency_key: str) -> dict:
    """`name` alone renames (no credits)."""
    return client.patch(api_path("/v1/agents/{}", agent_id), json={"name": name}, idempotency_key=idempotency_key)


def agent_activate(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    """Publish a version and set up wake-ups; 422 with `details.issues` when the plan isn't ready."""
    return client.post(api_path("/v1/agents/{}/activate", agent_id), idempotency_key=idempotency_key, slow=True)


def agent_pause(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    return client.post(api_path("/v1/agents/{}/pause", agent_id), idempotency_key=idempotency_key)


def approval_decide(
    *, client: ServiceClient, approval_id: str, decision: str, always: bool, idempotency_key: str
) -> dict:
    """Approve (the action runs now and the run resumes) or reject. Can take
    minutes: the transport waits up to the slow timeout."""
    body: dict[str, Any] = {"decision": decision}
    if always:
        body["always"] = True
    return client.post(api_path("/v1/approvals/{}", approval_id), json=body, idempotency_key=idempotency_key, slow=True)


# --- tracked operations ------------------------------------------------------------


def builder_answer_keep(*, workspace_id: str, agent_id: str, build: dict, asked_by: AbstractBaseUser) -> BuilderAnswer:
    """Keep the builder's answer (`read_build`) for everyone of the workspace:
    its questions stay until someone answers them."""
    answer, _ = BuilderAnswer.objects.update_or_create(
        workspace_id=workspace_id,
        agent_id=agent_id,
        defaults={
            "status": build["status"],
            "message": build["message"],
            "questions": build["questions"],
            "asked_by": asked_by,
        },
    )
    return answer


def builder_answer_seen(*, answer: BuilderAnswer) -> None:
    """A finished build's summary is news once; open questions stay."""
    if not answer.needs_input:
        answer.delete()


def invocation_start(
    *,
    key: ApiKey,
    agent_id: str,
    message: str,
    thread_id: str | None,
    idempotency_key: str,
    payload: dict | None = None,
) -> TrackedOperation:
    """Send a chat message in background mode and record it for the live
    poller, which repeats the same request with the same key until the
    invocation is finished (spec: "Repeat the same request with the same key
    to poll"). The remote id is the key itself: one row per message."""
    body: dict[str, Any] = {"background": True}
    if message:
        body["message"] = message
    if payload is not None:
        body["payload"] = payload
    if thread_id:
        body["thread_id"] = str(thread_id)
    response = key.client().request(
        "POST", api_path("/v1/agents/{}/runs", agent_id), json=body, idempotency_key=idempotency_key, slow=True
    )
    answer = response.data if isinstance(response.data, dict) else {}
    return operation_track(
        owner_key=key,
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


def run_follow(*, key: ApiKey, run: dict) -> TrackedOperation | None:
    """Have the live poller follow a run that isn't finished (the run page
    shows it updating). Following the same run again returns the same row."""
    read = read_run(run)
    if not read["id"]:
        return None
    return operation_track(
        owner_key=key,
        kind=RUN_KIND,
        remote_id=read["id"],
        title=read["event_message"] or f"Run {read['id'][:8]}",
        snapshot=run,
        context={"agent_id": read["agent_id"]},
    )
