"""{% time_left approval %}: a pending approval's deadline as "2 h left" or
"Overdue by 20 min" (agents/deadlines.py). The workspace's overrides are
read once per page (kept in the render context)."""

from __future__ import annotations

from django import template

from agents.deadlines import approval_due_at, deadline_overrides
from agents.deadlines import time_left as left_until

register = template.Library()


@register.inclusion_tag("agents/_time_left.html", takes_context=True)
def time_left(context, approval: dict) -> dict:
    if not isinstance(approval, dict) or approval.get("status") != "pending":
        return {"left": None}
    request = context.get("request")
    workspace = getattr(request, "workspace", None)
    workspace_id = getattr(workspace, "working_id", "") if workspace is not None else ""
    overrides = context.render_context.get("approval_deadlines")
    if overrides is None:
        overrides = deadline_overrides(workspace_id=workspace_id) if workspace_id else {}
        context.render_context["approval_deadlines"] = overrides
    due = approval_due_at(
        requested_at=approval.get("requested_at"),
        agent_id=str(approval.get("agent_id") or ""),
        risk=str(approval.get("risk") or ""),
        overrides=overrides,
    )
    return {"left": left_until(due)}
