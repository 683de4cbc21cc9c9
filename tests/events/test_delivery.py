"""Outbound events delivered to a real local HTTP receiver: the signature
verified as a receiver verifies it (the `standardwebhooks` library, the
scheme's reference implementation), retries after a 500 and a timeout with
the same event id until it is delivered, a disabled endpoint called never,
every attempt on the delivery log, and nothing of a key in the body."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from dashboard.events.models import Attempt, Delivery, Event, EventType
from dashboard.events.sending import deliveries_due, delivery_send
from dashboard.events.services import event_emit, events_prune
from dashboard.live.leases import lease_take
from tests.events.conftest import WORKSPACE, endpoint_add, key_secret
from tests.html import one, select, text_of, texts
from tests.http_receiver import NO_ANSWER

pytestmark = pytest.mark.django_db(transaction=True)

DECIDED = {"approval_id": "ap_1", "decision": "approved", "decided_by": "ada", "summary": "Send the welcome email"}


def emit_decided(key: str = "approval.decided:ap_1"):
    return event_emit(workspace_id=WORKSPACE, type=EventType.APPROVAL_DECIDED, key=key, data=DECIDED)


def test_a_delivery_is_signed_and_the_receiver_verifies_it(signed_in, receiver):
    endpoint, secret = endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    assert secret.startswith("whsec_") and secret not in endpoint.secret_encrypted  # stored encrypted
    assert not select(signed_in.get(reverse("events:endpoints")).content, "#made-secret")  # shown once

    event = emit_decided()
    (delivery,) = Delivery.objects.all()
    assert delivery_send(delivery_id=delivery.pk) == "delivered"

    (call,) = receiver.calls
    verified = Webhook(secret).verify(call.body, call.headers)
    assert verified == {
        "id": event.event_id,
        "type": "approval.decided",
        "workspace_id": WORKSPACE,
        "occurred_at": verified["occurred_at"],
        "data": DECIDED,
    }
    assert call.headers["webhook-id"] == event.event_id
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 32).verify(call.body, call.headers)
    tampered = call.body.replace(b"approved", b"rejected")
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(tampered, call.headers)
    # The payload never carries the API key (nor the secret).
    assert key_secret("ada").encode() not in call.body and secret.encode() not in call.body
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("sent", 1, 200)


def test_the_same_happening_twice_is_one_event(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    first, again = emit_decided(), emit_decided()
    assert first.pk == again.pk and Event.objects.count() == 1 and Delivery.objects.count() == 1


def test_an_endpoint_receives_only_the_events_it_chose(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["run.failed"])
    assert emit_decided() is None
    assert not Event.objects.exists() and not Delivery.objects.exists()


def test_retries_after_a_500_and_a_timeout_then_delivered_with_one_event_id(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    receiver.answers = [500, NO_ANSWER]
    event = emit_decided()
    (delivery,) = Delivery.objects.all()
    start = timezone.now()

    assert delivery_send(delivery_id=delivery.pk, now=start) == "retry"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_status, delivery.last_error) == (
        "pending",
        500,
        "The endpoint answered 500.",
    )
    assert delivery.next_try_at == start + timedelta(seconds=10)
    # The row is the schedule: not due before its time (a second message does nothing), due after.
    assert delivery_send(delivery_id=delivery.pk, now=start + timedelta(seconds=5)) == "nothing"
    assert deliveries_due(now=start + timedelta(seconds=5)) == []
    assert deliveries_due(now=start + timedelta(seconds=10)) == [delivery.pk]

    assert delivery_send(delivery_id=delivery.pk, now=start + timedelta(seconds=10)) == "retry"
    delivery.refresh_from_db()
    assert (delivery.last_status, delivery.last_error) == (None, "No answer within 0.5 s.")
    assert delivery.next_try_at == start + timedelta(seconds=70)

    assert delivery_send(delivery_id=delivery.pk, now=start + timedelta(seconds=70)) == "delivered"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.failures, delivery.last_status) == ("sent", 3, 0, 200)
    assert [call.headers["webhook-id"] for call in receiver.calls] == [event.event_id] * 3
    assert len({call.body for call in receiver.calls}) == 1  # the same body on every try
    assert list(Attempt.objects.values_list("number", "status", "error")) == [
        (1, 500, "The endpoint answered 500."),
        (2, None, "No answer within 0.5 s."),
        (3, 200, ""),
    ]
    # Delivered: never called again.
    assert delivery_send(delivery_id=delivery.pk, now=start + timedelta(days=1)) == "nothing"
    assert len(receiver.calls) == 3


def test_it_gives_up_after_the_last_retry_and_send_again_resends_the_same_event(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    receiver.status = 503
    event = emit_decided()
    (delivery,) = Delivery.objects.all()
    now = timezone.now()
    outcomes = []
    for _ in range(4):
        outcomes.append(delivery_send(delivery_id=delivery.pk, now=now))
        now += timedelta(days=1)
    assert outcomes == ["retry", "retry", "retry", "failed"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_try_at) == ("failed", 4, None)

    receiver.status = 204
    page = signed_in.post(reverse("events:again", args=[delivery.pk]))
    assert page.status_code == 302
    assert delivery_send(delivery_id=delivery.pk) == "delivered"
    assert receiver.calls[-1].headers["webhook-id"] == event.event_id


def test_a_disabled_endpoint_receives_nothing(signed_in, receiver):
    endpoint, _ = endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    emit_decided("approval.decided:waiting")  # waiting when it is disabled
    (waiting,) = Delivery.objects.all()
    assert signed_in.post(reverse("events:enable", args=[endpoint.pk]), {"enabled": "0"}).status_code == 302

    assert emit_decided("approval.decided:after") is None  # nothing made for it
    assert delivery_send(delivery_id=waiting.pk) == "nothing"
    waiting.refresh_from_db()
    assert (waiting.status, waiting.last_error) == ("failed", "Not sent: the endpoint is disabled.")
    assert signed_in.post(reverse("events:test", args=[endpoint.pk])).status_code == 302
    assert Delivery.objects.count() == 1
    signed_in.post(reverse("events:again", args=[waiting.pk]))
    assert Delivery.objects.get().status == "failed"  # refused while disabled
    assert receiver.calls == []

    # Disabled between the emission and the send: the step calls nothing either.
    endpoint.refresh_from_db()
    signed_in.post(reverse("events:enable", args=[endpoint.pk]), {"enabled": "1"})
    emit_decided("approval.decided:raced")
    raced = Delivery.objects.get(event__key="approval.decided:raced")
    type(endpoint).objects.filter(pk=endpoint.pk).update(enabled=False)
    assert delivery_send(delivery_id=raced.pk) == "skipped"
    assert receiver.calls == []


def test_a_test_event_goes_through_the_same_delivery(signed_in, receiver):
    endpoint, secret = endpoint_add(signed_in, url=receiver.url, types=["job.finished"])
    page = signed_in.post(reverse("events:test", args=[endpoint.pk]))
    assert page.status_code == 302
    (delivery,) = Delivery.objects.all()
    assert delivery_send(delivery_id=delivery.pk) == "delivered"
    body = Webhook(secret).verify(receiver.calls[0].body, receiver.calls[0].headers)
    assert (body["type"], body["data"]) == ("endpoint.test", {"endpoint": "Ops tool", "sent_by": "ada"})


def test_a_new_secret_signs_from_then_on(signed_in, receiver):
    endpoint, old = endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    page = signed_in.post(reverse("events:secret", args=[endpoint.pk]))
    new = one(page.content, "#made-secret")["value"]
    assert new != old
    emit_decided()
    delivery_send(delivery_id=Delivery.objects.get().pk)
    call = receiver.calls[0]
    assert Webhook(new).verify(call.body, call.headers)["type"] == "approval.decided"
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(call.body, call.headers)


def test_the_delivery_log_shows_each_attempt(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    receiver.answers = [500, NO_ANSWER]
    event = emit_decided()
    delivery = Delivery.objects.get()
    start = timezone.now()
    for seconds in (0, 10, 70):
        delivery_send(delivery_id=delivery.pk, now=start + timedelta(seconds=seconds))

    page = signed_in.get(reverse("events:log"))
    assert page.status_code == 200
    row = one(page.content, f"#delivery-{delivery.pk}")
    assert row["data-status"] == "sent"
    assert event.event_id in text_of(row)
    attempts = texts(row, ".events-attempts li")
    assert [line.split(": ", 1)[1] for line in attempts] == ["answered 500", "No answer within 0.5 s.", "answered 200"]
    assert [item["data-status"] for item in select(row, ".events-attempts li")] == ["500", "", "200"]


def test_a_key_typed_into_a_note_is_masked_in_the_body(signed_in, receiver):
    endpoint, secret = endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    pasted = key_secret("ada")
    event_emit(
        workspace_id=WORKSPACE,
        type=EventType.APPROVAL_DECIDED,
        key="approval.decided:pasted",
        data={**DECIDED, "note": f"used {pasted} to check"},
    )
    delivery_send(delivery_id=Delivery.objects.get().pk)
    body = Webhook(secret).verify(receiver.calls[0].body, receiver.calls[0].headers)
    assert body["data"]["note"] == "used svc_sk_[redacted] to check"
    assert pasted.encode() not in receiver.calls[0].body


def test_old_events_go_with_their_deliveries_unless_one_still_waits(signed_in, receiver, settings):
    settings.EVENTS_RETENTION_DAYS = 30
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    emit_decided("approval.decided:sent")
    emit_decided("approval.decided:waiting")
    delivery_send(delivery_id=Delivery.objects.get(event__key="approval.decided:sent").pk)
    later = timezone.now() + timedelta(days=31)
    assert events_prune(now=timezone.now()) == 0  # nothing old yet
    assert events_prune(now=later) == 1
    assert list(Event.objects.values_list("key", flat=True)) == ["approval.decided:waiting"]
    assert list(Attempt.objects.all()) == []  # the sent one's attempt went with it


def test_a_delivery_another_worker_holds_is_not_called_twice(signed_in, receiver):
    endpoint_add(signed_in, url=receiver.url, types=["approval.decided"])
    emit_decided()
    delivery = Delivery.objects.get()
    held = lease_take(Delivery.objects.filter(pk=delivery.pk), seconds=60)  # a worker calling it now
    assert held is not None
    assert delivery_send(delivery_id=delivery.pk) == "nothing"
    assert deliveries_due() == []  # the sweep leaves it alone too
    assert receiver.calls == []
