"""The trash and undo of whole jobs against the real sandbox over HTTP (no
browser), the job steps run in this thread: 1,000 bulk-deleted records come
back with equal values and every link whose other end exists; a 1,000-row
bulk edit is undone except the 10 rows changed meanwhile. Counted in the
sandbox's own store."""

from __future__ import annotations

import time
import uuid

import pytest

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord
from tests.helpers import running_sandbox
from tests.html import parse, select
from tests.objects.jobs_support import drain, run_jobs_inline

pytestmark = pytest.mark.django_db

N = 1000


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


def _object(service: ServiceClient, name: str) -> dict:
    return service.post(
        "/v1/objects",
        json={
            "singular_name": name.rstrip("s"),
            "plural_name": name,
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Seats", "key": "seats", "type": "number"},
                {"label": "Stage", "key": "stage", "type": "select", "options": [{"label": "Lead"}, {"label": "Won"}]},
            ],
        },
    )


@pytest.fixture
def world(sandbox, settings, logged_in_client, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.OBJECTS_JOB_CHUNK = 500
    service = ServiceClient(api_key=sandbox.demo_key)
    suffix = uuid.uuid4().hex[:6]
    deals, companies = _object(service, f"Deals {suffix}"), _object(service, f"Companies {suffix}")
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"service": service, "deals": deals, "companies": companies}


def _job(user, api_key, *, kind, object_key, ids, changes=None, before=None):
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=api_key.workspace_id,
        object_key=object_key,
        kind=kind,
        title="Bulk",
        status=ObjectJob.RUNNING,
        params={"changes": changes or {}},
        total=len(ids),
    )
    JobItem.objects.bulk_create(
        [
            JobItem(job=job, position=n, record_id=i, title=f"Deal {n}", before=before[i] if before else None)
            for n, i in enumerate(ids)
        ]
    )
    return job


def survivor_workspace(sandbox, record_id: str) -> str:
    return sandbox.store.get("record", record_id)["workspace_id"]


def _link(source_object: dict, source: dict, target_object: dict, target: dict, relation_key: str) -> dict:
    """A relationship document as the sandbox stores one."""
    return {
        "relation_key": relation_key,
        "source_object": source_object["key"],
        "source_object_id": source_object["id"],
        "source_id": source["id"],
        "target_object": target_object["key"],
        "target_object_id": target_object["id"],
        "target_id": target["id"],
        "label": "",
        "metadata": {},
    }


def _values(service, key) -> dict[str, dict]:
    return {
        r["values"]["name"]: r["values"] for r in service.paginate(f"/v1/objects/{key}/records", item_key="records")
    }


def _links(sandbox, object_key: str) -> set[tuple[str, str, str]]:
    """The links from or to records of this object, in the sandbox's own store."""
    return {
        (r["relation_key"], r["source_id"], r["target_id"])
        for r in sandbox.store.list("relationship")
        if object_key in (r["source_object"], r["target_object"])
    }


def test_restore_of_1000_bulk_deleted_records(world, sandbox, logged_in_client, user, monkeypatch):
    service, deals, companies = world["service"], world["deals"]["key"], world["companies"]["key"]
    started = time.monotonic()
    firms = [service.post(f"/v1/objects/{companies}/records", json={"values": {"name": f"Firm {i}"}}) for i in range(3)]
    survivor = service.post(f"/v1/objects/{deals}/records", json={"values": {"name": "Survivor"}})
    workspace_id = survivor_workspace(sandbox, survivor["id"])
    # The 1,000 deals and their 2,000 links straight into the sandbox's store (3,000 POSTs
    # would only time the setup); the delete and the restore below go over HTTP.
    made = sandbox.store.insert_many(
        "record",
        [{"object_id": world["deals"]["id"], "values": {"name": f"Deal {i:04d}", "seats": i}} for i in range(N)],
        workspace_id=workspace_id,
    )
    links = [_link(world["deals"], made[i], world["companies"], firms[i % 3], "company") for i in range(N)]
    links += [_link(world["deals"], made[i], world["deals"], made[i + 1], "next") for i in range(N - 1)]
    # A record that stays links to the first deal (incoming, its other end exists).
    links.append(_link(world["deals"], survivor, world["deals"], made[0], "follows"))
    sandbox.store.insert_many("relationship", links, workspace_id=workspace_id)
    setup_seconds = time.monotonic() - started
    print(f"\nsetup {setup_seconds:.1f}s", flush=True)
    values_before = _values(service, deals)
    ids = [r["id"] for r in made]

    sent = run_jobs_inline(monkeypatch)
    api_key = user.api_keys.get()
    delete = _job(user, api_key, kind=ObjectJob.KIND_DELETE, object_key=deals, ids=ids)
    sent.append(delete.pk)
    started = time.monotonic()
    drain(sent)
    delete_seconds = time.monotonic() - started
    print(f"delete {delete_seconds:.1f}s", flush=True)
    delete.refresh_from_db()
    assert (delete.status, delete.succeeded) == ("done", N)
    assert sandbox.store.count("record", where={"object_id": world["deals"]["id"]}) == 1
    assert TrashedRecord.objects.filter(object_key=deals).count() == N
    # Firm 0 is deleted through the console too, and stays in the trash.
    response = logged_in_client.post(
        f"/objects/{companies}/records/{firms[0]['id']}/delete/", {"idempotency_key": str(uuid.uuid4())}
    )
    assert response.status_code == 302

    page = parse(logged_in_client.get(f"/objects/{deals}/trash/").content)
    assert len(select(page, "input[name=ids]")) == 200  # the latest; "everything in the trash" selects all
    assert "1,000 records in the trash" in select(page, "caption")[0].get_text()
    key = select(page, "input[name=idempotency_key]")[0]["value"]
    response = logged_in_client.post(f"/objects/{deals}/trash/restore/", {"scope": "all", "idempotency_key": key})
    assert response.status_code == 302
    restore = ObjectJob.objects.get(kind=ObjectJob.KIND_RESTORE)
    started = time.monotonic()
    drain(sent)
    restore_seconds = time.monotonic() - started
    restore.refresh_from_db()
    assert (restore.status, restore.total, restore.succeeded, restore.failed) == ("done", N, N, 0)

    # 1,000 re-created with equal values.
    assert _values(service, deals) == values_before
    new_of = dict(TrashedRecord.objects.filter(object_key=deals).values_list("record_id", "restored_id"))
    assert len(set(new_of.values())) == N and all(new_of.values())
    # Every link whose other end exists: firms 1 and 2, the next deal, the survivor's; firm 0 is in the trash.
    links = _links(sandbox, deals)
    for i, old in enumerate(ids):
        new = new_of[old]
        assert (("company", new, firms[i % 3]["id"]) in links) == (i % 3 != 0)
        if i + 1 < N:
            assert ("next", new, new_of[ids[i + 1]]) in links
    assert ("follows", survivor["id"], new_of[ids[0]]) in links
    assert len(links) == (N - 334) + (N - 1) + 1
    said = JobItem.objects.get(job=restore, record_id=ids[0]).message
    assert "company" in said and "“Firm 0” is in the trash" in said
    # The old address leads to the new record, whose history says where it came from.
    response = logged_in_client.get(f"/objects/{deals}/records/{ids[5]}/")
    assert response.status_code == 302 and response["Location"].endswith(f"/records/{new_of[ids[5]]}/")
    assert RecordChange.objects.filter(record_id=new_of[ids[5]], action="restore", source_record_id=ids[5]).exists()
    # Restored records leave the trash page; firm 0 is still in its own.
    assert not select(parse(logged_in_client.get(f"/objects/{deals}/trash/").content), "input[name=ids]")
    print(
        f"\nsetup {setup_seconds:.1f}s, bulk delete of {N} (to the trash) {delete_seconds:.1f}s, "
        f"restore of {N} with {len(links)} links {restore_seconds:.1f}s"
    )


def test_undo_of_a_1000_row_bulk_edit_with_10_changed_meanwhile(world, sandbox, logged_in_client, user, monkeypatch):
    service, deals = world["service"], world["deals"]["key"]
    stage = next(f for f in world["deals"]["fields"] if f["key"] == "stage")
    lead, won = (next(o["id"] for o in stage["options"] if o["label"] == label) for label in ("Lead", "Won"))
    first = service.post(f"/v1/objects/{deals}/records", json={"values": {"name": "Deal 0000", "stage": "Lead"}})
    # The other 999 straight into the sandbox's store (the edit and its undo go over HTTP).
    made = [first] + sandbox.store.insert_many(
        "record",
        [{"object_id": world["deals"]["id"], "values": {"name": f"Deal {i:04d}", "stage": lead}} for i in range(1, N)],
        workspace_id=survivor_workspace(sandbox, first["id"]),
    )
    ids = [r["id"] for r in made]
    sent = run_jobs_inline(monkeypatch)
    edit = _job(
        user,
        user.api_keys.get(),
        kind=ObjectJob.KIND_EDIT,
        object_key=deals,
        ids=ids,
        changes={"stage": won, "seats": 7},
        before={i: {"stage": lead, "seats": None} for i in ids},
    )
    sent.append(edit.pk)
    drain(sent)
    edit.refresh_from_db()
    assert (edit.status, edit.succeeded) == ("done", N)
    changed = ids[::100]  # 10 rows a colleague changes meanwhile
    for record_id in changed:
        service.patch(f"/v1/objects/{deals}/records/{record_id}", json={"values": {"seats": 99}})

    page = parse(logged_in_client.get(f"/objects/jobs/{edit.pk}/").content)
    form = select(page, "form[action$='/undo/']")[0]
    key = form.select_one("input[name=idempotency_key]")["value"]
    started = time.monotonic()
    assert logged_in_client.post(f"/objects/jobs/{edit.pk}/undo/", {"idempotency_key": key}).status_code == 302
    # A second click opens the same undo.
    assert logged_in_client.post(f"/objects/jobs/{edit.pk}/undo/", {"idempotency_key": str(uuid.uuid4())})
    drain(sent)
    undo_seconds = time.monotonic() - started
    undo = ObjectJob.objects.get(kind=ObjectJob.KIND_UNDO)
    assert (undo.status, undo.total, undo.succeeded, undo.failed) == ("done", N, N - 10, 10)
    records = {r["id"]: r["values"] for r in service.paginate(f"/v1/objects/{deals}/records", item_key="records")}
    assert sum(1 for v in records.values() if v.get("stage") == lead and v.get("seats") is None) == N - 10
    assert all(records[i]["stage"] == won and records[i]["seats"] == 99 for i in changed)
    # The 10 are listed on the undo's page, each saying why.
    page = parse(logged_in_client.get(f"/objects/jobs/{undo.pk}/").content)
    rows = select(page, ".job__failures tbody tr")
    assert len(rows) == 10
    assert all("Changed since the job wrote it (Seats)" in row.get_text() for row in rows)
    assert RecordChange.objects.filter(action="undo").count() == N - 10
    print(f"\nundo of a {N}-row bulk edit {undo_seconds:.1f}s")


def test_undo_of_an_import_moves_the_records_it_created_to_the_trash(
    world, sandbox, logged_in_client, monkeypatch, settings, tmp_path
):
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    deals = world["deals"]
    sent = run_jobs_inline(monkeypatch)
    source = tmp_path / "deals.csv"
    source.write_text("Name,Seats\n" + "".join(f"Imported {n},{n}\n" for n in range(5)), encoding="utf-8")
    with source.open("rb") as handle:
        logged_in_client.post(f"/objects/{deals['key']}/import/", {"file": handle})
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_IMPORT)
    logged_in_client.post(f"/objects/imports/{job.pk}/columns/", {"col_0": "name", "col_1": "seats"})
    drain(sent)
    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    job.refresh_from_db()
    assert (job.status, job.succeeded) == ("done", 5)
    assert sandbox.store.count("record", where={"object_id": deals["id"]}) == 5

    # A colleague changes one of them meanwhile: the undo leaves it and says so.
    service = world["service"]
    records = service.paginate(f"/v1/objects/{deals['key']}/records", item_key="records")
    touched = next(r["id"] for r in records if r["values"].get("name") == "Imported 3")
    service.patch(f"/v1/objects/{deals['key']}/records/{touched}", json={"values": {"seats": 99}})

    page = parse(logged_in_client.get(f"/objects/jobs/{job.pk}/").content)
    key = select(page, "form[action$='/undo/'] input[name=idempotency_key]")[0]["value"]
    logged_in_client.post(f"/objects/jobs/{job.pk}/undo/", {"idempotency_key": key})
    drain(sent)
    undo = ObjectJob.objects.get(kind=ObjectJob.KIND_UNDO)
    assert (undo.status, undo.succeeded, undo.failed) == ("done", 4, 1)
    assert [r["id"] for r in service.paginate(f"/v1/objects/{deals['key']}/records", item_key="records")] == [touched]
    kept = TrashedRecord.objects.filter(object_key=deals["key"])
    assert sorted(kept.values_list("title", flat=True)) == [f"Imported {n}" for n in (0, 1, 2, 4)]
    rows = select(parse(logged_in_client.get(f"/objects/jobs/{undo.pk}/").content), ".job__failures tbody tr")
    assert [
        ("Imported 3" in row.get_text(), "Changed since the import made it (Seats)" in row.get_text()) for row in rows
    ] == [(True, True)]
    # Undone once: the import's page now points to its undo instead of offering it again.
    page = parse(logged_in_client.get(f"/objects/jobs/{job.pk}/").content)
    assert not select(page, "form[action$='/undo/']")
    assert select(page, f"a[href='/objects/jobs/{undo.pk}/']")
