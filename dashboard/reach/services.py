"""The writes people make on the notification pages: their preferences, chat
webhooks, push subscriptions, claims and assignments, "Try again" on a
failed delivery.
Producing notifications is dashboard/reach/producing.py; sending them,
dashboard/reach/sending.py; what they say, dashboard/reach/messages.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from dashboard.keys.crypto import encrypt_secret
from dashboard.outbox.services import outbox_send
from dashboard.reach import webhooks
from dashboard.reach.models import ChatWebhook, Claim, Delivery, NotificationPreference, PushSubscription
from dashboard.reach.webhooks import webhook_known_items
from dashboard.signed_calls import AddressRefused, address_check, signing_secret_new


def preferences_save(*, user, values: dict[str, Any]) -> NotificationPreference:
    preference, _ = NotificationPreference.objects.update_or_create(user=user, defaults=values)
    return preference


class WebhookAddressError(ValueError):
    pass


def webhook_address_check(url: str) -> str:
    """A chat webhook's address as it will be called, or why not (said in the form)."""
    try:
        return address_check(url, allow_http=settings.REACH_WEBHOOK_ALLOW_HTTP, allow_private=True)
    except AddressRefused as exc:
        raise WebhookAddressError("Give the webhook's full https:// address, as the chat app shows it.") from exc


def _hint(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}/…{url[-4:]}"[:120]


def webhook_add(*, owner, workspace_id: str, kind: str, label: str, url: str) -> ChatWebhook:
    """A new webhook: hears only of news from now on (what is open now is
    remembered as old news); a generic JSON one gets its signing secret,
    which the page shows once (`webhook.secret`)."""
    url = webhook_address_check(url)
    return ChatWebhook.objects.create(
        owner=owner,
        workspace_id=workspace_id,
        kind=kind,
        label=label.strip()[:100],
        url_encrypted=encrypt_secret(url),
        url_hint=_hint(url),
        secret_encrypted=encrypt_secret(signing_secret_new()) if kind == ChatWebhook.KIND_JSON else "",
        known_items=webhook_known_items(owner=owner, workspace_id=workspace_id),
    )


def webhook_remove(*, webhook: ChatWebhook) -> None:
    webhook.delete()


def webhook_resume(*, webhook: ChatWebhook) -> None:
    """ "Resume" on a paused webhook: it is called again from the next delivery on."""
    webhooks.webhook_resume(webhook=webhook)


def push_endpoint_check(url: str) -> str:
    """A push service's address (browsers give https ones; http only where
    webhooks may be http: development and tests)."""
    parts = urlsplit(url.strip())
    allowed = ("https", "http") if settings.REACH_WEBHOOK_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed or not parts.hostname:
        raise WebhookAddressError("This browser gave a push address the console does not accept.")
    return url.strip()


def push_subscribe(*, user, endpoint: str, p256dh: str, auth: str, device: str) -> PushSubscription:
    """This browser's subscription for the person: one row per endpoint (the
    browser subscribing again, or someone else signing in on it, replaces it)."""
    subscription, _ = PushSubscription.objects.update_or_create(
        endpoint=endpoint,
        defaults={
            "user": user,
            "p256dh": p256dh,
            "auth": auth,
            "device": device[:120],
            "dropped_at": None,
            "dropped_because": "",
        },
    )
    return subscription


def push_unsubscribe(*, subscription: PushSubscription) -> None:
    """The device hears nothing more (its waiting deliveries go with it: the
    sender finds no subscription and gives up on them)."""
    subscription.delete()


def delivery_retry(*, delivery: Delivery) -> None:
    """ "Try again now" on a delivery that gave up (the log page)."""
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk, status=Delivery.STATUS_FAILED).update(
            status=Delivery.STATUS_PENDING, due_at=timezone.now(), attempts=0
        )
        outbox_send(task="reach.deliver", args=[delivery.pk])


def claim_take(*, workspace_id: str, item_key: str, user, assigned_by=None) -> Claim:
    """ "I'm on it" (assigned_by None) or an assignment; replaces an earlier claim."""
    claim, _ = Claim.objects.update_or_create(
        workspace_id=workspace_id, item_key=item_key[:250], defaults={"user": user, "assigned_by": assigned_by}
    )
    return claim


def claim_release(*, workspace_id: str, item_key: str) -> None:
    Claim.objects.filter(workspace_id=workspace_id, item_key=item_key).delete()
