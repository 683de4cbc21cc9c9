"""A bulk edit and a CSV import started while the broker is down (a closed
port): the job is kept, its page says it started and waits for the task
queue, the same form sent again is the same job, and once the broker is back
the sweeper sends its step and every record is written once. Against the
real sandbox; the job's steps run inline once the broker is back."""

from __future__ import annotations

from collections import Counter

import pytest

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from dashboard.outbox.models import OutboxMessage
from objects.models import ObjectJob
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def deals(sandbox, settings, user, tmp_path):
    """An object of its own with three records, in the session's sandbox (found by ids, never by page)."""
    settings.SERVICE_BASE_URL, settings.OBJECTS_IMPORT_ROOT = sandbox.base_url, str(tmp_path / "imports")
    service = ServiceClient(api_key=sandbox.demo_key)
    store_sandbox_key(user, service, sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(3)]
    return {"key": obj["key"], "object": obj, "records": records}


def says_the_broker_holds_it(page) -> bool:
    notice = select(parse(page.content), ".job .live-paused")
    return bool(notice) and notice[0]["data-pause-cause"] == "broker" and "work started" in text_of(notice[0])


def test_a_bulk_edit_started_while_the_broker_is_down_runs_once_it_is_back(
    deals, logged_in_client, broker_down, writes_seen, django_capture_on_commit_callbacks
):
    lost = next(
        o["id"] for f in deals["object"]["fields"] if f["key"] == "status" for o in f["options"] if o["label"] == "Lost"
    )
    ids = [record["id"] for record in deals["records"]]
    data = {"ids": ids, "action": "edit", "field": "status", "value": lost, "step": "preview"}
    url = f"/objects/{deals['key']}/bulk/"
    html = parse(logged_in_client.post(url, data).content)
    start = {
        **data,
        "step": "start",
        "checked": one(html, "input[name=checked]")["value"],
        "idempotency_key": one(html, "input[name=idempotency_key]")["value"],
    }

    with django_capture_on_commit_callbacks(execute=True):
        sent = logged_in_client.post(url, start)
        again = logged_in_client.post(url, start)  # the same form again: the same job
    job = ObjectJob.objects.get()
    assert sent.status_code == again.status_code == 302 and sent["Location"] == f"/objects/jobs/{job.pk}/"
    assert says_the_broker_holds_it(logged_in_client.get(sent["Location"]))
    assert writes_seen.keys("/records/") == []  # the job writes; nothing has run yet

    with django_capture_on_commit_callbacks(execute=True):
        assert broker_down.back() >= 1
    job.refresh_from_db()
    assert (job.status, job.succeeded, job.failed) == ("done", 3, 0)
    patched = Counter(writes_seen.keys("/records/"))
    assert len(patched) == 3 and set(patched.values()) == {1}  # each record written once, each its own key
    assert not OutboxMessage.objects.exists()
    assert not says_the_broker_holds_it(logged_in_client.get(sent["Location"]))


def test_an_import_started_while_the_broker_is_down_checks_and_writes_each_row_once_it_is_back(
    deals, sandbox, logged_in_client, broker_down, writes_seen, tmp_path, django_capture_on_commit_callbacks
):
    source = tmp_path / "new.csv"
    source.write_text("name,Seats\n" + "".join(f"New {n},{n}\n" for n in range(1, 5)), encoding="utf-8")
    with source.open("rb") as handle:
        logged_in_client.post(f"/objects/{deals['key']}/import/", {"file": handle})
    job = ObjectJob.objects.get()
    columns = {"col_0": "name", "col_1": "seats"}

    with django_capture_on_commit_callbacks(execute=True):
        sent = logged_in_client.post(f"/objects/imports/{job.pk}/columns/", columns)
        again = logged_in_client.post(f"/objects/imports/{job.pk}/columns/", columns)
    assert sent.status_code == again.status_code == 302
    assert says_the_broker_holds_it(logged_in_client.get(f"/objects/jobs/{job.pk}/"))
    assert OutboxMessage.objects.count() == 1  # the second post found the job started already

    with django_capture_on_commit_callbacks(execute=True):
        assert broker_down.back() == 1
        job.refresh_from_db()
        assert (job.status, job.processed, job.failed) == ("checked", 4, 0)
        logged_in_client.post(f"/objects/jobs/{job.pk}/run/")  # the broker is back: sent and run at once
    job.refresh_from_db()
    assert (job.status, job.succeeded) == ("done", 4)
    rows = Counter(writes_seen.keys(f"/objects/{deals['key']}/records"))
    assert len(rows) == 4 and set(rows.values()) == {1}
    assert sandbox.store.count("record", where={"object_id": deals["object"]["id"]}) == 7
