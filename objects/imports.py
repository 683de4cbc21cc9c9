"""CSV import of records.

The uploaded file is stored in the console (objects.models.ImportStorage) and
only ever streamed: `read_rows` hands out one parsed row at a time, with the
byte offset where the next row starts, so a job step resumes by seeking there
instead of parsing the file again, and 100,000 rows take the memory of one
(tests/objects/test_import_memory.py measures it).

Columns are mapped to fields by label or key; each row is checked with the
object's field rules (the record form's own form fields: objects/fields.py)
in a dry run, then written by the job, one `POST .../records` per row with the
Idempotency-Key derived from the job and the row number: a resumed or re-run
import replays instead of creating a twin.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ValidationError

from dashboard.api import errors
from dashboard.live.storable import storable_text
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.fields import FieldDef, api_value, field_defs, form_field
from objects.jobs import MORE, Step, count_progress, step_for_error, write_key
from objects.models import ImportProblem, JobItem, ObjectJob
from objects.schema import SINGLE_CHOICE_TYPES, FieldType

MAX_LINE_BYTES = 1024 * 1024  # one physical line; a longer one is refused, never read whole
MAX_COLUMNS = 200
CHECK_CHUNK = 2000  # rows checked per step (local work only)
SAMPLE_ROWS = 3
TRUE_WORDS = frozenset({"yes", "y", "true", "t", "1", "on", "x", "✓"})
FALSE_WORDS = frozenset({"no", "n", "false", "f", "0", "off"})
MULTI_SEPARATOR = re.compile(r"[;|]")


class ImportFileError(ValueError):
    """The file cannot be read as CSV; the message says why, for the person."""


def max_upload_bytes() -> int:
    return int(settings.OBJECTS_IMPORT_MAX_BYTES)


# --- streaming --------------------------------------------------------------


class _Lines:
    """Decoded lines of a binary file from a byte offset; `offset` is where
    the next line starts once the csv reader has taken what it needs (it
    never reads ahead of the row it returns)."""

    def __init__(self, handle: IO[bytes], start: int) -> None:
        handle.seek(start)
        self.handle = handle
        self.offset = start
        self.line_number = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            raise StopIteration
        if len(raw) > MAX_LINE_BYTES:
            raise ImportFileError("A line of the file is longer than 1 MB; is it really a CSV file?")
        if self.offset == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
            self.offset += len(codecs.BOM_UTF8)
        self.offset += len(raw)
        self.line_number += 1
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ImportFileError(
                f"Line {self.line_number} is not UTF-8 text. Save the file as “CSV UTF-8” and upload it again."
            ) from None


@dataclass(frozen=True)
class Row:
    number: int  # 1 = the first row after the header
    cells: list[str]
    end: int  # byte offset where the next row starts


def read_rows(handle: IO[bytes], *, start: int = 0, first_number: int = 1) -> Iterator[Row]:
    """Parsed rows from byte offset `start` (which must begin a row). From 0
    the header is read first and not yielded."""
    lines = _Lines(handle, start)
    reader = csv.reader(lines)
    try:
        if start == 0:
            next(reader, None)
        number = first_number
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                number += 1  # a blank line still counts, so row numbers match the file
                continue
            yield Row(number=number, cells=cells[:MAX_COLUMNS], end=lines.offset)
            number += 1
    except csv.Error as exc:
        raise ImportFileError(f"The file could not be read as CSV near line {lines.line_number}: {exc}.") from None


def read_header(handle: IO[bytes]) -> tuple[list[str], int]:
    """The header's cells and the byte offset of the first data row."""
    lines = _Lines(handle, 0)
    try:
        header = next(csv.reader(lines), None)
    except csv.Error as exc:
        raise ImportFileError(f"The first line could not be read as CSV: {exc}.") from None
    if not header or not any(cell.strip() for cell in header):
        raise ImportFileError("The file is empty: its first line should name the columns.")
    if len(header) > MAX_COLUMNS:
        raise ImportFileError(f"The file has {len(header)} columns; at most {MAX_COLUMNS} can be imported.")
    return [cell.strip() for cell in header], lines.offset


def scan(handle: IO[bytes]) -> tuple[list[str], int, list[list[str]]]:
    """(header, data rows, the first rows as a sample), reading the whole file
    once, a row at a time: a file that is not CSV is refused at upload."""
    header, _start = read_header(handle)
    count = 0
    sample: list[list[str]] = []
    for row in read_rows(handle):
        count += 1
        if len(sample) < SAMPLE_ROWS:
            sample.append(row.cells)
    return header, count, sample


def sample_rows(handle: IO[bytes]) -> list[list[str]]:
    rows = []
    for row in read_rows(handle):
        rows.append(row.cells)
        if len(rows) >= SAMPLE_ROWS:
            break
    return rows


# --- mapping columns to fields ----------------------------------------------


def _normalised(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.strip().lower()).strip("_")


def suggested_mapping(header: list[str], fields: list[FieldDef]) -> dict[str, str]:
    """{column index: field key} for the columns whose name is a field's label
    or key (any case, spaces or underscores); each field once."""
    by_name: dict[str, str] = {}
    for f in fields:
        by_name.setdefault(_normalised(f.key), f.key)
        by_name.setdefault(_normalised(f.label), f.key)
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for index, name in enumerate(header):
        key = by_name.get(_normalised(name))
        if key and key not in used:
            mapping[str(index)] = key
            used.add(key)
    return mapping


def importable_fields(definition: dict) -> list[FieldDef]:
    return [f for f in field_defs(definition) if f.origin != "system"]


# --- one row, with the object's field rules -----------------------------------


class RowChecker:
    """Turns a row's cells into record values with the object's field rules
    (the record form's fields), or says what is wrong, by field."""

    def __init__(self, *, definition: dict, mapping: dict[str, str], zone: dt.tzinfo) -> None:
        fields = {f.key: f for f in importable_fields(definition)}
        self.columns = [(int(index), fields[key]) for index, key in mapping.items() if key in fields]
        self.required = [f for f in fields.values() if f.required]
        self.form_fields = {f.key: form_field(f, zone=zone) for _i, f in self.columns}

    def values(self, cells: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
        values: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for index, f in self.columns:
            raw = cells[index].strip() if index < len(cells) else ""
            if not raw:
                continue
            try:
                values[f.key] = self.value(f, raw)
            except ValidationError as exc:
                problems[f.key] = f"{f.label}: {' '.join(exc.messages)}"
        for f in self.required:
            if f.key not in values and f.key not in problems:
                problems[f.key] = f"{f.label}: this field is required."
        return values, problems

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


# --- the job's phases (objects/jobs.py calls them) ----------------------------


def _definition(job: ObjectJob, client) -> dict:
    return selectors.object_definition_get(client=client, workspace_id=job.workspace_id, object_key=job.object_key)


def _checker(job: ObjectJob, client) -> RowChecker:
    return RowChecker(
        definition=_definition(job, client), mapping=job.params.get("mapping") or {}, zone=job.owner_key.zone
    )


def _save_problems(job: ObjectJob, problems: list[ImportProblem]) -> None:
    if problems:
        ImportProblem.objects.bulk_create(
            problems,
            update_conflicts=True,
            unique_fields=["job", "row_number"],
            update_fields=["stage", "fields", "message", "request_id"],
        )


def _check_problem(job: ObjectJob, row: Row, problems: dict[str, str]) -> ImportProblem:
    return ImportProblem(
        job=job,
        row_number=row.number,
        stage=ImportProblem.CHECK,
        fields=storable_text(", ".join(problems), limit=500),
        message=storable_text(" ".join(problems.values())),
    )


def check_chunk(job: ObjectJob) -> Step:
    """The dry run: check a chunk of rows with the field rules; nothing is sent."""
    checker = _checker(job, job.owner_key.client(max_retries=0))
    found: list[ImportProblem] = []
    handled = ok = 0
    finished = True
    with job.upload.open("rb") as handle:
        for row in read_rows(handle, start=job.position_byte, first_number=job.position_row + 1):
            _values, problems = checker.values(row.cells)
            if problems:
                found.append(_check_problem(job, row, problems))
            else:
                ok += 1
            handled += 1
            job.position_row, job.position_byte = row.number, row.end
            if handled >= CHECK_CHUNK:
                finished = False
                break
    _save_problems(job, found)
    count_progress(job, processed=handled, succeeded=ok, failed=len(found))
    if finished:
        job.processed = job.total  # blank lines counted in the total are done too
        return Step(done=True, next_status=ObjectJob.CHECKED)
    return MORE


def reset_for_writing(job: ObjectJob) -> None:
    """From the first row again: the dry run's problems are found again on
    the way (and the service's are re-asked: a fixed object may accept them)."""
    job.problems.all().delete()
    job.position_row = job.position_byte = 0
    job.processed = job.succeeded = job.failed = 0


# Refusals of one row: reported on the row, the import goes on.
ROW_REFUSALS = (errors.InvalidRequestError, errors.UnprocessableError, errors.ConflictError)


def write_chunk(job: ObjectJob) -> Step:
    """Send a bounded chunk of rows; a 422 lands on its row with the request
    id, a failure of the service ends the chunk (jobs.py waits or stops)."""
    from objects.jobs import chunk_size

    client = job.owner_key.client(max_retries=0)
    checker = _checker(job, client)
    found: list[ImportProblem] = []
    created: list[JobItem] = []  # what undoing the import puts in the trash (objects/job_undo.py)
    handled = ok = 0
    step: Step = Step(done=True)
    with job.upload.open("rb") as handle:
        for row in read_rows(handle, start=job.position_byte, first_number=job.position_row + 1):
            if handled >= chunk_size() or (
                handled and handled % 50 == 0 and ObjectJob.objects.filter(pk=job.pk, cancel_requested=True).exists()
            ):
                step = MORE
                break
            values, problems = checker.values(row.cells)
            if problems:
                found.append(_check_problem(job, row, problems))
            else:
                try:
                    record = services.record_create(
                        client=client,
                        object_key=job.object_key,
                        values=values,
                        idempotency_key=write_key(job, f"row:{row.number}"),
                    )
                except ROW_REFUSALS as exc:
                    found.append(
                        ImportProblem(
                            job=job,
                            row_number=row.number,
                            stage=ImportProblem.SERVICE,
                            fields=storable_text(", ".join(exc.field_errors), limit=500),
                            message=storable_text(exc.message),
                            request_id=storable_text(exc.request_id or "", limit=128),
                        )
                    )
                except errors.ApiError as exc:
                    step = step_for_error(exc)
                    job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
                    break
                else:
                    ok += 1
                    record_id = storable_text(text(as_dict(record).get("id")), limit=200)
                    if record_id:
                        created.append(JobItem(job=job, position=row.number, record_id=record_id, state=JobItem.DONE))
            handled += 1
            job.position_row, job.position_byte = row.number, row.end
    _save_problems(job, found)
    JobItem.objects.bulk_create(created, ignore_conflicts=True)
    count_progress(job, processed=handled, succeeded=ok, failed=len(found))
    if step.done:
        job.processed = job.total
    if handled and step.wait_seconds is None:
        job.message = job.message if step.stop_message else ""
    return step


def error_report(job: ObjectJob) -> tuple[list[str], Iterator[list[str]]]:
    """The refused rows as the file had them, each with its problem, the
    fields named and the service's request id; streamed beside the file."""
    header = list(job.params.get("header") or [])

    def rows() -> Iterator[list[str]]:
        problems = job.problems.order_by("row_number").iterator(chunk_size=500)
        problem = next(problems, None)
        if problem is None:
            return
        if job.file_removed:
            # The file is gone (OBJECTS_IMPORT_KEEP_DAYS): each row by its number and problem only.
            blank = [""] * len(header)
            while problem is not None:
                yield [str(problem.row_number), *blank, problem.message, problem.fields, problem.request_id]
                problem = next(problems, None)
            return
        with job.upload.open("rb") as handle:
            for row in read_rows(handle):
                while problem is not None and problem.row_number < row.number:
                    problem = next(problems, None)
                if problem is None:
                    return
                if problem.row_number == row.number:
                    yield [str(row.number), *row.cells, problem.message, problem.fields, problem.request_id]

    return ["Row", *header, "Problem", "Fields", "Request id"], rows()
