"""Bulk decisions: approve or reject up to MAX_BATCH pending approvals as a
job (an `ApprovalBatch` row), stepped by the core's engine
(dashboard/jobs/engine.py, the kind `agents.approval_batch`) in bounded
chunks, never sleeping: a 429 or a failing service sends the next step with
a countdown.

Only approvals the service itself lists as pending, and whose risk needs no
confirmation (not destructive, not spend), enter a batch: the service's word,
read once at the start, never the form's. Each decision carries
`uuid5(batch.uid, "decide:<id>")` as its Idempotency-Key, the same on every
retry (a redelivered step, a 5xx, a timeout), so the service replays rather
than deciding twice. Each item is decided by `decide_item`, through the one
decision flow (agents/decisions.py): a 409 is that item's outcome ("Already
decided by Dana (approved)"), and every decision, accepted or refused, is one
entry in the audit trail in the same words as a decision made one at a time."""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from typing import Any

from django.db import transaction

from agents import decisions, selectors
from agents.models import ApprovalBatch, ApprovalBatchItem
from agents.queue import pending_stored
from agents.reading import CONFIRM_RISKS, read_approval
from dashboard.api import errors
from dashboard.api.messages import meaning_of, with_request_id
from dashboard.jobs import engine
from dashboard.jobs.items import items_step
from dashboard.jobs.kinds import JobKind, Step
from dashboard.keys.models import ApiKey
from dashboard.live.storable import storable_text

logger = logging.getLogger("agents.bulk_decisions")

MAX_BATCH = 50
# "All matching this filter": every pending approval the console keeps that matches, up to this many.
MAX_MATCHING = 1000
CHUNK = 5  # decisions per step: an approve may run an action (the server allows minutes)
KIND = "agents.approval_batch"  # the engine's name of this kind (dashboard/jobs)
PENDING_PAGES = 5  # pending approvals read at the start: 5 pages of 100


class BatchRefused(ValueError):
    """A batch that can't start, in words for the person."""


def decision_key(batch: ApprovalBatch, approval_id: str) -> str:
    """The decision's Idempotency-Key: one per item, the same on every retry."""
    return str(uuid.uuid5(batch.uid, f"decide:{approval_id}"))


# --- starting (the view) ----------------------------------------------------------------


def _pending_by_id(client, *, wanted: int) -> dict[str, dict[str, Any]]:
    """The service's pending approvals by id: enough pages of 100 for the selection (and one more)."""
    found: dict[str, dict[str, Any]] = {}
    cursor = None
    for _ in range(max(PENDING_PAGES, min(wanted, MAX_MATCHING) // 100 + 2)):
        page = selectors.approval_list(client=client, status="pending", cursor=cursor, limit=100)
        for item in page.items:
            approval = read_approval(item)
            if approval["id"] and approval["status"] == "pending":
                found[approval["id"]] = approval
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    return found


def batch_start(
    *,
    client,
    key: ApiKey,
    user,
    uid: uuid.UUID,
    decision: str,
    approval_ids: list[str],
    agent_names: dict[str, str],
    matching: bool = False,
) -> ApprovalBatch:
    """Make the batch and send its first step. The same `uid` again (a double
    submit) is the same batch. Raises BatchRefused, with nothing started, for
    a selection that is empty, too big, or holds an approval that needs its
    confirmation; approvals the service no longer lists as pending are
    reported as such and left out. `matching`: the ids are every approval
    matching the queue's filter (agents/queue.py's `matching_pending`, read
    when the form came in), allowed up to MAX_MATCHING."""
    existing = ApprovalBatch.objects.filter(uid=uid, started_by_id=user.pk).first()
    if existing is not None:
        return existing
    wanted = list(dict.fromkeys(approval_id for approval_id in approval_ids if approval_id))
    if not wanted:
        raise BatchRefused(
            "Nothing waiting matches this filter any more." if matching else "Select at least one approval first."
        )
    limit = MAX_MATCHING if matching else MAX_BATCH
    if len(wanted) > limit:
        raise BatchRefused(
            f"At most {limit} approvals are decided together; {len(wanted)} "
            + ("match this filter: narrow it (an agent, a risk, an age)." if matching else "were selected.")
        )
    if decision not in (ApprovalBatch.APPROVE, ApprovalBatch.REJECT):
        raise BatchRefused("Choose Approve selected or Reject selected.")
    pending = _pending_by_id(client, wanted=len(wanted))
    # One decided since the page was drawn is still named as the console kept it (its 409 says by whom).
    kept = dict(pending_stored(workspace_id=key.workspace_id))
    known = {approval["id"]: approval for approval in kept.values()} | pending
    confirm = [pending[a]["summary"] for a in wanted if a in pending and pending[a]["risk"] in CONFIRM_RISKS]
    if confirm and decision == ApprovalBatch.APPROVE:
        if matching:
            raise BatchRefused(
                f"{len(confirm)} of the {len(wanted)} approvals matching this filter are destructive or spend "
                "actions, approved one at a time after checking the exact input: filter by another risk to "
                "approve the rest together."
            )
        raise BatchRefused(
            "Destructive and spend actions are approved one at a time, after checking the exact input: "
            + "; ".join(confirm[:3])
            + ("…" if len(confirm) > 3 else "")
        )
    with transaction.atomic():
        batch = ApprovalBatch.objects.create(
            uid=uid, workspace_id=key.workspace_id, owner_key=key, started_by=user, decision=decision
        )
        items = []
        for position, approval_id in enumerate(wanted):
            approval = known.get(approval_id)
            items.append(
                ApprovalBatchItem(
                    batch=batch,
                    position=position,
                    approval_id=storable_text(approval_id, limit=200),
                    agent_id=approval["agent_id"][:64] if approval else "",
                    agent_name=storable_text(
                        (approval and (approval["agent_name"] or agent_names.get(approval["agent_id"], ""))) or "",
                        limit=200,
                    ),
                    summary=storable_text(approval["summary"] if approval else "", limit=300),
                    risk=(approval["risk"] if approval else "")[:32],
                    # Not pending any more when the batch started: the service's 409 will say by whom.
                )
            )
        ApprovalBatchItem.objects.bulk_create(items)
        engine.send_step(KIND, batch.pk)
    return batch


# --- one step (the task) ----------------------------------------------------------------


# The outcomes after which the approval is no longer pending at the service.
SETTLED = (ApprovalBatchItem.DECIDED, ApprovalBatchItem.ALREADY)

# What a step waits on (a countdown) or stops on, rather than an item's outcome.
_NOT_AN_OUTCOME = (
    errors.RateLimitedError,
    errors.ServerError,
    errors.ApiTimeoutError,
    errors.ApiConnectionError,
    errors.AuthenticationError,
)


def decide_item(batch: ApprovalBatch, item: ApprovalBatchItem, client) -> None:
    """Decide one item of the batch through the one decision flow
    (agents/decisions.py: its key, its 409 in words, its audit line) and
    keep its outcome. The risk is the one read at the batch's start (the
    service's word; an approval's action does not change). A 429, a failing
    service or a refused key is raised for the step to wait or stop on."""
    asked = decisions.DecisionAsked(
        approval_id=item.approval_id,
        decision=batch.decision,
        idempotency_key=decision_key(batch, item.approval_id),
        agent_id=item.agent_id,
        agent_name=item.agent_name,
        summary=item.summary,
        via=decisions.VIA_BULK,
        batch_uid=str(batch.uid),
    )
    try:
        decided = decisions.approval_decision(
            key=batch.owner_key, client=client, asked=asked, risk_read=item.risk, read_again=False
        )
    except _NOT_AN_OUTCOME:
        raise
    except errors.ApiError as exc:
        item.outcome = ApprovalBatchItem.FAILED
        item.message = storable_text(with_request_id(meaning_of(exc).title, exc), limit=400)
    else:
        if decided.outcome == decisions.DECIDED:
            item.outcome = ApprovalBatchItem.DECIDED
            item.message = "Approved" if batch.decision == ApprovalBatch.APPROVE else "Rejected"
        elif decided.outcome == decisions.ALREADY:
            item.outcome = ApprovalBatchItem.ALREADY
            item.message = storable_text(decided.words, limit=400)
        elif decided.outcome == decisions.WAITING:
            # The workspace's rule counted this vote and waits for more approvers: nothing
            # failed, and nothing was sent yet.
            item.outcome = ApprovalBatchItem.COUNTED
            item.message = storable_text(decided.words, limit=400)
        else:
            # A destructive or spend approval (never let into a batch), gone, or refused by the
            # workspace's rule: nothing was sent, and retrying would not change it.
            item.outcome = ApprovalBatchItem.NOT_SENT
            item.message = storable_text(decided.words, limit=400)
    item.save(update_fields=["outcome", "message"])


def batch_chunk(batch: ApprovalBatch) -> Step:
    """One bounded chunk of a batch (the engine's chunk: dashboard/jobs/engine.py):
    a few decisions; a 429, a failing service or a refused key waits or stops
    the whole batch by the engine's rule (decide_item lets only those through)."""
    client = batch.owner_key.client(max_retries=0)
    return items_step(
        owner_key=batch.owner_key,
        to_do=batch.items.filter(outcome=ApprovalBatchItem.TO_DO).order_by("position"),
        size=CHUNK,
        work=lambda item: decide_item(batch, item, client),
    )


APPROVAL_BATCH = JobKind(
    name=KIND,
    model=ApprovalBatch,
    chunk=batch_chunk,
    active=(ApprovalBatch.RUNNING,),
    done=ApprovalBatch.DONE,
    stopped=ApprovalBatch.STOPPED,
    cancelled_message="Cancelled: the approvals decided before stay decided.",
    kept_failing="The service kept failing; the approvals not decided yet are listed below.",
    unexpected="The bulk decision stopped on an unexpected error.",
    select_related=("owner_key__user",),
)


# --- progress (the page) ----------------------------------------------------------------


def batch_version(batch: ApprovalBatch) -> str:
    return f"{batch.updated_at.timestamp():.6f}-{batch.status}"


def batch_progress(batch: ApprovalBatch) -> dict[str, Any]:
    items = list(batch.items.all())
    done = [item for item in items if item.outcome != ApprovalBatchItem.TO_DO]
    outcomes = Counter(item.outcome for item in done)
    return {
        "batch": batch,
        "items": items,
        "total": len(items),
        "done": len(done),
        "decided": outcomes[ApprovalBatchItem.DECIDED],
        "already": outcomes[ApprovalBatchItem.ALREADY],
        "counted": outcomes[ApprovalBatchItem.COUNTED],
        "not_sent": outcomes[ApprovalBatchItem.NOT_SENT],
        "failed": outcomes[ApprovalBatchItem.FAILED],
        "version": batch_version(batch),
    }
