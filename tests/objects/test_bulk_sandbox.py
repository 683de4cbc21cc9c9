"""Bulk delete and a resumed import against the real sandbox over HTTP (no
browser), the job's steps run in this thread: every matching record goes
through the dry run and the job, and a job whose chunk is done again (a
redelivered task) writes nothing twice, counted in the sandbox's own store."""

from __future__ import annotations

import json

import pytest

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from objects.models import ImportProblem, JobItem, ObjectJob
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import running_sandbox
from tests.html import parse, select
from tests.objects.jobs_support import drain, run_jobs_inline

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sandbox():
    """A sandbox of this module's own: the objects these tests make never
    crowd the shared sandbox's first page of objects (other tests look there)."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def deals(sandbox, settings, logged_in_client, user, tmp_path):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.OBJECTS_JOB_CHUNK = 4
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    for i in range(10):
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"key": obj["key"], "object": obj, "service": service}


def count(sandbox, obj) -> int:
    return sandbox.store.count("record", where={"object_id": obj["id"]})


def delete_matching(client, object_key: str, query: str) -> tuple[str, int]:
    """The bulk delete of every record matching `query`: its dry run's count, then started."""
    data = {"scope": "filter", "query": query, "action": "delete", "step": "preview"}
    url = f"/objects/{object_key}/bulk/"
    html = parse(client.post(url, data).content)
    start = {
        **data,
        "step": "start",
        "checked": select(html, "input[name=checked]")[0]["value"],
        "idempotency_key": select(html, "input[name=idempotency_key]")[0]["value"],
    }
    return select(html, ".dry-run__count strong")[0].get_text(), client.post(url, start).status_code


def test_bulk_delete_of_every_record_matching_the_filter(deals, sandbox, logged_in_client, monkeypatch):
    sent = run_jobs_inline(monkeypatch)
    lost = next(
        o["id"] for f in deals["object"]["fields"] if f["key"] == "status" for o in f["options"] if o["label"] == "Lost"
    )
    # Deals 0, 3, 6 and 9 are Lost.
    assert delete_matching(logged_in_client, deals["key"], f"f.status={lost}") == ("4", 302)
    drain(sent)
    job = ObjectJob.objects.get()
    assert (job.status, job.total, job.succeeded, job.failed) == ("done", 4, 4, 0)
    assert count(sandbox, deals["object"]) == 6
    left = deals["service"].get(f"/v1/objects/{deals['key']}/records", params={"filter": json.dumps({"status": lost})})
    assert left["data"] == []

    # The same job again (its last chunk redelivered): the service replays, nothing is deleted twice.
    job.items.update(state=JobItem.PENDING)
    ObjectJob.objects.filter(pk=job.pk).update(status=ObjectJob.RUNNING, processed=0, succeeded=0)
    sent.append(job.pk)
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.succeeded) == ("done", 4)
    assert set(job.items.values_list("state", flat=True)) == {JobItem.DONE}  # replayed, not "already deleted"
    assert count(sandbox, deals["object"]) == 6


def test_bulk_delete_over_a_filter_the_console_checks_deletes_only_its_matches(
    deals, sandbox, logged_in_client, monkeypatch
):
    """Seats > 20 is no exact filter: the service lists every record, the
    console keeps deals 7, 8 and 9 (21, 24, 27 seats) in the dry run and the job."""
    sent = run_jobs_inline(monkeypatch)
    assert delete_matching(logged_in_client, deals["key"], "op.seats=gt&f.seats=20") == ("3", 302)
    drain(sent)
    job = ObjectJob.objects.get()
    assert (job.status, job.total, job.succeeded) == ("done", 3, 3)
    left = deals["service"].get(f"/v1/objects/{deals['key']}/records", params={"limit": 100})["data"]
    assert sorted(r["values"]["seats"] for r in left) == [0, 3, 6, 9, 12, 15, 18]


def test_an_import_resumed_after_its_worker_died_writes_each_row_once(
    deals, sandbox, logged_in_client, monkeypatch, tmp_path
):
    sent = run_jobs_inline(monkeypatch)
    source = tmp_path / "new.csv"
    source.write_text(
        "name,Seats,Phone\n" + "".join(f"New {n},{n},+1 555 {n:04d}\n" for n in range(1, 11)) + "Bad,x,\n",
        encoding="utf-8",
    )
    with source.open("rb") as handle:
        response = logged_in_client.post(f"/objects/{deals['key']}/import/", {"file": handle})
    job = ObjectJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/objects/imports/{job.pk}/columns/"
    assert job.total == 11 and job.params["mapping"] == {"0": "name", "1": "seats", "2": "phone"}
    logged_in_client.post(f"/objects/imports/{job.pk}/columns/", {"col_0": "name", "col_1": "seats", "col_2": "phone"})
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.processed, job.failed) == ("checked", 11, 1)
    assert count(sandbox, deals["object"]) == 10  # the dry run wrote nothing

    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    job_step_once = sent.pop(0)
    drain([job_step_once])  # one chunk: rows 1-4
    job.refresh_from_db()
    assert (job.position_row, count(sandbox, deals["object"])) == (4, 14)
    # The worker died after writing rows 5-8 but before saving where it was:
    # the redelivered step sends rows 5-8 again with the same keys.
    saved = (job.position_row, job.position_byte, job.processed, job.succeeded)
    drain([job_step_once])
    ObjectJob.objects.filter(pk=job.pk).update(
        position_row=saved[0], position_byte=saved[1], processed=saved[2], succeeded=saved[3], lease_until=None
    )
    sent.clear()
    sent.append(job.pk)
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.succeeded, job.failed) == ("done", 10, 1)
    assert count(sandbox, deals["object"]) == 20  # 10 rows, each written once
    problem = ImportProblem.objects.get(job=job)
    assert (problem.row_number, problem.stage, problem.fields) == (11, "check", "seats")

    report = logged_in_client.get(f"/objects/jobs/{job.pk}/problems.csv")
    lines = b"".join(report.streaming_content).decode("utf-8-sig").splitlines()
    assert lines == ["Row,name,Seats,Phone,Problem,Fields,Request id", "11,Bad,x,,Seats: Enter a number.,seats,"]
