"""Undo of a merging ("Update") import against the real sandbox over HTTP,
the job steps run in this thread: each value the import overwrote is put
back where the record still holds what the import wrote; a record changed
since is left and listed in words. Counted in the sandbox's own store and in
remote calls (flat: one read and at most one write per record)."""

from __future__ import annotations

import uuid

import pytest

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.testing import store_sandbox_key
from objects.models import JobItem, ObjectJob, RecordChange
from tests.html import parse, select
from tests.objects.jobs_support import drain, run_jobs_inline

pytestmark = pytest.mark.django_db

N = 1000


@pytest.fixture
def accounts(sandbox, settings, logged_in_client, user, tmp_path):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.OBJECTS_JOB_CHUNK = 500
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    service = ServiceClient(api_key=sandbox.demo_key)
    definition = service.post(
        "/v1/objects",
        json={
            "singular_name": "Account",
            "plural_name": f"Accounts {uuid.uuid4().hex[:6]}",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Seats", "key": "seats", "type": "number"},
                {"label": "Notes", "key": "notes", "type": "text"},
            ],
        },
    )
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"service": service, "definition": definition}


def _import(client, key: str, path, columns: dict, sent: list[int]) -> ObjectJob:
    with path.open("rb") as handle:
        client.post(f"/objects/{key}/import/", {"file": handle})
    job = ObjectJob.objects.filter(kind=ObjectJob.KIND_IMPORT).latest("pk")
    client.post(f"/objects/imports/{job.pk}/columns/", columns)
    drain(sent)
    client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    job.refresh_from_db()
    return job


def _undo(client, job: ObjectJob, sent: list[int]) -> ObjectJob:
    page = parse(client.get(f"/objects/jobs/{job.pk}/").content)
    key = select(page, "form[action$='/undo/'] input[name=idempotency_key]")[0]["value"]
    assert client.post(f"/objects/jobs/{job.pk}/undo/", {"idempotency_key": key}).status_code == 302
    drain(sent)
    return ObjectJob.objects.get(kind=ObjectJob.KIND_UNDO, params__undoes=job.pk)


def test_undo_of_a_1000_row_update_import_puts_back_990_values_and_lists_the_10_changed_since(
    accounts, sandbox, logged_in_client, monkeypatch, tmp_path
):
    service, definition = accounts["service"], accounts["definition"]
    key = definition["key"]
    first = service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Account 0000", "seats": 36}})
    workspace = sandbox.store.get("record", first["id"])["workspace_id"]
    # The other 999 straight into the sandbox's store (the import and its undo go over HTTP).
    sandbox.store.insert_many(
        "record",
        [
            {"object_id": definition["id"], "values": {"name": f"Account {i:04d}", "seats": 36, "notes": "kept"}}
            for i in range(1, N)
        ],
        workspace_id=workspace,
    )
    source = tmp_path / "accounts.csv"
    source.write_text("Name,Seats\n" + "".join(f"Account {i:04d},44\n" for i in range(N)), encoding="utf-8")
    sent = run_jobs_inline(monkeypatch)
    job = _import(
        logged_in_client,
        key,
        source,
        {"col_0": "name", "col_1": "seats", "match_key": "name", "match_mode": "update"},
        sent,
    )
    assert (job.status, job.params["tally"]["updated"]) == ("done", N)
    assert JobItem.objects.filter(job=job, written__isnull=False).count() == N

    def seats() -> dict[str, object]:
        records = service.paginate(f"/v1/objects/{key}/records", item_key="records")
        return {r["values"]["name"]: r["values"].get("seats") for r in records}

    assert set(seats().values()) == {44}
    changed = [f"Account {i:04d}" for i in range(0, N, 100)]  # 10 a colleague changes meanwhile
    by_name = {r["values"]["name"]: r["id"] for r in service.paginate(f"/v1/objects/{key}/records", item_key="records")}
    for name in changed:
        service.patch(f"/v1/objects/{key}/records/{by_name[name]}", json={"values": {"seats": 99}})

    with RemoteCallCounter() as counter:
        undo = _undo(logged_in_client, job, sent)
    assert (undo.status, undo.total, undo.succeeded, undo.failed) == ("done", N, N - 10, 10)
    after = seats()
    assert sum(1 for value in after.values() if value == 36) == N - 10
    assert {name: after[name] for name in changed} == dict.fromkeys(changed, 99)
    # Flat: a read of each record and a write of each put back (plus the definition).
    reads = [p for p in counter.paths if p.startswith(f"/v1/objects/{key}/records/")]
    assert len(reads) <= 2 * N
    assert len(counter.paths) <= 2 * N + 20
    # Only the field the import wrote was touched: the notes it never wrote are as they were.
    notes = {r["values"].get("notes") for r in service.paginate(f"/v1/objects/{key}/records", item_key="records")}
    assert notes <= {"kept", None}
    assert RecordChange.objects.filter(action="undo", object_key=key).count() == N - 10

    # The 10 are listed on the undo's page by name, each saying in words why.
    rows = select(parse(logged_in_client.get(f"/objects/jobs/{undo.pk}/").content), ".job__failures tbody tr")
    listed = {name for name in changed for row in rows if name in row.get_text()}
    assert (len(rows), listed) == (10, set(changed))
    assert all("Changed since the job wrote it (Seats): left as it is." in row.get_text() for row in rows)


def test_a_record_the_file_updates_twice_is_put_back_to_its_first_value(
    accounts, sandbox, logged_in_client, monkeypatch, tmp_path
):
    service, definition = accounts["service"], accounts["definition"]
    key = definition["key"]
    service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Acme", "seats": 36, "notes": "old"}})
    source = tmp_path / "twice.csv"
    source.write_text("Name,Seats,Notes\nAcme,44,\nAcme,50,new\nFresh,3,\nFresh,4,\n", encoding="utf-8")
    sent = run_jobs_inline(monkeypatch)
    job = _import(
        logged_in_client,
        key,
        source,
        {"col_0": "name", "col_1": "seats", "col_2": "notes", "match_key": "name", "match_mode": "update"},
        sent,
    )
    assert job.status == "done"
    values = {
        r["values"]["name"]: r["values"] for r in service.paginate(f"/v1/objects/{key}/records", item_key="records")
    }
    assert (values["Acme"]["seats"], values["Acme"]["notes"], values["Fresh"]["seats"]) == (50, "new", 4)

    undo = _undo(logged_in_client, job, sent)
    assert (undo.status, undo.succeeded, undo.failed) == ("done", 2, 0)
    records = service.paginate(f"/v1/objects/{key}/records", item_key="records")
    # Acme as before the import (seats and notes); the record it made (then updated) in the trash.
    assert [(r["values"]["name"], r["values"].get("seats"), r["values"].get("notes")) for r in records] == [
        ("Acme", 36, "old")
    ]


@pytest.mark.parametrize("chunk", [2, 100])  # repeats across chunks (one read a row) and within one (read whole)
def test_the_dry_run_foresees_repeated_keys_as_the_import_does_them(
    accounts, sandbox, logged_in_client, monkeypatch, tmp_path, settings, chunk
):
    settings.OBJECTS_JOB_CHUNK = chunk
    service, key = accounts["service"], accounts["definition"]["key"]
    service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Acme", "seats": 36}})
    source = tmp_path / "repeats.csv"
    rows = ["Acme,40", "Fresh,3", "Other,1", "Fresh,4", "Acme,40", "Fresh,4", "Acme,41"]
    source.write_text("Name,Seats\n" + "\n".join(rows) + "\n", encoding="utf-8")
    sent = run_jobs_inline(monkeypatch)
    with source.open("rb") as handle:
        logged_in_client.post(f"/objects/{key}/import/", {"file": handle})
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_IMPORT)
    logged_in_client.post(
        f"/objects/imports/{job.pk}/columns/",
        {"col_0": "name", "col_1": "seats", "match_key": "name", "match_mode": "update"},
    )
    drain(sent)
    job.refresh_from_db()
    # Acme updated (40), Fresh made, Other made, Fresh updated (4), Acme as is, Fresh as is, Acme updated (41).
    foreseen = {"created": 2, "updated": 3, "unchanged": 2}
    assert {k: v for k, v in job.params["dry_run"].items() if v} == foreseen
    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    job.refresh_from_db()
    assert job.status == "done"
    assert {k: v for k, v in job.params["tally"].items() if v} == foreseen
    assert not JobItem.objects.filter(job=job, state=JobItem.FORESEEN).exists()
    seats = {
        r["values"]["name"]: r["values"]["seats"]
        for r in service.paginate(f"/v1/objects/{key}/records", item_key="records")
    }
    assert seats == {"Acme": 41, "Fresh": 4, "Other": 1}

    # Undone whole: Acme back to 36, the two it made (one of them updated by a later row) in the trash.
    undo = _undo(logged_in_client, job, sent)
    assert (undo.status, undo.succeeded, undo.failed) == ("done", 3, 0)
    records = service.paginate(f"/v1/objects/{key}/records", item_key="records")
    assert [(r["values"]["name"], r["values"]["seats"]) for r in records] == [("Acme", 36)]
