"""Delivering notifications (the task `reach.deliver`): one worker leases a
due row (and the person's other due rows of that channel: a digest is one
message), sends it by email (Django's mail backend), to a chat webhook or
by Web Push (dashboard/reach/push.py), and marks it sent; a failure is
retried later with backoff (the row's `due_at`, a task sent with a
countdown), never by sleeping. Everything due for a person on a channel is
one message; what was decided meanwhile is left out
(dashboard/reach/rechecking.py); a generic JSON webhook's call is signed,
and a webhook failing long enough is paused (dashboard/reach/webhooks.py). The inbox
refresh never waits on a delivery."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation

from dashboard.jobs.engine import lease_kept
from dashboard.live.leases import lease_is_free, lease_take
from dashboard.outbox.services import outbox_send
from dashboard.people.language import language_of_person
from dashboard.reach.messages import email_text, webhook_body
from dashboard.reach.models import ChatWebhook, Delivery
from dashboard.reach.producing import EMAIL, PUSH_PREFIX
from dashboard.reach.push import PushGone, PushProblem, deliver_push
from dashboard.reach.rechecking import NOT_SENT_DECIDED, NOT_SENT_PAUSED, still_news
from dashboard.reach.webhooks import webhook_failed, webhook_headers, webhook_succeeded
from dashboard.signed_calls import CallProblem, post_signed

logger = logging.getLogger("dashboard.reach")


class DeliveryProblem(Exception):
    """Why a delivery failed, in words (kept on the row)."""


def _send_email(rows: list[Delivery]) -> None:
    user = rows[0].user
    if user is None or not user.email:
        raise DeliveryProblem("The person has no email address.")
    # In the recipient's language, whoever's request (or no request: a worker) sends it.
    with translation.override(language_of_person(user)):
        subject, body = email_text(rows)
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email])


def _hook_of(rows: list[Delivery]) -> ChatWebhook | None:
    hook_id = rows[0].channel.removeprefix("webhook:")
    return ChatWebhook.objects.filter(pk=hook_id).select_related("owner").first() if hook_id.isdigit() else None


def _send_webhook(rows: list[Delivery], hook: ChatWebhook | None, now: datetime) -> None:
    if hook is None:
        raise DeliveryProblem("The webhook was removed.")
    # One id per message, the same on every try (a receiver refuses a replay by it).
    delivery_id = f"msg_reach_{min(row.pk for row in rows)}"
    payload = webhook_body(hook, rows)
    if hook.kind == ChatWebhook.KIND_JSON:
        payload["delivery_id"] = delivery_id  # the chat apps' shapes take nothing more
    body = json.dumps(payload).encode()
    headers = webhook_headers(hook=hook, delivery_id=delivery_id, body=body, now=now)
    try:
        answer = post_signed(hook.url, body=body, headers=headers, timeout=float(settings.REACH_WEBHOOK_TIMEOUT))
    except CallProblem as exc:
        problem = f"The webhook could not be reached ({exc.cause})."
        webhook_failed(hook=hook, problem=problem, workspace_id=rows[0].workspace_id, now=now)
        raise DeliveryProblem(problem) from exc
    if answer.status >= 300:
        problem = f"The webhook answered {answer.status}."
        webhook_failed(hook=hook, problem=problem, workspace_id=rows[0].workspace_id, now=now)
        raise DeliveryProblem(problem)
    webhook_succeeded(hook)


def _skip(rows: list[Delivery], reason: str) -> None:
    Delivery.objects.filter(pk__in=[row.pk for row in rows]).update(
        status=Delivery.STATUS_SKIPPED, last_error=reason[:300], lease_until=None, lease_token=""
    )


def _retry_seconds(attempts: int) -> float | None:
    """Seconds before try number `attempts + 1`, or None: give up."""
    steps = list(settings.REACH_RETRY_SECONDS)
    return float(steps[attempts - 1]) if attempts - 1 < len(steps) else None


def delivery_step(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one due delivery with the person's other due rows of the same
    channel: one message (a digest, or a burst), less what was decided meanwhile. One worker holds them (a lease); a second
    worker racing finds them taken, or sent, and does nothing. Returns what
    happened: "sent", "retry", "failed", "skipped" (no longer news, or the
    webhook is paused) or "nothing" (not due, or taken)."""
    now = now or timezone.now()
    first = Delivery.objects.filter(pk=delivery_id).first()
    if first is None or first.status != Delivery.STATUS_PENDING or first.due_at > now:
        return "nothing"
    # Everything of this person and channel that is due goes in one message
    # (a burst of approvals is one message listing them, not one per sweep).
    group = Delivery.objects.filter(
        recipient=first.recipient, channel=first.channel, status=Delivery.STATUS_PENDING, due_at__lte=now
    ).order_by("due_at", "id")[: int(settings.REACH_BATCH_LIMIT)]
    # The stepped jobs' short lease, renewed while the message is sent (dashboard/jobs):
    # a worker killed while sending lets the rows go within JOBS_LEASE_SECONDS.
    seconds = float(settings.JOBS_LEASE_SECONDS)
    token = lease_take(Delivery.objects.filter(Q(pk=first.pk) | Q(pk__in=group.values("pk"))), seconds=seconds, now=now)
    if token is None:
        return "nothing"
    rows = list(
        Delivery.objects.filter(lease_token=token, status=Delivery.STATUS_PENDING)
        .select_related("user")
        .order_by("due_at", "id")
    )
    if not rows:
        return "nothing"
    rows, settled = still_news(rows)
    if settled:
        _skip(settled, NOT_SENT_DECIDED)
    if not rows:
        return "skipped"
    hook = _hook_of(rows) if first.channel.startswith("webhook:") else None
    if hook is not None and hook.paused_at is not None:
        _skip(rows, NOT_SENT_PAUSED)  # a paused webhook is not called
        return "skipped"
    try:
        with lease_kept(Delivery.objects.filter(lease_token=token), token=token, seconds=seconds):
            if first.channel == EMAIL:
                _send_email(rows)
            elif first.channel.startswith(PUSH_PREFIX):
                deliver_push(rows)
            else:
                _send_webhook(rows, hook, now)
    except Exception as exc:
        words = isinstance(exc, DeliveryProblem | PushProblem)
        problem = str(exc) if words else f"Sending failed ({type(exc).__name__})."
        logger.warning("reach: delivery %s failed: %s", delivery_id, problem)
        return _failed(rows, token, problem, now, again=not isinstance(exc, PushGone))
    Delivery.objects.filter(lease_token=token).update(
        status=Delivery.STATUS_SENT, sent_at=now, lease_until=None, lease_token="", last_error=""
    )
    return "sent"


def _failed(rows: list[Delivery], token: str, problem: str, now: datetime, *, again: bool = True) -> str:
    attempts = max(row.attempts for row in rows) + 1
    wait = _retry_seconds(attempts) if again else None
    fields: dict[str, Any] = {"attempts": attempts, "last_error": problem[:300], "lease_until": None, "lease_token": ""}
    if wait is None:
        Delivery.objects.filter(lease_token=token).update(status=Delivery.STATUS_FAILED, **fields)
        return "failed"
    Delivery.objects.filter(lease_token=token).update(due_at=now + timedelta(seconds=wait), **fields)
    with transaction.atomic():
        outbox_send(task="reach.deliver", args=[rows[0].pk], countdown=wait)
    return "retry"


def deliveries_due(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """Pending rows whose time has come (one per recipient and channel: the
    step takes the rest of a digest with it)."""
    now = now or timezone.now()
    seen: set[tuple[str, str]] = set()
    due = []
    rows = (
        Delivery.objects.filter(status=Delivery.STATUS_PENDING, due_at__lte=now)
        .filter(lease_is_free(now))
        .order_by("due_at", "id")
        .values_list("pk", "recipient", "channel")[: limit * 5]
    )
    for pk, recipient, channel in rows:
        if (recipient, channel) not in seen:
            seen.add((recipient, channel))
            due.append(pk)
    return due[:limit]
