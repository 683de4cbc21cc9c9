"""A 50 x 5 block pasted into the records grid against the real sandbox over
HTTP (objects/views/grid_paste.py): its dry run reads the page once, its
Confirm re-reads the page and, by the safe-edit rule, leaves a cell a
colleague changed since the dry run (said on the job's page); it makes ONE
bulk job whose 50 writes (one per record, five cells each,
250 cells) each carry their own Idempotency-Key, and its one Undo puts every
cell back, but a cell a colleague changed since (the safe-edit rule).
Remote calls counted; the job's steps run in this thread."""

from __future__ import annotations

import uuid

import pytest

from dashboard.api.testing import RemoteCallCounter
from objects.models import JobItem, ObjectJob
from tests.html import parse, select
from tests.objects.jobs_support import drain, run_jobs_inline
from tests.objects.support import every_type_object_with_records

pytestmark = pytest.mark.django_db

PASTED = ["seats", "amount", "notes", "email", "website"]


def block(rows: int) -> str:
    """What a spreadsheet puts on the clipboard: tab-separated, a quoted cell holding a tab."""
    lines = [
        f'{1000 + i}\tUSD {i},250.50\t"Pasted\tnote {i}"\tpasted{i}@example.test\thttps://pasted{i}.example.test'
        for i in range(rows)
    ]
    return "\n".join(lines) + "\n"


def test_a_50_by_5_paste_is_one_job_of_250_cells_and_its_undo_puts_them_back(
    sandbox, settings, logged_in_client, user, monkeypatch
):
    settings.OBJECTS_JOB_CHUNK = 20
    obj = every_type_object_with_records(sandbox, settings, user, 55)
    key = obj["key"]
    records_url = f"/objects/{key}/records/"
    grid = parse(logged_in_client.get(records_url, {"limit": 100, "sort": "name"}).content)
    ids = [box["value"] for box in select(grid, 'table.records tbody input[name="ids"]')]
    headers = {th["data-key"]: th for th in select(grid, "table.records thead th[data-key]")}
    assert len(ids) == 55 and set(PASTED) <= set(headers)
    service = every_type_service(sandbox)
    before = {r["id"]: r["values"] for r in service.get(f"/v1/objects/{key}/records", params={"limit": 100})["data"]}

    data = {
        "mode": "paste",
        "tsv": block(50),
        "query": "limit=100&sort=name",
        "ids": ids,  # from the anchor's row to the page's last, as rendered
        "keys": PASTED,
        "labels": [headers[k].get_text(strip=True) for k in PASTED],
    }
    url = f"/objects/{key}/paste/"
    with RemoteCallCounter() as calls:
        dry = parse(logged_in_client.post(url, data).content)
    assert calls.paths == [f"/v1/objects/{key}/records"]  # the page read again; the definition is cached
    assert select(dry, ".dry-run__count strong")[0].get_text() == "250"
    assert len(select(dry, ".grid-paste__changes tbody tr")) == 250
    assert not select(dry, ".grid-paste__refused")
    assert ObjectJob.objects.count() == 0  # a dry run writes nothing

    start = {
        **data,
        "step": "start",
        "checked": select(dry, "input[name=checked]")[0]["value"],
        "shown_values": select(dry, "input[name=shown_values]")[0]["value"],
        "idempotency_key": select(dry, "input[name=idempotency_key]")[0]["value"],
    }
    # A colleague changes one cell of the block after the dry run was shown.
    service.patch(f"/v1/objects/{key}/records/{ids[5]}", json={"values": {"amount": 5.5}})
    sent = run_jobs_inline(monkeypatch)
    with RemoteCallCounter() as calls:
        assert logged_in_client.post(url, start).status_code == 302
    assert calls.paths == [f"/v1/objects/{key}/records"]  # Confirm re-reads the page once, as the dry run did
    assert logged_in_client.post(url, start).status_code == 302  # sent twice: the same job
    job = ObjectJob.objects.get()
    assert (job.kind, job.total) == (ObjectJob.KIND_EDIT, 50)
    assert sum(len(item.written) for item in job.items.all()) == 249  # the colleague's cell is not written
    assert "amount" not in job.items.get(record_id=ids[5]).written
    page = parse(logged_in_client.get(f"/objects/jobs/{job.pk}/").content)
    said = select(page, ".job__skipped-cells li")
    assert [li.get_text(" ", strip=True) for li in said] == [f"{before[ids[5]]['name']} , Amount"]

    with RemoteCallCounter() as calls:
        drain(sent)
    writes = [p for p in calls.paths if p.startswith(f"/v1/objects/{key}/records/")]
    assert len(writes) == len(calls.paths) == 50  # one write per record, nothing else
    job.refresh_from_db()
    assert (job.status, job.succeeded, job.failed) == ("done", 50, 0)
    after = {r["id"]: r["values"] for r in service.get(f"/v1/objects/{key}/records", params={"limit": 100})["data"]}
    assert after[ids[7]]["notes"] == "Pasted\tnote 7"
    assert float(after[ids[7]]["amount"]) == 7250.5 and after[ids[7]]["seats"] == 1007
    assert after[ids[50]] == before[ids[50]]  # past the block: untouched
    assert float(after[ids[5]]["amount"]) == 5.5 and after[ids[5]]["seats"] == 1005  # theirs kept, the rest pasted
    # Each write its own key, kept on a retry (uuid5 of the job's uid): 50 different ones.
    keys = {str(uuid.uuid5(job.uid, f"edit:{record_id}")) for record_id in ids[:50]}
    assert len(keys) == 50

    # A colleague changes one pasted cell; then the paste is undone.
    service.patch(f"/v1/objects/{key}/records/{ids[3]}", json={"values": {"seats": 7}})
    assert (
        logged_in_client.post(f"/objects/jobs/{job.pk}/undo/", {"idempotency_key": str(uuid.uuid4())}).status_code
        == 302
    )
    with RemoteCallCounter() as calls:
        drain(sent)
    undo = ObjectJob.objects.get(kind=ObjectJob.KIND_UNDO)
    assert (undo.status, undo.succeeded, undo.failed) == ("done", 49, 1)
    reads = [p for p in calls.paths if p == f"/v1/objects/{key}"]
    assert len(calls.paths) - len(reads) == 50 + 49  # each record re-read, 49 written back
    skipped = undo.items.get(state=JobItem.SKIPPED)
    assert skipped.record_id == ids[3] and "Seats" in skipped.message
    back = {r["id"]: r["values"] for r in service.get(f"/v1/objects/{key}/records", params={"limit": 100})["data"]}
    for record_id in ids[:50]:
        if record_id not in (ids[3], ids[5]):
            assert {k: back[record_id].get(k) for k in PASTED} == {k: before[record_id].get(k) for k in PASTED}
    assert back[ids[3]]["seats"] == 7  # the colleague's later change stays
    # Every cell the paste wrote to ids[5] is back; the one it skipped stays the colleague's.
    assert {k: back[ids[5]].get(k) for k in PASTED if k != "amount"} == {
        k: before[ids[5]].get(k) for k in PASTED if k != "amount"
    }
    assert float(back[ids[5]]["amount"]) == 5.5


def every_type_service(sandbox):
    from dashboard.api import ServiceClient

    return ServiceClient(api_key=sandbox.demo_key)
