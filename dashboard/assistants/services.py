"""An assistant's tool call done, or held for a person: the one place that
runs a tool (at once, or as the carry-out of an approved request), asks for
an approval, decides one and carries it out exactly once.

Exactly once: the request's Idempotency-Key is minted when the assistant
asks and kept on the row; the carry-out is claimed by a conditional UPDATE
(one worker at a time, a lapsed claim taken over), every attempt sends the
same key (the service makes the write once and replays its answer), and a
finished row is never carried out again. A rejected request never reaches
the service: only an approval sends the task (through the outbox, in the
decision's transaction)."""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from dashboard.api import errors
from dashboard.assistants.answers import ToolOutcome, request_outcome, request_words, service_words
from dashboard.assistants.inbox import waiting_changed
from dashboard.assistants.models import AssistantRequest
from dashboard.assistants.policy import approval_reason
from dashboard.assistants.registry import tool_named
from dashboard.assistants.tools import AssistantTool, ToolCall, ToolRefusal
from dashboard.audit.services import audit_console_write
from dashboard.frame.permissions import write_refusal
from dashboard.frame.workspace import Workspace
from dashboard.keys.errors import KeyDecryptionError, KeyRefusedError, NoActiveKeyError
from dashboard.observability.context import acting_via, acting_via_reset, set_user_id
from dashboard.outbox.services import outbox_send
from dashboard.tokens.scopes import scope_refusal

logger = logging.getLogger(__name__)

CARRY_OUT_TASK = "assistants.carry_out"
# How long one worker holds a carry-out before another may take it over (it died).
CARRY_LEASE = timedelta(seconds=120)
# Transient failures (the service down, a timeout) are tried again this often, then the request fails in words.
CARRY_ATTEMPTS = 5
CARRY_RETRY_SECONDS = 30
# An assistant's key, scoped to its token on the way ("assistant-<token>-<key>" fits the row's 128 characters).
MAX_IDEMPOTENCY_KEY = 96


def via_of(token: Any) -> str:
    return f"token {token.name}"


def _key_words(exc: Exception) -> str:
    if isinstance(exc, KeyRefusedError):
        return "The service refuses your key of this workspace: fix it on the Keys page."
    if isinstance(exc, KeyDecryptionError):
        return "The console cannot read your stored key (its encryption keys changed)."
    return "You hold no key of this token's workspace any more: add it on the Keys page."


def _run(tool: AssistantTool, call: ToolCall, *, service_errors_said: bool = True) -> ToolOutcome:
    """The tool's answer, or its refusal in words. A remote error is said in the
    catalogue's words (with the service's request id), unless the caller (the
    carry-out) tells a transient one from a final one itself."""
    try:
        return ToolOutcome(data=tool.run(call))
    except ToolRefusal as refusal:
        return ToolOutcome(refused=str(refusal))
    except (KeyRefusedError, KeyDecryptionError, NoActiveKeyError) as exc:
        return ToolOutcome(refused=_key_words(exc))
    except errors.ApiError as exc:
        if not service_errors_said:
            raise
        return ToolOutcome(refused=service_words(exc))


def tool_call(*, tool: AssistantTool, token: Any, workspace: Workspace, arguments: dict[str, Any]) -> ToolOutcome:
    """One call of an assistant, as the token's person (the caller checked its scope):
    a read at once; a write refused by the write guard in the page's words, held
    for an Approver when policy says so, else made at once with its Idempotency-Key."""
    arguments = dict(arguments)
    key = str(arguments.pop("idempotency_key", "") or "").strip()
    if len(key) > MAX_IDEMPOTENCY_KEY:
        return ToolOutcome(refused=f"An idempotency_key is at most {MAX_IDEMPOTENCY_KEY} characters.")
    if not tool.writes:
        return _run(tool, ToolCall(workspace=workspace, arguments=arguments, via=via_of(token)))
    try:
        refusal = write_refusal(workspace, tool.write_explanation or "Ask an administrator of the workspace.")
    except (KeyRefusedError, KeyDecryptionError, NoActiveKeyError) as exc:
        return ToolOutcome(refused=_key_words(exc))
    if refusal:
        return ToolOutcome(refused=refusal)
    reason = approval_reason(tool=tool, token=token)
    if reason:
        row = assistant_request_make(
            tool=tool, token=token, workspace_id=workspace.id, arguments=arguments, reason=reason, key=key
        )
        if (row.tool, row.arguments) != (tool.name, arguments):
            return ToolOutcome(
                refused=f"This idempotency_key was sent with other arguments for request {row.pk}: nothing was "
                "asked. Use a new key for another change."
            )
        return request_outcome(row)
    # The assistant's key is scoped to its token: two assistants' "1" are two changes.
    idempotency_key = f"mcp-{token.pk}-{key}" if key else f"mcp-{uuid.uuid4().hex}"
    return _run(
        tool, ToolCall(workspace=workspace, arguments=arguments, idempotency_key=idempotency_key, via=via_of(token))
    )


def assistant_request_make(
    *, tool: AssistantTool, token: Any, workspace_id: str, arguments: dict[str, Any], reason: str, key: str = ""
) -> AssistantRequest:
    """Hold a write for an Approver: kept with its exact arguments and its own
    Idempotency-Key. The same key sent again (an assistant's retry) is the same request."""
    idempotency_key = f"assistant-{token.pk}-{key}" if key else f"assistant-{uuid.uuid4().hex}"
    existing = AssistantRequest.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    summary = tool.describe(arguments) if tool.describe else f"{tool.title} {arguments}"
    try:
        return _request_kept(
            tool=tool,
            token=token,
            workspace_id=workspace_id,
            arguments=arguments,
            reason=reason,
            idempotency_key=idempotency_key,
            summary=summary,
        )
    except IntegrityError:
        # The same retry arrived twice at once: the other one made it.
        return AssistantRequest.objects.get(idempotency_key=idempotency_key)


def _request_kept(
    *,
    tool: AssistantTool,
    token: Any,
    workspace_id: str,
    arguments: dict[str, Any],
    reason: str,
    idempotency_key: str,
    summary: str,
) -> AssistantRequest:
    with transaction.atomic():
        row = AssistantRequest.objects.create(
            user=token.user,
            token=token,
            token_name=token.name,
            workspace_id=workspace_id,
            tool=tool.name,
            arguments=arguments,
            summary=summary[:300],
            reason=reason[:300],
            idempotency_key=idempotency_key,
        )
        audit_console_write(
            actor=token.user,
            workspace_id=workspace_id,
            key=None,
            area="assistants",
            action="assistant_asked",
            path=f"/assistants/requests/{row.pk}",
            summary=f"Asked for approval: {row.summary} (via token {token.name})",
            details={"via": via_of(token), "tool": tool.name, "arguments": arguments, "reason": reason},
        )
        transaction.on_commit(lambda: waiting_changed(workspace_id=workspace_id))
    return row


class DecisionRefused(Exception):
    """Why a person may not decide this request, in words."""


def assistant_request_decide(*, row: AssistantRequest, user: Any, approve: bool, note: str = "") -> AssistantRequest:
    """An Approver's decision (the caller checked the permission and the workspace).
    Decided once: a second decision is refused in words. An approval sends the
    carry-out through the outbox in the same transaction; a rejection sends nothing."""
    if row.user_id == user.pk:
        raise DecisionRefused("You asked for this through your own token: another Approver decides it.")
    status = AssistantRequest.Status.APPROVED if approve else AssistantRequest.Status.REJECTED
    with transaction.atomic():
        changed = AssistantRequest.objects.filter(pk=row.pk, status=AssistantRequest.Status.WAITING).update(
            status=status, decided_by=user, decided_at=timezone.now(), note=note[:2000]
        )
        row.refresh_from_db()
        if not changed:
            raise DecisionRefused(f"Already decided: {request_words(row)}")
        audit_console_write(
            actor=user,
            workspace_id=row.workspace_id,
            key=None,
            area="assistants",
            action="assistant_approved" if approve else "assistant_rejected",
            path=f"/assistants/requests/{row.pk}",
            summary=f"{'Approved' if approve else 'Rejected'} the assistant request: {row.summary} "
            f"(asked by {row.user.get_username()} via token {row.token_name})",
            details={"tool": row.tool, "arguments": row.arguments, **({"note": note} if note else {})},
        )
        if approve:
            outbox_send(task=CARRY_OUT_TASK, args=[row.pk], about=row)
        transaction.on_commit(lambda: waiting_changed(workspace_id=row.workspace_id))
    return row


def _claim(pk: int) -> bool:
    now = timezone.now()
    return bool(
        AssistantRequest.objects.filter(pk=pk, status=AssistantRequest.Status.APPROVED)
        .filter(Q(carrying_until__isnull=True) | Q(carrying_until__lt=now))
        .update(carrying_until=now + CARRY_LEASE, attempts=F("attempts") + 1)
    )


def _finish(row: AssistantRequest, *, status: str, result: Any = None, error: str = "") -> None:
    AssistantRequest.objects.filter(pk=row.pk, status=AssistantRequest.Status.APPROVED).update(
        status=status, result=result, error=error[:500], carried_at=timezone.now(), carrying_until=None
    )


def _still_allowed(row: AssistantRequest, tool: AssistantTool, workspace: Workspace) -> str:
    """Why the approved write may no longer be made as its person ("" when it may)."""
    token = row.token
    if token is None or token.state != "active":
        return f"The token “{row.token_name}” was revoked or expired before it was carried out."
    if not row.user.is_active:
        return "Its person was deactivated before it was carried out."
    refusal = scope_refusal(
        user=row.user, granted=list(token.scopes), needed=tool.scope, workspace_id=token.workspace_id
    )
    return refusal or write_refusal(workspace, tool.write_explanation or "Ask an administrator of the workspace.")


def assistant_request_carry_out(*, request_id: int) -> None:
    """The task's work: an approved request's write, made once, as its person
    "via token <name>". Nothing happens for a request not approved, finished,
    or held by another worker right now."""
    if not _claim(request_id):
        # Held by another worker now: if that one dies (acks_late redelivers only its own message), look again
        # once its claim lapses. Nothing is sent for a request not approved or already finished.
        with transaction.atomic():
            if AssistantRequest.objects.filter(pk=request_id, status=AssistantRequest.Status.APPROVED).exists():
                outbox_send(task=CARRY_OUT_TASK, args=[request_id], countdown=CARRY_LEASE.total_seconds())
        return
    row = AssistantRequest.objects.select_related("user", "token").get(pk=request_id)
    tool = tool_named(row.tool)
    if tool is None:
        _finish(row, status=AssistantRequest.Status.FAILED, error=f"The console has no tool “{row.tool}” any more.")
        return
    workspace = Workspace(row.user, workspace_id=row.workspace_id)
    try:
        refusal = _still_allowed(row, tool, workspace)
    except (KeyRefusedError, KeyDecryptionError, NoActiveKeyError) as exc:
        refusal = _key_words(exc)
    if refusal:
        _finish(row, status=AssistantRequest.Status.FAILED, error=refusal)
        return
    set_user_id(row.user_id)
    via = acting_via(f"token {row.token_name}")
    try:
        outcome = _run(
            tool,
            ToolCall(
                workspace=workspace,
                arguments=dict(row.arguments),
                idempotency_key=row.idempotency_key,
                via=f"token {row.token_name}",
            ),
            service_errors_said=False,
        )
    except (errors.ServerError, errors.ApiConnectionError, errors.RateLimitedError) as exc:
        _carry_again_later(row, service_words(exc))
        return
    except errors.ApiError as exc:
        _finish(row, status=AssistantRequest.Status.FAILED, error=service_words(exc))
        return
    finally:
        acting_via_reset(via)
        set_user_id(None)
    if outcome.refused:
        _finish(row, status=AssistantRequest.Status.FAILED, error=outcome.refused)
    else:
        _finish(row, status=AssistantRequest.Status.DONE, result=outcome.data)


def _carry_again_later(row: AssistantRequest, words: str) -> None:
    """A transient failure: let go of the claim and try again later with the same key; in the end, fail in words."""
    if row.attempts >= CARRY_ATTEMPTS:
        _finish(row, status=AssistantRequest.Status.FAILED, error=f"The service could not be reached: {words}")
        return
    with transaction.atomic():
        AssistantRequest.objects.filter(pk=row.pk).update(carrying_until=None, error=words[:500])
        outbox_send(task=CARRY_OUT_TASK, args=[row.pk], countdown=CARRY_RETRY_SECONDS, about=row)
    logger.info("assistant request %s: carry-out tried again later (%s)", row.pk, words)
