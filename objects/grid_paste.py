"""A block pasted into the records grid, or a range filled down
(static/js/objects_grid_range.js): the spreadsheet's text read as rows of
cells, laid onto the rows and columns the grid showed from the focused
cell, each cell checked with the object's field rules (the import's:
objects/imports.py RowChecker), and what would change, cell by cell, beside
what is refused and why. The writes are a bulk edit job (objects/bulk.py)
whose items each carry their own values (`written`) and the values they
replace (`before`): one job, one Undo (objects/job_undo.py) by the
safe-edit rule. The dry run carries the values it showed (`shown`); Confirm
re-reads the page and plans again by that rule (objects/edits.py
`plan_edit`): a cell someone changed since the dry run was shown is not
written, and the job lists it (`skipped`). Pure logic but `paste_records`
(one read of the page)."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.translation import gettext, ngettext

from dashboard.live.storable import storable, storable_text
from dashboard.web.reading import as_dict, text
from objects.access import Access
from objects.access_reads import person_access, policy_fields
from objects.bulk import Selection, selected_records
from objects.edits import decode_values, plan_edit
from objects.fields import Cell, FieldDef, cell, editable_fields
from objects.imports import RowChecker
from objects.jobs import object_job_start
from objects.models import JobItem, ObjectJob
from objects.names import title_of
from objects.schema import FieldType

PASTE, FILL = "paste", "fill"
MAX_TEXT = 500_000  # characters of pasted text read (a 100-row page of 20 columns is far less)
MAX_COLUMNS = 100
SHOWN_FIELD = "shown_values"  # the values the dry run showed, per record and field (JSON)
MAX_SHOWN_TEXT = 4 * MAX_TEXT  # a page's values, each cell's JSON beside its record's id

# How the grid shows a number or a time, read back: "USD 1,200.00" and "2026-03-05 14:00 CET".
_NUMBER_NOISE = re.compile(r"^[A-Za-z$€£¥]{1,3}\s*|[\s,]|\s*[A-Za-z$€£¥]{1,3}$")
_NUMBER = re.compile(r"[-+]?\d*\.?\d+")
_ZONE_WORD = re.compile(r"\s+[A-Za-z][A-Za-z0-9+\-_/]{1,31}$")


def tsv_parse(raw: str) -> list[list[str]]:
    """A spreadsheet's copied block: rows by line, cells by tab; a cell in
    double quotes may hold tabs, line breaks and "" for a quote (the
    convention Excel, Sheets and LibreOffice write). The last line break
    ends the last row; it starts no empty one."""
    raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if raw.endswith("\n"):
        raw = raw[:-1]
    if not raw:
        return []
    rows: list[list[str]] = []
    row: list[str] = []
    i, n = 0, len(raw)
    while True:
        if i < n and raw[i] == '"':
            j, kept = i + 1, []
            while j < n:
                if raw[j] == '"':
                    if j + 1 < n and raw[j + 1] == '"':
                        kept.append('"')
                        j += 2
                        continue
                    j += 1
                    break
                kept.append(raw[j])
                j += 1
            end = j
            while end < n and raw[end] not in "\t\n":  # text after the closing quote is kept as typed
                end += 1
            value = "".join(kept) + raw[j:end]
        else:
            end = i
            while end < n and raw[end] not in "\t\n":
                end += 1
            value = raw[i:end]
        row.append(value)
        i = end
        if i >= n:
            rows.append(row)
            return rows
        if raw[i] == "\n":
            rows.append(row)
            row = []
        i += 1


@dataclass(frozen=True)
class Column:
    """A column as the grid rendered it: its field key ("" for a computed or
    linked column) and its header's label."""

    key: str
    label: str


@dataclass
class Region:
    """Where a paste lands (its top-left cell, then every row and column the
    page shows below and to the right) or the range a fill covers."""

    mode: str
    selection: Selection  # the rows' record ids and the table's query, as the bulk selection reads them
    columns: list[Column]
    raw: str = ""

    @classmethod
    def from_data(cls, data: QueryDict) -> Region:
        keys = data.getlist("keys")[:MAX_COLUMNS]
        labels = data.getlist("labels")[:MAX_COLUMNS]
        columns = [
            Column(key=key.strip()[:200], label=storable_text(labels[i] if i < len(labels) else key, limit=200))
            for i, key in enumerate(keys)
        ]
        mode = FILL if data.get("mode") == FILL else PASTE
        return cls(mode=mode, selection=Selection.from_data(data), columns=columns, raw=data.get("tsv", "")[:MAX_TEXT])

    @property
    def ids(self) -> list[str]:
        return self.selection.ids

    def hidden_pairs(self) -> list[tuple[str, str]]:
        pairs = [("mode", self.mode), ("tsv", self.raw), *self.selection.hidden_pairs()]
        return pairs + [("keys", c.key) for c in self.columns] + [("labels", c.label) for c in self.columns]


@dataclass
class CellChange:
    field: FieldDef
    now: Cell
    after: Cell


@dataclass
class RowChange:
    """One record's writes: one item of the job (one write, its own key)."""

    record_id: str
    title: str
    before: dict[str, Any]
    written: dict[str, Any]
    cells: list[CellChange] = field(default_factory=list)


@dataclass(frozen=True)
class Skipped:
    """A cell changed by someone else since the dry run was shown: not
    written (kept in the job's params as a dict, said on its page)."""

    record_id: str
    title: str
    field: str  # the field's label

    def as_dict(self) -> dict[str, str]:
        return {"record_id": self.record_id, "title": self.title, "field": self.field}


@dataclass
class PastePlan:
    rows: list[RowChange] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    unchanged: int = 0  # cells that already hold the value
    skipped: list[Skipped] = field(default_factory=list)
    shown: dict[str, dict[str, Any]] = field(default_factory=dict)  # what this plan shows, per record: now

    @property
    def cells(self) -> int:
        return sum(len(r.cells) for r in self.rows)

    @property
    def shown_json(self) -> str:
        return json.dumps(self.shown, sort_keys=True, separators=(",", ":"), default=str)


def shown_from_data(data: QueryDict) -> dict[str, dict[str, Any]] | None:
    """The values a dry run showed, as its form carried them back (None when
    absent or unreadable: the first dry run, or a form changed by hand)."""
    decoded = decode_values(data.get(SHOWN_FIELD), limit=MAX_SHOWN_TEXT)
    if decoded is None:
        return None
    return {str(k): v for k, v in decoded.items() if isinstance(v, dict)}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def size_words(rows: int, columns: int) -> str:
    """ "3 rows by 2 columns", as the grid announces a selection."""
    return f"{_plural(rows, 'row')} by {_plural(columns, 'column')}"


def writable_columns(
    columns: list[Column], fields: list[FieldDef], *, counts: list[int], read_only: frozenset[str] = frozenset()
) -> tuple[list[FieldDef | None], list[str]]:
    """Each column's field, or None with the reason it is not written
    (`counts`: how many cells of the block fall in each column; `read_only`:
    the fields the object's access policy keeps this person from changing)."""
    by_key = {f.key: f for f in fields}
    editable = {f.key for f in editable_fields(fields)}
    out: list[FieldDef | None] = []
    refused: list[str] = []
    for column, n in zip(columns, counts, strict=True):
        target = by_key.get(column.key) if column.key else None
        if target is None:
            out.append(None)
            if n:
                refused.append(
                    ngettext(
                        "“%(field)s” is computed, linked or kept by the service, not a field to write: "
                        "%(count)s cell left as it is.",
                        "“%(field)s” is computed, linked or kept by the service, not a field to write: "
                        "%(count)s cells left as they are.",
                        n,
                    )
                    % {"field": column.label, "count": n}
                )
        elif target.key in read_only:
            out.append(None)
            if n:
                refused.append(
                    ngettext(
                        "“%(field)s” is read-only for you (the object's access policy): %(count)s cell left as it is.",
                        "“%(field)s” is read-only for you (the object's access policy): "
                        "%(count)s cells left as they are.",
                        n,
                    )
                    % {"field": target.label, "count": n}
                )
        elif target.key not in editable:
            out.append(None)
            if n:
                refused.append(
                    ngettext(
                        "“%(field)s” is kept by the service (read-only): %(count)s cell left as it is.",
                        "“%(field)s” is kept by the service (read-only): %(count)s cells left as they are.",
                        n,
                    )
                    % {"field": target.label, "count": n}
                )
        else:
            out.append(target)
    return out, refused


def _readable(f: FieldDef, raw: str) -> str:
    """The grid's own way of showing a value, as a form field reads it."""
    if f.type in (FieldType.NUMBER, FieldType.CURRENCY):
        bare = _NUMBER_NOISE.sub("", raw)
        return bare if _NUMBER.fullmatch(bare) else raw  # "many" stays a word, refused as one
    if f.type == FieldType.DATETIME:
        return _ZONE_WORD.sub("", raw)
    return raw


def cell_value(checker: RowChecker, f: FieldDef, raw: str) -> Any:
    """A pasted cell's stored value (empty clears it); ValidationError in the field's words."""
    raw = raw.strip()
    if raw in ("", "—"):
        if f.required:
            raise ValidationError(gettext("this field is required."))
        return None
    return checker.value(f, _readable(f, raw))


def paste_wanted(
    block: list[list[str]],
    region: Region,
    *,
    definition: dict,
    fields: list[FieldDef],
    records: dict[str, dict],
    zone: dt.tzinfo,
    read_only: frozenset[str] = frozenset(),
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The block laid from the region's first row and column: the values
    wanted per record id, and what was refused (in words naming the field)."""
    refused: list[str] = []
    ids, columns = region.ids, region.columns
    if len(block) > len(ids):
        past = len(block) - len(ids)
        refused.append(
            ngettext(
                "%(count)s row of the block falls past this page's last row: left out. Paste it from the next page.",
                "%(count)s rows of the block fall past this page's last row: left out. Paste them from the next page.",
                past,
            )
            % {"count": past}
        )
    width = max((len(r) for r in block), default=0)
    if width > len(columns):
        past = width - len(columns)
        refused.append(
            ngettext(
                "%(count)s column of the block falls past the table's last column: left out.",
                "%(count)s columns of the block fall past the table's last column: left out.",
                past,
            )
            % {"count": past}
        )
    rows = block[: len(ids)]
    counts = [sum(1 for r in rows if j < len(r)) for j in range(len(columns))]
    targets, column_refusals = writable_columns(columns, fields, counts=counts, read_only=read_only)
    refused.extend(column_refusals)
    editable = editable_fields(fields)
    checker = RowChecker(definition=definition, mapping={str(i): f.key for i, f in enumerate(editable)}, zone=zone)
    wanted: dict[str, dict[str, Any]] = {}
    for record_id, row in zip(ids, rows, strict=False):
        record = records.get(record_id)
        if record is None:
            refused.append(gettext("A row's record no longer exists: its cells are left out."))
            continue
        for j, raw in enumerate(row[: len(columns)]):
            target = targets[j]
            if target is None:
                continue
            try:
                wanted.setdefault(record_id, {})[target.key] = cell_value(checker, target, raw)
            except ValidationError as exc:
                refused.append(
                    gettext("%(record)s, %(field)s: %(problem)s")
                    % {"record": title_of(record, definition), "field": target.label, "problem": " ".join(exc.messages)}
                )
    return wanted, refused


def fill_wanted(
    region: Region, *, fields: list[FieldDef], records: dict[str, dict], read_only: frozenset[str] = frozenset()
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The range's top row's stored values into each row below it."""
    ids = region.ids
    if len(ids) < 2 or ids[0] not in records:
        return {}, [gettext("Fill down needs a range of two rows or more, its top row still there.")]
    below = len(ids) - 1
    targets, refused = writable_columns(
        region.columns, fields, counts=[below] * len(region.columns), read_only=read_only
    )
    top = as_dict(records[ids[0]].get("values"))
    wanted: dict[str, dict[str, Any]] = {}
    for record_id in ids[1:]:
        if record_id not in records:
            refused.append(gettext("A row's record no longer exists: it is left out."))
            continue
        wanted[record_id] = {f.key: top.get(f.key) for f in targets if f is not None}
    return wanted, refused


def plan_changes(
    wanted: dict[str, dict[str, Any]],
    *,
    definition: dict,
    fields: list[FieldDef],
    records: dict[str, dict],
    zone: dt.tzinfo,
    shown: dict[str, dict[str, Any]] | None = None,
) -> tuple[list[RowChange], int, list[Skipped]]:
    """Each record's cells by the safe-edit rule (objects/edits.py): `shown`
    is what the dry run showed (None for the dry run itself: what the
    records hold now), `wanted` the block's values, `current` the records
    read now. Only cells whose value differs are written, with the values
    they replace (what the job writes and its undo puts back); a cell
    someone changed since it was shown, to another value, is skipped. Also
    how many cells already held their value."""
    by_key = {f.key: f for f in fields}
    rows: list[RowChange] = []
    skipped: list[Skipped] = []
    unchanged = 0
    for record_id, values in wanted.items():
        record = records[record_id]
        current = as_dict(record.get("values"))
        title = title_of(record, definition) or "Untitled"
        seen = shown.get(record_id, current) if shown is not None else current
        targets = [by_key[key] for key in values]
        edit = plan_edit(
            fields=targets, shown={f.key: seen.get(f.key) for f in targets}, wanted=values, current=current
        )
        skipped.extend(Skipped(record_id=record_id, title=title, field=c.field.label) for c in edit.conflicts)
        unchanged += len(values) - len(edit.changes) - len(edit.conflicts)
        row = RowChange(record_id=record_id, title=title, before={}, written={})
        for target in targets:
            if target.key not in edit.changes:
                continue
            new, now = edit.changes[target.key], edit.before[target.key]
            row.before[target.key], row.written[target.key] = now, new
            row.cells.append(
                CellChange(field=target, now=cell(target, now, zone=zone), after=cell(target, new, zone=zone))
            )
        if row.cells:
            row.before, row.written = storable(row.before), storable(row.written)
            rows.append(row)
    return rows, unchanged, skipped


def paste_records(
    *,
    client,
    object_key: str,
    fields: list[FieldDef],
    region: Region,
    zone: dt.tzinfo,
    access: Access | None = None,
    every_field: list[FieldDef] | None = None,
) -> dict[str, dict]:
    """The region's records as they are now: the table's page read again
    (one read), a record no longer on it read alone (the bulk selection's
    read), only those the object's access policy lets this person see."""
    found, _missing, _more = selected_records(
        client=client,
        object_key=object_key,
        fields=fields,
        selection=region.selection,
        zone=zone,
        access=access,
        every_field=every_field,
    )
    return {text(r.get("id")): r for r in found}


def paste_plan(
    *,
    workspace,
    object_key: str,
    definition: dict,
    fields: list[FieldDef],
    region: Region,
    shown: dict[str, dict[str, Any]] | None = None,
) -> PastePlan:
    """What the paste or the fill would write, read from the service without
    writing; as the object's access policy lets this person (the records they
    see, the fields they may change), as a bulk edit does. `shown`: what the
    dry run showed (at Confirm): a cell changed since is skipped."""
    person = person_access(workspace=workspace, object_key=object_key)
    access = None if person.everything else person
    every_field = None if person.everything else policy_fields(workspace=workspace, object_key=object_key)
    client, zone = workspace.client, workspace.zone
    if not region.ids or not region.columns:
        return PastePlan(refused=[gettext("Nothing to paste into: focus a cell of the table first.")])
    block = tsv_parse(region.raw) if region.mode == PASTE else []
    if region.mode == PASTE and not block:
        return PastePlan(refused=[gettext("The clipboard held no text to paste.")])
    records = paste_records(
        client=client,
        object_key=object_key,
        fields=fields,
        region=region,
        zone=zone,
        access=access,
        every_field=every_field,
    )
    read_only = access.read_only if access is not None else frozenset()
    if region.mode == FILL:
        wanted, refused = fill_wanted(region, fields=fields, records=records, read_only=read_only)
    else:
        wanted, refused = paste_wanted(
            block, region, definition=definition, fields=fields, records=records, zone=zone, read_only=read_only
        )
    rows, unchanged, skipped = plan_changes(
        wanted, definition=definition, fields=fields, records=records, zone=zone, shown=shown
    )
    now = {
        record_id: {key: as_dict(records[record_id].get("values")).get(key) for key in values}
        for record_id, values in wanted.items()
    }
    return PastePlan(rows=rows, refused=list(dict.fromkeys(refused)), unchanged=unchanged, skipped=skipped, shown=now)


def paste_title(region: Region, definition: dict) -> str:
    plural = str(definition.get("plural_name") or "records").lower()
    if region.mode == FILL:
        return f"Fill down of {size_words(len(region.ids), len(region.columns))} in {plural}"
    block = tsv_parse(region.raw)
    return f"Paste of {size_words(len(block), max((len(r) for r in block), default=0))} into {plural}"


def grid_paste_job_start(
    *, user, workspace, object_key: str, definition: dict, region: Region, plan: PastePlan, title: str, uid: str
) -> ObjectJob:
    """One bulk edit job for the whole paste or fill (one per confirm: the
    form's idempotency key is its uid): an item per record, each with its
    own values to write and the values they replace (for its Undo)."""
    existing = ObjectJob.objects.filter(uid=uid).first()
    if existing is not None:
        return existing
    return object_job_start(
        uid=uid,
        user=user,
        workspace=workspace,
        object_key=object_key,
        definition=definition,
        kind=ObjectJob.KIND_EDIT,
        title=title,
        params={"changes": {}, "grid": region.mode, "skipped": [s.as_dict() for s in plan.skipped]},
        items=[
            JobItem(
                record_id=row.record_id,
                title=storable_text(row.title, limit=300),
                before=row.before,
                written=row.written,
            )
            for row in plan.rows
        ],
    )
