"""The approvals queue: list, decide (with its permission, confirmation,
note and audit), and the decided row re-read. The run page decides through
the same view and form (`approval_decide`), and so does the inbox."""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents import decisions, queue, selectors
from agents.bulk_decisions import MAX_BATCH, MAX_MATCHING
from agents.forms import APPROVAL_STATUSES, ApprovalBatchForm, ApprovalDecisionForm, uuid_or_empty
from agents.pages import DECIDE_PERMISSION, NOT_AN_APPROVER, READ_ONLY, approval_row, decide_refusal, decision_ids
from agents.reading import read_agent_summary, read_approval
from agents.tell_apart import tell_apart
from dashboard.accounts.middleware import background_request
from dashboard.api import ServiceClient, errors
from dashboard.audit.selectors import always_allow_grants
from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.remote_errors import render_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.inbox.services import workspace_watched
from dashboard.reach.selectors import claims_of
from dashboard.web.htmx import is_partial, next_url, poll_unchanged, render_region, send_to, trigger_client_event
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.reading import text

# --- approvals queue ------------------------------------------------------------------


def _agent_names(client: ServiceClient) -> dict[str, str]:
    """Agent id -> name for the filter and the rows (one page of up to 100 agents)."""
    page = selectors.agent_list(client=client, status=None, cursor=None, limit=100)
    return {summary["id"]: summary["name"] for summary in map(read_agent_summary, page.items)}


def _queue_filters(query) -> dict[str, str]:
    """The queue's filters from the query, each falling back to "any"."""
    return {
        "status": choice(query.get("status"), APPROVAL_STATUSES, "pending"),
        "agent": uuid_or_empty(query.get("agent")),
        "risk": choice(query.get("risk"), queue.RISK_CHOICES, ""),
        "age": choice(query.get("age"), queue.AGE_CHOICES, ""),
    }


def _pending_counts(
    workspace_id: str, shown: list[dict[str, Any]], filters: dict[str, str]
) -> tuple[list[tuple[str, int]], int]:
    """Counts per risk of what waits: the console's kept pending approvals
    (every page of them) with the pending ones this page read (newer than
    the last refresh, perhaps); and how many of them match the filters
    ("All N matching this filter"). One read of the kept rows."""
    pending = {approval["id"]: approval for _, approval in queue.pending_stored(workspace_id=workspace_id)}
    pending.update((approval["id"], approval) for approval in shown if approval["status"] == "pending")
    matching = sum(
        1
        for approval in pending.values()
        if (not filters["agent"] or approval["agent_id"] == filters["agent"])
        and queue.matches(approval, risk=filters["risk"], age=filters["age"])
    )
    return queue.risk_counts(list(pending.values())), matching


def _poll_query(filters: dict[str, str], *, version: str, shown: list[str]) -> str:
    """The open pending queue's poll (`agents:approvals_news`): its filters, the version it shows and the ids on it."""
    query = {name: value for name, value in filters.items() if value and name != "status"}
    return urlencode({**query, "v": version, "shown": ",".join(shown)})


@require_GET
def approvals(request: ConsoleRequest) -> HttpResponse:
    filters = _queue_filters(request.GET)
    status, agent_id = filters["status"], filters["agent"]
    client = request.workspace.client
    pager = CursorPager.from_query(request.GET)
    mine = request.GET.get("mine") == "1"
    # The risk, age and "assigned to me" filters are the page's own: they look through a full page of the service's.
    limit = 100 if filters["risk"] or filters["age"] or mine else selectors.PAGE_SIZE
    page = selectors.approval_list(
        client=client, status=status, agent_id=agent_id, cursor=pager.remote_cursor, limit=limit
    )
    agent_names = _agent_names(client)
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    approvals_read = [read_approval(item) for item in page.items]
    approvals_read = [a for a in approvals_read if queue.matches(a, risk=filters["risk"], age=filters["age"])]
    # Who is on each line (one query for the page).
    claims = claims_of(workspace_id=request.workspace.id, item_keys=[f"approval:{a['id']}" for a in approvals_read])
    if mine:
        approvals_read = [
            a
            for a in approvals_read
            if (claim := claims.get(f"approval:{a['id']}")) and claim.user_id == request.user.pk
        ]
    decided = queue.deciders(workspace_id=request.workspace.id, approval_ids=[a["id"] for a in approvals_read])
    apart = tell_apart(approvals_read)
    rows = [
        {
            **approval_row(
                approval, agent_names=agent_names, may_decide=not refusal, decided_by=decided.get(approval["id"], "")
            ),
            "claim": claims.get(f"approval:{approval['id']}"),
            "tell_apart": apart.get(approval["id"], ""),
        }
        for approval in approvals_read
    ]
    wanted = uuid_or_empty(request.GET.get("approval"))
    selected = next((row for row in rows if row["approval"]["id"] == wanted), rows[0] if rows else None)
    kept = {"status": status, "agent": agent_id, "risk": filters["risk"], "age": filters["age"]}
    counts, matching = _pending_counts(request.workspace.id, approvals_read, filters)
    if mine:
        kept["mine"] = "1"
    context = {
        "mine": mine,
        "status": status,
        "agent_id": agent_id,
        "risk": filters["risk"],
        "age": filters["age"],
        "risk_choices": queue.RISK_CHOICES,
        "age_choices": queue.AGE_CHOICES,
        "agent_choices": sorted(agent_names.items(), key=lambda pair: pair[1].lower()),
        "tabs": tabs(APPROVAL_STATUSES, status, {k: v for k, v in kept.items() if k != "status"}),
        "rows": rows,
        "selected": selected,
        "selected_id": selected["approval"]["id"] if selected else "",
        "claim_back": _selected_address(request, selected["approval"]["id"]) if selected else "",
        "counts": counts,
        "paging": pager.links(kept, page.next_cursor),
        "workspace_zone": request.workspace.zone,
        "next": request.get_full_path(),
        "decide_refusal": refusal,
        "grants": always_allow_grants(workspace_id=request.workspace.id),
        "bulk_possible": any(row["bulk"] for row in rows),
        "bulk_form": ApprovalBatchForm(),
        "bulk_max": MAX_BATCH,
        # "All N matching this filter" (the pending queue, not "assigned to me": claims are not a kept filter).
        "matching_count": matching if status == "pending" and not mine and not refusal else 0,
        "matching_max": MAX_MATCHING,
    }
    if status == "pending" and not pager.remote_cursor and not mine:
        # The first page of the pending queue takes in what the console learns (the database only);
        # "assigned to me" does not: a new approval is nobody's yet.
        context["poll_query"] = _poll_query(
            filters,
            version=queue.pending_version(workspace_id=request.workspace.id),
            shown=[row["approval"]["id"] for row in rows],
        )
        context["poll_seconds"] = QUEUE_POLL_SECONDS
    return render_region(request, "agents/approvals.html", "approval_list", context)


# How often an open pending queue asks the console (never the service) whether anything is new.
QUEUE_POLL_SECONDS = 2
MAX_SHOWN = 200


@background_request
@never_cache
@require_GET
def approvals_news(request: ConsoleRequest) -> HttpResponse:
    """The open pending queue's poll: the console's database only. 204 while
    the workspace's stored pending approvals are unchanged; otherwise the
    new ones (not on the page yet, matching its filters) appended to the list
    out of band, the counts, and the poll again with the new version. Rows
    already shown are not touched: focus and a typed note stay."""
    workspace_id = request.workspace.id
    workspace_watched(workspace_id)  # the queue is open: its approvals are read every few seconds meanwhile
    version = queue.pending_version(workspace_id=workspace_id)
    unchanged = poll_unchanged(request, lambda: version)
    if unchanged is not None:
        return unchanged
    filters = _queue_filters(request.GET)
    shown = [part for part in (request.GET.get("shown") or "")[: 40 * MAX_SHOWN].split(",") if part][:MAX_SHOWN]
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    stored = [approval for _, approval in queue.pending_stored(workspace_id=workspace_id)]
    new = [
        approval
        for approval in stored
        if approval["id"] not in shown
        and (not filters["agent"] or approval["agent_id"] == filters["agent"])
        and queue.matches(approval, risk=filters["risk"], age=filters["age"])
    ]
    apart = tell_apart([*stored])
    rows = [
        {**approval_row(approval, agent_names={}, may_decide=not refusal), "tell_apart": apart.get(approval["id"], "")}
        for approval in new
    ]
    context = {
        "rows": rows,
        "counts": queue.risk_counts(stored),
        "poll_query": _poll_query(filters, version=version, shown=[*shown, *(a["id"] for a in new)]),
        "poll_seconds": QUEUE_POLL_SECONDS,
        "workspace_zone": request.workspace.zone,
        "oob": True,
    }
    response = render(request, "agents/approvals_news.html", context)
    if new:
        # The header's count follows at once rather than on its own interval (templates/inbox/header.html).
        trigger_client_event(response, "inbox-changed")
    return response


@require_GET
def approval_detail(request: ConsoleRequest, approval_id: str) -> HttpResponse:
    """One approval with its decision form: the queue's detail pane (htmx),
    or its own page (narrow screens, no JavaScript). One read of the
    service's list (pending first, then every status)."""
    client = request.workspace.client
    current = selectors.approval_to_decide(client=client, approval_id=str(approval_id))
    if current is None:
        raise Http404("The service lists no such approval.")
    approval = read_approval(current)
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    names = queue.stored_agent_names(workspace_id=request.workspace.id)
    if approval["agent_id"] and not (approval["agent_name"] or names.get(approval["agent_id"])):
        # Not named by the approval nor kept by a refresh yet: the agents' list (one more read).
        with contextlib.suppress(errors.ApiError):
            names = _agent_names(client)
    decided = queue.deciders(workspace_id=request.workspace.id, approval_ids=[approval["id"]])
    row = approval_row(approval, agent_names=names, may_decide=not refusal, decided_by=decided.get(approval["id"], ""))
    context = {
        "row": row,
        "decide_refusal": refusal,
        "workspace_zone": request.workspace.zone,
        "next": reverse("agents:approvals"),
        # The pane swapped into the queue: its claim buttons come back to the queue, not to this address.
        "claim_back": _card_address(request, str(approval_id)) if is_partial(request) else "",
    }
    return render_region(request, "agents/approval.html", "detail", context)


def _selected_address(request: ConsoleRequest, approval_id: str) -> str:
    """This queue page, as filtered, with the approval selected: where the
    detail's claim buttons come back to."""
    return f"{reverse('agents:approvals')}?{urlencode({**request.GET.dict(), 'approval': approval_id})}"


def _card_address(request: ConsoleRequest, approval_id: str) -> str:
    """The page an approval's card is shown on (htmx's HX-Current-URL): the
    queue as filtered, with this approval selected, or the approval's own page."""
    shown = urlsplit(request.headers.get("HX-Current-URL", ""))
    queue_url = reverse("agents:approvals")
    if shown.path != queue_url:
        return reverse("agents:approval", args=[approval_id])
    query = dict(parse_qsl(shown.query))
    query["approval"] = approval_id
    return f"{queue_url}?{urlencode(query)}"


@require_POST
@requires_write(READ_ONLY)
@requires_permission(DECIDE_PERMISSION, NOT_AN_APPROVER)
def approval_decide(request: ConsoleRequest, approval_id: str) -> HttpResponseBase:
    """Decide one approval (agents/decisions.py: the risk read first, the
    call, a 409 in words, the re-read, the audit line). The row comes back in
    place with its new state and the resumed run's outcome; on the queue its
    line and the counts follow in the same answer. The approvals page (its
    keys press the card's buttons), the run page and the inbox all post here."""
    form = ApprovalDecisionForm(request.POST, auto_id=decision_ids(str(approval_id)))
    if not form.is_valid() and set(form.errors) == {"note"}:
        # A note over its limit (refused before sending when the script ran): nothing is sent,
        # the row comes back with the note as typed and the refusal under it, in words.
        return _note_refused(request, str(approval_id), form)
    if not form.is_valid():
        # A stale or changed page: nothing is sent.
        problem = " ".join(str(message) for message in form.non_field_errors()) or (
            "This decision could not be read; reload the page and decide again."
        )
        return _row_problem(request, approval_id, problem)
    data = form.cleaned_data
    asked = decisions.DecisionAsked(
        approval_id=str(approval_id),
        decision=data["decision"],
        idempotency_key=data["idempotency_key"],
        always=data["always"],
        confirmed=data["confirmed"],
        note=data["note"],
        agent_id=str(data["agent_id"] or ""),
        agent_name=request.POST.get("agent_name", "")[:200],
        session=request.session,
        step_up_code=data["step_up_code"],
    )
    try:
        decided = decisions.approval_decision(
            key=request.workspace.require_key(), client=request.workspace.client, asked=asked
        )
    except errors.ApiError as exc:
        if not is_partial(request):
            raise
        return render_approval_error(request, exc, approval_id=str(approval_id))
    if decided.outcome in (decisions.NEEDS_STEP_UP, decisions.NO_SECOND_FACTOR, decisions.NEEDS_PASSKEY):
        return _step_up_asked(request, asked, decided, form)
    return _render_decision(request, asked, decided)


def _step_up_asked(
    request: ConsoleRequest, asked: decisions.DecisionAsked, decided: decisions.DecisionOutcome, form
) -> HttpResponseBase:
    """A destructive or spend approve that needs a fresh second factor: the
    code field in the card's own form (htmx: that slot only, the note and
    the rest as typed), or the set-up link for a person who has none."""
    step_up = {
        "approval_id": asked.approval_id,
        "words": decided.words,
        "set_up": decided.outcome == decisions.NO_SECOND_FACTOR,
        "passkey": decided.outcome == decisions.NEEDS_PASSKEY,
        "button": form.cleaned_data["button"],
    }
    if is_partial(request):
        response = render(request, "agents/approvals.html#step_up_field", step_up)
        return send_to(response, f"#approval-{asked.approval_id}-step-up")
    # Without JavaScript: the card again on a page of its own, the form bound (note and keys as posted).
    try:
        current = selectors.approval_to_decide(
            client=request.workspace.client, approval_id=asked.approval_id, agent_id=asked.agent_id or None
        )
    except errors.ApiError:
        current = None
    if current is None:
        messages.error(request, decided.words)
        return redirect(next_url(request, reverse("agents:approvals")))
    row = approval_row(read_approval(current), agent_names=_posted_name(request), may_decide=True, form=form)
    row["step_up"] = step_up
    return render(
        request,
        "agents/approval_decide.html",
        {"row": row, "workspace_zone": request.workspace.zone, "next": next_url(request, reverse("agents:approvals"))},
    )


def _render_decision(
    request: ConsoleRequest, asked: decisions.DecisionAsked, decided: decisions.DecisionOutcome
) -> HttpResponseBase:
    if decided.outcome in (decisions.GONE, decisions.NEEDS_CONFIRMATION, decisions.REFUSED):
        return _row_problem(request, asked.approval_id, decided.words)
    if decided.outcome == decisions.WAITING:
        # Counted, nothing sent: the card again, saying where the quorum stands.
        if not is_partial(request) or decided.approval is None:
            return _row_problem(request, asked.approval_id, decided.words, level="info")
        row = approval_row(decided.approval, agent_names=_posted_name(request), may_decide=True, notice=decided.words)
        return render(
            request,
            "agents/approvals.html#approval_row",
            {
                "row": row,
                "workspace_zone": request.workspace.zone,
                "next": next_url(request, reverse("agents:approvals")),
            },
        )
    if decided.outcome == decisions.ALREADY and decided.approval is None and decided.conflict is None:
        return _row_problem(request, asked.approval_id, f"{decided.words}: your decision was not sent.", level="info")
    if decided.outcome == decisions.ALREADY:
        notice = f"{decided.words}: your decision was not sent."
        if not is_partial(request):
            messages.info(request, notice)
            return redirect(next_url(request, reverse("agents:approvals")))
        if decided.approval is None and decided.conflict is not None:
            return render_approval_error(request, decided.conflict)
        if decided.conflict is not None and decided.conflict.request_id:
            notice = f"{notice} (request id {decided.conflict.request_id})"
        row = approval_row(decided.approval or {}, agent_names=_posted_name(request), may_decide=True, notice=notice)
        return _render_row(request, row)
    approval = decided.approval or {}
    if not is_partial(request):
        messages.success(request, f"{decided.decided.capitalize()}: {approval['summary']}")
        return redirect(next_url(request, reverse("agents:approvals")))
    row = approval_row(
        approval,
        agent_names=_posted_name(request),
        may_decide=True,
        outcome=decided.run,
        decided_by=request.user.get_username(),
        notice=decided.tally,  # under a rule: "Approved by Dana and Sam, 2 of 2"
    )
    return _render_row(request, row)


def _row_problem(request: ConsoleRequest, approval_id: str, problem: str, level: str = "error") -> HttpResponseBase:
    """A decision that was not sent: the reason in the row's message region
    (`level` "info": counted, or decided by others, rather than refused)."""
    if is_partial(request):
        response = render(request, "agents/approvals.html#decision_problem", {"problem": problem, "level": level})
        return send_to(response, f"#approval-{approval_id}-messages")
    (messages.info if level == "info" else messages.error)(request, problem)
    return redirect(next_url(request, reverse("agents:approvals")))


def _note_refused(request: ConsoleRequest, approval_id: str, form: ApprovalDecisionForm) -> HttpResponseBase:
    """The approval's row again with the bound form: in place for htmx, else
    on a page of its own (the approvals list would lose what was typed)."""
    agent_id = text(request.POST.get("agent_id")) or None
    try:
        current = selectors.approval_to_decide(
            client=request.workspace.client, approval_id=approval_id, agent_id=agent_id
        )
    except errors.ApiError as exc:
        if not is_partial(request):
            raise
        return render_approval_error(request, exc, approval_id=approval_id)
    approval = read_approval(current) if current is not None else None
    if approval is None or approval["status"] != "pending":
        return _row_problem(request, approval_id, "This approval is no longer waiting for a decision; reload the page.")
    row = approval_row(approval, agent_names=_posted_name(request), may_decide=True, form=form)
    if is_partial(request):
        return _render_row(request, row)
    return render(
        request,
        "agents/approval_decide.html",
        {"row": row, "workspace_zone": request.workspace.zone, "next": next_url(request, reverse("agents:approvals"))},
    )


def _posted_name(request: ConsoleRequest) -> dict[str, str]:
    """The agent's name as the row showed it (display only; the spec's approval has no name)."""
    agent_id, name = request.POST.get("agent_id", ""), request.POST.get("agent_name", "")
    return {agent_id: name[:200]} if agent_id and name else {}


def _render_row(request: ConsoleRequest, row: dict) -> HttpResponse:
    """The decided card; on the queue, its line in the list and the counts
    per risk too (out of band: decided, by whom; what still waits). The
    header's count follows at once (its event), wherever the card was."""
    queue_url = reverse("agents:approvals")
    on_queue = urlsplit(request.headers.get("HX-Current-URL", "")).path == queue_url
    context = {
        "row": row,
        "on_queue": on_queue,
        "workspace_zone": request.workspace.zone,
        "next": next_url(request, queue_url),
    }
    if on_queue:
        # The write settled the approval's kept row (dashboard/inbox/services.py): what waits now.
        stored = [approval for _, approval in queue.pending_stored(workspace_id=request.workspace.id)]
        context["counts"] = queue.risk_counts([a for a in stored if a["id"] != row["approval"]["id"]])
    response = render(request, "agents/approval_decided.html", context)
    trigger_client_event(response, "inbox-changed")
    return response


def render_approval_error(
    request: ConsoleRequest, exc: errors.ApiError, approval_id: str | None = None
) -> HttpResponse:
    """The message box in the row's own message region; the row and its
    buttons (with their keys, so a retry is the same decision) stay as they are."""
    target = f"#approval-{approval_id}-messages" if approval_id else "#messages"
    return render_remote_error(request, exc, target=target)
