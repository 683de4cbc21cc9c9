"""CSV import of records.

The uploaded file is stored in the console (objects.models.ImportStorage) and
only ever streamed, a row at a time (objects/import_files.py reads it).

Columns are mapped to fields by label or key (objects/import_mapping.py); each row is checked with the
object's field rules (the record form's own form fields: objects/fields.py)
in a dry run, then written by the job, one `POST .../records` per row with the
Idempotency-Key derived from the job and the row number: a resumed or re-run
import replays instead of creating a twin.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from django.core.exceptions import ValidationError

from dashboard.api import errors
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step
from dashboard.live.storable import storable_text
from dashboard.web.reading import as_dict, text
from objects import access, import_items, selectors, services
from objects.fields import FieldDef, api_value, comparable, form_field
from objects.import_files import FileFormat, Row, read_rows
from objects.import_mapping import importable_fields, normalised
from objects.jobs import chunk_size, count_progress, write_key
from objects.models import ImportProblem, JobItem, ObjectJob
from objects.schema import SINGLE_CHOICE_TYPES, FieldType

CHECK_CHUNK = 2000  # rows checked per step (local work only)
TRUE_WORDS = frozenset({"yes", "y", "true", "t", "1", "on", "x", "✓"})
FALSE_WORDS = frozenset({"no", "n", "false", "f", "0", "off"})
MULTI_SEPARATOR = re.compile(r"[;|]")


# --- one row, with the object's field rules -----------------------------------


class RowChecker:
    """Turns a row's cells into record values with the object's field rules
    (the record form's fields), or says what is wrong, by field."""

    def __init__(
        self, *, definition: dict, mapping: dict[str, str], zone: dt.tzinfo, header: list[str] | None = None
    ) -> None:
        fields = {f.key: f for f in importable_fields(definition)}
        self.fields = fields
        self.columns = [(int(index), fields[key]) for index, key in mapping.items() if key in fields]
        self.columns.sort(key=lambda column: column[0])
        self.required = [f for f in fields.values() if f.required]
        self.form_fields = {f.key: form_field(f, zone=zone) for _i, f in self.columns}
        header = header or []
        # A problem names the file's column ("E-mail address (Email): ..."), so the person finds it.
        self.names = {f.key: (header[i] if i < len(header) and header[i] else f.label) for i, f in self.columns}

    def where(self, f: FieldDef) -> str:
        column = self.names.get(f.key, "")
        if not column or normalised(column) == normalised(f.label):
            return f.label
        return f"{column} ({f.label})"

    def shown_cells(self, cells: list[str]) -> dict[str, str]:
        """The row's values in its mapped columns, by the file's column name (for the problems' table)."""
        return {
            self.names[f.key]: storable_text(cells[i] if i < len(cells) else "", limit=100) for i, f in self.columns
        }

    def values(self, cells: list[str], *, require: bool = True) -> tuple[dict[str, Any], dict[str, str]]:
        """The row's values and its problems by field; `require=False` leaves
        required fields to `missing` (a row that updates a record needs none)."""
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for index, f in self.columns:
            raw = cells[index].strip() if index < len(cells) else ""
            if not raw:
                continue
            try:
                values[f.key] = self.value(f, raw)
            except ValidationError as exc:
                problems[f.key] = f"{self.where(f)}: {' '.join(exc.messages)}"
        if require:
            problems.update(self.missing(values, problems))
        return values, problems

    def missing(self, values: dict[str, Any], problems: dict[str, str] | None = None) -> dict[str, str]:
        """The required fields the row leaves empty: a new record needs them."""
        return {
            f.key: f"{self.where(f)}: this field is required."
            for f in self.required
            if f.key not in values and f.key not in (problems or {})
        }

    def value(self, f: FieldDef, raw: str) -> Any:
        if f.type == FieldType.BOOLEAN:
            word = raw.lower()
            if word in TRUE_WORDS:
                return True
            if word in FALSE_WORDS:
                return False
            raise ValidationError("write yes or no.")
        if f.type in SINGLE_CHOICE_TYPES:
            return self._option(f, raw)
        if f.type == FieldType.MULTI_SELECT:
            return [self._option(f, part.strip()) for part in MULTI_SEPARATOR.split(raw) if part.strip()]
        return api_value(f, self.form_fields[f.key].clean(raw))

    @staticmethod
    def _option(f: FieldDef, raw: str) -> str:
        wanted = raw.lower()
        for option in f.options:
            if raw == option.id or wanted == option.label.lower():
                return option.id
        choices = ", ".join(option.label for option in f.options)
        raise ValidationError(f"“{raw}” is not one of: {choices}.")


# --- matching rows to existing records -----------------------------------------

CREATE, UPDATE, SKIP = "create", "update", "skip"
MATCH_MODES = [
    (UPDATE, "Update the record it matches (only the fields that differ)"),
    (SKIP, "Skip the row (leave the record as it is)"),
    (CREATE, "Make a new record anyway"),
]
# What a key field can be: short text a person types once per record.
KEY_TYPES = frozenset({FieldType.TEXT, FieldType.EMAIL, FieldType.PHONE, FieldType.URL, FieldType.NUMBER})
# Outcomes of a row, as counted on the job (params["tally"], params["dry_run"]).
CREATED, UPDATED, UNCHANGED, SKIPPED = "created", "updated", "unchanged", "skipped"
OUTCOMES = (CREATED, UPDATED, UNCHANGED, SKIPPED)


def key_fields(fields: list[FieldDef]) -> list[FieldDef]:
    return [f for f in fields if f.type in KEY_TYPES]


@dataclass(frozen=True)
class Matching:
    """How rows meet existing records: by the value of one key field (its
    exact-match filter on the service, one read per row: fresh, so an update
    sends only what differs from the record as it is now), and what a match
    does. No key: every row makes a new record, no read."""

    key: str = ""
    mode: str = CREATE

    @classmethod
    def of(cls, params: dict) -> Matching:
        mode = str(params.get("match_mode") or CREATE)
        return cls(key=str(params.get("match_key") or ""), mode=mode if mode in {CREATE, UPDATE, SKIP} else CREATE)

    @property
    def reads(self) -> bool:
        return bool(self.key) and self.mode != CREATE


class RowRefused(Exception):
    """A row the matching cannot place: two records share its key, or it
    makes a new record without a required field."""

    def __init__(self, message: str, fields: list[str]) -> None:
        super().__init__(message)
        self.fields = fields


@dataclass(frozen=True)
class Plan:
    outcome: str
    record_id: str = ""
    changes: dict | None = None
    record: dict | None = None  # the record as read (an update's)


MAP_PAGES = 5  # pages of 100 records a chunk may read to hold a small object whole


class RecordIndex:
    """The records a chunk's rows may match, found by their key.

    A small object (read whole, page by page, in at most MAP_PAGES pages and
    fewer pages than a quarter of the chunk's rows: cheaper than a read per
    row) is held as a key -> records map for the chunk only, read again at
    the next chunk (fresh), and kept up to date with what the chunk itself
    creates and updates. A larger object is asked one row at a time with the
    service's exact-match filter (`limit=2`, enough to see a second match);
    once found larger, the job stops trying (`params["match_by_row"]`).
    Memory stays bounded either way: at most MAP_PAGES x 100 records."""

    def __init__(self, job: ObjectJob, client, checker: RowChecker, matching: Matching, rows: int) -> None:
        self.job, self.client, self.matching = job, client, matching
        self.key_field = checker.fields.get(matching.key) if matching.reads else None
        self.by_key: dict[Any, list[dict]] | None = None
        # The dry run's own foresight (nothing is written): by the key's text,
        # each record as the import will have left it (check_chunk).
        self.foreseen: dict[str, dict] = {}
        self.seen = access.params_check(job.params, list(checker.fields.values()))
        if self.key_field is not None and not job.params.get("match_by_row"):
            self.by_key = self._read_whole(min(MAP_PAGES, rows // 4))

    def _read_whole(self, budget: int) -> dict[Any, list[dict]] | None:
        if budget < 1:
            return None
        self.by_key = {}
        cursor: str | None = None
        for _ in range(budget):
            page = selectors.record_list(
                client=self.client,
                object_key=self.job.object_key,
                filters=None,
                search=None,
                sort="created_at",  # stable while it is read
                cursor=cursor,
                limit=100,
            )
            for item in page.items:
                self.remember(as_dict(item))
            cursor = page.next_cursor
            if not cursor:
                return self.by_key
        self.job.params = {**self.job.params, "match_by_row": True}
        return None

    def remember(self, record: dict) -> None:
        """A record read, created or updated by this chunk (held objects only)."""
        if self.by_key is None or self.key_field is None:
            return
        value = comparable(self.key_field, as_dict(record.get("values")).get(self.key_field.key))
        if value is not None:
            same = [r for r in self.by_key.get(value, []) if text(r.get("id")) != text(record.get("id"))]
            self.by_key[value] = [*same, record]

    def key_text(self, value: Any) -> str:
        assert self.key_field is not None
        return storable_text(str(comparable(self.key_field, value)), limit=300)

    def foresee(self, record: dict) -> str:
        """A record as the import will have left it (the dry run's): later
        rows with its key meet it, as they will meet the written one."""
        value = as_dict(record.get("values")).get(self.key_field.key) if self.key_field is not None else None
        if value in (None, "", []):
            return ""
        key = self.key_text(value)
        self.foreseen[key] = record
        return key

    def find(self, wanted: Any) -> list[dict]:
        found = self._find(wanted)
        hit = self.foreseen.get(self.key_text(wanted)) if self.foreseen else None
        if hit is None:
            return found
        return ([r for r in found if text(r.get("id")) != text(hit.get("id"))] + [hit])[:2]

    def _find(self, wanted: Any) -> list[dict]:
        if self.by_key is not None and self.key_field is not None:
            return self.by_key.get(comparable(self.key_field, wanted), [])[:2]
        page = selectors.record_list(
            client=self.client,
            object_key=self.job.object_key,
            filters={self.matching.key: wanted},
            search=None,
            sort=None,
            cursor=None,
            limit=2,
        )
        return [as_dict(item) for item in page.items]


def plan_row(checker: RowChecker, matching: Matching, index: RecordIndex, values: dict) -> Plan:
    """What the row will do: create, update only what differs, or nothing
    (skipped: it matches and the mode says skip, or nothing differs)."""
    wanted = values.get(matching.key) if matching.reads else None
    found = [] if wanted in (None, "", []) else index.find(wanted)
    if not found:
        if missing := checker.missing(values):  # a new record needs its required fields
            raise RowRefused(" ".join(missing.values()), list(missing))
        return Plan(CREATED)
    key_field = checker.fields[matching.key]
    if len(found) > 1:
        raise RowRefused(
            f"{checker.where(key_field)}: more than one record has “{checker_text(wanted)}”, "
            "so the row cannot tell which to update.",
            [matching.key],
        )
    record = found[0]
    record_id = text(record.get("id"))
    if not access.sees(index.seen, record):
        raise RowRefused(f"{checker.where(key_field)}: {access.HIDDEN_MATCH}", [matching.key])
    if matching.mode == SKIP:
        return Plan(SKIPPED, record_id=record_id)
    current = as_dict(record.get("values"))
    changes = {
        key: value
        for key, value in values.items()
        if comparable(checker.fields[key], value) != comparable(checker.fields[key], current.get(key))
    }
    if not changes:
        return Plan(UNCHANGED, record_id=record_id)
    return Plan(UPDATED, record_id=record_id, changes=changes, record=record)


def checker_text(value: Any) -> str:
    return storable_text(str(value), limit=80)


def tally_of(job: ObjectJob, phase: str) -> dict[str, int]:
    """Rows by outcome so far: phase "dry_run" (what will happen) or "tally" (what happened)."""
    counted = as_dict(job.params.get(phase))
    return {outcome: int(counted.get(outcome) or 0) for outcome in OUTCOMES}


def _add_tally(job: ObjectJob, phase: str, counts: dict[str, int]) -> None:
    before = tally_of(job, phase)
    job.params = {**job.params, phase: {o: before[o] + counts.get(o, 0) for o in OUTCOMES}}


# --- the job's phases (objects/jobs.py calls them) ----------------------------


def _definition(job: ObjectJob, client) -> dict:
    return selectors.object_definition_get(client=client, workspace_id=job.workspace_id, object_key=job.object_key)


def _checker(job: ObjectJob, client) -> RowChecker:
    return RowChecker(
        definition=_definition(job, client),
        mapping=job.params.get("mapping") or {},
        zone=job.owner_key.zone,
        header=list(job.params.get("header") or []),
    )


def _save_problems(job: ObjectJob, problems: list[ImportProblem]) -> None:
    if problems:
        ImportProblem.objects.bulk_create(
            problems,
            update_conflicts=True,
            unique_fields=["job", "row_number"],
            update_fields=["stage", "fields", "message", "request_id", "line", "cells"],
        )


def _problem(job: ObjectJob, row: Row, checker: RowChecker, stage: str, fields: list[str], message: str, **more):
    return ImportProblem(
        job=job,
        row_number=row.number,
        line=row.line,
        cells=checker.shown_cells(row.cells),
        stage=stage,
        fields=storable_text(", ".join(fields), limit=500),
        message=storable_text(message),
        **more,
    )


def _check_problem(job: ObjectJob, row: Row, checker: RowChecker, problems: dict[str, str]) -> ImportProblem:
    return _problem(job, row, checker, ImportProblem.CHECK, list(problems), " ".join(problems.values()))


def _rows(job: ObjectJob, handle: IO[bytes]) -> Iterator[Row]:
    return read_rows(
        handle,
        start=job.position_byte,
        first_number=job.position_row + 1,
        first_line=job.position_line + 1 if job.position_byte else 0,
        file_format=FileFormat.of(job.params),
    )


def _moved_past(job: ObjectJob, row: Row) -> None:
    job.position_row, job.position_byte, job.position_line = row.number, row.end, row.end_line


def check_chunk(job: ObjectJob) -> Step:
    """The dry run: check a chunk of rows with the field rules and, when
    rows match records, read each row's record; nothing is written."""
    client = job.owner_key.client(max_retries=0)
    checker = _checker(job, client)
    matching = Matching.of(job.params)
    limit = chunk_size() if matching.reads else CHECK_CHUNK
    found: list[ImportProblem] = []
    counts = dict.fromkeys(OUTCOMES, 0)
    handled = ok = 0
    step = Step(done=True, next_status=ObjectJob.CHECKED)
    try:
        index = RecordIndex(job, client, checker, matching, rows=min(limit, job.total - job.processed))
    except errors.ApiError as exc:
        return _waiting(job, exc)
    with job.upload.open("rb") as handle:
        rows = list(itertools.islice(_rows(job, handle), limit + 1))
    if len(rows) > limit:
        rows, step = rows[:limit], MORE
    checked = [(row, *checker.values(row.cells, require=not matching.reads)) for row in rows]
    if index.key_field is not None:  # what earlier chunks foresaw for this chunk's keys
        keys = {
            index.key_text(v[matching.key])
            for _r, v, p in checked
            if not p and v.get(matching.key) not in (None, "", [])
        }
        index.foreseen.update(import_items.foreseen_recall(job, keys))
    foreseen: dict[str, JobItem] = {}
    for row, values, problems in checked:
        if problems:
            found.append(_check_problem(job, row, checker, problems))
        else:
            try:
                plan = plan_row(checker, matching, index, values)
            except RowRefused as exc:
                found.append(_problem(job, row, checker, ImportProblem.CHECK, exc.fields, str(exc)))
            except errors.ApiError as exc:
                step = _waiting(job, exc)
                break
            else:
                counts[plan.outcome] += 1
                ok += 1
                if (left := _as_left(plan, row, values)) is not None and (key := index.foresee(left)):
                    import_items.item_foreseen(foreseen, job=job, position=row.number, record=left, key=key)
        handled += 1
        _moved_past(job, row)
    import_items.items_foreseen_save(foreseen)
    _save_problems(job, found)
    count_progress(job, processed=handled, succeeded=ok, failed=len(found))
    _add_tally(job, "dry_run", counts)
    if step.done:
        job.processed = job.total  # blank lines counted in the total are done too
    return step


def _as_left(plan: Plan, row: Row, values: dict) -> dict | None:
    """The record a row will make or change, as the import will leave it
    (a made one by its row, "row:<n>", until the import gives it an id)."""
    if plan.outcome == CREATED:
        return {"id": f"row:{row.number}", "values": values}
    if plan.outcome == UPDATED:
        read = as_dict(plan.record)
        return {**read, "values": {**as_dict(read.get("values")), **(plan.changes or {})}}
    return None


def _waiting(job: ObjectJob, exc: errors.ApiError) -> Step:
    """A failure of the service ends the chunk: wait (429, 5xx) or stop."""
    step = step_for_error(exc)
    job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
    return step


def reset_for_writing(job: ObjectJob) -> None:
    """From the first row again: the dry run's problems are found again on
    the way (and the service's are re-asked: a fixed object may accept them)."""
    job.problems.all().delete()
    job.items.filter(state=JobItem.FORESEEN).delete()  # the dry run's foresight: the import writes the real ones
    job.position_row = job.position_byte = job.position_line = 0
    job.processed = job.succeeded = job.failed = 0
    job.params = {**job.params, "tally": {}}


def reset_for_checking(job: ObjectJob) -> None:
    """The dry run from the first row (a new mapping or key)."""
    reset_for_writing(job)
    job.params = {**job.params, "dry_run": {}}


# Refusals of one row: reported on the row, the import goes on.
ROW_REFUSALS = (errors.InvalidRequestError, errors.UnprocessableError, errors.ConflictError)


def _write(job: ObjectJob, client, plan: Plan, values: dict, row: Row) -> dict:
    """The row's write (none for a skipped or unchanged row); the record as it now is."""
    if plan.outcome == CREATED:
        return services.record_create(
            client=client,
            object_key=job.object_key,
            values=values,
            idempotency_key=write_key(job, f"row:{row.number}"),
            workspace_id=job.workspace_id,
        )
    if plan.outcome == UPDATED:
        services.record_update(
            client=client,
            object_key=job.object_key,
            record_id=plan.record_id,
            changes=plan.changes or {},
            idempotency_key=write_key(job, f"row:{row.number}:update"),
            workspace_id=job.workspace_id,
        )
        # As read plus what was sent (the answer's shape is the service's own).
        before = as_dict(plan.record)
        return {**before, "values": {**as_dict(before.get("values")), **(plan.changes or {})}}
    return {}


def write_chunk(job: ObjectJob) -> Step:
    """Send a bounded chunk of rows; a 422 lands on its row with the request
    id, a failure of the service ends the chunk (jobs.py waits or stops)."""
    client = job.owner_key.client(max_retries=0)
    checker = _checker(job, client)
    matching = Matching.of(job.params)
    found: list[ImportProblem] = []
    counts = dict.fromkeys(OUTCOMES, 0)
    written: dict[str, JobItem] = {}  # what undoing the import takes back (objects/job_undo.py), by record
    handled = ok = 0
    step: Step = Step(done=True)
    try:
        index = RecordIndex(job, client, checker, matching, rows=min(chunk_size(), job.total - job.processed))
    except errors.ApiError as exc:
        return _waiting(job, exc)
    with job.upload.open("rb") as handle:
        for row in _rows(job, handle):
            if handled >= chunk_size() or (
                handled and handled % 50 == 0 and ObjectJob.objects.filter(pk=job.pk, cancel_requested=True).exists()
            ):
                step = MORE
                break
            values, problems = checker.values(row.cells, require=not matching.reads)
            if problems:
                found.append(_check_problem(job, row, checker, problems))
            else:
                try:
                    plan = plan_row(checker, matching, index, values)
                    record = _write(job, client, plan, values, row)
                    index.remember(record)
                except RowRefused as exc:
                    found.append(_problem(job, row, checker, ImportProblem.CHECK, exc.fields, str(exc)))
                except ROW_REFUSALS as exc:
                    found.append(
                        _problem(
                            job,
                            row,
                            checker,
                            ImportProblem.SERVICE,
                            list(exc.field_errors),
                            exc.message,
                            request_id=storable_text(exc.request_id or "", limit=128),
                        )
                    )
                except errors.ApiError as exc:
                    step = _waiting(job, exc)
                    break
                else:
                    counts[plan.outcome] += 1
                    ok += 1
                    if plan.outcome in (CREATED, UPDATED):
                        import_items.item_written(
                            written,
                            job=job,
                            position=row.number,
                            record_id=text(as_dict(record).get("id")),
                            values=values if plan.outcome == CREATED else None,
                            read=plan.record,
                            changes=plan.changes,
                        )
            handled += 1
            _moved_past(job, row)
    _save_problems(job, found)
    import_items.items_written_save(job, written)
    count_progress(job, processed=handled, succeeded=ok, failed=len(found))
    _add_tally(job, "tally", counts)
    if step.done:
        job.processed = job.total
    if handled and step.wait_seconds is None:
        job.message = job.message if step.stop_message else ""
    return step


def error_report(job: ObjectJob) -> tuple[list[str], Iterator[list[str]]]:
    """The refused rows as the file had them, each by its spreadsheet line
    with its problem, the fields named and the service's request id;
    streamed beside the file."""
    header = list(job.params.get("header") or [])

    def line_of(problem: ImportProblem) -> str:
        return str(problem.line) if problem.line else f"row {problem.row_number}"  # (imports before lines were kept)

    def rows() -> Iterator[list[str]]:
        problems = job.problems.order_by("row_number").iterator(chunk_size=500)
        problem = next(problems, None)
        if problem is None:
            return
        if job.file_removed:
            # The file is gone (OBJECTS_IMPORT_KEEP_DAYS): each row by its number and problem only.
            blank = [""] * len(header)
            while problem is not None:
                yield [line_of(problem), *blank, problem.message, problem.fields, problem.request_id]
                problem = next(problems, None)
            return
        with job.upload.open("rb") as handle:
            for row in read_rows(handle, file_format=FileFormat.of(job.params)):
                while problem is not None and problem.row_number < row.number:
                    problem = next(problems, None)
                if problem is None:
                    return
                if problem.row_number == row.number:
                    yield [str(row.line), *row.cells, problem.message, problem.fields, problem.request_id]

    return ["Line", *header, "Problem", "Fields", "Request id"], rows()
