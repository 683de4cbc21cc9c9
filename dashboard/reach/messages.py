"""What a notification says: its links (from the console's configured base
address), an email's text, each kind of chat webhook's body. No sending here
(dashboard/reach/sending.py sends)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext, ngettext

from dashboard.reach.decision_tokens import VIA_EMAIL, VIA_SLACK, VIA_TEAMS, decision_path, message_decisions
from dashboard.reach.models import ChatWebhook, Delivery
from dashboard.reach.slack import slack_message
from dashboard.reach.teams import teams_message


def console_link(path: str) -> str:
    base = settings.CONSOLE_BASE_URL or "http://localhost:8000"
    return f"{base}{path}"


def item_lines(rows: list[Delivery], decisions: dict | None = None) -> list[str]:
    lines = []
    for row in rows:
        line = (
            f"- {row.title}"
            + (gettext(" (for %(person)s, who is away)") % {"person": row.on_behalf_of} if row.on_behalf_of else "")
            + (f"\n  {row.detail}" if row.detail else "")
            + f"\n  {console_link(row.path)}"
        )
        if decisions and row.pk in decisions:
            secret = decisions[row.pk][1]
            line += (
                "\n  "
                + gettext("Approve: %(link)s") % {"link": console_link(decision_path(secret, "approve"))}
                + "\n  "
                + gettext("Reject: %(link)s") % {"link": console_link(decision_path(secret, "reject"))}
            )
        lines.append(line)
    return lines


def email_text(rows: list[Delivery]) -> tuple[str, str]:
    """(subject, body) of one email for these rows (a digest when more than
    one); an approval with its Approve / Reject links, made for this email's person.
    Its words in the active language: the sender overrides it with the recipient's."""
    subject = (
        rows[0].title
        if len(rows) == 1
        else ngettext("%(count)d thing in Workspace Console", "%(count)d things in Workspace Console", len(rows))
        % {"count": len(rows)}
    )
    decisions = message_decisions(rows, via=VIA_EMAIL)
    said = (
        gettext(
            "Approve and Reject open a page showing exactly what will run: you decide there, signed in as yourself, "
            "once; the link works for you only."
        )
        + "\n"
        if decisions
        else ""
    )
    body = (
        "\n".join(item_lines(rows, decisions))
        + "\n\n"
        + gettext("Each link opens the item in the console after you sign in.")
        + "\n"
        + said
        + gettext("Change what you receive: %(link)s") % {"link": console_link("/notifications/")}
        + "\n"
    )
    return subject[:200], body


def webhook_body(hook: ChatWebhook, rows: list[Delivery]) -> dict[str, Any]:
    """What each kind of chat webhook is sent: Slack Block Kit (dashboard/reach/slack.py), Teams an
    Adaptive Card (dashboard/reach/teams.py), each approval with its Approve / Reject made for the
    webhook's person; generic JSON the items."""
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
    if hook.kind == ChatWebhook.KIND_SLACK:
        return slack_message(rows, link=console_link, decisions=message_decisions(rows, via=VIA_SLACK))
    # Microsoft Teams' Workflows webhooks take Adaptive Cards in `attachments` (dashboard/reach/teams.py).
    return teams_message(rows, link=console_link, decisions=message_decisions(rows, via=VIA_TEAMS))
