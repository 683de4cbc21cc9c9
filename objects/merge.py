"""Merging twins: the values a person chose written to the kept record, the
twins' links (both directions) made again on it, the twins to the trash;
ONE job on the engine (objects/jobs.py, kind `merge`), in three passes:

1. `write`: the kept record re-read and, by the safe-edit rule of
   objects/edits.py, the chosen values sent (only fields that differ from what
   the compare page showed; a field changed since is refused in words and
   nothing is merged); Idempotency-Key `uuid5(job.uid, "merge:write:<id>")`;
2. `links`: each twin's links re-made from (or to) the kept record, one
   key per link (`merge:link:<twin>:<relation>:<direction>:<object>:<id>`);
   a link between the kept record and a twin, or between twins, would link
   the kept record to itself and is left;
3. `trash`: each twin to the trash with its values and links
   (objects/trash.py), key `merge:trash:<twin>`.

The kept record's item keeps `before` (the values shown) and `written` (the
values sent), so the undo of the job (objects/job_undo.py) puts them back
by the same rule, then restores the twins from the trash (new ids, their
links re-made). The links copied to the kept record stay: the service has
no call that removes a link.
"""

from __future__ import annotations

from dashboard.api import errors
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step
from dashboard.live.storable import storable, storable_text
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.edits import plan_edit
from objects.fields import FieldDef, editable_fields, field_defs
from objects.history import field_or_text
from objects.jobs import RECORD_REFUSALS, count_progress, object_job_start, write_key
from objects.links import link_from
from objects.models import JobItem, ObjectJob, RecordChange
from objects.trash import record_delete_to_trash

MAX_RECORDS = 5  # records one merge compares (the kept one and its twins)


def merge_changes(*, fields: list[FieldDef], records: list[dict], choices: dict[str, int]) -> tuple[dict, dict]:
    """(changes, before): per field, the chosen record's value where it
    differs from the kept record's (the first); `before` the kept record's."""
    kept = as_dict(records[0].get("values")) if records else {}
    changes: dict = {}
    before: dict = {}
    for f in editable_fields(fields):
        n = choices.get(f.key, 0)
        if not 0 <= n < len(records) or n == 0:
            continue
        wanted = as_dict(records[n].get("values")).get(f.key)
        if plan_edit(fields=[f], shown={f.key: kept.get(f.key)}, wanted={f.key: wanted}, current=kept).changes:
            changes[f.key] = wanted
            before[f.key] = kept.get(f.key)
    return changes, before


def merge_start(
    *,
    user,
    workspace,
    object_key: str,
    definition: dict,
    kept: dict,
    twins: list[dict],
    changes: dict,
    before: dict,
    titles: dict[str, str],
    uid: str,
) -> ObjectJob:
    """The merge job (one per form: its idempotency key is the job's uid)."""
    existing = ObjectJob.objects.filter(uid=uid).first()
    if existing is not None:
        return existing
    kept_id = text(kept.get("id"))
    names = ", ".join(f"“{titles.get(text(t.get('id')), '')}”" for t in twins)
    return object_job_start(
        uid=uid,
        user=user,
        workspace=workspace,
        object_key=object_key,
        definition=definition,
        kind=ObjectJob.KIND_MERGE,
        title=f"Merge {names} into “{titles.get(kept_id, '')}”",
        status=ObjectJob.RUNNING,
        params={"pass": "write", "kept": kept_id},
        items=[
            JobItem(
                record_id=kept_id, title=titles.get(kept_id, ""), before=storable(before), written=storable(changes)
            )
        ]
        + [JobItem(record_id=text(t.get("id")), title=titles.get(text(t.get("id")), "")) for t in twins],
    )


def merge_chunk(job: ObjectJob) -> Step:
    client = job.owner_key.client(max_retries=0)
    stage = job.params.get("pass")
    kept = JobItem.objects.filter(job=job, position=0).first()
    twins = list(JobItem.objects.filter(job=job, position__gt=0).order_by("position"))
    if kept is None:
        return Step(done=True)
    try:
        if stage == "write":
            if not _write(job, client, kept, twins):
                return Step(done=True)
            job.params = {**job.params, "pass": "links"}
        elif stage == "links":
            _move_links(job, client, kept, twins)
            job.params = {**job.params, "pass": "trash"}
        else:
            definition = selectors.object_definition_get(
                client=client, workspace_id=job.workspace_id, object_key=job.object_key
            )
            for item in twins:
                if item.state == JobItem.CREATED:
                    _trash(job, client, item, definition)
            return Step(done=True)
    except errors.ApiError as exc:
        step = step_for_error(exc)
        job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
        return step
    job.message = ""
    return MORE


def _write(job: ObjectJob, client, kept: JobItem, twins: list[JobItem]) -> bool:
    """Pass 1; False when the merge stops here (said on the items)."""
    if kept.state != JobItem.PENDING:
        return kept.state == JobItem.DONE
    definition = selectors.object_definition_get(
        client=client, workspace_id=job.workspace_id, object_key=job.object_key
    )
    by_key = {f.key: f for f in field_defs(definition)}
    written, shown = as_dict(kept.written), as_dict(kept.before)
    fields = [field_or_text(key, "", by_key) for key in written]
    try:
        record = as_dict(selectors.record_get(client=client, object_key=job.object_key, record_id=kept.record_id))
    except errors.NotFoundError:
        return _stop(job, kept, twins, "The kept record no longer exists: nothing was merged.")
    plan = plan_edit(fields=fields, shown=shown, wanted=written, current=as_dict(record.get("values")))
    if plan.conflicts:
        names = ", ".join(c.field.label for c in plan.conflicts)
        return _stop(job, kept, twins, f"Changed since the compare page ({names}): nothing was merged. Compare again.")
    try:
        services.record_update_plan(
            client=client,
            object_key=job.object_key,
            record_id=kept.record_id,
            plan=plan,
            idempotency_key=write_key(job, f"merge:write:{kept.record_id}"),
            user=job.started_by,
            workspace_id=job.workspace_id,
            fields=fields,
            action=RecordChange.Action.MERGE,
        )
    except RECORD_REFUSALS as exc:
        return _stop(job, kept, twins, f"The kept record refused the values: {exc.message} Nothing was merged.")
    kept.state, kept.message = JobItem.DONE, ""
    kept.save(update_fields=["state", "message"])
    count_progress(job, processed=1, succeeded=1)
    return True


def _stop(job: ObjectJob, kept: JobItem, twins: list[JobItem], said: str) -> bool:
    kept.state, kept.message = JobItem.FAILED, storable_text(said)
    kept.save(update_fields=["state", "message"])
    JobItem.objects.filter(pk__in=[t.pk for t in twins]).update(state=JobItem.SKIPPED, message="Not merged.")
    count_progress(job, processed=len(twins) + 1, failed=len(twins) + 1)
    return False


def _move_links(job: ObjectJob, client, kept: JobItem, twins: list[JobItem]) -> None:
    """Pass 2: each twin's links made again on the kept record."""
    in_merge = {kept.record_id} | {t.record_id for t in twins}
    for item in twins:
        if item.state != JobItem.PENDING:
            continue
        try:
            raws = selectors.relationship_list(client=client, object_key=job.object_key, record_id=item.record_id)
        except errors.NotFoundError:
            item.state, item.message = JobItem.SKIPPED, "This record no longer exists."
            item.save(update_fields=["state", "message"])
            count_progress(job, processed=1, failed=1)
            continue
        moved, left, refused = [], 0, []
        for raw in raws:
            if not isinstance(raw, dict):
                continue
            link = link_from(raw, object_key=job.object_key, record_id=item.record_id)
            if not link.record_id:
                continue
            if link.object_key == job.object_key and link.record_id in in_merge:
                left += 1
                continue
            here, there = (job.object_key, kept.record_id), (link.object_key, link.record_id)
            source, target = (here, there) if link.direction == "outgoing" else (there, here)
            part = f"merge:link:{item.record_id}:{link.relation_key}:{link.direction}:{there[0]}:{there[1]}"
            try:
                services.relationship_create(
                    client=client,
                    object_key=source[0],
                    record_id=source[1],
                    relation_key=link.relation_key,
                    target_object=target[0],
                    target_id=target[1],
                    label=link.label,
                    metadata=link.metadata,
                    idempotency_key=write_key(job, part),
                    workspace_id=job.workspace_id,
                )
            except errors.NotFoundError:
                refused.append(f"{link.relation_key} (“{link.title or 'the other record'}” no longer exists)")
            except RECORD_REFUSALS as exc:
                refused.append(f"{link.relation_key} ({exc.message})")
            else:
                moved.append(
                    {"relation_key": link.relation_key, "direction": link.direction, "object": there[0], "id": there[1]}
                )
        said = [f"{len(moved)} link{'' if len(moved) == 1 else 's'} moved to the kept record."]
        if left:
            said.append(
                f"{left} link{'' if left == 1 else 's'} between the merged records left out (it would link the record to itself)."
            )
        if refused:
            said.append(f"Not moved: {'; '.join(refused)}.")
        item.state, item.message, item.written = (
            JobItem.CREATED,
            storable_text(" ".join(said)),
            storable({"links": moved}),
        )
        item.save(update_fields=["state", "message", "written"])


def _trash(job: ObjectJob, client, item: JobItem, definition: dict) -> None:
    """Pass 3: one twin to the trash."""
    try:
        record_delete_to_trash(
            client=client,
            workspace_id=job.workspace_id,
            object_key=job.object_key,
            record_id=item.record_id,
            idempotency_key=write_key(job, f"merge:trash:{item.record_id}"),
            definition=definition,
            user=job.started_by,
        )
    except errors.NotFoundError:
        item.state = JobItem.SKIPPED
        item.message = storable_text(f"{item.message} It was deleted meanwhile, not through the console.".strip())
        count_progress(job, processed=1, failed=1)
    except RECORD_REFUSALS as exc:
        item.state = JobItem.FAILED
        item.message = storable_text(f"{item.message} Not sent to the trash: {exc.message}".strip())
        count_progress(job, processed=1, failed=1)
    else:
        item.state = JobItem.DONE
        item.message = storable_text(f"{item.message} Sent to the trash.".strip())
        count_progress(job, processed=1, succeeded=1)
    item.save(update_fields=["state", "message"])
