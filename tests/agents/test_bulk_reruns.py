"""Bulk reruns against the real sandbox over HTTP, the job's steps run in
this thread: the 50 runs of an agent that failed today are listed on the
confirmation (its remote calls counted), rerun as one job while every
rerun's first answer is lost (a 502 after the sandbox made the run), and
the sandbox ends with exactly 50 new runs, one per key; a double submit is
the same job; the progress poll answers 204 unchanged and 286 at the end."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from agents import bulk_reruns
from agents.models import RerunBatch, RerunBatchItem
from dashboard.api import ServiceClient
from dashboard.api.client import shared_http_client
from dashboard.api.testing import RemoteCallCounter
from dashboard.jobs import engine
from dashboard.keys.testing import store_sandbox_key
from dashboard.live.models import TrackedOperation
from tests.html import one, parse, select, text_of

pytestmark = pytest.mark.django_db

CHAT_BRIEF = "Answer questions about our products and pricing in chat"
FAILED = 50


@pytest.fixture
def steps(monkeypatch) -> list[int]:
    """The job's step messages, run by `drain` in this thread (a stand-in for the worker)."""
    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: sent.append(job_id))
    return sent


def drain(sent: list[int], limit: int = 500) -> int:
    taken = 0
    while sent and taken < limit:
        RerunBatch.objects.update(lease_until=None)  # a wait's countdown has passed
        engine.job_step(bulk_reruns.KIND, sent.pop(0))
        taken += 1
    assert not sent, "the job never ended"
    return taken


@pytest.fixture
def failing_agent(sandbox, settings, user, logged_in_client):
    """An agent of its own with 50 failed runs today (a message with "fail"
    fails in the sandbox) and one that completed."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    store_sandbox_key(user, service, sandbox.demo_key)
    agent = service.post("/v1/agents", json={"message": CHAT_BRIEF})["agent"]
    for number in range(FAILED):
        service.post(f"/v1/agents/{agent['id']}/runs", json={"message": f"Please fail, order {number}"})
    service.post(f"/v1/agents/{agent['id']}/runs", json={"message": "What does the Pro plan cost?"})
    return {"service": service, "agent": agent}


def runs_of(service: ServiceClient, agent_id: str) -> list[dict]:
    found, cursor = [], None
    while True:
        page = service.page(f"/v1/agents/{agent_id}/runs", params={"limit": 100, "cursor": cursor}, item_key="runs")
        found.extend(page.items)
        if not page.next_cursor:
            return found
        cursor = page.next_cursor


@pytest.fixture
def lost_answers(monkeypatch):
    """Every rerun's first send reaches the sandbox (which makes the run) and
    its answer is lost: the console gets a 502 and must retry with the same key."""
    http = shared_http_client()
    real_send = http.send
    seen: dict[str, int] = {}

    def send(request: httpx.Request, **kwargs):
        response = real_send(request, **kwargs)
        key = request.headers.get("Idempotency-Key", "")
        if request.method == "POST" and request.url.path.endswith("/runs") and key:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 1:
                response.read()
                return httpx.Response(
                    502, json={"error": {"type": "server_error", "message": "Bad gateway"}}, request=request
                )
        return response

    monkeypatch.setattr(http, "send", send)
    return seen


def test_50_failed_runs_rerun_under_lost_answers_make_exactly_50_new_runs(
    failing_agent, logged_in_client, steps, lost_answers
):
    service, agent = failing_agent["service"], failing_agent["agent"]
    address = reverse("agents:runs_rerun_failed") + f"?agent={agent['id']}&since=24h"
    with RemoteCallCounter() as calls:
        page = parse(logged_in_client.get(address).content)
    # The agents, then this agent's failed runs: one page of 100 holds all 50.
    assert calls.count == 2
    assert text_of(one(page, "#rerun-failed-count")).startswith("50 runs failed in the last 24 hours")
    form = one(page, "form[action$='/rerun-failed/start']")
    fields = {
        item["name"]: item.get("value", "") for item in select(form, "input[type=hidden]") if item["name"] != "run"
    }
    picked = [item["value"] for item in select(form, "input[name=run]")]
    assert len(picked) == FAILED
    before = len(runs_of(service, agent["id"]))
    assert before == FAILED + 1

    response = logged_in_client.post(reverse("agents:runs_rerun_failed_start"), {**fields, "run": picked})
    batch = RerunBatch.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("agents:rerun_batch", args=[batch.pk])
    drain(steps)

    batch.refresh_from_db()
    assert batch.status == RerunBatch.DONE, batch.message
    items = list(batch.items.all())
    assert [item.outcome for item in items] == [RerunBatchItem.SENT] * FAILED
    # Each rerun's key was sent twice (the first answer lost), and the sandbox made one run per key.
    assert len(lost_answers) == FAILED and set(lost_answers.values()) == {2}
    assert {bulk_reruns.rerun_key(batch, item.run_id) for item in items} == set(lost_answers)
    after = runs_of(service, agent["id"])
    assert len(after) == before + FAILED
    # The new runs were woken by exactly what woke the failed ones.
    new_messages = sorted(run["event"]["message"] for run in after[:FAILED])
    assert new_messages == sorted(f"Please fail, order {number}" for number in range(FAILED))
    assert TrackedOperation.objects.filter(remote_id__in=lost_answers).count() == FAILED

    # The same form again (a double submit) is the same job: nothing more is sent.
    logged_in_client.post(reverse("agents:runs_rerun_failed_start"), {**fields, "run": picked})
    assert RerunBatch.objects.count() == 1 and not steps
    assert len(runs_of(service, agent["id"])) == before + FAILED


def test_the_progress_poll_is_204_unchanged_and_286_once_every_new_run_ended(failing_agent, logged_in_client, steps):
    service, agent = failing_agent["service"], failing_agent["agent"]
    one_failed = next(run for run in runs_of(service, agent["id"]) if run["status"] == "failed")
    form = parse(logged_in_client.get(reverse("agents:runs_rerun_failed") + f"?agent={agent['id']}").content)
    key = one(form, "form[action$='/rerun-failed/start'] input[name=idempotency_key]")["value"]
    logged_in_client.post(
        reverse("agents:runs_rerun_failed_start"),
        {"agent": agent["id"], "idempotency_key": key, "run": [one_failed["id"]]},
    )
    batch = RerunBatch.objects.get()
    assert batch.items.count() == 1  # only what the confirmation's form named
    drain(steps)
    batch.refresh_from_db()
    status = reverse("agents:rerun_batch_status", args=[batch.pk])
    page = parse(logged_in_client.get(reverse("agents:rerun_batch", args=[batch.pk])).content)
    head = text_of(one(page, ".approval-batch__head"))
    assert "Rerunning 1 failed run" in head and "1 sent again" in head
    version = bulk_reruns.batch_version(batch)
    assert logged_in_client.get(status, {"v": version}, HTTP_HX_REQUEST="true").status_code == 204
    # The new run ends (the live loop reads it): the poll answers once more, final.
    TrackedOperation.objects.filter(pk=batch.items.get().sent_id).update(status="failed", is_final=True)
    final = logged_in_client.get(status, {"v": version}, HTTP_HX_REQUEST="true")
    assert final.status_code == 286
    assert "New run failed" in text_of(one(parse(final.content), ".approval-batch__items"))


def test_nothing_failed_in_the_window_says_so_and_offers_no_button(sandbox, settings, user, logged_in_client):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    store_sandbox_key(user, service, sandbox.demo_key)
    agent = service.post("/v1/agents", json={"message": CHAT_BRIEF})["agent"]
    service.post(f"/v1/agents/{agent['id']}/runs", json={"message": "What does the Pro plan cost?"})
    page = parse(logged_in_client.get(reverse("agents:runs_rerun_failed") + f"?agent={agent['id']}").content)
    assert "No run of agent" in text_of(one(page, "#rerun-failed-none"))
    assert not select(page, "form[action$='/rerun-failed/start']")
