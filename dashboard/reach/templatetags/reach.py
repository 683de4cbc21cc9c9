"""{% claim_control item_key %}: who is on an item ("I'm on it", an
assignment) and the buttons to claim, release or assign it, for a row any
area shows (the approvals queue, the inbox). The people to assign to are
read once per page (kept in the render context)."""

from __future__ import annotations

import hashlib

from django import template

from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.reach import selectors

register = template.Library()


@register.inclusion_tag("reach/_claim.html", takes_context=True)
def claim_control(context, item_key: str, back: str = "") -> dict:
    # `back`: where the buttons come back to, when the page shown is not this request's (a pane swapped in by htmx).
    request = context.get("request")
    workspace = getattr(request, "workspace", None)
    workspace_id = getattr(workspace, "working_id", "") if workspace is not None else ""
    if not workspace_id:
        return {"claim": None, "may_claim": False}
    user = request.user
    may_claim = bool(getattr(workspace, "can_write", False)) and user.has_perm(DECIDE_APPROVALS)
    people = context.render_context.get("reach_people")
    if people is None and may_claim:
        people = [person for person in selectors.people_to_assign(workspace_id=workspace_id) if person.pk != user.pk]
        context.render_context["reach_people"] = people
    return {
        "claim": selectors.claim_of(workspace_id=workspace_id, item_key=item_key),
        "item_key": item_key,
        "anchor": hashlib.blake2s(item_key.encode(), digest_size=6).hexdigest(),
        "may_claim": may_claim,
        "people": people or [],
        "user_id": user.pk,
        "next": back or request.get_full_path(),
        "csrf_token": context.get("csrf_token"),
    }
