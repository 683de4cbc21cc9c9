"""Webhooks with real parts (a local HTTP receiver, a real SMTP server): a
webhook added now hears only of later news; a generic JSON webhook's calls
are signed as Standard Webhooks sign them (verified by the `standardwebhooks`
library, the scheme's own reference implementation), its secret shown once;
one failing for REACH_WEBHOOK_PAUSE_AFTER_SECONDS is paused, not called, its
owner told by email and on the page, and resumed there; an assignment tells
the assignee."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from django.urls import reverse
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from dashboard.reach import sending
from dashboard.reach.models import ChatWebhook, Delivery, NotificationPreference
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import webhook_add
from tests.html import one, select, text_of
from tests.reach.conftest import APPROVAL_ID, WORKSPACE, member, pending_approval

pytestmark = pytest.mark.django_db(transaction=True)

SECOND = "aaaaaaaa-0000-4000-8000-00000000000b"


def test_a_webhook_added_now_hears_only_of_news_after_it_was_added(dana, receiver):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    pending_approval()  # open before the webhook
    hook = webhook_add(owner=dana, workspace_id="", kind="slack", label="#me", url=receiver.url)

    notifications_produce(WORKSPACE)
    assert not Delivery.objects.exists()  # the past is not replayed

    pending_approval(approval_id=SECOND)
    notifications_produce(WORKSPACE)
    (row,) = Delivery.objects.all()
    assert (row.channel, row.item_key) == (hook.channel, f"approval:{SECOND}")
    assert delivery_step(delivery_id=row.pk) == "sent"
    assert len(receiver.bodies) == 1 and SECOND in receiver.bodies[0]["text"]


def test_a_json_webhook_is_signed_its_secret_shown_once_and_a_wrong_secret_refused(client, dana, receiver):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    client.force_login(dana)
    page = client.post(reverse("reach:webhook_add"), {"kind": "json", "label": "Receiver", "url": receiver.url})
    assert page.status_code == 200
    secret = text_of(one(page.content, "#webhook-secret code.reach-secret"))
    assert secret.startswith("whsec_") and secret == ChatWebhook.objects.get().secret
    assert secret not in ChatWebhook.objects.get().secret_encrypted  # stored encrypted
    assert not select(client.get(reverse("reach:preferences")).content, "#webhook-secret")  # once

    pending_approval()
    notifications_produce(WORKSPACE)
    row = Delivery.objects.get()
    assert delivery_step(delivery_id=row.pk) == "sent"
    (headers, raw), body = receiver.calls[0], receiver.bodies[0]
    assert Webhook(secret).verify(raw, headers) == body  # the scheme's reference verifier
    assert headers["webhook-id"] == body["delivery_id"] == f"msg_reach_{row.pk}"
    assert headers["webhook-signature"].startswith("v1,")
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY").verify(raw, headers)
    with pytest.raises(WebhookVerificationError):  # a body changed on the way
        Webhook(secret).verify(raw.replace(b"Send", b"Sent"), headers)


def test_a_webhook_failing_for_an_hour_is_paused_its_owner_told_and_resumed(
    client, dana, receiver, real_smtp, monkeypatch, settings
):
    settings.REACH_WEBHOOK_PAUSE_AFTER_SECONDS = 3600
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    hook = webhook_add(owner=dana, workspace_id="", kind="teams", label="Team channel", url=receiver.url)
    receiver.status = 500
    pending_approval()
    notifications_produce(WORKSPACE)
    row = Delivery.objects.get()
    monkeypatch.setattr(sending, "outbox_send", lambda **task: None)  # the retries' tasks: stepped by hand
    # Tomorrow at 14:02 (the page shows the hour): never before the row is due, whenever the suite runs.
    start = (timezone.now() + timedelta(days=1)).replace(hour=14, minute=2, second=0, microsecond=0)

    assert delivery_step(delivery_id=row.pk, now=start) == "retry"
    hook.refresh_from_db()
    assert (hook.failing_since, hook.paused_at, hook.last_failure) == (start, None, "answered 500")
    for minutes in (30, 61):  # still failing half an hour later; then over the hour
        Delivery.objects.filter(pk=row.pk).update(due_at=start)
        delivery_step(delivery_id=row.pk, now=start + timedelta(minutes=minutes))
    hook.refresh_from_db()
    assert hook.paused_at == start + timedelta(minutes=61)
    assert len(receiver.calls) == 3

    # The owner is told by email (a delivery of its own)...
    told = Delivery.objects.get(kind="webhook_paused")
    assert delivery_step(delivery_id=told.pk, now=hook.paused_at) == "sent"
    (envelope,) = real_smtp.received
    subject = " ".join(str(message_from_bytes(envelope.content, policy=policy.default)["Subject"]).split())
    assert subject.startswith("Your webhook “Team channel” is paused: it answered 500 since")
    # ...and a paused webhook is not called: its pending rows are not sent, new news makes none.
    receiver.status = 200
    Delivery.objects.filter(pk=row.pk).update(due_at=start, status="pending")
    assert delivery_step(delivery_id=row.pk, now=hook.paused_at) == "skipped"
    assert Delivery.objects.get(pk=row.pk).last_error == "Not sent: the webhook is paused"
    pending_approval(approval_id=SECOND)
    notifications_produce(WORKSPACE)
    assert not Delivery.objects.filter(item_key=f"approval:{SECOND}").exists()
    assert len(receiver.calls) == 3

    client.force_login(dana)
    page = client.get(reverse("reach:preferences"))
    assert "Paused: answered 500 since 14:02" in text_of(one(page.content, ".reach-paused"))
    client.post(reverse("reach:webhook_resume", args=[hook.pk]))
    hook.refresh_from_db()
    assert (hook.paused_at, hook.failing_since) == (None, None)
    assert not select(client.get(reverse("reach:preferences")).content, ".reach-paused")
    notifications_produce(WORKSPACE)  # called again: what is open and not yet sent to it
    (resumed,) = Delivery.objects.filter(item_key=f"approval:{SECOND}")
    assert delivery_step(delivery_id=resumed.pk) == "sent" and len(receiver.calls) == 4


def test_someone_else_may_not_resume_my_webhook(client, dana, django_user_model, receiver):
    hook = webhook_add(owner=dana, workspace_id="", kind="slack", label="#me", url=receiver.url)
    ChatWebhook.objects.filter(pk=hook.pk).update(paused_at=timezone.now())
    client.force_login(member(django_user_model, "ben"))
    client.post(reverse("reach:webhook_resume", args=[hook.pk]))
    assert ChatWebhook.objects.get(pk=hook.pk).paused_at is not None


def test_the_assignee_is_told_who_assigned_them_what(client, dana, django_user_model, real_smtp):
    ben = member(django_user_model, "ben")
    dana.first_name, dana.last_name = "Dana", "Admin"
    dana.save()
    pending_approval(input={"to": "lead@example.com", "subject": "Welcome", "body": "Hi"})
    client.force_login(dana)
    client.post(reverse("reach:claim"), {"item_key": f"approval:{APPROVAL_ID}", "action": "assign", "assignee": ben.pk})
    (row,) = Delivery.objects.filter(user=ben)
    assert row.kind == "assignment" and row.title.startswith("Dana Admin assigned you: Approval waiting (send)")
    assert delivery_step(delivery_id=row.pk) == "sent"
    (envelope,) = real_smtp.received
    assert envelope.rcpt_tos == ["ben@example.com"]
    message = message_from_bytes(envelope.content)
    assert " ".join(message["Subject"].split()) == (
        "Dana Admin assigned you: Approval waiting (send) from Lead qualifier: Send the welcome email to dana@example.com"
    )
    assert f"approval={APPROVAL_ID}" in message.get_payload()
    # Assigning it to oneself tells nobody.
    client.post(
        reverse("reach:claim"), {"item_key": f"approval:{APPROVAL_ID}", "action": "assign", "assignee": dana.pk}
    )
    assert not Delivery.objects.filter(user=dana).exists()
