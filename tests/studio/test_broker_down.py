"""A Studio turn started while the broker is down (a closed port): the turn
is started at the service once, the page says so and names the broker, a
resend of the same form is the same turn, and its follower runs once the
broker is back (the outbox's sweeper). Against the real sandbox."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from dashboard.outbox.models import OutboxMessage
from sandbox.content_apps import VIDEO_SHOT_SECONDS
from studio.models import AppRun
from tests.html import one, parse, select, text_of
from tests.live.support import TURN_ID, store_key


def test_a_turn_started_while_the_broker_is_down_is_kept_and_followed_once_it_is_back(
    db, sandbox, settings, user, client, broker_down, writes_seen, django_capture_on_commit_callbacks
):
    settings.SERVICE_BASE_URL = sandbox.base_url
    store_key(user, sandbox.demo_key)
    client.force_login(user)
    home = parse(client.get(reverse("studio:index")).content)
    key = one(home, "#turn-form input[name=idempotency_key]")["value"]
    message = f"Write a report on our Q3 newsletter results ({new_idempotency_key()})"
    form = {"studio": "document", "message": message, "idempotency_key": key}

    with django_capture_on_commit_callbacks(execute=True):
        sent = client.post(reverse("studio:start"), form)
    assert sent.status_code == 302  # no server error after the remote write
    op = TrackedOperation.objects.get(kind="studio.turn")
    assert sent.url == reverse("studio:turn", args=[op.pk])
    paused = one(parse(client.get(sent.url).content), ".live-paused")
    assert paused["data-pause-cause"] == "broker"
    assert "work started" in text_of(paused) and "broker" in text_of(paused)

    # The person sends the same form again: the same turn, the same key, one turn at the service.
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(reverse("studio:start"), form)
    assert again.status_code == 302 and again.url == sent.url
    assert len([turn for turn in sandbox.store.list("turn") if turn.get("message") == message]) == 1
    assert set(writes_seen.keys("/v1/studio/")) == {key}
    assert OutboxMessage.objects.filter(task_name="studio.follow_turn").exists()

    assert broker_down.back() >= 1  # the sweeper sends the follower; it runs inline here
    op.refresh_from_db()
    assert op.context["following"] == "done" and (op.status, op.is_final) == ("completed", True)
    assert not OutboxMessage.objects.exists()
    assert select(parse(client.get(sent.url).content), ".live-paused") == []
    assert len([turn for turn in sandbox.store.list("turn") if turn.get("message") == message]) == 1


def test_a_content_app_run_while_the_broker_is_down_is_one_job_and_names_the_broker_once_stale(
    db, sandbox, settings, user, client, broker_down, writes_seen, django_capture_on_commit_callbacks
):
    """A video shot is followed by the poller alone (no task is sent for it):
    the run is kept, a resend is the same run, and while no poll runs the
    page names the broker as the cause; once it is back the poll ends it."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    key = store_key(user, sandbox.demo_key)
    client.force_login(user)
    project = sandbox.store.list("video_project")[0]
    url = reverse("studio:app", args=["video", "generate"])
    page = parse(client.get(url, {"project_id": project["id"]}).content)
    data = {
        "prompt": f"A slow dolly shot across the shop ({new_idempotency_key()})",
        "project_id": project["id"],
        "idempotency_key": one(page, '#app-form input[name="idempotency_key"]')["value"],
    }
    shots = len(sandbox.store.list("video_shot"))

    with django_capture_on_commit_callbacks(execute=True):
        sent = client.post(url, data)
        again = client.post(url, data)
    assert sent.status_code == again.status_code == 302 and sent.url == again.url
    assert set(writes_seen.keys("/apps/")) == {data["idempotency_key"]}
    assert len(sandbox.store.list("video_shot")) == shots + 1
    op = AppRun.objects.get(owner_key=key).operation
    TrackedOperation.objects.filter(pk=op.pk).update(last_polled_at=timezone.now() - timedelta(seconds=45))
    paused = one(parse(client.get(sent.url).content), ".live-paused")
    assert paused["data-pause-cause"] == "broker" and "broker" in text_of(paused)

    for _ in range(2):  # the broker back: the poller's own step follows the shot
        sandbox.advance(service_seconds=VIDEO_SHOT_SECONDS / 2 + 1)
        operation_poll(operation_id=op.pk)
    op.refresh_from_db()
    assert op.is_final and op.status == "complete"
    assert len(sandbox.store.list("video_shot")) == shots + 1


@pytest.mark.parametrize(
    ("failure", "keeps_key"),
    [
        (httpx.Response(502, json={"error": {"type": "server_error", "message": "Bad gateway"}}), True),
        (httpx.ReadTimeout("no answer"), True),
        (httpx.Response(422, json={"error": {"type": "unprocessable", "message": "message: too vague"}}), False),
    ],
)
def test_a_start_whose_outcome_is_unknown_keeps_its_key_and_a_resend_is_the_same_turn(
    db, remote, api_key, logged_in_client, failure, keeps_key, django_capture_on_commit_callbacks
):
    home = parse(logged_in_client.get(reverse("studio:index")).content)
    key = one(home, "#turn-form input[name=idempotency_key]")["value"]
    answered = httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=f'event: turn\ndata: {{"id": "{TURN_ID}", "status": "building"}}\n\n'.encode(),
    )
    service_up = False

    def answer(request):
        if service_up:
            return answered
        if isinstance(failure, Exception):
            raise failure
        return failure

    turns = remote.post("/v1/studio/website/turns").mock(side_effect=answer)
    form = {"studio": "website", "message": "A landing page for the spring sale", "idempotency_key": key}

    failed = logged_in_client.post(reverse("studio:start"), form)
    service_up = True
    assert failed.status_code < 500
    shown = one(parse(failed.content), "#turn-form input[name=idempotency_key]")["value"]
    assert (shown == key) is keeps_key
    with django_capture_on_commit_callbacks(execute=False):
        sent = logged_in_client.post(reverse("studio:start"), {**form, "idempotency_key": shown})
    assert sent.status_code == 302 and TrackedOperation.objects.count() == 1
    keys = [call.request.headers["Idempotency-Key"] for call in turns.calls]
    assert set(keys) == ({key} if keeps_key else {key, shown})
