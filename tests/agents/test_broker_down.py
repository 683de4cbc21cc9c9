"""A chat message sent while the broker is down (a closed port): the page
says the message is in and its answer waits for the task queue, a resend of
the same form is the same message, and the answer is streamed once the
broker is back (the outbox's sweeper). Against the real sandbox."""

from __future__ import annotations

from django.urls import reverse

from dashboard.live.models import TrackedOperation
from dashboard.outbox.models import OutboxMessage
from tests.agents.support import agent_id_named, form_keys
from tests.html import one, parse, select, text_of


def test_a_message_sent_while_the_broker_is_down_is_answered_once_it_is_back(
    sandbox_client, broker_down, writes_seen, django_capture_on_commit_callbacks
):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:chat", args=[agent_id])).content.decode()
    form = {"message": "What does the Pro plan cost?", "idempotency_key": form_keys(page)[0]}

    with django_capture_on_commit_callbacks(execute=True):
        sent = sandbox_client.post(reverse("agents:chat_send", args=[agent_id]), form)
    assert sent.status_code == 302
    op = TrackedOperation.objects.get(kind="agents.invocation")
    paused = one(parse(sandbox_client.get(sent.url).content), ".live-paused")
    assert paused["data-pause-cause"] == "broker" and "work started" in text_of(paused)

    with django_capture_on_commit_callbacks(execute=True):
        again = sandbox_client.post(reverse("agents:chat_send", args=[agent_id]), form)
    assert again.status_code == 302 and again.url == sent.url
    assert TrackedOperation.objects.filter(kind="agents.invocation").count() == 1
    assert OutboxMessage.objects.filter(task_name="agents.stream_invocation").count() == 1
    assert writes_seen.keys("/runs") == []  # nothing sent yet: the worker streams the message

    assert broker_down.back() == 1
    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count) == ("completed", True, 0) and op.snapshot["answer"]
    assert writes_seen.keys("/runs") == [form["idempotency_key"]]  # one call, with the form's key
    assert select(parse(sandbox_client.get(sent.url, follow=True).content), ".live-paused") == []
