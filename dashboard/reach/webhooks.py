"""What a chat webhook carries beside its messages: the signature of a generic
JSON webhook (the Standard Webhooks scheme, signed by dashboard/signed_calls.py,
which workspace events share), what was
already open when it was added (never replayed to it), and its run of
failures: past `REACH_WEBHOOK_PAUSE_AFTER_SECONDS` of consecutive failures it
is paused (not called) and its owner told, until they resume it."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.keys.selectors import working_workspace_ids
from dashboard.outbox.services import outbox_send
from dashboard.reach.models import ChatWebhook, Delivery
from dashboard.signed_calls import signed_headers

KIND_WEBHOOK_PAUSED = "webhook_paused"


def webhook_headers(*, hook: ChatWebhook, delivery_id: str, body: bytes, now: datetime) -> dict[str, str]:
    """The headers of one call: a generic JSON webhook's are signed; the chat apps' take none."""
    secret = hook.secret if hook.kind == ChatWebhook.KIND_JSON else ""
    if secret:
        return signed_headers(secret=secret, message_id=delivery_id, body=body, now=now)
    return {"Content-Type": "application/json"}


def webhook_known_items(*, owner, workspace_id: str) -> list[str]:
    """What is open now for a new webhook's owner ("<workspace>|<item key>"):
    old news, which it never receives. A workspace's webhook hears only of
    escalations, each made once when it happens: nothing to remember."""
    if workspace_id or owner is None:
        return []
    from dashboard.reach.producing import own_work_news  # producing imports this module

    known = []
    for ws in sorted({row["workspace_id"] for row in working_workspace_ids(user=owner)}):
        known += [f"{ws}|{item.key}" for item in inbox_items(viewer=InboxViewer(user=owner, workspace_id=ws))]
        known += [f"{ws}|{key}" for key, *_ in own_work_news(owner, ws, None)]
    return known


def failure_phrase(problem: str) -> str:
    """ "The webhook answered 500." -> "answered 500": the pause line's words."""
    return problem.removeprefix("The webhook ").rstrip(".") or "failed"


def webhook_succeeded(hook: ChatWebhook) -> None:
    if hook.failing_since is not None:
        ChatWebhook.objects.filter(pk=hook.pk).update(failing_since=None, last_failure="")


def webhook_failed(*, hook: ChatWebhook, problem: str, workspace_id: str, now: datetime) -> bool:
    """Count one more failure; True when this one paused it (its owner is then
    told by email, and the notifications page says it)."""
    ChatWebhook.objects.filter(pk=hook.pk, failing_since__isnull=True).update(failing_since=now)
    ChatWebhook.objects.filter(pk=hook.pk).update(last_failure=failure_phrase(problem)[:300])
    since = hook.failing_since or now
    if (now - since).total_seconds() < float(settings.REACH_WEBHOOK_PAUSE_AFTER_SECONDS):
        return False
    with transaction.atomic():
        if not ChatWebhook.objects.filter(pk=hook.pk, paused_at__isnull=True).update(paused_at=now):
            return False  # paused already (another worker)
        owner = hook.owner
        if owner is not None and owner.email:
            Delivery.objects.bulk_create(
                [
                    Delivery(
                        user=owner,
                        recipient=f"user:{owner.pk}",
                        workspace_id=workspace_id,
                        item_key=f"webhook-paused:{hook.pk}:{int(now.timestamp())}",
                        channel="email",
                        kind=KIND_WEBHOOK_PAUSED,
                        title=(
                            f"Your webhook “{hook.label}” is paused: it {failure_phrase(problem)} "
                            f"since {since:%Y-%m-%d %H:%M} UTC"
                        )[:300],
                        path=reverse("reach:preferences"),
                        due_at=now,
                    )
                ],
                ignore_conflicts=True,
            )
            outbox_send(task="reach.deliver_due", args=[])
    return True


def webhook_resume(*, webhook: ChatWebhook) -> None:
    """Called again from the next delivery on (what is still open and not yet sent to it included)."""
    ChatWebhook.objects.filter(pk=webhook.pk).update(paused_at=None, failing_since=None, last_failure="")
