"""What a notification says: its links (from the console's configured base
address), an email's text, each kind of chat webhook's body. No sending here
(dashboard/reach/sending.py sends)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from dashboard.reach.models import ChatWebhook, Delivery


def console_link(path: str) -> str:
    base = settings.CONSOLE_BASE_URL or "http://localhost:8000"
    return f"{base}{path}"


def item_lines(rows: list[Delivery]) -> list[str]:
    return [
        f"- {row.title}{f' (for {row.on_behalf_of}, who is away)' if row.on_behalf_of else ''}"
        + (f"\n  {row.detail}" if row.detail else "")
        + f"\n  {console_link(row.path)}"
        for row in rows
    ]


def email_text(rows: list[Delivery]) -> tuple[str, str]:
    """(subject, body) of one email for these rows (a digest when more than one)."""
    subject = rows[0].title if len(rows) == 1 else f"{len(rows)} things in Workspace Console"
    body = (
        "\n".join(item_lines(rows))
        + "\n\nEach link opens the item in the console after you sign in; nothing is decided from this email.\n"
        + "Change what you receive: "
        + console_link("/notifications/")
        + "\n"
    )
    return subject[:200], body


def webhook_body(hook: ChatWebhook, rows: list[Delivery]) -> dict[str, Any]:
    """What each kind of chat webhook is sent: Slack and Teams a text, generic JSON the items."""
    if hook.kind == ChatWebhook.KIND_JSON:
        return {
            "notifications": [
                {
                    "kind": row.kind,
                    "title": row.title,
                    "detail": row.detail or None,
                    "url": console_link(row.path),
                    "workspace_id": row.workspace_id,
                    "item": row.item_key,
                    "on_behalf_of": row.on_behalf_of or None,
                }
                for row in rows
            ]
        }
    lines = [f"{row.title}{f' ({row.detail})' if row.detail else ''} — {console_link(row.path)}" for row in rows]
    if hook.kind == ChatWebhook.KIND_SLACK:
        return {
            "text": "\n".join(
                f"• <{console_link(row.path)}|{row.title}>" + (f" {row.detail}" if row.detail else "") for row in rows
            )
        }
    return {"text": "\n\n".join(lines)}  # Microsoft Teams' incoming webhook takes a text
