"""Chat on the streamed path: the worker task reads the service's streamed
call (`stream: true`: `started`, then `result` or `error`) into the tracked
row; the browser polls the console only. Threads are listed from the runs.
Against the real sandbox, and respx for the odd and broken shapes."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from django.urls import reverse

from dashboard.live.models import TrackedOperation
from tests.agents.support import AGENT_ID, RUN_ID, THREAD_ID, agent_id_named, error, form_keys
from tests.html import one, parse, select, text_of, textarea_value, texts

OTHER_THREAD = "dddddddd-0000-4000-8000-000000000002"


def sse(*events: tuple[str, object]) -> httpx.Response:
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


@pytest.fixture
def streamed(eager_celery, django_capture_on_commit_callbacks):
    """Send a chat message and run the stream task at once, as a worker would right after the commit."""

    def send(client, agent_id: str, data: dict):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("agents:chat_send", args=[agent_id]), data)

    return send


# --- against the sandbox -------------------------------------------------------------------


def test_a_streamed_answer_is_on_the_row_when_the_call_ends_and_the_thread_continues(sandbox_client, streamed):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:chat", args=[agent_id])).content.decode()
    # The event box is empty, never "null".
    assert textarea_value(one(parse(page), "textarea[name=payload]")) == ""

    sent = streamed(
        sandbox_client, agent_id, {"message": "What does the Pro plan cost?", "idempotency_key": form_keys(page)[0]}
    )

    op = TrackedOperation.objects.get(kind="agents.invocation")
    assert op.is_final and op.status == "completed" and op.snapshot["answer"]
    assert op.context["mode"] == "stream" and op.lease_token == "" and op.poll_count == 0  # never polled
    thread_id = op.context["thread_id"]
    # The message's page, once the stream has told its conversation, is the conversation's.
    assert sent.status_code == 302 and sent.url.endswith(f"?sent={op.pk}")
    followed = sandbox_client.get(sent.url)
    assert followed.status_code == 302 and followed.url.endswith(f"?thread={thread_id}")
    thread_html = sandbox_client.get(followed.url).content.decode()
    thread = parse(thread_html)
    assert texts(thread, ".chat-thread .agent-answer") == [op.snapshot["answer"]]

    again = streamed(
        sandbox_client,
        agent_id,
        {"message": "And the Team plan?", "thread_id": thread_id, "idempotency_key": form_keys(thread_html)[0]},
    )
    assert again.url == followed.url  # the conversation is known before the send
    assert TrackedOperation.objects.filter(context__thread_id=thread_id, is_final=True).count() == 2

    # The thread is listed on the agent's conversations page and opens the chat.
    listed = parse(sandbox_client.get(reverse("agents:threads", args=[agent_id])).content)
    links = [link["href"] for link in select(listed, ".thread__open")]
    assert f"{reverse('agents:chat', args=[agent_id])}?thread={thread_id}" in links


def test_a_run_that_fails_ends_the_row_with_the_services_message(sandbox_client, streamed):
    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:chat", args=[agent_id])).content.decode()
    streamed(sandbox_client, agent_id, {"message": "Please fail now", "idempotency_key": form_keys(page)[0]})
    op = TrackedOperation.objects.get(kind="agents.invocation")
    assert op.is_final and op.status == "failed"
    assert "could not finish" in op.snapshot["error"]["message"]


# --- odd and broken shapes (respx) ---------------------------------------------------------


def test_the_conversation_id_from_started_is_kept_when_the_result_leaves_it_out(
    agent_routes, remote, logged_in_client, streamed
):
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=sse(
            ("started", {"thread_id": THREAD_ID}),
            ("result", {"status": "completed", "answer": "Forty a month.", "run_id": RUN_ID}),
        )
    )
    sent = streamed(logged_in_client, AGENT_ID, {"message": "Price?", "payload": "", "idempotency_key": "k" * 32})

    request = runs.calls.last.request
    assert json.loads(request.content) == {"message": "Price?", "stream": True}
    assert request.headers["Idempotency-Key"] == "k" * 32 and request.headers["Accept"] == "text/event-stream"
    op = TrackedOperation.objects.get()
    assert op.snapshot["thread_id"] == THREAD_ID and op.context["run_id"] == RUN_ID and op.status == "completed"
    assert sent.url.endswith(f"?sent={op.pk}")
    assert logged_in_client.get(sent.url).url.endswith(f"?thread={THREAD_ID}")


def test_a_refusal_when_the_stream_opens_stops_the_row_in_words(agent_routes, remote, logged_in_client, streamed):
    remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=error(402, "insufficient_credits", "Top up."))
    streamed(logged_in_client, AGENT_ID, {"message": "Hello", "idempotency_key": "k" * 32})
    op = TrackedOperation.objects.get()
    assert op.is_final and op.status == TrackedOperation.STATUS_STOPPED
    assert "credits" in op.last_error.lower() and op.last_error_request_id == "req_402"


def test_a_stream_that_breaks_hands_the_row_to_the_poller_which_asks_again_with_the_same_key(
    agent_routes, remote, logged_in_client, streamed
):
    from dashboard.live.services import operation_poll

    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        side_effect=[
            sse(("started", {"thread_id": THREAD_ID})),  # ends without a result
            sse(("started", {"thread_id": THREAD_ID}), ("result", {"status": "completed", "answer": "Done."})),
        ]
    )
    streamed(logged_in_client, AGENT_ID, {"message": "Hello", "idempotency_key": "k" * 32})
    op = TrackedOperation.objects.get()
    assert not op.is_final and op.lease_token == "" and op.context["thread_id"] == THREAD_ID
    assert "ended early" in op.last_error

    op = operation_poll(operation_id=op.pk)
    assert op.is_final and op.snapshot["answer"] == "Done."
    first, second = (call.request for call in runs.calls)
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"] == "k" * 32
    assert first.content == second.content


def test_a_first_message_without_its_conversation_yet_is_continued_after(
    agent_routes, remote, api_key, user, logged_in_client
):
    """The page of a message whose `started` has not come yet: the form carries
    the message, and the next one joins its conversation once known."""
    from agents.services import invocation_start

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agents.services.transaction.on_commit", lambda callback: None)  # no worker yet
        op = invocation_start(key=api_key, agent_id=AGENT_ID, message="Hi", thread_id=None, idempotency_key="k" * 32)
    page = parse(logged_in_client.get(reverse("agents:chat", args=[AGENT_ID]) + f"?sent={op.pk}").content)
    assert one(page, "input[name=after]")["value"] == str(op.pk)
    assert texts(page, ".chat-you") and "Hi" in text_of(one(page, ".chat-you"))
    # The status region is watched every second: a pushed answer shows within 1.5 s.
    assert one(page, ".live-op")["hx-trigger"] == "every 1s"

    TrackedOperation.objects.filter(pk=op.pk).update(context={**op.context, "thread_id": THREAD_ID})
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=sse(("result", {"status": "completed"})))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agents.services.transaction.on_commit", lambda callback: callback())
        patch.setattr("agents.services._send_stream_task", lambda *args: None)
        sent = logged_in_client.post(
            reverse("agents:chat_send", args=[AGENT_ID]),
            {"message": "More", "after": str(op.pk), "idempotency_key": "j" * 32},
        )
    assert sent.url.endswith(f"?thread={THREAD_ID}")
    assert TrackedOperation.objects.get(remote_id="j" * 32).context["thread_id"] == THREAD_ID
    assert runs.call_count == 0  # nothing sent by the web request: the worker streams it
    # Another person's message number is not followed.
    assert logged_in_client.get(reverse("agents:chat", args=[AGENT_ID]) + "?sent=999999").status_code == 200


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ('{"a": NaN}', "NaN"),
        ('{"a": Infinity}', "Infinity"),
        ('{"a": 1,}', "line 1"),
        ("[" * 40 + "]" * 40, "deep"),
        ('{"a": "\\ud800"}', "surrogate"),
    ],
)
def test_a_bad_event_is_refused_in_place_with_what_was_typed(
    agent_routes, remote, logged_in_client, typed, says, streamed
):
    runs = remote.post(f"/v1/agents/{AGENT_ID}/runs")
    body = streamed(logged_in_client, AGENT_ID, {"message": "", "payload": typed, "idempotency_key": "k" * 32})
    page = parse(body.content)
    refusal = text_of(one(page, ".has-error .field-error"))
    assert says.lower() in refusal.lower()
    assert textarea_value(one(page, "textarea[name=payload]")) == typed
    assert runs.call_count == 0 and not TrackedOperation.objects.exists()


def test_threads_are_gathered_from_the_runs_latest_first(remote, api_key, logged_in_client):
    from tests.agents.support import full_agent

    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent()))

    def run(number: int, thread: str | None, message: str, status: str = "completed") -> dict:
        return {
            "id": f"cccccccc-0000-4000-8000-00000000000{number}",
            "thread_id": thread,
            "status": status,
            "event": {"kind": "chat", "message": message},
            "answer": {"text": "an object, shown as JSON"} if number == 3 else f"Answer {number}",
            "created_at": f"2026-11-21T09:0{number}:00Z",
        }

    listed = remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            200,
            json={
                "runs": [
                    run(4, OTHER_THREAD, "Second question", "waiting"),
                    run(3, THREAD_ID, "Follow-up"),
                    run(2, None, "A schedule woke it"),
                    run(1, THREAD_ID, "First question"),
                ],
                "next_cursor": "older",
            },
        )
    )
    page = parse(logged_in_client.get(reverse("agents:threads", args=[AGENT_ID])).content)
    assert texts(page, ".thread__open") == ["Second question", "First question"]
    assert [text_of(meta).split(" · ")[0] for meta in select(page, ".thread__meta")] == ["1 message", "2 messages"]
    assert listed.calls.last.request.url.params["limit"] == "100"
    assert one(page, "a[rel=next]")["href"].endswith("cursor=older")
    assert "None" not in text_of(one(page, "#thread-list"))
    assert re.search(r"thread=" + THREAD_ID, one(page, ".thread:nth-of-type(2) a")["href"])


def test_stream_tasks_go_to_their_own_queue_when_one_is_named(
    agent_routes, api_key, settings, django_capture_on_commit_callbacks
):
    from agents.services import invocation_start

    sent = []
    settings.AGENTS_STREAM_QUEUE = "agents.streams"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "agents.tasks.stream_invocation.apply_async", lambda args, **options: sent.append((args, options))
        )
        with django_capture_on_commit_callbacks(execute=True):
            op = invocation_start(
                key=api_key, agent_id=AGENT_ID, message="Hi", thread_id=None, idempotency_key="k" * 32
            )
    op.refresh_from_db()
    # Through the outbox: the row's id and lease token, to the named queue.
    assert [(list(args), options["queue"]) for args, options in sent] == [([op.pk, op.lease_token], "agents.streams")]
    assert op.lease_until is not None  # held for the stream: the batch poller leaves it alone


def test_the_chat_says_whose_conversation_it_is_and_offers_a_new_one_after_the_first_message(
    agent_routes, remote, api_key, user, other_user, client
):
    from agents.services import invocation_start
    from dashboard.keys.testing import stored_api_key
    from tests.agents.support import SECRET

    other_user.first_name, other_user.last_name = "Bob", "Builder"
    other_user.save()
    teammate_key = stored_api_key(user=other_user, secret=SECRET, workspace_name="Acme Marketing")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agents.services.transaction.on_commit", lambda callback: None)  # no worker yet
        op = invocation_start(
            key=teammate_key, agent_id=AGENT_ID, message="Hi", thread_id=None, idempotency_key="k" * 32
        )
    client.force_login(other_user)
    fresh = parse(client.get(reverse("agents:chat", args=[AGENT_ID])).content)
    assert text_of(one(fresh, "#chat-heading")) == "Start a conversation"
    assert select(fresh, ".chat-owner") == []

    # The first message's page (its conversation's id not back yet) already continues it.
    page = parse(client.get(reverse("agents:chat", args=[AGENT_ID]) + f"?sent={op.pk}").content)
    assert text_of(one(page, "#chat-heading")) == "Continue the conversation"
    assert "New conversation" in texts(page, ".page-header__actions a")
    assert text_of(one(page, ".chat-owner")).startswith("Your conversation with ")

    TrackedOperation.objects.filter(pk=op.pk).update(context={**op.context, "thread_id": THREAD_ID})
    thread_url = reverse("agents:chat", args=[AGENT_ID]) + f"?thread={THREAD_ID}"
    mine = parse(client.get(thread_url).content)
    assert text_of(one(mine, ".chat-owner")).startswith("Your conversation with ")
    # A teammate holding a key of the workspace sees whose it is, by name.
    client.force_login(user)
    theirs = parse(client.get(thread_url).content)
    assert text_of(one(theirs, ".chat-owner")).startswith("Bob Builder’s conversation with ")
    assert text_of(one(theirs, "#chat-heading")) == "Continue the conversation"
