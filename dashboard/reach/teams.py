"""Microsoft Teams: notifications as an Adaptive Card in the shape the
Workflows webhooks take (the Office 365 connectors that took `{"text"}` are
retired; a Workflows flow accepts any POST and then fails without an
`attachments` array of cards, so the channel stayed empty while the log said
"sent"): `{"type": "message", "attachments": [{"contentType":
"application/vnd.microsoft.card.adaptive", "content": <card>}]}`.

Adaptive Card 1.4 (what Teams renders), each approval with its input and
Approve / Reject buttons (`Action.OpenUrl`) opening the console's
confirmation page for the recipient's decision token: Teams' own
`Action.Submit` needs a bot, which a webhook is not."""

from __future__ import annotations

from typing import Any

from dashboard.reach.decision_tokens import ApprovalPreview, decision_path
from dashboard.reach.models import Delivery

CARD_TYPE = "application/vnd.microsoft.card.adaptive"
CARD_VERSION = "1.4"
INPUT_SHOWN = 2000


def _approval_parts(preview: ApprovalPreview, secret: str, *, link) -> list[dict[str, Any]]:
    facts = [{"title": "Risk", "value": preview.risk or "not given"}]
    if preview.agent_name:
        facts.insert(0, {"title": "Agent", "value": preview.agent_name})
    parts: list[dict[str, Any]] = [{"type": "FactSet", "facts": facts}]
    if preview.input_text:
        shown = preview.input_text[:INPUT_SHOWN]
        if len(preview.input_text) > INPUT_SHOWN:
            shown += "\n… (the whole input is on the confirmation page)"
        parts.append({"type": "TextBlock", "text": shown, "wrap": True, "fontType": "Monospace", "size": "Small"})
    parts.append(
        {
            "type": "ActionSet",
            "actions": [
                {"type": "Action.OpenUrl", "title": "Approve…", "url": link(decision_path(secret, "approve"))},
                {"type": "Action.OpenUrl", "title": "Reject…", "url": link(decision_path(secret, "reject"))},
            ],
        }
    )
    return parts


def teams_card(rows: list[Delivery], *, link, decisions: dict[int, tuple[ApprovalPreview, str]]) -> dict[str, Any]:
    """The Adaptive Card of these rows (`decisions`: row id -> the approval and its token)."""
    heading = rows[0].title if len(rows) == 1 else f"{len(rows)} things in Workspace Console"
    body: list[dict[str, Any]] = [
        {"type": "TextBlock", "text": heading, "weight": "Bolder", "size": "Medium", "wrap": True}
    ]
    for row in rows:
        away = f" (for {row.on_behalf_of}, who is away)" if row.on_behalf_of else ""
        container: list[dict[str, Any]] = [
            {"type": "TextBlock", "text": f"[{row.title}]({link(row.path)}){away}", "wrap": True}
        ]
        if row.detail and row.pk not in decisions:  # an approval's whole input is shown below instead
            container.append({"type": "TextBlock", "text": row.detail, "wrap": True, "isSubtle": True})
        if row.pk in decisions:
            preview, secret = decisions[row.pk]
            container += _approval_parts(preview, secret, link=link)
        body.append({"type": "Container", "separator": True, "items": container})
    return {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": CARD_VERSION,
        "body": body,
        "actions": [{"type": "Action.OpenUrl", "title": "Open the console", "url": link("/inbox/")}],
    }


def teams_message(rows: list[Delivery], *, link, decisions: dict[int, tuple[ApprovalPreview, str]]) -> dict[str, Any]:
    """The body a Teams Workflows webhook is posted."""
    card = teams_card(rows, link=link, decisions=decisions)
    return {"type": "message", "attachments": [{"contentType": CARD_TYPE, "contentUrl": None, "content": card}]}
