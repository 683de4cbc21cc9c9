"""The console's own writes make every count of that object stale at once
(objects/tallies.py `records_written`): after a delete, a restore, an import
or a bulk edit through the console the table's total no longer reads as a
fact ("33 in all" becomes "about 33 in all (counting again)"), is counted
again, and then tells the new number. Against the real sandbox over HTTP;
the marking itself costs no remote call."""

from __future__ import annotations

import pytest

from dashboard.api.testing import RemoteCallCounter
from objects.models import ObjectJob, RecordTally, TrashedRecord
from tests.html import one, parse, select, text_of
from tests.objects.jobs_support import drain, run_jobs_inline
from tests.objects.support import run_count

pytestmark = pytest.mark.django_db


def total(client, key: str, query: dict | None = None) -> str:
    html = parse(client.get(f"/objects/{key}/records/", query or {"view": "all"}).content)
    return text_of(one(html, "#records-total"))


def counted(client, key: str, query: dict | None = None) -> str:
    """The total once the background count has run (the worker's part)."""
    for row in RecordTally.objects.filter(status=RecordTally.COUNTING):
        run_count(row)
    return total(client, key, query)


def test_a_delete_restore_and_import_each_change_the_total_at_once(
    many_deals, logged_in_client, monkeypatch, settings, tmp_path
):
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    key = many_deals["key"]
    sent = run_jobs_inline(monkeypatch)
    assert total(logged_in_client, key) == "counting the total…"
    assert counted(logged_in_client, key) == "33 in all"

    # A delete through the record's page.
    victim = many_deals["records"][0]["id"]
    page = parse(logged_in_client.get(f"/objects/{key}/records/{victim}/delete/").content)
    form_key = select(page, "input[name=idempotency_key]")[0]["value"]
    with RemoteCallCounter() as counter:
        logged_in_client.post(f"/objects/{key}/records/{victim}/delete/", {"idempotency_key": form_key})
        assert total(logged_in_client, key) == "about 33 in all (counting again)"
    # Marked stale in the database: the delete's own calls and one page of records, nothing more.
    assert counter.paths.count(f"/v1/objects/{key}/records") == 1
    assert counted(logged_in_client, key) == "32 in all"

    # Its "Undo": a restore job.
    row = TrashedRecord.objects.get(record_id=victim)
    page = parse(logged_in_client.get(f"/objects/{key}/trash/{row.pk}/restore/").content)
    form_key = select(page, "input[name=idempotency_key]")[0]["value"]
    logged_in_client.post(f"/objects/{key}/trash/{row.pk}/restore/", {"idempotency_key": form_key})
    drain(sent)
    assert ObjectJob.objects.get(kind=ObjectJob.KIND_RESTORE).status == "done"
    assert total(logged_in_client, key) == "about 32 in all (counting again)"
    assert counted(logged_in_client, key) == "33 in all"

    # An import of two new records.
    source = tmp_path / "deals.csv"
    source.write_text("Name\nImported one\nImported two\n", encoding="utf-8")
    with source.open("rb") as handle:
        logged_in_client.post(f"/objects/{key}/import/", {"file": handle})
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_IMPORT)
    logged_in_client.post(f"/objects/imports/{job.pk}/columns/", {"col_0": "name"})
    drain(sent)
    logged_in_client.post(f"/objects/jobs/{job.pk}/run/")
    drain(sent)
    assert total(logged_in_client, key) == "about 33 in all (counting again)"
    assert counted(logged_in_client, key) == "35 in all"


def test_a_bulk_edit_makes_a_filtered_total_stale_at_once(many_deals, logged_in_client, monkeypatch):
    key = many_deals["key"]
    sent = run_jobs_inline(monkeypatch)
    above = {"op.seats": "gt", "f.seats": "3"}  # 30 of the 33
    total(logged_in_client, key, above)
    assert counted(logged_in_client, key, above) == "30 in all"

    # Set Seats to 1 on every record whose seats are above 84 (deals 029 to 031).
    data = {
        "scope": "filter",
        "query": "op.seats=gt&f.seats=84",
        "action": "edit",
        "field": "seats",
        "value": "1",
        "step": "preview",
    }
    html = parse(logged_in_client.post(f"/objects/{key}/bulk/", data).content)
    checked = select(html, "input[name=checked]")[0]["value"]
    form_key = select(html, "input[name=idempotency_key]")[0]["value"]
    logged_in_client.post(
        f"/objects/{key}/bulk/", {**data, "step": "start", "checked": checked, "idempotency_key": form_key}
    )
    drain(sent)
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_EDIT)
    assert (job.status, job.succeeded) == ("done", 3)
    assert total(logged_in_client, key, above) == "about 30 in all (counting again)"
    assert counted(logged_in_client, key, above) == "27 in all"


def test_a_count_under_way_when_the_console_writes_ends_as_about_n(many_deals, logged_in_client):
    key = many_deals["key"]
    total(logged_in_client, key)
    row = RecordTally.objects.get()
    victim = many_deals["records"][1]["id"]
    page = parse(logged_in_client.get(f"/objects/{key}/records/{victim}/delete/").content)
    form_key = select(page, "input[name=idempotency_key]")[0]["value"]
    logged_in_client.post(f"/objects/{key}/records/{victim}/delete/", {"idempotency_key": form_key})
    # Its steps never clear the mark: the finished count says it is no fact, and the next look counts again.
    row = run_count(row)
    assert row.written_at is not None
    poll = logged_in_client.get(f"/objects/{key}/records/count/{row.pk}/", HTTP_HX_REQUEST="true")
    assert text_of(one(parse(poll.content), "#records-total")).startswith("about ")
    assert total(logged_in_client, key).startswith("about ")
    assert counted(logged_in_client, key) == "32 in all"
