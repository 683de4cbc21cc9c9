"""The stepped-job engine (dashboard/jobs): the five areas' kinds plug in by
name, messages sent under the old task names hand over to it, the watch is
on beat, and a step's short lease is renewed while its chunk works (so a
slow chunk is never taken over, and a killed one lets go within seconds).
Each kind's own tests lose its step messages and see the watch finish it
(tests/objects, tests/agents, tests/studio)."""

from __future__ import annotations

import time
import uuid

import pytest
from django.db import connection

from dashboard.jobs import engine
from dashboard.jobs.kinds import JobKind, Step, job_kind, register_job_kind, unregister_job_kind
from objects.models import ObjectJob

KINDS = {
    "objects.job_step": "objects.job",
    "objects.tally_step": "objects.tally",
    "agents.approval_batch_step": "agents.approval_batch",
    "studio.zip_step": "studio.zip",
}
# Kinds born on the engine: no task of an older release hands over to them.
NEW_KINDS = {"agents.rerun_batch"}


def test_every_area_plugs_its_kinds_in_through_its_area():
    from dashboard.frame.areas import areas

    declared = {kind.name for area in areas() for kind in area.job_kinds}
    assert declared == set(KINDS.values()) | NEW_KINDS
    assert {job_kind(name).name for name in declared} == declared


@pytest.mark.parametrize(("old_name", "kind"), KINDS.items())
def test_a_step_message_sent_before_the_upgrade_hands_over_to_the_engine(monkeypatch, old_name, kind):
    from dashboard.celery import app

    app.loader.import_default_modules()
    ran: list[tuple[str, int]] = []
    monkeypatch.setattr(engine, "job_step", lambda name, job_id: ran.append((name, job_id)) or "done")
    app.tasks[old_name].run("7")  # an id as a message from the old release carries it
    assert ran == [(kind, 7)]


def test_one_step_task_and_one_watch_on_beat():
    from dashboard.celery import app

    app.loader.import_default_modules()
    assert {"jobs.step", "jobs.watch"} <= set(app.tasks)
    assert app.conf.beat_schedule["jobs.watch"]["task"] == "jobs.watch"
    assert "objects.jobs_watch" not in app.conf.beat_schedule


@pytest.fixture
def slow_kind(settings):
    """A kind whose chunk waits until its lease was renewed (at most 10 s)."""
    settings.JOBS_LEASE_SECONDS = 0.3
    seen: dict[str, object] = {}

    def chunk(job):
        first = ObjectJob.objects.values_list("lease_until", flat=True).get(pk=job.pk)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = ObjectJob.objects.values_list("lease_until", flat=True).get(pk=job.pk)
            if now > first:
                seen["renewed"] = True
                break
            time.sleep(0.02)
        return Step(done=True)

    kind = register_job_kind(
        JobKind(name="test.slow", model=ObjectJob, chunk=chunk, active=ObjectJob.ACTIVE, done="done", stopped="stopped")
    )
    yield kind, seen
    unregister_job_kind(kind.name)


def test_a_chunk_that_takes_longer_than_the_lease_keeps_it_renewed(
    transactional_db, user, api_key, slow_kind, monkeypatch
):
    kind, seen = slow_kind
    monkeypatch.setattr(engine, "send_step", lambda name, job_id, countdown=None: None)
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(), owner_key=api_key, started_by=user, workspace_id=api_key.workspace_id,
        object_key="deals", kind=ObjectJob.KIND_EDIT, title="slow", status=ObjectJob.RUNNING,
    )  # fmt: skip
    assert engine.job_step(kind.name, job.pk) == "done"
    assert seen == {"renewed": True}  # renewed on the keeper's own connection while the chunk ran
    job.refresh_from_db()
    assert (job.lease_token, job.lease_until) == ("", None)  # given back at the end
    connection.close()


def test_the_watch_costs_one_query_a_kind_when_nothing_is_lost(db, django_assert_num_queries):
    from dashboard.jobs.kinds import job_kinds

    with django_assert_num_queries(len(job_kinds())):
        assert engine.jobs_watch() == 0
