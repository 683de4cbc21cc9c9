from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.audit.feed import audit_record
from dashboard.audit.forms import AuditFilterForm
from dashboard.audit.selectors import (
    FEED_LIMIT_DEFAULT,
    FEED_LIMIT_MOST,
    BadFeedCursor,
    audit_choices,
    audit_entries_after,
    audit_entry_list,
    audit_entry_page,
)
from dashboard.audit.wording import entries_in_words
from dashboard.fair_use import costly_request
from dashboard.frame.permissions import requires_permission
from dashboard.people.roles import VIEW_AUDIT_TRAIL
from dashboard.web.csv import csv_lines, csv_response
from dashboard.web.htmx import render_region
from dashboard.web.pager import CursorPager
from dashboard.web.params import bounded_int

PAGE_SIZE = 50
# The console roles that read the trail: Auditor and Administrator (an
# Approver decides approvals but does not read the trail: issue #18's table).
WHO_MAY = (
    "Only Auditors and Administrators read the audit trail. Ask an administrator to make you an Auditor (People page)."
)


def _filters(request: HttpRequest) -> tuple[AuditFilterForm, str]:
    workspace_id = request.workspace.id  # type: ignore[attr-defined]
    people, areas = audit_choices(workspace_id=workspace_id)
    form = AuditFilterForm(request.GET or None, people=people, areas=areas)
    return form, workspace_id


@require_GET
@requires_permission(VIEW_AUDIT_TRAIL, WHO_MAY)
def index(request: HttpRequest) -> HttpResponse:
    form, workspace_id = _filters(request)
    filters = form.audit_filter()
    pager = CursorPager.from_query(request.GET)
    before = int(pager.cursor) if pager.cursor.isdigit() else None
    entries, next_before = audit_entry_page(
        workspace_id=workspace_id, filters=filters, before_id=before, limit=PAGE_SIZE
    )
    entries_in_words(entries, workspace_id=workspace_id)
    kept = [(name, str(value)) for name, value in request.GET.items() if name in form.fields and value]
    context = {
        "form": form,
        "entries": entries,
        "paging": pager.links(kept, str(next_before) if next_before else None),
        "export_query": "&".join(f"{name}={value}" for name, value in kept),
        "workspace_zone": request.workspace.zone,  # type: ignore[attr-defined]
    }
    return render_region(request, "audit/index.html", "entries", context)


@costly_request
@require_GET
@requires_permission(VIEW_AUDIT_TRAIL, WHO_MAY)
def export(request: HttpRequest) -> StreamingHttpResponse:
    form, workspace_id = _filters(request)
    entries = audit_entry_list(workspace_id=workspace_id, filters=form.audit_filter()).iterator(chunk_size=500)
    header = ["When (UTC)", "Person", "Key", "Area", "Kind", "Method", "Path", "Status", "Request id"]
    header += ["Idempotency-Key", "Summary", "Note", "About (account)"]
    rows = (
        [
            entry.created_at.isoformat(),
            entry.actor_shown,
            entry.key_label,
            entry.area,
            entry.get_kind_display(),
            entry.method,
            entry.path,
            entry.status if entry.status is not None else "no answer",
            entry.request_id,
            entry.idempotency_key,
            entry.summary,
            entry.note,
            entry.subject_name,
        ]
        for entry in entries
    )
    return csv_response(f"audit-{timezone.now().date().isoformat()}.csv", csv_lines(header, rows))


@require_GET
@requires_permission(VIEW_AUDIT_TRAIL, WHO_MAY)
def feed(request: HttpRequest) -> JsonResponse:
    """The trail oldest first as JSON, `after` an opaque cursor: keep the
    `next` of each answer and ask with it again; nothing is lost or repeated
    while new entries arrive (docs/operations.md, "The audit feed")."""
    workspace_id = request.workspace.id  # type: ignore[attr-defined]
    limit = bounded_int(request.GET.get("limit"), default=FEED_LIMIT_DEFAULT, lowest=1, highest=FEED_LIMIT_MOST)
    after = request.GET.get("after", "")
    try:
        entries, cursor = audit_entries_after(workspace_id=workspace_id, cursor=after, limit=limit)
    except BadFeedCursor:
        message = "This cursor was not made by this console: start again without `after`, or with a `next` it answered."
        return JsonResponse({"ok": False, "message": message}, status=400)
    entries_in_words(entries, workspace_id=workspace_id)
    return JsonResponse(
        {"entries": [audit_record(entry) for entry in entries], "next": cursor, "more": len(entries) == limit}
    )
