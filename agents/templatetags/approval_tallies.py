"""{% approval_tally approval %}: what an approval's card says of the
workspace's rule for it (agents/quorum.py): "1 of 2 approved: Dana; waiting
for one more", "Approved by Dana and Sam, 2 of 2", "Needs 2 approvals"."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from agents.quorum import card_words

register = template.Library()


@register.simple_tag(takes_context=True)
def approval_tally(context, approval: dict) -> str:
    if not isinstance(approval, dict) or not approval.get("id"):
        return ""
    workspace = getattr(context.get("request"), "workspace", None)
    workspace_id = getattr(workspace, "working_id", "") if workspace is not None else ""
    words = card_words(workspace_id=workspace_id, approval=approval) if workspace_id else ""
    return format_html('<p class="small approval__tally">{}</p>', words) if words else ""
