"""The writes of outbound events: an event emitted by the part of the console
that saw it happen (`event_emit`, stored in that write's transaction, its
deliveries' tasks through the outbox), the endpoints Administrators keep,
"Send again" and "Send a test". Sending is dashboard/events/sending.py."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from dashboard.events.models import Delivery, Endpoint, Event, EventType
from dashboard.keys.crypto import encrypt_secret
from dashboard.live.storable import storable
from dashboard.logging import holds_secret, redact
from dashboard.outbox.services import outbox_send
from dashboard.signed_calls import address_check, signing_secret_new

DELIVER_TASK = "events.deliver"  # dashboard/events/tasks.py
TEST_TYPE = "endpoint.test"


def event_id_new() -> str:
    return f"evt_{uuid.uuid4().hex}"


def _payload(*, event_id: str, type: str, workspace_id: str, data: dict[str, Any], now: datetime) -> dict[str, Any]:
    # What a receiver gets, whole: callers pass what happened, in ids and words, never a key; a key
    # pasted into something a person typed (a decision's note) is masked as the log lines mask it.
    kept = storable(data)
    text = json.dumps(kept)
    if holds_secret(text):
        kept = json.loads(redact(text))
    return {
        "id": event_id,
        "type": type,
        "workspace_id": workspace_id,
        "occurred_at": now.isoformat().replace("+00:00", "Z"),
        "data": kept,
    }


def _deliveries_send(event: Event, endpoint_ids: list[int], now: datetime) -> list[Delivery]:
    rows = Delivery.objects.bulk_create(
        [Delivery(endpoint_id=pk, event=event, next_try_at=now) for pk in endpoint_ids], ignore_conflicts=False
    )
    for row in rows:
        outbox_send(task=DELIVER_TASK, args=[row.pk], about=row)
    return rows


def console_link(path: str) -> str:
    """Where a receiver's person opens it in the console (the configured base address)."""
    return f"{settings.CONSOLE_BASE_URL}{path}"


def event_wanted(*, workspace_id: str, type: EventType | str) -> bool:
    """Whether an enabled endpoint of the workspace receives `type` (one query): an area
    emitting many at once (a refresh's new approvals) asks this first."""
    types = Endpoint.objects.filter(workspace_id=workspace_id, enabled=True).values_list("event_types", flat=True)
    return bool(workspace_id) and any(str(type) in (chosen or []) for chosen in types)


def event_emit(
    *, workspace_id: str, type: EventType | str, key: str, data: dict[str, Any], now: datetime | None = None
) -> Event | None:
    """Record that `type` happened in the workspace (`key`: which happening,
    so seeing it twice is one event) for each enabled endpoint that chose it,
    in the caller's transaction: the event, its deliveries and their tasks
    commit with what caused them, or not at all. Costs one query when no
    endpoint of the workspace wants it. Returns the event (None: nobody wants it)."""
    type = str(type)
    wanted = [
        pk
        for pk, types in Endpoint.objects.filter(workspace_id=workspace_id, enabled=True).values_list(
            "pk", "event_types"
        )
        if type in (types or [])
    ]
    if not workspace_id or not wanted:
        return None
    now = now or timezone.now()
    event_id = event_id_new()
    with transaction.atomic():
        event, made = Event.objects.get_or_create(
            workspace_id=workspace_id,
            key=key[:250],
            defaults={
                "event_id": event_id,
                "type": type,
                "payload": _payload(event_id=event_id, type=type, workspace_id=workspace_id, data=data, now=now),
            },
        )
        if made:
            _deliveries_send(event, wanted, now)
    return event


# --- endpoints (Administrators) -------------------------------------------------------------


def endpoint_address_check(url: str) -> str:
    """The address as it will be called, or AddressRefused in words: https
    (http only where EVENTS_ALLOW_HTTP), and public unless EVENTS_ALLOW_PRIVATE_ADDRESSES."""
    return address_check(
        url, allow_http=settings.EVENTS_ALLOW_HTTP, allow_private=settings.EVENTS_ALLOW_PRIVATE_ADDRESSES
    )


def _hint(url: str) -> str:
    parts = urlsplit(url)
    # Never the user part of an address (a password may be there), nor its path beyond the last 4 characters.
    where = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{where}/…{url[-4:]}"[:160]


def endpoint_create(
    *, workspace_id: str, by, label: str, url: str, event_types: list[str], enabled: bool = True
) -> tuple[Endpoint, str]:
    """A new endpoint and its signing secret (returned this once: the page shows it, nothing keeps it in clear)."""
    url = endpoint_address_check(url)
    secret = signing_secret_new()
    endpoint = Endpoint.objects.create(
        workspace_id=workspace_id,
        label=label.strip()[:100],
        url_encrypted=encrypt_secret(url),
        url_hint=_hint(url),
        secret_encrypted=encrypt_secret(secret),
        event_types=sorted(set(event_types)),
        enabled=enabled,
        created_by=by,
    )
    return endpoint, secret


def endpoint_update(*, endpoint: Endpoint, label: str, url: str, event_types: list[str], enabled: bool) -> Endpoint:
    """Change what an endpoint receives, or where; a blank address keeps the stored one."""
    endpoint.label = label.strip()[:100]
    endpoint.event_types = sorted(set(event_types))
    if url.strip():
        url = endpoint_address_check(url)
        endpoint.url_encrypted, endpoint.url_hint = encrypt_secret(url), _hint(url)
    endpoint.save()
    endpoint_enable(endpoint=endpoint, enabled=enabled)
    return endpoint


def endpoint_enable(*, endpoint: Endpoint, enabled: bool) -> None:
    """Turn an endpoint on or off. Off, it is called no more: what waits for it is given up
    (the log says why; "Send again" once it is on)."""
    with transaction.atomic():
        Endpoint.objects.filter(pk=endpoint.pk).update(enabled=enabled, updated_at=timezone.now())
        endpoint.enabled = enabled
        if not enabled:
            Delivery.objects.filter(endpoint=endpoint, status=Delivery.STATUS_PENDING).update(
                status=Delivery.STATUS_FAILED, last_error=NOT_SENT_DISABLED, next_try_at=None
            )


NOT_SENT_DISABLED = "Not sent: the endpoint is disabled."


def endpoint_secret_rotate(*, endpoint: Endpoint) -> str:
    """A new signing secret (shown this once); the old one signs nothing more."""
    secret = signing_secret_new()
    Endpoint.objects.filter(pk=endpoint.pk).update(secret_encrypted=encrypt_secret(secret), updated_at=timezone.now())
    return secret


def endpoint_test(*, endpoint: Endpoint, by) -> Delivery:
    """ "Send a test": a signed `endpoint.test` event to this endpoint only, through the same delivery
    (its attempts are in the log like any other)."""
    now = timezone.now()
    event_id = event_id_new()
    data = {"endpoint": endpoint.label, "sent_by": by.get_username()}
    with transaction.atomic():
        event = Event.objects.create(
            event_id=event_id,
            workspace_id=endpoint.workspace_id,
            type=TEST_TYPE,
            key=f"{TEST_TYPE}:{event_id}",
            payload=_payload(event_id=event_id, type=TEST_TYPE, workspace_id=endpoint.workspace_id, data=data, now=now),
        )
        (delivery,) = _deliveries_send(event, [endpoint.pk], now)
    return delivery


def delivery_send_again(*, delivery: Delivery) -> bool:
    """ "Send again": the same event (the same `webhook-id`: a receiver that has it already
    drops it) from now, whatever came of it before. False while the endpoint is disabled."""
    if not delivery.endpoint.enabled:
        return False
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.STATUS_PENDING, next_try_at=timezone.now(), failures=0, lease_until=None, lease_token=""
        )
        outbox_send(task=DELIVER_TASK, args=[delivery.pk], about=delivery)
    return True


def events_prune(*, now: datetime | None = None, batch: int = 1000) -> int:
    """Events older than EVENTS_RETENTION_DAYS go with their deliveries and attempts, once none
    of their deliveries waits. Returns how many went (a batch a run: the next run takes the rest)."""
    cutoff = (now or timezone.now()) - timedelta(days=float(settings.EVENTS_RETENTION_DAYS))
    old = list(
        Event.objects.filter(created_at__lt=cutoff)
        .exclude(deliveries__status=Delivery.STATUS_PENDING)
        .values_list("pk", flat=True)[:batch]
    )
    Event.objects.filter(pk__in=old).delete()
    return len(old)
