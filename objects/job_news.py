"""What the watchers of records hear of a job that changed them: a bulk edit
or delete, an import, an undo of a job, a restore, a merge.

A single edit tells each watcher at once (objects/comments.py
`record_changed_tell`, from `record_change_log`). A job writes hundreds of
records, maybe many a person watches: one item per write would bury their
inbox. So while a job's chunk runs (`by_job`, objects/jobs.py) the
per-write notice is held, and when the job ends (done, cancelled or stopped:
`job_ended_tell`, the engine's `written` hook) each watcher gets ONE inbox
item about it, and ONE notification by their preferences:

- one record they watch: "Dana changed 3 fields on Acme Corp by a bulk edit";
- several: "Dana's import changed 40 records you watch".

The reads are flat in the number of records (the job's items are joined in
the database, never listed here): the watches, the key holders, the
preferences, the items of the watched records, one insert. A job resumed
after a stop and ended again renews its items (one per person per job: the
constraint `objects_news_once_per_job`) and notifies nobody twice (the
notification's item key is the job's).

Access follows the key: only people holding a working key of the workspace
hear of it, and never the person who ran the job. The notification follows
"My runs and turns that failed or wait for me", as a mention does, in their
digest (cadence, quiet hours); a person who never saved preferences gets
the inbox item only. Their delegate is not told: a watch is their own
choice, not work waiting.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import transaction
from django.db.models import Subquery
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy, ngettext_lazy

from dashboard.outbox.services import outbox_send
from dashboard.people.language import languages_of_people
from dashboard.reach.models import NotificationPreference
from dashboard.reach.producing import notify
from dashboard.reach.selectors import workspace_people
from dashboard.web.reading import as_dict
from objects import comments
from objects.access_reads import people_told_of
from objects.models import JobItem, ObjectJob, RecordNews, RecordWatch

logger = logging.getLogger("objects.job_news")

KIND_JOB_NEWS = "watched_job"  # the notifications' kind (dashboard/reach Delivery.kind)

# What each kind of job did, in whole sentences (translated for each
# recipient: `_title` runs under their language). Several records watched:
SEVERAL = {
    ObjectJob.KIND_EDIT: ngettext_lazy(
        "%(actor)s's bulk edit changed %(count)s record you watch",
        "%(actor)s's bulk edit changed %(count)s records you watch",
        "count",
    ),
    ObjectJob.KIND_DELETE: ngettext_lazy(
        "%(actor)s's bulk delete deleted %(count)s record you watch",
        "%(actor)s's bulk delete deleted %(count)s records you watch",
        "count",
    ),
    ObjectJob.KIND_IMPORT: ngettext_lazy(
        "%(actor)s's import changed %(count)s record you watch",
        "%(actor)s's import changed %(count)s records you watch",
        "count",
    ),
    ObjectJob.KIND_UNDO: ngettext_lazy(
        "%(actor)s's undo of a job put back %(count)s record you watch",
        "%(actor)s's undo of a job put back %(count)s records you watch",
        "count",
    ),
    ObjectJob.KIND_RESTORE: ngettext_lazy(
        "%(actor)s's restore from the trash restored %(count)s record you watch",
        "%(actor)s's restore from the trash restored %(count)s records you watch",
        "count",
    ),
    ObjectJob.KIND_MERGE: ngettext_lazy(
        "%(actor)s's merge of duplicates merged %(count)s record you watch",
        "%(actor)s's merge of duplicates merged %(count)s records you watch",
        "count",
    ),
}
# One record watched:
ONE = {
    ObjectJob.KIND_EDIT: gettext_lazy("%(actor)s changed %(record)s by a bulk edit"),
    ObjectJob.KIND_DELETE: gettext_lazy("%(actor)s deleted %(record)s by a bulk delete"),
    ObjectJob.KIND_IMPORT: gettext_lazy("%(actor)s changed %(record)s by an import"),
    ObjectJob.KIND_UNDO: gettext_lazy("%(actor)s put back %(record)s by an undo of a job"),
    ObjectJob.KIND_RESTORE: gettext_lazy("%(actor)s restored %(record)s by a restore from the trash"),
    ObjectJob.KIND_MERGE: gettext_lazy("%(actor)s merged %(record)s by a merge of duplicates"),
}
# One record watched, the fields written counted (the kinds of COUNTS_FIELDS):
ONE_FIELDS = {
    ObjectJob.KIND_EDIT: ngettext_lazy(
        "%(actor)s changed %(count)s field on %(record)s by a bulk edit",
        "%(actor)s changed %(count)s fields on %(record)s by a bulk edit",
        "count",
    ),
    ObjectJob.KIND_IMPORT: ngettext_lazy(
        "%(actor)s changed %(count)s field on %(record)s by an import",
        "%(actor)s changed %(count)s fields on %(record)s by an import",
        "count",
    ),
    ObjectJob.KIND_UNDO: ngettext_lazy(
        "%(actor)s put back %(count)s field on %(record)s by an undo of a job",
        "%(actor)s put back %(count)s fields on %(record)s by an undo of a job",
        "count",
    ),
}
# Whose fields are counted in the item ("changed 3 fields on ...").
COUNTS_FIELDS = frozenset(ONE_FIELDS)


@contextmanager
def by_job() -> Iterator[None]:
    """A job's chunk runs: its writes' history entries do not tell watchers each (the job's end does)."""
    token = comments.CHANGES_BY_JOB.set(True)
    try:
        yield
    finally:
        comments.CHANGES_BY_JOB.reset(token)


def job_ended_tell(*, before: ObjectJob, job: ObjectJob) -> int:
    """The job just ended (its step left the active statuses): its records'
    watchers are told, one item each. Returns how many were told."""
    if before.status not in ObjectJob.ACTIVE or job.status in ObjectJob.ACTIVE or job.kind not in SEVERAL:
        return 0
    try:
        return _watchers_told(job)
    except Exception:  # the job's end is written already: news that fails is logged, the job stands
        logger.exception("objects: the watchers of job %s could not be told", job.pk)
        return 0


def _watchers_told(job: ObjectJob) -> int:
    done = JobItem.objects.filter(job_id=job.pk, state=JobItem.DONE).values("record_id")
    watches = list(
        RecordWatch.objects.filter(
            workspace_id=job.workspace_id, object_key=job.object_key, record_id__in=Subquery(done)
        )
        .exclude(user_id=job.started_by_id)
        .filter(user__is_active=True)
        .select_related("user")
        .order_by("user_id", "-created_at", "pk")
    )
    if not watches:
        return 0
    holders = {person.pk for person in workspace_people(job.workspace_id)}
    watches = [watch for watch in watches if watch.user_id in holders]
    # Nor anyone the object's access policy may keep from one of its records (objects/access_reads.py).
    told = {
        p.pk
        for p in people_told_of(
            workspace_id=job.workspace_id, object_key=job.object_key, people=[w.user for w in watches]
        )
    }
    watches = [watch for watch in watches if watch.user_id in told]
    if not watches:
        return 0
    return _tell(job, watches)


def _tell(job: ObjectJob, watches: list[RecordWatch]) -> int:
    by_person: dict[int, list[RecordWatch]] = {}
    for watch in watches:
        by_person.setdefault(watch.user_id, []).append(watch)
    # The items of records watched alone (their titles and what was written): bounded by the watches.
    single = {found[0].record_id for found in by_person.values() if len(found) == 1}
    items = {
        item.record_id: item
        for item in JobItem.objects.filter(job_id=job.pk, state=JobItem.DONE, record_id__in=single).only(
            "record_id", "title", "written"
        )
    }
    actor = job.started_by.get_username() if job.started_by_id else ""
    # Each title in its recipient's language (their choice, else the console's default): one read for all.
    languages = languages_of_people(by_person)
    news = []
    for user_id, found in by_person.items():
        with translation.override(languages.get(user_id, settings.LANGUAGE_CODE)):
            title, record_id = _title(job, found, items=items, actor=actor or gettext("someone"))
        news.append(
            RecordNews(
                user=found[0].user,
                workspace_id=job.workspace_id,
                object_key=job.object_key,
                record_id=record_id,
                kind=RecordNews.Kind.CHANGE,
                title=title[:300],
                actor=(actor or "someone")[:150],
                job=job,
                created_at=timezone.now(),
            )
        )
    with transaction.atomic():
        RecordNews.objects.bulk_create(
            news,
            update_conflicts=True,
            unique_fields=["user", "job"],
            update_fields=["record_id", "title", "created_at", "seen_at"],
        )
        _notify(job, news)
        told = set(by_person)
        transaction.on_commit(lambda: comments.news_changed_of(told, workspace_id=job.workspace_id))
    return len(news)


def _title(job: ObjectJob, watches: list[RecordWatch], *, items: dict[str, JobItem], actor: str) -> tuple[str, str]:
    """What the item says, and the record it opens ("" for several)."""
    if len(watches) > 1:
        return SEVERAL[job.kind] % {"actor": actor, "count": len(watches)}, ""
    watch = watches[0]
    item = items.get(watch.record_id)
    named = (
        watch.record_title
        or (item.title if item else "")
        or gettext("a record of %(object)s") % {"object": job.object_name or job.object_key}
    )
    if job.kind in COUNTS_FIELDS:
        written = as_dict(item.written if item is not None else None) or as_dict(job.params.get("changes"))
        if written:
            return ONE_FIELDS[job.kind] % {"actor": actor, "count": len(written), "record": named}, watch.record_id
    return ONE[job.kind] % {"actor": actor, "record": named}, watch.record_id


def _notify(job: ObjectJob, news: list[RecordNews]) -> None:
    preferences = {
        preference.user_id: preference
        for preference in NotificationPreference.objects.filter(user_id__in=[row.user.pk for row in news])
    }
    now, made = timezone.now(), 0
    for row in news:
        preference = preferences.get(row.user.pk)
        if preference is None or not preference.my_work_needs_me:
            continue
        made += notify(
            user=row.user,
            preference=preference,
            workspace_id=job.workspace_id,
            item_key=f"job:{job.pk}:watched:{row.user.pk}",
            kind=KIND_JOB_NEWS,
            title=row.title,
            path=comments.news_url(row),
            now=now,
            digest=True,
            follow_away=False,
        )
    if made:
        transaction.on_commit(lambda: outbox_send(task="reach.deliver_due", args=[]))
