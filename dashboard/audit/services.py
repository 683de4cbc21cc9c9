"""Writes of the audit trail: what the write hook records, what an area
adds to an entry (a decision's note), and the retention task's pruning."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from dashboard.api.hooks import RemoteWrite
from dashboard.audit.models import AuditEntry
from dashboard.frame.areas import area_of_resource
from dashboard.keys.models import ApiKey

logger = logging.getLogger("dashboard.audit")

VERBS = {"POST": "Created or sent", "PATCH": "Changed", "PUT": "Replaced", "DELETE": "Deleted"}


def area_of(path: str) -> str:
    """`/v1/objects/deals/records` -> `objects`."""
    segments = [segment for segment in path.split("?", 1)[0].split("/") if segment and segment != "v1"]
    if not segments:
        return ""
    # Each area declares the resources it writes (Area.remote_resources); an undeclared one is filed as itself.
    return area_of_resource(segments[0]) or segments[0][:32]


def summary_of(method: str, path: str) -> str:
    return f"{VERBS.get(method, method)} {path.removeprefix('/v1/')}"[:300]


def audit_write_record(write: RemoteWrite) -> AuditEntry | None:
    """The write hook: one entry per logical write (Idempotency-Key); a repeat
    updates its outcome. In a savepoint, so a failure never poisons the
    caller's transaction (the hook's caller logs and swallows it)."""
    with transaction.atomic():
        existing = (
            AuditEntry.objects.filter(idempotency_key=write.idempotency_key, method=write.method, path=write.path)
            .order_by("id")
            .first()
            if write.idempotency_key
            else None
        )
        if existing is not None:
            if (existing.status, existing.request_id) != (write.status, write.request_id or ""):
                existing.status = write.status
                existing.request_id = (write.request_id or "")[:128]
                existing.save(update_fields=["status", "request_id"])
            return existing
        key = (
            ApiKey.objects.filter(pk=write.stored_key_id).only("workspace_id", "prefix", "last4", "label").first()
            if write.stored_key_id
            else None
        )
        username = ""
        if write.acting_user_id is not None:
            user = get_user_model().objects.filter(pk=write.acting_user_id).first()
            username = user.get_username() if user is not None else ""
        return AuditEntry.objects.create(
            user_id=write.acting_user_id,
            username=username,
            workspace_id=key.workspace_id if key else "",
            key_label=f"{key.label} ({key.masked})"[:200] if key else "",
            area=area_of(write.path),
            method=write.method,
            path=write.path[:500],
            idempotency_key=write.idempotency_key[:128],
            status=write.status,
            request_id=(write.request_id or "")[:128],
            summary=(summary_of(write.method, write.path) + (f" (via {write.via})" if write.via else ""))[:300],
            details={**({"error": write.error} if write.error else {}), **({"via": write.via} if write.via else {})},
        )


def audit_decision_note(*, idempotency_key: str, summary: str, note: str, details: dict[str, Any]) -> AuditEntry | None:
    """Make the write entry of an approval decision (found by its
    Idempotency-Key) say what was decided, with the person's note."""
    entry = AuditEntry.objects.filter(idempotency_key=idempotency_key).order_by("id").first()
    if entry is None:
        logger.warning("audit: no write entry for decision key %s", idempotency_key)
        return None
    entry.kind = AuditEntry.KIND_DECISION
    entry.area = "approvals"
    entry.summary = summary[:300]
    entry.note = note
    entry.details = {**entry.details, **details}
    entry.save(update_fields=["kind", "area", "summary", "note", "details"])
    return entry


def audit_write_words(*, idempotency_key: str, summary: str, details: dict[str, Any]) -> AuditEntry | None:
    """Make a write's entry (found by its Idempotency-Key) say what it did
    where its method and path can't (a PATCH that takes an agent's grant
    back reads as any change otherwise). The entry stays a write; the trail
    keeps a summary written on purpose (dashboard/audit/wording.py)."""
    entry = AuditEntry.objects.filter(idempotency_key=idempotency_key).order_by("id").first()
    if entry is None:
        logger.warning("audit: no write entry for key %s", idempotency_key)
        return None
    entry.summary = summary[:300]
    entry.details = {**entry.details, **details}
    entry.save(update_fields=["summary", "details"])
    return entry


def audit_account_event(
    *,
    actor: Any,
    subject: Any,
    action: str,
    summary: str,
    details: dict[str, Any] | None = None,
    actor_name: str = "",
) -> AuditEntry:
    """Record a change to people, roles, invitations or sign-in (kind
    "account"): who did it (`actor`, None for the console itself), whom it was
    about (`subject`, None when there is no account yet: an invitation names
    its address in `details`), a stable `action` word and a sentence.

    Not tied to a workspace (a person is the console's, not a workspace's):
    the Audit page shows these entries in every workspace's trail. Call it in
    the transaction of the change it records, so both stand or neither.
    `actor_name` names an actor that is no person (a directory provisioning
    over SCIM: "Okta (directory)"), shown as who did it."""
    actor_id = getattr(actor, "pk", None) if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        kind=AuditEntry.KIND_ACCOUNT,
        area="people",
        user_id=actor_id,
        username=actor.get_username()[:150] if actor_id is not None else actor_name[:150],
        subject_id=getattr(subject, "pk", None),
        subject_name=(subject.get_username() if subject is not None else "")[:254],
        action=action[:64],
        method="",
        path="",
        summary=summary[:300],
        details=details or {},
    )


def _key_event(*, key: ApiKey, user: Any, action: str, verb: str) -> None:
    """An account entry about one of a person's stored keys: by label and mask, never the secret."""
    audit_account_event(
        actor=user,
        subject=user,
        action=action,
        summary=f"{user.get_username()} {verb} the API key “{key.label}” ({key.masked}) of {key.workspace_name}"[:300],
        details={"workspace_id": key.workspace_id, "workspace": key.workspace_name, "key": key.masked},
    )


def audit_key_stored(sender: Any, *, key: ApiKey, user: Any, **kwargs: Any) -> None:
    """A person stored (or stored again) an API key (keys.signals.api_key_stored)."""
    _key_event(key=key, user=user, action="key_stored", verb="stored")


def audit_key_removed(sender: Any, *, key: ApiKey, user: Any, **kwargs: Any) -> None:
    """A person removed one of their stored keys from the console (it still works at the service)."""
    _key_event(key=key, user=user, action="key_removed", verb="removed")


def audit_console_write(
    *,
    actor: Any,
    workspace_id: str,
    key: ApiKey | None,
    area: str,
    action: str,
    path: str,
    summary: str,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Record a write an area makes in the console only, about a workspace's
    content (a Studio share link made or revoked): kind "write", in that
    workspace's trail, `method` POST and `path` the console's own address
    (no remote call was made, so no Idempotency-Key and no request id).
    Unlike an account event it belongs to one workspace: what was shared is
    the workspace's. Call it in the transaction of the change it records."""
    actor_id = getattr(actor, "pk", None) if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        kind=AuditEntry.KIND_WRITE,
        area=area[:32],
        user_id=actor_id,
        username=actor.get_username()[:150] if actor_id is not None else "",
        workspace_id=workspace_id[:64],
        key_label=f"{key.label} ({key.masked})"[:200] if key is not None else "",
        action=action[:64],
        method="POST",
        path=path[:500],
        status=200,
        summary=summary[:300],
        details=details or {},
    )


def audit_prune(*, now: datetime | None = None) -> int:
    """Delete entries older than AUDIT_RETENTION_DAYS (0 keeps everything)."""
    days = int(settings.AUDIT_RETENTION_DAYS or 0)
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted, _ = AuditEntry.objects.filter(created_at__lt=cutoff).delete()
    return deleted
