"""What Agents tells a workspace's outbound events (dashboard/events), at the
points where the console sees it happen: an approval the inbox refresh reads
for the first time (requested), a decision the console's decision flow made
(decided), a tracked run the poller finds failed (run failed). Each names its
happening by a stable key, so the same approval or run seen twice (two
workers, a retried poll, two people following one run) is one event."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from agents.reading import read_approval
from agents.run_reading import read_invocation, read_run
from dashboard.events.models import EventType
from dashboard.events.services import console_link, event_emit, event_wanted
from dashboard.inbox.models import WaitingItem
from dashboard.inbox.sources import KIND_APPROVAL, StoredItem
from dashboard.live.models import TrackedOperation


def _approval_data(approval: dict[str, Any], *, agent_name: str = "") -> dict[str, Any]:
    return {
        "approval_id": approval["id"],
        "agent_id": approval["agent_id"],
        "agent_name": agent_name or approval.get("agent_name") or "",
        "run_id": approval["run_id"],
        "summary": approval["summary"],
        "risk": approval["risk"],
        "url": console_link(f"{reverse('agents:approvals')}?approval={approval['id']}"),
    }


def approvals_requested(*, workspace_id: str, source: str, stored: list[StoredItem]) -> int:
    """The pending approvals a refresh read that the inbox did not hold yet: one
    `approval.requested` each. Two queries when some endpoint wants them, one otherwise."""
    if not event_wanted(workspace_id=workspace_id, type=EventType.APPROVAL_REQUESTED):
        return 0
    known = set(
        WaitingItem.objects.filter(workspace_id=workspace_id, source=source, kind=KIND_APPROVAL).values_list(
            "remote_id", flat=True
        )
    )
    told = 0
    for item in stored:
        if item.kind != KIND_APPROVAL or item.remote_id in known:
            continue
        approval = read_approval(item.data.get("approval") or {})
        event_emit(
            workspace_id=workspace_id,
            type=EventType.APPROVAL_REQUESTED,
            key=f"approval.requested:{approval['id']}",
            data=_approval_data(approval, agent_name=str(item.data.get("agent_name") or "")),
        )
        told += 1
    return told


def approval_decided(
    *, workspace_id: str, approval: dict[str, Any], decision: str, decided_by: str, via: str, note: str, agent_name: str
) -> None:
    """A decision the console sent and the service accepted."""
    event_emit(
        workspace_id=workspace_id,
        type=EventType.APPROVAL_DECIDED,
        key=f"approval.decided:{approval['id']}",
        data={
            **_approval_data(approval, agent_name=agent_name),
            "decision": "approved" if decision == "approve" else "rejected",
            "decided_by": decided_by,
            "via": via,
            "note": note,
        },
    )


def _run_failed(op: TrackedOperation, *, run_id: str, agent_id: str, error: str) -> None:
    key_id = run_id or f"message:{op.remote_id}"  # a message that failed before its run was known
    event_emit(
        workspace_id=op.owner_key.workspace_id,
        type=EventType.RUN_FAILED,
        key=f"run.failed:{key_id}",
        data={
            "run_id": run_id,
            "agent_id": agent_id,
            "error": error,
            "title": op.title,
            "url": console_link(reverse("agents:run", args=[run_id])) if run_id else "",
        },
    )


def _failed_rows(op_ids: list[int]):
    return TrackedOperation.objects.filter(pk__in=op_ids, status="failed").select_related("owner_key")


def runs_failed(op_ids: list[int]) -> None:
    """The `on_final` hook of tracked runs: each run the poller found failed (idempotent: its key)."""
    for op in _failed_rows(op_ids):
        run = read_run(op.snapshot if isinstance(op.snapshot, dict) else {})
        agent_id = run["agent_id"] or str((op.context or {}).get("agent_id") or "")
        _run_failed(op, run_id=run["id"] or op.remote_id, agent_id=agent_id, error=run["error_message"])


def messages_failed(op_ids: list[int]) -> None:
    """The `on_final` hook of chat messages: the run of a message found failed (the same
    event as its run's own row, by the run's id)."""
    for op in _failed_rows(op_ids):
        context = op.context if isinstance(op.context, dict) else {}
        answer = read_invocation(op.snapshot if isinstance(op.snapshot, dict) else {})
        run_id = answer["run_id"] or str(context.get("run_id") or "")
        _run_failed(op, run_id=run_id, agent_id=str(context.get("agent_id") or ""), error=answer["error_message"])
