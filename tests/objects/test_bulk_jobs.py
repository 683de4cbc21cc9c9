"""Bulk jobs, imports and kanban moves against a mocked service (respx): the
error paths. A 422 stays on its record, a 429 waits (never sleeps) for
Retry-After, a 401 stops the job until Resume, a retried job sends the same
Idempotency-Keys, the progress poll costs one query when nothing changed and
ends with 286, and a read-only member is offered and allowed none of it."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from django.urls import reverse

from dashboard.jobs import engine
from objects import jobs
from objects.models import JobItem, ObjectJob
from tests.html import parse, select
from tests.jobs.support import finish_by_the_watch
from tests.keys.support import me_body
from tests.objects import jobs_support
from tests.objects.jobs_support import drain
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, error_body, page, record
from tests.objects.support import store_api_key

pytestmark = pytest.mark.django_db

IDS = ["rec-1", "rec-2", "rec-3"]
RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


@pytest.fixture
def sent(monkeypatch):
    """send_step records (job id, countdown) instead of reaching a broker."""
    calls: list[tuple[int, float | None]] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: calls.append((job_id, countdown)))
    return calls


def edit_job(user, api_key, *, ids=IDS) -> ObjectJob:
    return jobs_support.edit_job(user, api_key, ids=ids, object_key=OBJECT_KEY)


def test_a_refusal_stays_on_its_record_and_a_429_waits_for_retry_after(console, remote, user, api_key, sent):
    job = edit_job(user, api_key)
    ok = remote.patch(f"{RECORDS_PATH}/rec-1").mock(return_value=httpx.Response(200, json=record("rec-1", "A")))
    remote.patch(f"{RECORDS_PATH}/rec-2").mock(
        return_value=httpx.Response(
            422, json=error_body("validation_error", "Status (status) must be one of: Open.", request_id="req_422")
        )
    )
    limited = remote.patch(f"{RECORDS_PATH}/rec-3").mock(
        return_value=httpx.Response(429, headers={"Retry-After": "7"}, json=error_body("rate_limited", "Slow down."))
    )

    engine.job_step(jobs.KIND, job.pk)

    job.refresh_from_db()
    states = dict(job.items.values_list("record_id", "state"))
    assert states == {"rec-1": "done", "rec-2": "failed", "rec-3": "pending"}
    failed = job.items.get(record_id="rec-2")
    assert (failed.message, failed.request_id) == ("Status (status) must be one of: Open.", "req_422")
    assert (job.status, job.processed, job.succeeded, job.failed, job.transient_errors) == ("running", 2, 1, 1, 1)
    assert sent == [(job.pk, 7.0)]  # the next step after Retry-After: the worker never slept
    # One key per record, derived from the job: a retry of this job sends the same.
    assert ok.calls[0].request.headers["Idempotency-Key"] == str(uuid.uuid5(job.uid, "edit:rec-1"))
    assert json.loads(ok.calls[0].request.content) == {"values": {"status": "opt-lost"}}

    # Held until its step is due: a step arriving early (a duplicate) does nothing.
    assert job.lease_until is not None
    engine.job_step(jobs.KIND, job.pk)
    assert len(limited.calls) == 1

    ObjectJob.objects.filter(pk=job.pk).update(lease_until=None)  # Retry-After has passed
    limited.mock(return_value=httpx.Response(200, json=record("rec-3", "C")))
    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert (job.status, job.succeeded, job.failed) == ("done", 2, 1)
    assert limited.calls[-1].request.headers["Idempotency-Key"] == str(uuid.uuid5(job.uid, "edit:rec-3"))

    report = console.get(f"/objects/jobs/{job.pk}/problems.csv")
    lines = b"".join(report.streaming_content).decode("utf-8-sig").splitlines()
    assert lines[1] == "rec-2,,Status (status) must be one of: Open.,req_422"


def test_a_retried_job_sends_the_same_keys(console, remote, user, api_key, sent):
    job = edit_job(user, api_key, ids=["rec-1"])
    route = remote.patch(f"{RECORDS_PATH}/rec-1").mock(return_value=httpx.Response(200, json=record("rec-1", "A")))
    engine.job_step(jobs.KIND, job.pk)
    # The worker died before its result was kept: the chunk is done again.
    job.items.update(state=JobItem.PENDING)
    ObjectJob.objects.filter(pk=job.pk).update(status=ObjectJob.RUNNING)
    engine.job_step(jobs.KIND, job.pk)
    keys = [call.request.headers["Idempotency-Key"] for call in route.calls]
    assert len(keys) == 2 and keys[0] == keys[1]


def test_a_refused_key_stops_the_job_until_resume(console, remote, user, api_key, sent):
    job = edit_job(user, api_key)
    remote.patch(f"{RECORDS_PATH}/rec-1").mock(
        return_value=httpx.Response(401, json=error_body("authentication", "Key revoked.", request_id="req_401"))
    )
    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert job.status == "stopped" and job.resume_status == "running"
    assert "req_401" in job.message and "Key revoked." in job.message
    assert job.items.filter(state="pending").count() == 3

    # Access follows the key: the 401 marked it refused, so the job page shows the refusal, not the job...
    api_key.refresh_from_db()
    assert api_key.refused_request_id == "req_401"
    refused = console.get(f"/objects/jobs/{job.pk}/")
    assert refused.status_code == 401 and not select(parse(refused.content), ".job__actions button")
    # ...until a check of the key succeeds; then the job waits to be resumed.
    remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    console.post(reverse("keys:check", args=[api_key.pk]))
    html = parse(console.get(f"/objects/jobs/{job.pk}/").content)
    assert [b.get_text(strip=True) for b in select(html, ".job__actions button")] == ["Resume", "Cancel"]
    response = console.post(f"/objects/jobs/{job.pk}/run/")
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == "running" and job.message == ""


def test_cancel_ends_the_job_at_its_next_step(console, remote, user, api_key, sent):
    job = edit_job(user, api_key)
    console.post(f"/objects/jobs/{job.pk}/cancel/")
    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.processed == 0
    assert not remote.calls


def test_the_progress_poll_is_one_query_when_unchanged_and_ends_with_286(
    console, user, api_key, sent, django_assert_max_num_queries
):
    job = edit_job(user, api_key)
    first = console.get(f"/objects/jobs/{job.pk}/status/", HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    poll = select(parse(first.content), "[hx-get]")[0]["hx-get"]
    with django_assert_max_num_queries(3):  # session, user, the row
        unchanged = console.get(poll, HTTP_HX_REQUEST="true")
    assert unchanged.status_code == 204 and unchanged.content == b""
    ObjectJob.objects.filter(pk=job.pk).update(status=ObjectJob.DONE)
    final = console.get(poll, HTTP_HX_REQUEST="true")
    assert final.status_code == 286
    assert not select(parse(final.content), "[hx-get]")


def test_someone_elses_job_is_not_found(console, other_user, user, api_key):
    job = edit_job(user, api_key)
    job.started_by = other_user
    job.save()
    assert console.get(f"/objects/jobs/{job.pk}/").status_code == 404


def test_a_dry_run_of_every_record_matching_the_filter(console, remote, user, api_key, sent):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    listed = remote.get(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(
                200,
                json=page(
                    [record("r1", "One", status="opt-open"), record("r2", "Two", status="opt-lost")], next_cursor="c2"
                ),
            ),
            httpx.Response(200, json=page([record("r3", "Three", status="opt-open")])),
        ]
    )
    data = {
        "scope": "filter",
        "query": "f.stage=opt-lead",
        "action": "edit",
        "field": "status",
        "value": "opt-lost",
        "step": "preview",
    }
    html = parse(console.post(f"/objects/{OBJECT_KEY}/bulk/", data).content)
    assert "2 of 3" in select(html, ".dry-run__count")[0].get_text(" ", strip=True)
    assert json.loads(dict(listed.calls[0].request.url.params)["filter"]) == {"stage": "opt-lead"}
    start = [b for b in select(html, "button[name=step]") if b["value"] == "start"][0]
    assert start.get_text(strip=True) == "Start: Set Status to Lost on all deals matching the filter"

    checked = select(html, "input[name=checked]")[0]["value"]
    key = select(html, "input[name=idempotency_key]")[0]["value"]
    response = console.post(
        f"/objects/{OBJECT_KEY}/bulk/", {**data, "step": "start", "checked": checked, "idempotency_key": key}
    )
    job = ObjectJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/objects/jobs/{job.pk}/"
    assert job.status == "collecting" and job.params["filter"] == {"stage": "opt-lead"}
    # The same form sent twice is the same job.
    console.post(f"/objects/{OBJECT_KEY}/bulk/", {**data, "step": "start", "checked": checked, "idempotency_key": key})
    assert ObjectJob.objects.count() == 1

    listed.side_effect = [
        httpx.Response(200, json=page([record("r1", "One"), record("r2", "Two")], next_cursor="c2")),
        httpx.Response(200, json=page([record("r3", "Three")])),
    ]
    patched = remote.patch(url__regex=rf"{RECORDS_PATH}/r\d").mock(
        return_value=httpx.Response(200, json=record("r", "R"))
    )
    drain([job.pk])
    job.refresh_from_db()
    assert (job.status, job.total) == ("running", 3)
    drain([job.pk])
    job.refresh_from_db()
    assert (job.status, job.succeeded) == ("done", 3)
    assert len(patched.calls) == 3


def test_a_value_changed_after_the_dry_run_gets_a_new_dry_run(console, remote, user, api_key, sent):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([record("r1", "One")])))
    data = {"ids": ["r1"], "action": "edit", "field": "status", "value": "opt-lost", "step": "preview"}
    html = parse(console.post(f"/objects/{OBJECT_KEY}/bulk/", data).content)
    checked = select(html, "input[name=checked]")[0]["value"]
    response = console.post(
        f"/objects/{OBJECT_KEY}/bulk/", {**data, "value": "opt-open", "step": "start", "checked": checked}
    )
    assert response.status_code == 200 and not ObjectJob.objects.exists()
    assert select(parse(response.content), ".dry-run__count")


def test_a_kanban_move_refused_answers_the_services_message(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.patch(f"{RECORDS_PATH}/rec-1").mock(
        return_value=httpx.Response(
            422, json=error_body("validation_error", "Stage (stage) is required.", request_id="req_k")
        )
    )
    response = console.post(
        f"/objects/{OBJECT_KEY}/kanban/move/",
        {"record_id": "rec-1", "field": "stage", "option": ""},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 422
    assert response.json() == {"ok": False, "message": "Stage (stage) is required. (request id req_k)"}


def test_a_read_only_member_is_offered_and_allowed_none_of_it(logged_in_client, remote, user):
    key = store_api_key(user)
    key.member_role = "viewer"
    key.save()
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([record("r1", "One", stage="opt-lead")])))
    html = parse(logged_in_client.get(f"/objects/{OBJECT_KEY}/records/").content)
    assert not select(html, "input[name=ids]") and not select(html, "#bulk-form")
    assert not [a for a in select(html, "a") if a.get_text(strip=True) == "Import CSV"]
    board = parse(logged_in_client.get(f"/objects/{OBJECT_KEY}/kanban/").content)
    assert select(board, ".kanban-card") and not select(board, ".kanban-move")
    assert logged_in_client.get(f"/objects/{OBJECT_KEY}/bulk/?ids=r1").status_code == 403
    assert logged_in_client.get(f"/objects/{OBJECT_KEY}/import/").status_code == 403
    moved = logged_in_client.post(f"/objects/{OBJECT_KEY}/kanban/move/", {"record_id": "r1", "field": "stage"})
    assert moved.status_code == 403
    assert not [c for c in remote.calls if c.request.method != "GET"]


def test_the_watch_sends_a_step_to_a_job_nothing_moved(user, api_key, sent):
    from datetime import timedelta

    from django.utils import timezone

    stalled = edit_job(user, api_key)
    waiting = edit_job(user, api_key)
    fresh = edit_job(user, api_key)
    long_ago = timezone.now() - timedelta(minutes=5)
    ObjectJob.objects.filter(pk=stalled.pk).update(updated_at=long_ago)
    # Waiting out a Retry-After: leased until its step is due.
    ObjectJob.objects.filter(pk=waiting.pk).update(
        updated_at=long_ago, lease_until=timezone.now() + timedelta(minutes=1)
    )
    assert engine.jobs_watch() == 1
    assert sent == [(stalled.pk, None)]
    assert fresh.pk not in [job_id for job_id, _ in sent]


def test_the_watch_runs_every_minute_from_beat():
    from dashboard.schedule import beat_schedule

    assert beat_schedule()["jobs.watch"]["task"] == "jobs.watch"


def test_a_job_whose_every_step_message_is_lost_is_finished_by_the_watch(
    console, remote, user, api_key, settings, monkeypatch
):
    settings.OBJECTS_JOB_CHUNK = 1
    for record_id in IDS:
        remote.patch(f"{RECORDS_PATH}/{record_id}").mock(return_value=httpx.Response(200, json=record(record_id, "A")))
    job = edit_job(user, api_key)  # stored, and no step message ever reaches a worker
    assert finish_by_the_watch(monkeypatch, job) == 3  # a record a step, each next message lost too
    job.refresh_from_db()
    assert (job.status, job.processed, job.succeeded) == (ObjectJob.DONE, 3, 3)


def test_a_worker_killed_mid_chunk_lets_go_within_the_short_lease(console, remote, user, api_key, settings, sent):
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.live.leases import lease_take

    for record_id in IDS:
        remote.patch(f"{RECORDS_PATH}/{record_id}").mock(return_value=httpx.Response(200, json=record(record_id, "A")))
    job = edit_job(user, api_key)
    # The step that took this lease was killed mid-chunk: it never gave the lease back.
    assert lease_take(ObjectJob.objects.filter(pk=job.pk), seconds=settings.JOBS_LEASE_SECONDS)
    assert engine.jobs_watch() == 0  # while the lease runs, nobody else takes the job
    soon = timezone.now() + timedelta(seconds=settings.JOBS_LEASE_SECONDS + 1)
    # Well before "nothing moved for a while" (the lost-message rule): the dead holder is what counts.
    assert soon < job.updated_at + timedelta(seconds=settings.JOBS_STALLED_SECONDS)
    assert engine.jobs_watch(now=soon) == 1
    assert sent == [(job.pk, None)]
    ObjectJob.objects.filter(pk=job.pk).update(lease_until=timezone.now())  # by then its lease has run out
    assert engine.job_step(jobs.KIND, job.pk) == ObjectJob.DONE
    job.refresh_from_db()
    assert (job.succeeded, job.lease_token, job.lease_until) == (3, "", None)
