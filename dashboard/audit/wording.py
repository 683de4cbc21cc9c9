"""The audit trail in words, rendered from what each entry kept: every area
words the entries of its own writes (`Area.audit_words`: "Sent a message to
Lead qualifier: “…”", never an id), and the outcome is said from the status.
Nothing stored changes: entries stay append-only, the words are the page's."""

from __future__ import annotations

import logging
from typing import Any

from dashboard.audit.models import AuditEntry
from dashboard.audit.services import summary_of
from dashboard.frame.areas import areas

logger = logging.getLogger("dashboard.audit")

OUTCOMES = {
    400: "Refused: the service found the request invalid",
    401: "Refused: the key was not accepted",
    403: "Refused: the key may not do this",
    404: "Refused: the service no longer has it",
    409: "Refused: already done or changed elsewhere",
    422: "Refused: the service found the input invalid",
    429: "Refused: too many requests at the time",
}


def outcome_words(entry: AuditEntry) -> str:
    if entry.kind == AuditEntry.KIND_ACCOUNT:
        return "Done"
    if entry.status is None:
        return "No answer from the service"
    if entry.succeeded:
        return "Done"
    if entry.status >= 500:
        return "The service failed"
    return OUTCOMES.get(entry.status, "Refused by the service")


def entries_in_words(entries: list[AuditEntry], *, workspace_id: str) -> list[AuditEntry]:
    """Give each entry `words` (its line) and `outcome`, asking each area
    once for all of the page's entries (a query or two per area, not per line)."""
    words: dict[int, str] = {}
    asked: set[Any] = set()
    for area in areas():
        wording = area.audit_words
        if wording is None or wording in asked:
            continue
        asked.add(wording)
        try:
            words.update(wording(entries, workspace_id))
        except Exception:  # a page of the trail is never lost to one area's wording
            logger.warning("audit: the %s area could not word its entries", area.name, exc_info=True)
    for entry in entries:
        # A write whose summary someone wrote on purpose keeps it; the method and path's own are replaced.
        worded = entry.kind != AuditEntry.KIND_WRITE or entry.summary in ("", summary_of(entry.method, entry.path))
        entry.words = (words.get(entry.pk) if worded else None) or entry.summary  # type: ignore[attr-defined]
        entry.outcome = outcome_words(entry)  # type: ignore[attr-defined]
    return entries
