"""A bulk job through a real broker: the first step sent to Redis is picked
up by a real Celery worker, and each step sends the next until the job is
done (bounded chunks of `OBJECTS_JOB_CHUNK` writes, no sleeping)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from dashboard.jobs import engine
from objects import jobs
from objects.models import ObjectJob
from tests.objects.jobs_support import edit_job
from tests.objects.records_fixtures import OBJECT_KEY, record
from tests.workers import wait_for


@pytest.mark.redis
def test_a_job_runs_chunk_after_chunk_on_a_real_worker(transactional_db, remote, user, api_key, settings, solo_worker):
    import dashboard.jobs.tasks  # noqa: F401 - the worker needs the engine's step task registered

    settings.OBJECTS_JOB_CHUNK = 2
    ids = [f"rec-{n}" for n in range(5)]
    patched = remote.patch(url__regex=rf"/v1/objects/{OBJECT_KEY}/records/rec-\d").mock(
        return_value=httpx.Response(200, json=record("rec", "R"))
    )
    job = edit_job(user, api_key, ids=ids, object_key=OBJECT_KEY)

    engine.send_step(jobs.KIND, job.pk)
    wait_for(lambda: ObjectJob.objects.filter(pk=job.pk, status=ObjectJob.DONE).exists())

    job.refresh_from_db()
    assert (job.status, job.processed, job.succeeded) == ("done", 5, 5)
    keys = [call.request.headers["Idempotency-Key"] for call in patched.calls]
    assert keys == [str(uuid.uuid5(job.uid, f"edit:{i}")) for i in ids]
