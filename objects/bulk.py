"""Bulk edit and bulk delete of records.

The records table's checkboxes name the records (`ids`, this page) or say
"every record matching this search and these filters" (`scope=filter`); the
table's own query (`query`) travels with them. Before any write a dry run
says how many records will change and shows a sample; then a job
(objects/jobs.py) writes them:

- a selection of ids becomes the job's items at once;
- a filter is first listed in full (`collect_chunk`, a few pages a step), so
  an edit of the very field the filter reads never shifts the pages under
  the job;
- `write_chunk` PATCHes or DELETEs a bounded chunk of items, each with its own
  Idempotency-Key derived from the job and the record.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.conf import settings
from django.http import QueryDict

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.idempotency import IdempotencyKeyField
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step
from dashboard.live.storable import storable, storable_text
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.access import Access, access_from_params, access_params, narrow
from objects.fields import (
    Cell,
    FieldDef,
    api_value,
    cell,
    comparable,
    editable_fields,
    field_defs,
    form_field,
    title_field_key,
)
from objects.filters import FilterPlan, remote_query
from objects.jobs import RECORD_REFUSALS, chunk_size, count_progress, object_job_start, write_key
from objects.models import JobItem, ObjectJob
from objects.table import TableState
from objects.trash import record_delete_to_trash

MAX_IDS = 100  # a page holds at most 100 records
DRY_RUN_LIMIT = 1000  # records a dry run of a filter reads (10 pages); the job lists them all
SAMPLE_SIZE = 5
COLLECT_PAGES = 5  # pages of a filter listed per step
CHECK_CANCEL_EVERY = 25
SCOPE_IDS = "ids"
SCOPE_FILTER = "filter"
ACTIONS = {"edit": ObjectJob.KIND_EDIT, "delete": ObjectJob.KIND_DELETE}


def _clean_id(value: str) -> str | None:
    value = value.strip()
    if not value or len(value) > 200 or "/" in value or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value):
        return None
    return value


@dataclass
class Selection:
    """What the person selected in the records table."""

    scope: str
    ids: list[str]
    query: str

    @classmethod
    def from_data(cls, data: QueryDict) -> Selection:
        ids: list[str] = []
        for raw in data.getlist("ids"):
            cleaned = _clean_id(raw)
            if cleaned and cleaned not in ids:
                ids.append(cleaned)
        scope = SCOPE_FILTER if data.get("scope") == SCOPE_FILTER else SCOPE_IDS
        query = data.get("query", "")
        return cls(scope=scope, ids=ids[:MAX_IDS], query=query if len(query) <= 8000 else "")

    @property
    def is_empty(self) -> bool:
        return self.scope == SCOPE_IDS and not self.ids

    def table_state(self, fields: list[FieldDef]) -> TableState:
        return TableState.from_query(QueryDict(self.query), fields)

    def hidden_pairs(self) -> list[tuple[str, str]]:
        pairs = [("scope", self.scope), ("query", self.query)]
        return pairs + [("ids", record_id) for record_id in self.ids]


class BulkForm(forms.Form):
    """The change a bulk edit makes: a field and its new value (typed as the
    record form types it: objects/fields.py). Empty clears the field."""

    field = forms.ChoiceField(label="Field to change")
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, fields: list[FieldDef], zone: dt.tzinfo, **kwargs):
        super().__init__(*args, **kwargs)
        self.editable = {f.key: f for f in editable_fields(fields)}
        field_choice = self.fields["field"]
        assert isinstance(field_choice, forms.ChoiceField)
        field_choice.choices = [("", "Choose a field…")] + [
            (f.key, f"{f.label} ({f.type_label})") for f in self.editable.values()
        ]
        chosen = self.editable.get(str(self.data.get("field") or self.initial.get("field") or ""))
        self.chosen: FieldDef | None = chosen
        if chosen is not None:
            value_field = form_field(chosen, zone=zone)
            value_field.label = f"New {chosen.label.lower()}" if chosen.label else "New value"
            value_field.help_text = chosen.type_label + ("" if chosen.required else ". Leave empty to clear the field.")
            self.fields["value"] = value_field

    def clean(self):
        cleaned = super().clean()
        if self.chosen is not None and "value" not in self.data and "value" not in self.errors:
            # A field chosen just now: its value input is shown first.
            self.add_error("value", "Enter the new value.")
        return cleaned

    def changes(self) -> dict:
        assert self.chosen is not None
        return {self.chosen.key: api_value(self.chosen, self.cleaned_data.get("value"))}


@dataclass
class SampleRow:
    record_id: str
    title: str
    before: Cell | None = None
    after: Cell | None = None


@dataclass
class DryRun:
    """What a bulk action would do, read from the service without writing."""

    found: int = 0
    changing: int = 0
    missing: int = 0
    more: bool = False
    sample: list[SampleRow] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)


def _title(definition: dict, record: dict) -> str:
    key = title_field_key(definition)
    value = as_dict(record.get("values")).get(key) if key else None
    return storable_text(text(value), limit=300) if value not in (None, "") else "Untitled"


def selected_records(
    *,
    client,
    object_key: str,
    fields: list[FieldDef],
    selection: Selection,
    limit: int = DRY_RUN_LIMIT,
    zone: dt.tzinfo = dt.UTC,
    access: Access | None = None,
    every_field: list[FieldDef] | None = None,
) -> tuple[list[dict], int, bool]:
    """(records, missing ids, more beyond the limit). Ids: the table's page is
    read again (as the table read it) and an id no longer on it is read
    alone. A filter: its pages, up to `limit` records, each one checked
    against the conditions the service cannot (objects/filters.py). Only
    records the person may see (`access`, objects/access.py: `every_field`
    the object's fields, hidden ones too) are acted on."""
    state = selection.table_state(fields)
    plan = narrow(state.plan(fields, zone=zone), access, every_field or fields, zone=zone)
    if selection.scope == SCOPE_FILTER:
        records: list[dict] = []
        more = False
        for item in selectors.record_matching_iter(client=client, object_key=object_key, plan=plan, sort=state.sort):
            if len(records) >= limit:
                more = True
                break
            records.append(as_dict(item))
        return records, 0, more
    page = selectors.record_page(
        client=client,
        object_key=object_key,
        plan=plan,
        sort=state.sort,
        cursor=state.pager.remote_cursor,
        limit=state.limit,
    )
    by_id = {text(as_dict(item).get("id")): as_dict(item) for item in page.items}
    found, missing = [], 0
    for record_id in selection.ids:
        record = by_id.get(record_id)
        if record is None:
            try:
                record = as_dict(selectors.record_get(client=client, object_key=object_key, record_id=record_id))
            except errors.NotFoundError:
                missing += 1
                continue
            if not plan.matches(record):
                missing += 1  # hidden from this person by the object's access policy, or no longer matching
                continue
        found.append(record)
    return found, missing, False


def dry_run(
    *,
    client,
    object_key: str,
    definition: dict,
    fields: list[FieldDef],
    selection: Selection,
    kind: str,
    changes: dict | None,
    zone: dt.tzinfo,
    access: Access | None = None,
    every_field: list[FieldDef] | None = None,
) -> DryRun:
    records, missing, more = selected_records(
        client=client,
        object_key=object_key,
        fields=fields,
        selection=selection,
        zone=zone,
        access=access,
        every_field=every_field,
    )
    result = DryRun(found=len(records), missing=missing, more=more, records=records)
    by_key = {f.key: f for f in fields}
    for record in records:
        values = as_dict(record.get("values"))
        row = SampleRow(record_id=text(record.get("id")), title=_title(definition, record))
        if kind == ObjectJob.KIND_EDIT and changes:
            key, new = next(iter(changes.items()))
            target = by_key[key]
            if comparable(target, values.get(key)) == comparable(target, new):
                continue
            row.before = cell(target, values.get(key), zone=zone)
            row.after = cell(target, new, zone=zone)
        result.changing += 1
        if len(result.sample) < SAMPLE_SIZE:
            result.sample.append(row)
    return result


# --- starting the job --------------------------------------------------------


def _before(kind: str, changes: dict | None, record: dict) -> dict | None:
    """An edit's item keeps the values it will replace (as listed just
    before the job): what undoing the job puts back (objects/job_undo.py)."""
    if kind != ObjectJob.KIND_EDIT or not changes:
        return None
    values = as_dict(record.get("values"))
    return storable({key: values.get(key) for key in changes})


def bulk_job_start(
    *,
    user,
    workspace,
    object_key: str,
    definition: dict,
    fields: list[FieldDef],
    selection: Selection,
    kind: str,
    changes: dict | None,
    title: str,
    uid: str,
) -> ObjectJob:
    """The job row (one per form: the form's idempotency key is its uid, so a
    double submit is the same job) and its items when ids were selected."""
    existing = ObjectJob.objects.filter(uid=uid).first()
    if existing is not None:
        return existing
    from objects.access_reads import person_access, policy_fields

    person = person_access(workspace=workspace, object_key=object_key)
    params: dict[str, Any] = {"changes": changes or {}}
    items: list[dict] = []
    if selection.scope == SCOPE_FILTER:
        state = selection.table_state(fields)
        plan = state.plan(fields, zone=workspace.zone)
        # The records the person may see, checked again on every page collected.
        params.update(access_params(person))
        # `where` and `zone`: the conditions the service cannot check, re-read
        # and checked by the console on each page it collects.
        params.update(
            filter=plan.remote,
            search=plan.search,
            sort=state.sort,
            where=selection.query,
            zone=getattr(workspace.zone, "key", "UTC"),
        )
        status = ObjectJob.COLLECTING
    else:
        items, _missing, _more = selected_records(
            client=workspace.client,
            object_key=object_key,
            fields=fields,
            selection=selection,
            zone=workspace.zone,
            access=person,
            every_field=policy_fields(workspace=workspace, object_key=object_key),
        )
        status = ObjectJob.RUNNING
    return object_job_start(
        uid=uid,
        user=user,
        workspace=workspace,
        object_key=object_key,
        definition=definition,
        kind=kind,
        title=title,
        status=status,
        params=storable(params),
        items=[
            JobItem(
                record_id=storable_text(text(r.get("id")), limit=200),
                title=_title(definition, r),
                before=_before(kind, changes, r),
            )
            for r in items
        ],
    )


# --- the job's phases (objects/jobs.py calls them) ---------------------------


def _job_client(job: ObjectJob):
    # No retries inside the transport: a worker never sleeps (the next step is the retry).
    return job.owner_key.client(max_retries=0)


def collect_chunk(job: ObjectJob) -> Step:
    """List a few pages of the job's filter into its items."""
    client = _job_client(job)
    params = job.params
    query: dict[str, Any] = {
        **remote_query(filters=params.get("filter"), search=params.get("search"), sort=params.get("sort")),
        "limit": 100,
    }
    definition = selectors.object_definition_get(
        client=client, workspace_id=job.workspace_id, object_key=job.object_key
    )
    path = api_path("/v1/objects/{}/records", job.object_key)
    cursor = job.cursor or None
    plan = _job_plan(job, definition)
    for _ in range(COLLECT_PAGES):
        page = client.page(path, params={**query, **({"cursor": cursor} if cursor else {})}, item_key="records")
        position = job.total
        new = []
        for item in page.items:
            record = as_dict(item)
            if plan is not None and not plan.matches(record):
                continue
            record_id = storable_text(text(record.get("id")), limit=200)
            if record_id:
                new.append(
                    JobItem(
                        job=job,
                        position=position,
                        record_id=record_id,
                        title=_title(definition, record),
                        before=_before(job.kind, params.get("changes"), record),
                    )
                )
                position += 1
        created = JobItem.objects.bulk_create(new, ignore_conflicts=True)
        job.total = JobItem.objects.filter(job=job).count() if created else job.total
        cursor = page.next_cursor
        job.cursor = cursor or ""
        if not cursor:
            return Step(done=True, next_status=ObjectJob.RUNNING)
    return MORE


def _job_plan(job: ObjectJob, definition: dict) -> FilterPlan | None:
    """The conditions a filter job checks itself (None for a job started
    before the console checked any: the service's filter was all of it)."""
    where = job.params.get("where")
    if not isinstance(where, str):
        return None
    try:
        zone: dt.tzinfo = ZoneInfo(str(job.params.get("zone") or "UTC"))
    except (ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    fields = field_defs(definition)
    plan = TableState.from_query(QueryDict(where), fields).plan(fields, zone=zone)
    return narrow(plan, access_from_params(job.params), fields, zone=zone)


def _write_one(job: ObjectJob, client, item: JobItem) -> None:
    # Through the area's record writes, which also drop the record's cached title.
    key = write_key(job, f"{job.kind}:{item.record_id}")
    if job.kind == ObjectJob.KIND_DELETE:
        # Kept in the trash first (values, title, links), then deleted.
        record_delete_to_trash(
            client=client,
            workspace_id=job.workspace_id,
            object_key=job.object_key,
            record_id=item.record_id,
            idempotency_key=key,
            definition=None,
            title=item.title,
            user=job.started_by,
        )
        return
    services.record_update(
        client=client,
        object_key=job.object_key,
        record_id=item.record_id,
        # A grid paste's item carries its own values (objects/grid_paste.py); a bulk edit's are the job's.
        changes=item.written if item.written is not None else job.params.get("changes") or {},
        idempotency_key=key,
        workspace_id=job.workspace_id,
    )


# Refusals of one record: reported on its row, the job goes on.
def write_chunk(job: ObjectJob) -> Step:
    """Write a bounded chunk of pending items; a refusal is the item's, an
    error of the service (429, 5xx, 401...) ends the chunk for the job."""
    client = _job_client(job)
    items = list(JobItem.objects.filter(job=job, state=JobItem.PENDING).order_by("position")[: chunk_size()])
    if not items:
        return Step(done=True)
    deadline = time.monotonic() + float(settings.OBJECTS_JOB_CHUNK_SECONDS)
    handled: list[JobItem] = []
    step: Step = MORE
    for n, item in enumerate(items):
        if (n and n % CHECK_CANCEL_EVERY == 0) and (
            ObjectJob.objects.filter(pk=job.pk, cancel_requested=True).exists() or time.monotonic() > deadline
        ):
            break
        try:
            _write_one(job, client, item)
        except errors.NotFoundError as exc:
            if job.kind == ObjectJob.KIND_DELETE:
                item.state, item.message = JobItem.GONE, "Already deleted."
            else:
                item.state, item.message = JobItem.FAILED, "This record no longer exists."
            item.request_id = storable_text(exc.request_id or "", limit=128)
        except RECORD_REFUSALS as exc:
            item.state, item.message = JobItem.FAILED, storable_text(exc.message)
            item.request_id = storable_text(exc.request_id or "", limit=128)
        except errors.ApiError as exc:
            step = step_for_error(exc)
            job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
            break
        else:
            item.state, item.message, item.request_id = JobItem.DONE, "", ""
        handled.append(item)
    JobItem.objects.bulk_update(handled, ["state", "message", "request_id"])
    count_progress(
        job,
        processed=len(handled),
        succeeded=sum(1 for i in handled if i.state in {JobItem.DONE, JobItem.GONE}),
        failed=sum(1 for i in handled if i.state == JobItem.FAILED),
    )
    if step is MORE and handled:
        job.message = ""
        if not JobItem.objects.filter(job=job, state=JobItem.PENDING).exists():
            return Step(done=True)
    return step
