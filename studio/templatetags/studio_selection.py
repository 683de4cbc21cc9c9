"""`{% library_selection %}`: the library's selection as a count with
"Clear" (studio/selection.py), in the library's tabs on every library page.
Shown only under a working key, for that key's workspace."""

from __future__ import annotations

from typing import Any

from django import template

from studio.selection import selection_ids

register = template.Library()


@register.inclusion_tag("studio/library_selection.html#selection-count", takes_context=True)
def library_selection(context: Any) -> dict[str, Any]:
    request = context.get("request")
    workspace = getattr(request, "workspace", None)
    workspace_id = workspace.working_id if workspace is not None else ""
    ids = selection_ids(session=request.session, workspace_id=workspace_id) if workspace_id else []
    return {"selection": ids, "request": request, "back": request.get_full_path() if request is not None else ""}
