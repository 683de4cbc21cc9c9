"""Delivering an event to an endpoint (the task `events.deliver`): one worker
leases the due row, signs the event's stored body (dashboard/signed_calls.py:
the Standard Webhooks headers, the event id as `webhook-id` on every try) and
POSTs it once, with EVENTS_TIMEOUT. A 2xx is delivered; any other answer, a
timeout or no connection is a failure: `next_try_at` moves by
EVENTS_RETRY_SECONDS[failures] and the beat's sweep (`events.deliver_due`)
sends it then; past the last step it gives up. Never a sleep; every call is
an Attempt row for the log. The secret and the address are never logged."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from dashboard.events.models import Attempt, Delivery
from dashboard.events.services import NOT_SENT_DISABLED
from dashboard.live.leases import lease_is_free, lease_take
from dashboard.signed_calls import CallProblem, post_signed, signed_headers

logger = logging.getLogger("dashboard.events")


def lease_seconds() -> float:
    # One call at most (no redirects followed), bounded by its timeout: no renewal needed.
    return float(settings.EVENTS_TIMEOUT) * 2 + 30


def retry_seconds(failures: int) -> float | None:
    """Seconds before the next try after `failures` in a row, or None: give up."""
    steps = list(settings.EVENTS_RETRY_SECONDS)
    return float(steps[failures - 1]) if 0 < failures <= len(steps) else None


def event_body(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent and signed (the same on every try)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def delivery_send(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one due delivery. Returns "delivered", "retry", "failed",
    "skipped" (its endpoint is disabled) or "nothing" (not due, sent, or held
    by another worker: a second message of the same delivery does nothing)."""
    now = now or timezone.now()
    due = Delivery.objects.filter(pk=delivery_id, status=Delivery.STATUS_PENDING, next_try_at__lte=now)
    token = lease_take(due, seconds=lease_seconds(), now=now)
    if token is None:
        return "nothing"
    delivery = Delivery.objects.select_related("endpoint", "event").get(pk=delivery_id)
    endpoint = delivery.endpoint
    held = Delivery.objects.filter(pk=delivery_id, lease_token=token)
    if not endpoint.enabled:
        held.update(status=Delivery.STATUS_FAILED, last_error=NOT_SENT_DISABLED, next_try_at=None, lease_token="")
        return "skipped"
    body = event_body(delivery.event.payload)
    headers = signed_headers(secret=endpoint.secret, message_id=delivery.event.event_id, body=body, now=now)
    headers["User-Agent"] = "Workspace-Console-Events/1"
    status: int | None = None
    try:
        answer = post_signed(
            endpoint.url,
            body=body,
            headers=headers,
            timeout=float(settings.EVENTS_TIMEOUT),
            allow_private=bool(settings.EVENTS_ALLOW_PRIVATE_ADDRESSES),
        )
        status = answer.status
        problem = "" if 200 <= status < 300 else f"The endpoint answered {status}."
    except CallProblem as exc:
        problem = str(exc)
    number = delivery.attempts + 1
    with transaction.atomic():
        Attempt.objects.create(delivery=delivery, number=number, at=now, status=status, error=problem[:300])
        common: dict[str, Any] = {"attempts": number, "last_status": status, "lease_until": None, "lease_token": ""}
        if not problem:
            held.update(status=Delivery.STATUS_SENT, sent_at=now, next_try_at=None, failures=0, last_error="", **common)
            return "delivered"
        failures = delivery.failures + 1
        wait = retry_seconds(failures)
        logger.info("events: delivery %s to endpoint %s failed: %s", delivery_id, endpoint.pk, problem)
        if wait is None:
            held.update(
                status=Delivery.STATUS_FAILED, failures=failures, next_try_at=None, last_error=problem, **common
            )
            return "failed"
        held.update(failures=failures, next_try_at=now + timedelta(seconds=wait), last_error=problem[:300], **common)
        return "retry"


def deliveries_due(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """Pending deliveries whose next try came and nobody holds (the sweep sends each)."""
    now = now or timezone.now()
    return list(
        Delivery.objects.filter(status=Delivery.STATUS_PENDING, next_try_at__lte=now)
        .filter(lease_is_free(now))
        .order_by("next_try_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
