"""Re-checked before sending: an approval decided or withdrawn between
producing a delivery and sending it (gone from the inbox's stored items,
`dashboard.inbox.models.WaitingItem`, which the deciding write removes at
once and every refresh replaces) is not announced; the row says why. A
digest loses its settled lines and sends the rest. One query per message."""

from __future__ import annotations

from dashboard.inbox.models import WaitingItem
from dashboard.reach.models import Delivery

NOT_SENT_DECIDED = "Not sent: already decided"
NOT_SENT_PAUSED = "Not sent: the webhook is paused"
# What the inbox stores, by key prefix: an approval waits until decided.
STORED_PREFIXES = ("approval:",)
# Deliveries about another item: an escalation of it, an assignment of it ("assigned:<time>:<key>").
ABOUT_PREFIXES = ("escalation:",)


def item_about(delivery: Delivery) -> str:
    """The inbox item a delivery announces ("" for news that settles nothing: one's own finished run)."""
    key = delivery.item_key
    for prefix in ABOUT_PREFIXES:
        key = key.removeprefix(prefix)
    if key.startswith("assigned:"):
        key = key.split(":", 2)[2] if key.count(":") >= 2 else ""
    return key if key.startswith(STORED_PREFIXES) else ""


def still_news(rows: list[Delivery]) -> tuple[list[Delivery], list[Delivery]]:
    """(rows still worth sending, rows whose item is settled)."""
    about = {row.pk: item_about(row) for row in rows}
    wanted = {(row.workspace_id, about[row.pk]) for row in rows if about[row.pk]}
    if not wanted:
        return rows, []
    open_now = set(
        WaitingItem.objects.filter(
            workspace_id__in={ws for ws, _ in wanted}, remote_id__in={key for _, key in wanted}
        ).values_list("workspace_id", "remote_id")
    )
    news = [row for row in rows if not about[row.pk] or (row.workspace_id, about[row.pk]) in open_now]
    settled = [row for row in rows if about[row.pk] and (row.workspace_id, about[row.pk]) not in open_now]
    return news, settled
