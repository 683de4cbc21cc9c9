"""The approvals queue as a manager scans it: a dense row per approval (agent,
summary, risk, time waited, run), the risk and age filters, the counts per
risk of what waits, and who decided a decided one. Pure, or the console's
database only: the page's one remote read is the service's list (views)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Max
from django.utils import timezone
from django.utils.translation import gettext_lazy

from agents.reading import RISKS, read_approval
from dashboard.api.paths import api_path
from dashboard.audit.models import AuditEntry
from dashboard.frame.home import waited_words as home_waited_words
from dashboard.inbox.models import WaitingItem
from dashboard.inbox.selectors import stored_items
from dashboard.inbox.sources import KIND_APPROVAL
from dashboard.web.reading import as_dict, text

# agents/inbox.py keeps the workspace's pending approvals under this source, the agents' names under this kind.
SOURCE = "agents"
NAMES_KIND = "agent-names"

RISK_CHOICES = [("", gettext_lazy("Any risk")), *((risk, risk.capitalize()) for risk in RISKS)]
AGE_CHOICES = [
    ("", gettext_lazy("Any age")),
    ("1h", gettext_lazy("Waiting over an hour")),
    ("1d", gettext_lazy("Waiting over a day")),
]
AGES = {"1h": timedelta(hours=1), "1d": timedelta(days=1)}


def waited_words(since: datetime | None, now: datetime | None = None) -> str:
    """ "waiting 2 h", "waiting 5 min", "waiting 3 days"; "" without a time."""
    if since is None:
        return ""
    return f"waiting {home_waited_words(since, now or timezone.now())}"


def matches(approval: dict[str, Any], *, risk: str, age: str, now: datetime | None = None) -> bool:
    """The page's own filters (the service filters by status and agent only)."""
    if risk and approval["risk"] != risk:
        return False
    if age:
        since = approval["requested_at"]
        if since is None or (now or timezone.now()) - since < AGES[age]:
            return False
    return True


def decided_by_service(item: Any) -> str:
    """Who decided, as the service may say it in an approval or a 409's
    details (not in the contract: read tolerantly, a name, an email or an
    object carrying one, alone or first of a list; "" otherwise)."""
    data = as_dict(item)
    for name in ("decided_by", "decider", "decided_by_member"):
        value = data.get(name)
        if isinstance(value, list):  # an error's details hold lists of words
            value = value[0] if value else None
        if isinstance(value, str | int) and text(value):
            return text(value)[:120]
        found = as_dict(value)
        for member in ("name", "display_name", "email", "username"):
            if text(found.get(member)):
                return text(found.get(member))[:120]
    return ""


def deciders(*, workspace_id: str, approval_ids: list[str]) -> dict[str, str]:
    """Approval id -> the console person whose decision the service accepted,
    or "the console" where it decided itself (a deadline's outcome: an entry
    with no person; a deleted person's entries keep their name). The audit
    trail: one query for the page."""
    paths = {api_path("/v1/approvals/{}", approval_id): approval_id for approval_id in approval_ids if approval_id}
    if not paths:
        return {}
    rows = (
        AuditEntry.objects.filter(workspace_id=workspace_id, path__in=list(paths), status__gte=200, status__lt=300)
        .order_by("id")
        .values_list("path", "username")
    )
    return {paths[path]: username or "the console" for path, username in rows}


def pending_stored(*, workspace_id: str) -> list[tuple[int, dict[str, Any]]]:
    """The workspace's pending approvals as the last refresh stored them:
    (row id, approval read), oldest first. The database only."""
    kept = []
    for row in stored_items(workspace_id=workspace_id, source=SOURCE):
        if row.kind != KIND_APPROVAL:
            continue
        data = as_dict(row.data)
        approval = read_approval(as_dict(data.get("approval")))
        if approval["id"] and approval["status"] == "pending":
            approval["agent_name"] = text(data.get("agent_name")) or approval["agent_name"]
            approval["requested_at"] = approval["requested_at"] or row.since
            kept.append((row.pk, approval))
    return kept


def matching_pending(*, workspace_id: str, agent: str, risk: str, age: str) -> list[dict[str, Any]]:
    """The workspace's pending approvals, as the console keeps them, that
    match the queue's filters: what "all matching this filter" decides,
    read again when the batch starts (never the page's list). Oldest first."""
    return [
        approval
        for _, approval in pending_stored(workspace_id=workspace_id)
        if (not agent or approval["agent_id"] == agent) and matches(approval, risk=risk, age=age)
    ]


def risk_counts(approvals: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(risk, how many) of the pending ones, in the contract's order, then any other word."""
    counts = Counter(approval["risk"] or "other" for approval in approvals)
    known = [(risk, counts.pop(risk)) for risk in RISKS if risk in counts]
    return known + sorted(counts.items())


def pending_version(*, workspace_id: str) -> str:
    """What the open pending queue's poll compares: how many pending
    approvals the console keeps for the workspace and the newest row (a new
    approval is a new row; a decided one leaves). One query."""
    found = WaitingItem.objects.filter(workspace_id=workspace_id, source=SOURCE, kind=KIND_APPROVAL).aggregate(
        count=Count("id"), newest=Max("id")
    )
    return f"{found['count']}-{found['newest'] or 0}"


def stored_agent_names(*, workspace_id: str) -> dict[str, str]:
    """Agent id -> name, as the last refresh read them (the database only)."""
    row = WaitingItem.objects.filter(workspace_id=workspace_id, source=SOURCE, kind=NAMES_KIND).first()
    names = as_dict(as_dict(row.data).get("names")) if row is not None else {}
    return {text(agent_id): text(name) for agent_id, name in names.items()}
