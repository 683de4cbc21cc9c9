"""Notifications at volume, with real parts (PostgreSQL, a real SMTP server):
a burst of approvals reaches a person as one message listing each (its
agent, risk, input and exact link), the next approval in the sweep right
after its refresh; what was decided between producing and sending is not
announced (a digest drops those lines and sends the rest). The sweep is the
worker's real step (`deliveries_due` then `delivery_step`) on a stepped
clock: messages are counted and due times computed, nothing sleeps."""

from __future__ import annotations

from datetime import datetime, timedelta
from email import message_from_bytes

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.inbox.models import WaitingItem
from dashboard.reach.models import Cadence, Delivery, NotificationPreference
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import deliveries_due, delivery_step
from tests.reach.conftest import AGENT_ID, WORKSPACE, pending_approval

pytestmark = pytest.mark.django_db(transaction=True)


def approval_id(n: int) -> str:
    return f"aaaaaaaa-0000-4000-8000-{n:012d}"


def burst(count: int, *, first: int = 1) -> None:
    """`count` approvals of the same summary, each with its own input (as a burst from one agent)."""
    for n in range(first, first + count):
        pending_approval(
            approval_id=approval_id(n), input={"to": f"lead{n}@example.com", "subject": "Welcome", "body": "Hi"}
        )


def sweep_until_sent(delivery: Delivery, *, start: datetime) -> tuple[float, int]:
    """The worker's sweep every REACH_SWEEP_SECONDS from `start` until
    `delivery` is sent: (seconds it took, messages sent meanwhile)."""
    now, messages = start, 0
    for _ in range(200):
        for pk in deliveries_due(now=now):
            messages += delivery_step(delivery_id=pk, now=now) == "sent"
        if Delivery.objects.get(pk=delivery.pk).status == Delivery.STATUS_SENT:
            return (now - start).total_seconds(), messages
        now += timedelta(seconds=float(settings.REACH_SWEEP_SECONDS))
    raise AssertionError("never sent")


def test_a_burst_of_30_approvals_is_one_message_and_the_31st_goes_in_the_next_sweep(dana, real_smtp):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], cadence=Cadence.NOW)
    burst(30)
    start = timezone.now()
    notifications_produce(WORKSPACE, now=start)
    assert Delivery.objects.count() == 30

    thirtieth = Delivery.objects.order_by("-id").first()
    with CaptureQueriesContext(connection) as thirty_lines:
        waited, messages = sweep_until_sent(thirtieth, start=start)
    assert (waited, messages) == (0, 1)  # all 30 in the first sweep, as one message

    (envelope,) = real_smtp.received
    body = message_from_bytes(envelope.content).get_payload(decode=True).decode()
    for n in range(1, 31):  # each line names its approval and links to exactly it
        assert f"To: lead{n}@example.com; Subject: Welcome; Body: Hi" in body
        assert f"https://console.example.com/approvals/?agent={AGENT_ID}&approval={approval_id(n)}" in body
    assert body.count("Approval waiting (send) from Lead qualifier: Send the welcome email") == 30

    later = start + timedelta(minutes=1)  # the 31st arrives with the next refresh
    burst(1, first=31)
    notifications_produce(WORKSPACE, now=later)
    thirty_first = Delivery.objects.get(item_key=f"approval:{approval_id(31)}")
    with CaptureQueriesContext(connection) as one_line:
        assert sweep_until_sent(thirty_first, start=later) == (0, 1)
    assert len(real_smtp.received) == 2
    # A message's queries do not grow with its lines (the re-check is one query for all).
    assert len(thirty_lines) == len(one_line)


def test_two_approvals_of_one_summary_never_read_alike(dana, real_smtp):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"])
    burst(2)
    notifications_produce(WORKSPACE)
    for row in Delivery.objects.order_by("id"):
        delivery_step(delivery_id=row.pk)
        Delivery.objects.filter(status=Delivery.STATUS_PENDING).update(due_at=timezone.now())
    # The second was made at the same refresh: it went with the first, one message of two lines.
    (envelope,) = real_smtp.received
    first, second = (line for line in message_from_bytes(envelope.content).get_payload().splitlines() if "To:" in line)
    assert first != second


def test_an_approval_decided_before_sending_is_not_announced_and_a_digest_sends_the_rest(client, dana, real_smtp):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], cadence=Cadence.HOURLY)
    burst(3)
    now = timezone.now()
    notifications_produce(WORKSPACE, now=now)
    due = Delivery.objects.first().due_at
    # Decided in the queue meanwhile: the deciding write removes its stored row at once.
    WaitingItem.objects.filter(remote_id=f"approval:{approval_id(2)}").delete()

    assert sweep_until_sent(Delivery.objects.get(item_key=f"approval:{approval_id(1)}"), start=due)[1] == 1
    (envelope,) = real_smtp.received
    body = message_from_bytes(envelope.content).get_payload()
    assert f"approval={approval_id(1)}" in body and f"approval={approval_id(3)}" in body
    assert f"approval={approval_id(2)}" not in body
    settled = Delivery.objects.get(item_key=f"approval:{approval_id(2)}")
    assert (settled.status, settled.last_error, settled.sent_at) == ("skipped", "Not sent: already decided", None)

    # Alone and decided: nothing is sent at all.
    burst(1, first=4)
    notifications_produce(WORKSPACE, now=due)
    WaitingItem.objects.filter(remote_id=f"approval:{approval_id(4)}").delete()
    alone = Delivery.objects.get(item_key=f"approval:{approval_id(4)}")
    assert delivery_step(delivery_id=alone.pk, now=alone.due_at) == "skipped"
    assert len(real_smtp.received) == 1

    client.force_login(dana)
    from django.urls import reverse

    from tests.html import one, text_of

    page = client.get(reverse("reach:log"))
    assert text_of(one(page.content, f"#delivery-{settled.pk}")).count("Not sent: already decided") == 1
