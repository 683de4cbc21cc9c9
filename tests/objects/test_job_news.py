"""Watchers told of a job that changed records they watch (objects/job_news.py):
one inbox item per watcher per job, however many records, never one per
write; a notification by their preferences; the reads flat in the number of
records. The service is mocked (respx): what is tested is the console's."""

from __future__ import annotations

import httpx
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.jobs import engine
from dashboard.people.models import Person
from dashboard.reach.models import Delivery, NotificationPreference
from objects import job_news, jobs, services
from objects.models import JobItem, ObjectJob, RecordNews, RecordWatch
from tests.objects import jobs_support
from tests.objects.records_fixtures import OBJECT_KEY, record
from tests.objects.support import WORKSPACE_ID, store_api_key

pytestmark = pytest.mark.django_db

RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


@pytest.fixture
def bob(other_user):
    store_api_key(other_user, "svc_sk_bob00123456789abcdefghijklmnopqrstuvwxyzABCD")
    return other_user


@pytest.fixture
def carol(django_user_model):
    person = django_user_model.objects.create_user(
        username="carol", email="carol@example.com", password="a third long passphrase"
    )
    store_api_key(person, "svc_sk_car00123456789abcdefghijklmnopqrstuvwxyzABCD")
    NotificationPreference.objects.create(user=person, approval_risks=[], my_work_needs_me=True)
    return person


@pytest.fixture
def sent(monkeypatch):
    return jobs_support.run_jobs_inline(monkeypatch)


def _watch(person, record_id: str, title: str = "") -> None:
    RecordWatch.objects.create(
        user=person, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, record_id=record_id, record_title=title
    )


def _bulk_edit(remote, user, api_key, ids: list[str]) -> ObjectJob:
    for record_id in ids:
        remote.patch(f"{RECORDS_PATH}/{record_id}").mock(return_value=httpx.Response(200, json=record(record_id, "X")))
    return jobs_support.edit_job(user, api_key, ids=ids, object_key=OBJECT_KEY)


def _run(job: ObjectJob) -> ObjectJob:
    while engine.job_step(jobs.KIND, job.pk) in ObjectJob.ACTIVE:
        pass
    job.refresh_from_db()
    return job


def test_a_bulk_edit_of_three_watched_records_is_one_item_per_watcher(remote, user, api_key, bob, carol):
    ids = ["rec-1", "rec-2", "rec-3"]
    for record_id in ids:
        _watch(bob, record_id)
        _watch(user, record_id)  # who ran the job hears nothing of it
    _watch(carol, "rec-2", "Globex renewal")
    job = _run(_bulk_edit(remote, user, api_key, ids))

    assert job.status == ObjectJob.DONE
    news = {row.user.get_username(): row for row in RecordNews.objects.select_related("user")}
    assert sorted(news) == ["bob", "carol"]
    assert news["bob"].title == "alice's bulk edit changed 3 records you watch"
    assert news["carol"].title == "alice changed 1 field on Globex renewal by a bulk edit"
    bob_item = inbox_items(viewer=InboxViewer(user=bob, workspace_id=WORKSPACE_ID))[0]
    assert bob_item.url == f"/objects/{OBJECT_KEY}/records/"
    carol_item = inbox_items(viewer=InboxViewer(user=carol, workspace_id=WORKSPACE_ID))[0]
    assert carol_item.url == f"/objects/{OBJECT_KEY}/records/rec-2/#history"
    # Carol chose to hear of what waits for her (a digest); Bob saved no preferences: his inbox only.
    deliveries = list(Delivery.objects.values_list("user__username", "kind", "digest"))
    assert {(name, kind) for name, kind, _digest in deliveries} == {("carol", job_news.KIND_JOB_NEWS)}


def test_a_job_ended_again_after_a_resume_keeps_one_item_and_one_notification(remote, user, api_key, carol):
    _watch(carol, "rec-1", "Acme")
    job = _run(_bulk_edit(remote, user, api_key, ["rec-1"]))
    RecordNews.objects.update(seen_at=job.finished_at)
    delivered = Delivery.objects.count()

    running = ObjectJob.objects.get(pk=job.pk)
    running.status = ObjectJob.RUNNING
    job_news.job_ended_tell(before=running, job=job)

    row = RecordNews.objects.get(user=carol)
    assert row.seen_at is None  # news again
    assert Delivery.objects.count() == delivered == 1


def test_a_history_entry_written_by_a_job_tells_no_watcher_by_itself(user, bob):
    _watch(bob, "rec-1", "Acme")
    common = {
        "user": user,
        "workspace_id": WORKSPACE_ID,
        "object_key": OBJECT_KEY,
        "record_id": "rec-1",
        "action": "undo",
        "before": {"name": "A"},
        "after": {"name": "B"},
        "fields": [],
    }
    with job_news.by_job():
        services.record_change_log(**common)
    assert not RecordNews.objects.exists()

    services.record_change_log(**common)  # a single edit still does
    assert RecordNews.objects.get(user=bob).title == "alice changed Acme (undid a change)"


def test_a_watcher_without_a_working_key_hears_nothing(remote, user, api_key, other_user):
    _watch(other_user, "rec-1")  # Bob holds no key of the workspace
    _run(_bulk_edit(remote, user, api_key, ["rec-1"]))
    assert not RecordNews.objects.exists()


def _ended(user, api_key, n: int) -> tuple[ObjectJob, ObjectJob]:
    job = jobs_support.edit_job(user, api_key, ids=[f"rec-{i}" for i in range(n)], object_key=OBJECT_KEY)
    JobItem.objects.filter(job=job).update(state=JobItem.DONE)
    before = ObjectJob.objects.get(pk=job.pk)
    job.status = ObjectJob.DONE
    return before, job


def test_telling_the_watchers_costs_the_same_queries_for_3_or_60_records(user, api_key, bob, carol):
    small_before, small = _ended(user, api_key, 3)
    for i in range(3):
        _watch(bob, f"rec-{i}")
    _watch(carol, "rec-1")
    cache.clear()  # both counts cold: the object's access policy is read once, then cached
    with CaptureQueriesContext(connection) as three:
        assert job_news.job_ended_tell(before=small_before, job=small) == 2

    big_before, big = _ended(user, api_key, 60)
    for i in range(3, 60):
        _watch(bob, f"rec-{i}")
    cache.clear()
    with CaptureQueriesContext(connection) as sixty:
        assert job_news.job_ended_tell(before=big_before, job=big) == 2

    assert len(sixty) == len(three)
    assert RecordNews.objects.get(user=bob, job=big).title == "alice's bulk edit changed 60 records you watch"


@pytest.mark.parametrize(
    ("kind", "title"),
    [
        (ObjectJob.KIND_IMPORT, "alice changed 2 fields on Acme by an import"),
        (ObjectJob.KIND_UNDO, "alice put back 2 fields on Acme by an undo of a job"),
        (ObjectJob.KIND_DELETE, "alice deleted Acme by a bulk delete"),
    ],
)
def test_each_kind_of_job_says_what_it_did_to_the_one_record_watched(user, api_key, bob, kind, title):
    before, job = _ended(user, api_key, 2)
    ObjectJob.objects.filter(pk=job.pk).update(kind=kind)
    before.kind = job.kind = kind
    JobItem.objects.filter(job=job, record_id="rec-1").update(written={"name": "B", "seats": 3}, title="Acme")
    _watch(bob, "rec-1")

    job_news.job_ended_tell(before=before, job=job)

    assert RecordNews.objects.get(user=bob).title == title


def test_each_watcher_hears_in_their_own_language_and_the_notification_says_the_same(remote, user, api_key, bob, carol):
    """Person.language of each recipient (never the language of who ran the job); no choice: English."""
    Person.objects.update_or_create(user=bob, defaults={"language": "de"})
    Person.objects.update_or_create(user=carol, defaults={"language": "fr"})
    Person.objects.update_or_create(user=user, defaults={"language": "de"})
    ids = ["rec-1", "rec-2", "rec-3"]
    for record_id in ids:
        _watch(bob, record_id)
    _watch(carol, "rec-2", "Globex renewal")
    with translation.override("de"):  # who ran the job reads German: the watchers read their own
        _run(_bulk_edit(remote, user, api_key, ids))

    news = {row.user.get_username(): row.title for row in RecordNews.objects.select_related("user")}
    assert news == {
        "bob": "Die Sammelbearbeitung von alice hat 3 Datensätze geändert, die Sie beobachten",
        "carol": "alice a modifié 1 champ de Globex renewal par une modification groupée",
    }
    bob_item = inbox_items(viewer=InboxViewer(user=bob, workspace_id=WORKSPACE_ID))[0]
    assert bob_item.title == news["bob"]
    assert list(Delivery.objects.values_list("user__username", "title")) == [("carol", news["carol"])]
