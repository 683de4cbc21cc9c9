"""The audit feed: every entry as one record with stable fields, the same
shape in two places. A JSON log line on the `console.audit` logger each time
an entry is stored (for a log shipper), and the cursor-paged export an
Auditor pulls (`/audit/feed?after=<cursor>&limit=`), which a later API token
will page through `audit_entries_after` (dashboard/audit/selectors.py).

The fields (docs/operations.md, "The audit feed"): id, at, workspace,
actor_id, actor_name, kind, area, action, via, object, words, outcome,
status, request_id. Never the key: not even its masked label."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from dashboard.audit.models import AuditEntry
from dashboard.audit.wording import entries_in_words

audit_logger = logging.getLogger("console.audit")
logger = logging.getLogger("dashboard.audit")


def _action(entry: AuditEntry) -> str:
    """A stable word: the account event's own, a decision's (approve/reject), else the method's."""
    if entry.action:
        return entry.action
    decision = entry.details.get("decision") if isinstance(entry.details, dict) else None
    if entry.kind == AuditEntry.KIND_DECISION and decision:
        return str(decision)
    return entry.method.lower()


def audit_record(entry: AuditEntry) -> dict[str, Any]:
    """One entry in the feed's fields. `words` and `outcome` come from
    `entries_in_words` (called by the reader, once for a whole page)."""
    details = entry.details if isinstance(entry.details, dict) else {}
    return {
        "id": entry.pk,
        "at": entry.created_at.isoformat().replace("+00:00", "Z"),
        "workspace": entry.workspace_id,
        "actor_id": entry.user_id,
        "actor_name": entry.username,
        "kind": entry.kind,
        "area": entry.area,
        "action": _action(entry),
        "via": str(details.get("via") or ("bulk" if details.get("bulk") else "")),
        # What it was about: the remote path, or the account (by name) of a people event.
        "object": entry.subject_name if entry.kind == AuditEntry.KIND_ACCOUNT else entry.path,
        "words": getattr(entry, "words", entry.summary),
        "outcome": getattr(entry, "outcome", ""),
        "status": entry.status,
        "request_id": entry.request_id,
    }


def audit_log_line(entry_id: int) -> None:
    """Write the stored entry's line (after its transaction committed: a
    rolled-back write leaves no line). An entry completed later (a decision's
    note, a repeat's outcome) is written again under the same id: the last
    line of an id is the entry."""
    entry = AuditEntry.objects.filter(pk=entry_id).first()
    if entry is None:
        return
    entries_in_words([entry], workspace_id=entry.workspace_id)
    record = audit_record(entry)
    # An entry without a request id (an account event) keeps the line's own (the request or task at hand).
    extra = {**record, "request_id": record["request_id"] or None}
    audit_logger.info("audit %s %s: %s", record["id"], record["actor_name"] or "console", record["words"], extra=extra)


def _on_saved(sender: type[AuditEntry], instance: AuditEntry, **kwargs: Any) -> None:
    entry_id = instance.pk

    def write() -> None:
        try:
            audit_log_line(entry_id)
        except Exception:  # a log line never fails the write it records
            logger.warning("audit: the feed line of entry %s could not be written", entry_id, exc_info=True)

    transaction.on_commit(write)


def audit_feed_connect() -> None:
    post_save.connect(_on_saved, sender=AuditEntry, dispatch_uid="audit_feed_line")
