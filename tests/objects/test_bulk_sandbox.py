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


def test_bulk_delete_of_every_record_matching_the_filter(deals, sandbox, logged_in_client, monkeypatch):
    sent = run_jobs_inline(monkeypatch)
    lost = next(
        o["id"] for f in deals["object"]["fields"] if f["key"] == "status" for o in f["options"] if o["label"] == "Lost"
    )
    data = {"scope": "filter", "query": f"f.status={lost}", "action": "delete", "step": "preview"}
    url = f"/objects/{deals['key']}/bulk/"
    html = parse(logged_in_client.post(url, data).content)
    # Deals 0, 3, 6 and 9 are Lost.
    assert select(html, ".dry-run__count strong")[0].get_text() == "4"
    assert len(select(html, ".dry-run__sample tbody tr")) == 4
    assert count(sandbox, deals["object"]) == 10
    start = {
        **data,
        "step": "start",
        "checked": select(html, "input[name=checked]")[0]["value"],
        "idempotency_key": select(html, "input[name=idempotency_key]")[0]["value"],
    }
    assert logged_in_client.post(url, start).status_code == 302
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
    saved = (job.position_row, job.position_byte, job.position_line, job.processed, job.succeeded)
    drain([job_step_once])
    ObjectJob.objects.filter(pk=job.pk).update(
        position_row=saved[0],
        position_byte=saved[1],
        position_line=saved[2],
        processed=saved[3],
        succeeded=saved[4],
        lease_until=None,
    )
    sent.clear()
    sent.append(job.pk)
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.succeeded, job.failed) == ("done", 10, 1)
    assert count(sandbox, deals["object"]) == 20  # 10 rows, each written once
    problem = ImportProblem.objects.get(job=job)
    assert (problem.row_number, problem.line, problem.stage, problem.fields) == (11, 12, "check", "seats")

    report = logged_in_client.get(f"/objects/jobs/{job.pk}/problems.csv")
    lines = b"".join(report.streaming_content).decode("utf-8-sig").splitlines()
    # By the spreadsheet's line (the header is line 1).
    assert lines == ["Line,name,Seats,Phone,Problem,Fields,Request id", "12,Bad,x,,Seats: Enter a number.,seats,"]


def _import(client, sent, object_key: str, path, mapping: dict[str, str], **matching) -> ObjectJob:
    """Upload, map (with the key and mode), the dry run: the job as checked."""
    with path.open("rb") as handle:
        assert client.post(f"/objects/{object_key}/import/", {"file": handle}).status_code == 302
    job = ObjectJob.objects.order_by("-pk").first()
    form = {f"col_{index}": key for index, key in mapping.items()} | matching
    assert client.post(f"/objects/imports/{job.pk}/columns/", form).status_code == 302
    drain(sent)
    job.refresh_from_db()
    assert job.status == ObjectJob.CHECKED
    return job


def test_importing_the_same_file_twice_with_update_makes_no_twins_and_says_so(
    deals, sandbox, logged_in_client, monkeypatch, tmp_path
):
    sent = run_jobs_inline(monkeypatch)
    service, key = deals["service"], deals["key"]
    before = {r["values"]["email"]: r for r in service.get(f"/v1/objects/{key}/records", params={"limit": 50})["data"]}
    source = tmp_path / "buyers.csv"
    # Two rows as the records are, one with new seats, one new buyer; semicolons, as a European spreadsheet writes.
    source.write_text(
        "Full name;E-mail address;Seats\n"
        "Deal 000;buyer0@example.test;0\n"
        "Deal 001;buyer1@example.test;3\n"
        "Deal 002;buyer2@example.test;99\n"
        "Someone new;new@example.test;1\n",
        encoding="utf-8",
    )
    mapping = {"0": "name", "1": "email", "2": "seats"}
    job = _import(logged_in_client, sent, key, source, mapping, match_key="email", match_mode="update")
    assert job.params["mapping"] == mapping and job.params["delimiter"] == ";"
    dry_run = parse(logged_in_client.get(f"/objects/jobs/{job.pk}/").content)
    assert " ".join(select(dry_run, ".dry-run__tally")[0].get_text().split()) == (
        "1 will be created, 1 updated, 2 skipped (2 with no change)."
    )
    assert count(sandbox, deals["object"]) == 10  # the dry run read, wrote nothing

    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.failed) == ("done", 0)
    assert count(sandbox, deals["object"]) == 11
    after = {r["values"]["email"]: r for r in service.get(f"/v1/objects/{key}/records", params={"limit": 50})["data"]}
    assert after["buyer2@example.test"]["values"]["seats"] == 99
    # Only the changed field was sent: the other values stay; unchanged records were not written at all.
    assert after["buyer2@example.test"]["values"]["amount"] == before["buyer2@example.test"]["values"]["amount"]
    for email in ("buyer0@example.test", "buyer1@example.test"):
        assert after[email]["updated_at"] == before[email]["updated_at"]

    # The same file again, as a new import: nothing to write, and the page says so.
    again = _import(logged_in_client, sent, key, source, mapping, match_key="email", match_mode="update")
    page = parse(logged_in_client.get(f"/objects/jobs/{again.pk}/").content)
    assert " ".join(select(page, ".dry-run__tally")[0].get_text().split()) == (
        "0 will be created, 0 updated, 4 skipped (4 with no change)."
    )
    assert "4 rows are already up to date" in page.get_text()
    (import_button,) = [b for b in select(page, "button") if b.get_text(strip=True) == "Import 0 rows"]
    assert import_button.has_attr("disabled")
    logged_in_client.post(f"/objects/jobs/{again.pk}/run/")
    drain(sent)
    done = parse(logged_in_client.get(f"/objects/jobs/{again.pk}/").content)
    assert " ".join(select(done, ".job__tally")[0].get_text().split()).endswith(
        "4 rows were already up to date, 0 created, 0 updated."
    )
    assert count(sandbox, deals["object"]) == 11  # 0 new records


def test_rows_matching_two_records_are_refused_by_line_and_skip_leaves_records_alone(
    deals, sandbox, logged_in_client, monkeypatch, tmp_path
):
    sent = run_jobs_inline(monkeypatch)
    service, key = deals["service"], deals["key"]
    service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Twin", "email": "buyer3@example.test"}})
    source = tmp_path / "skip.csv"
    source.write_text(
        'Name,Email,Notes\nDeal 003,buyer3@example.test,"two\nlines"\nDeal 004,buyer4@example.test,changed\n',
        encoding="utf-8",
    )
    job = _import(
        logged_in_client,
        sent,
        key,
        source,
        {"0": "name", "1": "email", "2": "notes"},
        match_key="email",
        match_mode="skip",
    )
    problem = ImportProblem.objects.get(job=job)
    # The row starts on line 2 (the header is line 1); the quoted newline pushes the next row to line 4.
    assert (problem.line, problem.fields, problem.cells["Email"]) == (2, "email", "buyer3@example.test")
    assert "more than one record has “buyer3@example.test”" in problem.message
    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    job.refresh_from_db()
    assert imports_tally(job) == {"created": 0, "updated": 0, "unchanged": 0, "skipped": 1}
    record = service.get(f"/v1/objects/{key}/records", params={"filter": json.dumps({"email": "buyer4@example.test"})})
    assert record["data"][0]["values"]["notes"] != "changed"


def imports_tally(job: ObjectJob) -> dict:
    from objects.imports import tally_of

    return tally_of(job, "tally")
