"""One timeline per record (objects/timeline.py, #39 item 3) against a
mocked service (respx): history entries, comments, jobs that touched the
record and its trip to the trash in one list, newest first, each with its
own way back (Undo, the job's page, Restore); one kind at a time; a record in
the trash keeps its timeline; another workspace's rows never show; queries
and remote calls the same for 5 entries of each kind and for 60."""

from __future__ import annotations

import datetime as dt
import uuid

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord
from tests.html import one, parse, select, text_of, texts
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID
from tests.objects.support import WORKSPACE_ID, comment_on_record

pytestmark = pytest.mark.django_db

TIMELINE_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/timeline/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"
NOW = timezone.now()


@pytest.fixture
def service(remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    return remote


def _at(row, minutes_ago: int, field: str = "created_at"):
    type(row).objects.filter(pk=row.pk).update(**{field: NOW - dt.timedelta(minutes=minutes_ago)})
    return row


def _change(user, minutes_ago: int, *, workspace_id: str = WORKSPACE_ID, seats=(36, 44)) -> RecordChange:
    change = RecordChange.objects.create(
        workspace_id=workspace_id,
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
        user=user,
        actor=user.get_username(),
        action=RecordChange.Action.EDIT,
        changes=[{"field": "amount", "label": "Amount", "before": seats[0], "after": seats[1]}],
    )
    return _at(change, minutes_ago)


def _comment(user, minutes_ago: int, body: str = "Called them", *, workspace_id: str = WORKSPACE_ID):
    return _at(comment_on_record(user, body, workspace_id=workspace_id), minutes_ago)


def _job(user, api_key, minutes_ago: int, *, workspace_id: str = WORKSPACE_ID) -> ObjectJob:
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=workspace_id,
        object_key=OBJECT_KEY,
        kind=ObjectJob.KIND_EDIT,
        title="Set Stage to Won",
        status=ObjectJob.DONE,
    )
    JobItem.objects.create(job=job, position=0, record_id=RECORD_ID, title="Acme", state=JobItem.DONE)
    return _at(job, minutes_ago)


def _trip_to_the_trash(user, minutes_ago: int) -> TrashedRecord:
    """This record's earlier self, sent to the trash and restored as this id."""
    row = TrashedRecord.objects.create(
        workspace_id=WORKSPACE_ID,
        object_key=OBJECT_KEY,
        record_id="rec_before",
        title="Acme",
        deleted_by=user,
        actor=user.get_username(),
        restored_id=RECORD_ID,
        restored_at=NOW - dt.timedelta(minutes=minutes_ago - 1),
    )
    return _at(row, minutes_ago, "deleted_at")


def _kinds(html) -> list[str]:
    return [entry["data-kind"] for entry in select(html, "li.timeline-entry")]


def test_every_source_in_one_list_newest_first_with_its_way_back(console, service, user, api_key):
    _trip_to_the_trash(user, 50)
    _change(user, 40)
    _comment(user, 30, "Called them, **renewing**")
    job = _job(user, api_key, 20)

    response = console.get(TIMELINE_URL)

    assert response.status_code == 200
    html = response.content.decode()
    assert text_of(one(html, "h1")) == "Timeline of Acme renewal"
    assert _kinds(html) == ["job", "comment", "change", "trashed"]
    entries = select(html, "li.timeline-entry")
    assert text_of(one(entries[0], ".history-head strong")) == "Bulk edit"
    assert "Set Stage to Won by alice" in text_of(one(entries[0], ".history-head"))
    assert one(entries[0], "a")["href"] == f"/objects/jobs/{job.pk}/"
    assert text_of(one(entries[1], ".comment-body strong")) == "renewing"  # markdown, sanitised
    # The history entry as the record page shows it, its Undo included (the newest edit).
    assert "Undo this change" in texts(entries[2], "a")
    assert texts(entries[2], ".history-changes tbody th") == ["Amount"]
    assert "Restored" in text_of(entries[3])
    # The tabs count what each kind holds.
    tabs = texts(html, "nav[aria-label='Show on the timeline'] a")
    assert tabs == ["Everything (4)", "Changes and links (1)", "Comments (1)", "Jobs (1)", "Trash (1)"]


def test_one_kind_at_a_time(console, service, user):
    _change(user, 40)
    _comment(user, 30)
    _comment(user, 10, "Second")

    html = console.get(TIMELINE_URL, {"kind": "comment"}).content.decode()

    assert _kinds(html) == ["comment", "comment"]
    assert (
        one(html, "nav[aria-label='Show on the timeline'] a[aria-current='page']")["href"]
        == f"{TIMELINE_URL}?kind=comment"
    )
    assert _kinds(console.get(TIMELINE_URL, {"kind": "nonsense"}).content.decode()) == ["comment", "comment", "change"]


def test_another_workspaces_rows_never_show(console, service, user, api_key):
    _change(user, 40, workspace_id="ws_other")
    _comment(user, 30, workspace_id="ws_other")
    _job(user, api_key, 20, workspace_id="ws_other")

    html = console.get(TIMELINE_URL).content.decode()

    assert _kinds(html) == []
    assert "Nothing has happened to this record" in text_of(one(html, ".empty-state"))


def test_a_record_in_the_trash_keeps_its_timeline(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORD_PATH).mock(
        return_value=httpx.Response(404, json={"error": {"code": "not_found", "message": "No such record."}})
    )
    assert console.get(TIMELINE_URL).status_code == 404  # never here at all: the console's not-found page

    TrashedRecord.objects.create(
        workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, record_id=RECORD_ID, title="Acme renewal", actor="alice"
    )
    _comment(user, 5)
    html = console.get(TIMELINE_URL).content.decode()

    assert "The record is in the trash." in text_of(parse(html))
    assert _kinds(html) == ["trashed", "comment"]
    assert texts(html, "li[data-kind='trashed'] a") == ["Restore it from the trash"]


def test_queries_and_remote_calls_stay_flat_as_the_past_grows(console, service, user, api_key):
    def measure(each: int) -> tuple[int, int]:
        for n in range(each):
            _change(user, 200 + n)
            _comment(user, 300 + n)
            _job(user, api_key, 400 + n)
        console.get(TIMELINE_URL)  # the session's and the definition's first reads
        calls_before = len(service.calls)
        with CaptureQueriesContext(connection) as queries:
            html = console.get(TIMELINE_URL).content.decode()
        assert len(_kinds(html)) == min(100, 3 * total[0])
        return len(queries), len(service.calls) - calls_before

    total = [5]
    few = measure(5)
    total[0] = 65
    many = measure(60)
    assert few == many
    assert few[1] == 1  # the record itself (its title); the definition is cached
    said = one(console.get(TIMELINE_URL).content.decode(), "p.timeline-more")
    assert text_of(said) == "The newest 100 of a long past: older entries are left out."
