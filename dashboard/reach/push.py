"""Web Push, the channel that reaches a phone or a closed browser: what a
notification carries (title, text, the item's link, Approve / Reject actions
for an approval) and sending it to one subscription through pywebpush (VAPID
signed with VAPID_PRIVATE_KEY, the payload encrypted for that browser,
aes128gcm). The service worker (static/sw.js) shows it and opens the links.
A push service answering 404 or 410 has forgotten the subscription: it is
dropped (`PushGone`), never retried."""

from __future__ import annotations

import json
from typing import Any

import requests
from django.conf import settings
from django.utils import timezone
from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]  # no stubs or py.typed

from dashboard.reach.decision_tokens import VIA_PUSH, decision_path, message_decisions
from dashboard.reach.messages import console_link
from dashboard.reach.models import Delivery, PushSubscription

GONE_STATUSES = (404, 410)
# A push service refuses payloads over 4 KB (RFC 8030 leaves it to them; all take 4,096 bytes).
MAX_PAYLOAD = 3800


class PushProblem(Exception):
    """Why a push failed, in words (kept on the delivery row); retried."""


class PushGone(PushProblem):
    """The push service no longer knows the subscription: dropped, not retried."""


def push_configured() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def decision_links(row: Delivery) -> dict[str, str]:
    """Where an approval's Approve and Reject actions lead: the confirmation
    page of a decision token made now for this device's person
    (dashboard/reach/decision_tokens.py: GET shows, POST decides, once, only
    for them); the approval in the console where no token can be made (not
    an Approver any more, the approval no longer waiting)."""
    made = message_decisions([row], via=VIA_PUSH).get(row.pk)
    if made is None:
        return {"approve": console_link(row.path), "reject": console_link(row.path)}
    _, secret = made
    return {decision: console_link(decision_path(secret, decision)) for decision in ("approve", "reject")}


def push_payload(rows: list[Delivery]) -> dict[str, Any]:
    """What the service worker shows: one item with its actions, or a digest
    of several opening the delivery log's list of them."""
    first = rows[0]
    if len(rows) > 1:
        titles = [row.title for row in rows]
        return {
            "title": f"{len(rows)} things in Workspace Console",
            "body": "\n".join(titles[:5]) + (f"\n… and {len(titles) - 5} more" if len(titles) > 5 else ""),
            "url": console_link("/inbox/"),
            "tag": f"digest:{first.pk}",
            "actions": [],
        }
    payload: dict[str, Any] = {
        "title": first.title,
        "body": f"For {first.on_behalf_of}, who is away." if first.on_behalf_of else "Open it in Workspace Console.",
        "url": console_link(first.path),
        "tag": first.item_key,
        "actions": [],
    }
    if first.kind == "approval":
        links = decision_links(first)
        payload["body"] = "Approve or reject it, or open it in the console."
        payload["actions"] = [
            {"action": "approve", "title": "Approve", "url": links["approve"]},
            {"action": "reject", "title": "Reject", "url": links["reject"]},
        ]
    return payload


def _encoded(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, ensure_ascii=False)
    while len(text.encode()) > MAX_PAYLOAD and len(payload["body"]) > 20:
        payload = {**payload, "body": payload["body"][: len(payload["body"]) // 2] + "…"}
        text = json.dumps(payload, ensure_ascii=False)
    return text


def push_send(*, subscription: PushSubscription, payload: dict[str, Any]) -> None:
    """One message to one browser. Raises PushGone (the subscription is
    dropped here) or PushProblem."""
    if not push_configured():
        raise PushProblem("Web Push is not configured on this console (VAPID keys).")
    if subscription.dropped_at is not None:
        raise PushGone("This device's subscription was dropped.")
    try:
        webpush(
            subscription_info=subscription.as_info(),
            data=_encoded(payload),
            vapid_private_key=settings.VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=24 * 3600,
            timeout=float(settings.REACH_PUSH_TIMEOUT),
            headers={"Urgency": "high" if payload["actions"] else "normal"},
        )
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in GONE_STATUSES:
            because = f"The push service no longer knows this device ({status}): subscribe again there."
            PushSubscription.objects.filter(pk=subscription.pk).update(
                dropped_at=timezone.now(), dropped_because=because
            )
            raise PushGone(because) from exc
        raise PushProblem(f"The push service answered {status or 'nothing'}.") from exc
    except requests.RequestException as exc:
        raise PushProblem(f"The push service could not be reached ({type(exc).__name__}).") from exc


def deliver_push(rows: list[Delivery]) -> None:
    """The rows of one `push:<id>` channel, as one message (sending.py calls it)."""
    pk = rows[0].channel.removeprefix("push:")
    subscription = PushSubscription.objects.filter(pk=pk).first() if pk.isdigit() else None
    if subscription is None:
        raise PushGone("The device was unsubscribed.")
    push_send(subscription=subscription, payload=push_payload(rows))
