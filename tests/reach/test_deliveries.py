"""Notifications outside the tab, with real parts: PostgreSQL rows, a real
SMTP server (aiosmtpd) and a local HTTP receiver as the chat webhook. Each
item reaches each person once per channel, even with two producers and two
workers racing; quiet hours defer; an overdue approval escalates once; a
failing webhook is retried later, never inside the inbox refresh."""

from __future__ import annotations

import threading
from datetime import datetime, time, timedelta
from email import message_from_bytes
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone

from dashboard.reach import sending
from dashboard.reach.models import Delivery, Escalation, NotificationPreference
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import webhook_add
from tests.reach.conftest import AGENT_ID, APPROVAL_ID, WORKSPACE, pending_approval

pytestmark = pytest.mark.django_db(transaction=True)


def wants_send_approvals(user, **more) -> NotificationPreference:
    return NotificationPreference.objects.create(user=user, approval_risks=["send"], **more)


def race(work, *args) -> list:
    """`work(*args)` in two threads at once (two workers): their answers."""
    barrier, answers = threading.Barrier(2), []

    def run():
        try:
            barrier.wait()
            answers.append(work(*args))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return answers


def step(delivery_id: int) -> str:
    return delivery_step(delivery_id=delivery_id)


def test_an_approval_reaches_an_approver_once_by_email_through_a_real_smtp_server(dana, real_smtp):
    wants_send_approvals(dana)
    pending_approval()

    race(notifications_produce, WORKSPACE)  # two refreshes producing at once
    notifications_produce(WORKSPACE)  # and the next refresh
    (delivery,) = Delivery.objects.all()
    assert (delivery.channel, delivery.user, delivery.item_key) == ("email", dana, f"approval:{APPROVAL_ID}")

    assert sorted(race(step, delivery.pk)) == ["nothing", "sent"]
    assert step(delivery.pk) == "nothing"

    (envelope,) = real_smtp.received
    assert envelope.rcpt_tos == ["dana@example.com"]
    message = message_from_bytes(envelope.content)
    assert (
        " ".join(message["Subject"].split())
        == "Approval waiting (send) from Lead qualifier: Send the welcome email to dana@example.com"
    )
    body = message.get_payload()
    assert "https://console.example.com/approvals/?agent=" in body
    assert "Each link opens the item in the console after you sign in." in body
    # Dana's own Approve / Reject: the confirmation page of a token made for this email.
    approve = next(line.split(": ", 1)[1] for line in body.splitlines() if line.strip().startswith("Approve:"))
    assert approve.startswith("https://console.example.com/notifications/decide/wcdt_") and approve.endswith(
        "?d=approve"
    )
    delivery.refresh_from_db()
    assert delivery.status == Delivery.STATUS_SENT and delivery.sent_at is not None


def test_an_approval_reaches_a_chat_webhook_once_through_a_local_receiver(dana, receiver):
    wants_send_approvals(dana, by_email=False)
    webhook_add(owner=dana, workspace_id="", kind="json", label="My alerts", url=receiver.url)
    pending_approval()

    race(notifications_produce, WORKSPACE)
    (delivery,) = Delivery.objects.all()
    assert delivery.channel.startswith("webhook:")
    assert sorted(race(step, delivery.pk)) == ["nothing", "sent"]

    (body,) = receiver.bodies
    (note,) = body["notifications"]
    assert note["kind"] == "approval" and note["item"] == f"approval:{APPROVAL_ID}"
    assert note["url"].startswith("https://console.example.com/approvals/")
    # The address is a secret: stored encrypted, shown by its host only.
    assert receiver.url not in str(list(dana.__class__.objects.values()))
    from dashboard.reach.models import ChatWebhook

    hook = ChatWebhook.objects.get()
    assert receiver.url not in hook.url_encrypted and hook.url_hint.startswith("127.0.0.1/")


def test_quiet_hours_in_the_persons_time_zone_defer_the_message_to_their_end(dana, real_smtp):
    berlin = ZoneInfo("Europe/Berlin")
    wants_send_approvals(dana, time_zone="Europe/Berlin", quiet_from=time(22), quiet_until=time(7))
    pending_approval()
    late = datetime(2026, 11, 26, 23, 30, tzinfo=berlin)

    notifications_produce(WORKSPACE, now=late)

    delivery = Delivery.objects.get()
    assert delivery.due_at == datetime(2026, 11, 27, 7, 0, tzinfo=berlin)
    assert delivery.deferred_by == "quiet hours"
    assert delivery_step(delivery_id=delivery.pk, now=late + timedelta(hours=2)) == "nothing"
    assert real_smtp.received == []
    assert delivery_step(delivery_id=delivery.pk, now=datetime(2026, 11, 27, 7, 1, tzinfo=berlin)) == "sent"
    assert len(real_smtp.received) == 1


def test_an_overdue_approval_escalates_once_to_the_escalation_group(dana, admin_ada, receiver, settings):
    settings.APPROVAL_DEADLINE_MINUTES = {"destructive": 60}
    webhook_add(owner=admin_ada, workspace_id=WORKSPACE, kind="slack", label="#ops", url=receiver.url)
    pending_approval(risk="destructive", minutes_ago=30)

    notifications_produce(WORKSPACE)
    assert not Escalation.objects.exists()  # 30 of its 60 minutes gone: not overdue yet

    later = timezone.now() + timedelta(minutes=31)
    race(notifications_produce, WORKSPACE, later)
    notifications_produce(WORKSPACE, now=later + timedelta(minutes=5))

    (escalation,) = Escalation.objects.all()
    assert escalation.item_key == f"approval:{APPROVAL_ID}" and escalation.notified == 1
    rows = Delivery.objects.filter(kind="escalation")
    # The Administrator (the escalation role) by email, and the workspace's Slack webhook; not the approver.
    assert sorted((row.recipient, row.channel.split(":")[0]) for row in rows) == [
        (f"user:{admin_ada.pk}", "email"),
        (f"workspace:{WORKSPACE}", "webhook"),
    ]
    hook_row = rows.get(channel__startswith="webhook:")
    assert delivery_step(delivery_id=hook_row.pk, now=later) == "sent"
    (body,) = receiver.bodies
    # Exactly that approval, selected in the queue (where its input stands beside the buttons).
    link = f"https://console.example.com/approvals/?agent={AGENT_ID}&approval={APPROVAL_ID}"
    assert body["text"] == f"• <{link}|Overdue: Send the welcome email to dana@example.com>"  # Slack's link syntax
    # A workspace's channel has no one person to decide: no buttons, the link only.
    assert body["blocks"] == [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": f"*<{link}|Overdue: Send the welcome email to dana@example.com>*"},
        }
    ]


def test_a_failing_webhook_is_retried_with_backoff_and_the_refresh_never_calls_it(dana, receiver, monkeypatch):
    wants_send_approvals(dana, by_email=False)
    webhook_add(owner=dana, workspace_id="", kind="teams", label="Teams", url=receiver.url)
    receiver.status = 500
    pending_approval()
    import httpx

    def no_call(*args, **kwargs):
        raise AssertionError("the refresh must not call a webhook")

    with monkeypatch.context() as patch:
        patch.setattr(httpx, "post", no_call)
        notifications_produce(WORKSPACE)

    delivery = Delivery.objects.get()
    now = timezone.now()
    sent_tasks = []
    monkeypatch.setattr(sending, "outbox_send", lambda **task: sent_tasks.append(task))
    assert delivery_step(delivery_id=delivery.pk, now=now) == "retry"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("pending", 1, "The webhook answered 500.")
    assert delivery.due_at == now + timedelta(seconds=30)
    assert sent_tasks == [{"task": "reach.deliver", "args": [delivery.pk], "countdown": 30.0}]
    assert delivery_step(delivery_id=delivery.pk, now=now + timedelta(seconds=5)) == "nothing"  # not due yet

    receiver.status = 200
    assert delivery_step(delivery_id=delivery.pk, now=now + timedelta(seconds=31)) == "sent"
    assert len(receiver.bodies) == 2
    card = receiver.bodies[-1]["attachments"][0]["content"]
    assert card["body"][0]["text"].startswith("Approval waiting (send) from Lead qualifier: Send the welcome email")


def test_a_delegate_receives_the_notifications_of_someone_away(dana, django_user_model, real_smtp):
    from tests.reach.conftest import member

    ben = member(django_user_model, "ben")
    wants_send_approvals(dana, away_until=timezone.now() + timedelta(days=3), delegate=ben)
    pending_approval()

    notifications_produce(WORKSPACE)

    delivery = Delivery.objects.get()
    assert (delivery.user, delivery.on_behalf_of) == (ben, "dana")
    assert delivery_step(delivery_id=delivery.pk) == "sent"
    (envelope,) = real_smtp.received
    assert envelope.rcpt_tos == ["ben@example.com"]
    assert "(for dana, who is away)" in message_from_bytes(envelope.content).get_payload()


def test_a_digest_gathers_several_items_into_one_message(dana, real_smtp):
    from dashboard.reach.models import Cadence

    wants_send_approvals(dana, cadence=Cadence.HOURLY)
    pending_approval()
    pending_approval(approval_id="aaaaaaaa-0000-4000-8000-00000000000b")
    now = timezone.now()

    notifications_produce(WORKSPACE, now=now)

    rows = list(Delivery.objects.all())
    assert len(rows) == 2 and all(row.digest and row.deferred_by == "digest" for row in rows)
    assert delivery_step(delivery_id=rows[0].pk, now=now) == "nothing"
    assert delivery_step(delivery_id=rows[0].pk, now=rows[0].due_at) == "sent"
    (envelope,) = real_smtp.received
    assert message_from_bytes(envelope.content)["Subject"] == "2 things in Workspace Console"
    assert set(Delivery.objects.values_list("status", flat=True)) == {"sent"}


def test_a_run_reaches_a_person_only_when_they_follow_it(dana, real_smtp):
    from dashboard.keys.models import ApiKey
    from dashboard.live.models import TrackedOperation
    from dashboard.live.services import operation_track

    NotificationPreference.objects.create(user=dana, my_work_needs_me=True)
    waiting = {"id": "r1", "status": "waiting", "waiting_for": {"kind": "approval"}}
    run = operation_track(
        owner_key=ApiKey.objects.get(user=dana),
        kind="agents.run",
        remote_id="r1",
        title="Qualify Ada",
        snapshot=waiting,
    )
    TrackedOperation.objects.filter(pk=run.pk).update(status="waiting")

    notifications_produce(WORKSPACE)  # a run a list showed live: nobody follows it
    assert not Delivery.objects.filter(user=dana).exists()

    TrackedOperation.objects.filter(pk=run.pk).update(context={"followed": True})
    notifications_produce(WORKSPACE)
    notifications_produce(WORKSPACE)
    (delivery,) = Delivery.objects.filter(user=dana)
    assert delivery.title == "Agent run needs you: Qualify Ada"


def test_a_retry_whose_message_is_lost_or_whose_worker_died_is_sent_by_the_due_sweep(
    dana, receiver, monkeypatch, settings
):
    from dashboard.live.leases import lease_take

    wants_send_approvals(dana, by_email=False)
    webhook_add(owner=dana, workspace_id="", kind="teams", label="Teams", url=receiver.url)
    receiver.status = 500
    pending_approval()
    notifications_produce(WORKSPACE)
    delivery = Delivery.objects.get()
    monkeypatch.setattr(sending, "outbox_send", lambda **task: None)  # the retry's message is lost
    assert step(delivery.pk) == "retry"
    receiver.status = 200
    now = timezone.now()
    Delivery.objects.filter(pk=delivery.pk).update(due_at=now)  # its time came
    # A worker took it and was killed while sending: nobody sends it while its lease runs...
    assert lease_take(Delivery.objects.filter(pk=delivery.pk), seconds=settings.JOBS_LEASE_SECONDS, now=now)
    assert sending.deliveries_due(now=now) == []
    # ...and the sweep (reach.deliver_due, on beat) sends it once the short lease has run out.
    soon = now + timedelta(seconds=settings.JOBS_LEASE_SECONDS + 1)
    assert sending.deliveries_due(now=soon) == [delivery.pk]
    assert delivery_step(delivery_id=delivery.pk, now=soon) == "sent"
    assert len(receiver.bodies) == 2
