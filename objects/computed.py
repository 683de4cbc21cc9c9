"""Computed columns on the page's records: formulas over each record's own
values (no remote call), lookups and rollups over its linked records.

The service has no computed fields: the console keeps each column's
definition (objects/models.py ComputedColumn) and computes it on the records
a page has already read. Lookups and rollups need each row's links (read as
the linked-record columns read them: cached, one list per row the contract
allows) and then the linked records' values: cached, and at most
LINKED_VALUE_READS reads per page however many computed columns there are.
A row whose linked records could not all be read shows what was read, and
the page says it is partial.

The language and the summaries are pure (objects/formulas.py,
objects/rollups.py); this module reads and caches.
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.utils.translation import gettext, ngettext

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.web.local_formats import integer
from dashboard.web.reading import as_dict
from objects import selectors
from objects.fields import Cell, FieldDef, cell, csv_value, field_defs
from objects.formulas import (
    BOOLEAN,
    DATE,
    NUMBER,
    TEXT,
    Formula,
    FormulaError,
    FormulaField,
    as_text,
    compile_formula,
)
from objects.links import link_from, relation_label
from objects.models import ComputedColumn
from objects.names import values_cache_key
from objects.rollups import ROLLUP_LABELS, lookup, rollup, rollup_problem, rollup_type
from objects.schema import FieldType

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace

logger = logging.getLogger("objects.computed")

COMPUTED_PREFIX = "computed:"  # a computed column's key in the grid and the export: "computed:<id>"
# A filter's parameter on a computed column ("f.computed:3", "or.1.2.op.computed:3").
COMPUTED_PARAM = re.compile(rf"^(or\.[0-9]+\.[0-9]+\.)?(f|op|to|days)\.({re.escape(COMPUTED_PREFIX)}[0-9]+)$")
MAX_COMPUTED_COLUMNS = 20  # per object
# Linked records read per page for lookups and rollups (besides the cached ones).
LINKED_VALUE_READS = 100
VALUES_TTL_SECONDS = 120


def formula_fields(fields: list[FieldDef]) -> list[FormulaField]:
    return [FormulaField.of(f.key, f.label, f.type, {o.id: o.label for o in f.options}) for f in fields]


@dataclass
class ComputedSpec:
    """One computed column, checked against the fields as they are now."""

    column: ComputedColumn
    result_type: str = TEXT
    formula: Formula | None = None
    # The linked object's field a lookup or rollup reads ("" for a count of links).
    linked_field: str = ""
    linked_type: str = ""
    linked_choices: dict[str, str] = field(default_factory=dict)
    # Why the column computes nothing now (a field it read was removed...), in words.
    problem: str = ""

    @property
    def key(self) -> str:
        return f"{COMPUTED_PREFIX}{self.column.pk}"

    @property
    def label(self) -> str:
        return self.column.name

    @property
    def needs_links(self) -> bool:
        return self.column.kind != ComputedColumn.Kind.FORMULA

    @property
    def description(self) -> str:
        """What it computes, in words (the column header's title and the settings list)."""
        column = self.column
        if column.kind == ComputedColumn.Kind.FORMULA:
            return f"Formula: {column.formula}"
        relation = relation_label(column.relation_key)
        if column.kind == ComputedColumn.Kind.LOOKUP:
            return f"Lookup of {column.field_key} through {relation}"
        of = f" of {column.field_key}" if column.field_key else " of linked records"
        return f"{ROLLUP_LABELS.get(column.function, column.function)}{of} through {relation}"


def computed_columns(*, workspace_id: str, object_key: str) -> list[ComputedColumn]:
    return list(ComputedColumn.objects.filter(workspace_id=workspace_id, object_key=object_key))


def check_formula(source: str, fields: list[FieldDef]) -> Formula:
    """A formula checked against the object's fields (FormulaError in words)."""
    return compile_formula(source, formula_fields(fields))


def specs(
    columns: list[ComputedColumn], *, fields: list[FieldDef], linked_fields: dict[str, list[FieldDef]] | None = None
) -> list[ComputedSpec]:
    """Each column checked against this object's fields (formulas) and the
    linked objects' fields by relation key, when known (lookups, rollups)."""
    result = []
    for column in columns:
        spec = ComputedSpec(column=column)
        if column.kind == ComputedColumn.Kind.FORMULA:
            try:
                spec.formula = check_formula(column.formula, fields)
                spec.result_type = spec.formula.result_type
            except FormulaError as exc:
                spec.problem = str(exc)
        else:
            spec.linked_field = column.field_key
            known = {f.key: f for f in (linked_fields or {}).get(column.relation_key, [])}
            linked = known.get(column.field_key)
            spec.linked_type = FormulaField.of(linked.key, linked.label, linked.type).type if linked else TEXT
            spec.linked_choices = {o.id: o.label for o in linked.options} if linked else {}
            if column.kind == ComputedColumn.Kind.LOOKUP:
                spec.result_type = spec.linked_type
            else:
                if linked is not None:
                    spec.problem = rollup_problem(column.function, spec.linked_type, linked.label)
                spec.result_type = rollup_type(column.function, spec.linked_type)
        result.append(spec)
    return result


@dataclass
class ComputedRead:
    """The page's computed values by record id and column key, and what was
    left partial, in words ("" when every value is whole)."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    problem: str = ""
    linked_reads: int = 0


def linked_values(
    *, workspace: Workspace, refs: list[tuple[str, str]], budget: int | None = None
) -> tuple[dict[tuple[str, str], dict], set[tuple[str, str]], str]:
    """Values of linked records: cached ones in one `get_many`, then at most
    `budget` reads (LINKED_VALUE_READS unless said) within the request's
    read budget (its seconds: settings.SERVICE_READ_BUDGET). Returns the
    values found, the records left unread and why, in words ("" for none)."""
    budget = LINKED_VALUE_READS if budget is None else budget
    wanted = list(dict.fromkeys(ref for ref in refs if ref[0] and ref[1]))
    keys = {ref: values_cache_key(workspace_id=workspace.id, object_key=ref[0], record_id=ref[1]) for ref in wanted}
    cached = cache.get_many(list(keys.values()))
    found = {ref: cached[key] for ref, key in keys.items() if isinstance(cached.get(key), dict)}
    fresh: dict[str, dict] = {}
    unread: set[tuple[str, str]] = set()
    why = ""
    missing = [ref for ref in wanted if ref not in found]
    for index, (object_key, record_id) in enumerate(missing):
        if index >= budget:
            unread.update(missing[index:])
            why = f"at most {integer(budget)} linked records are read for a page"
            break
        try:
            body = as_dict(workspace.client.get(api_path("/v1/objects/{}/records/{}", object_key, record_id)))
        except errors.NotFoundError:
            body = {}
        except errors.ApiError as exc:
            logger.info("Linked record %s/%s unread: %s", object_key, record_id, exc.message)
            unread.update(missing[index:])  # an outage, a rate limit, the page's time: the others would fail alike
            why = (
                "the service did not answer every read in the page's time"
                if isinstance(exc, errors.ApiTimeoutError)
                else "the service refused or failed"
            )
            break
        values = as_dict(body.get("values"))
        found[(object_key, record_id)] = fresh[keys[(object_key, record_id)]] = values
    if fresh:
        cache.set_many(fresh, VALUES_TTL_SECONDS)
    return found, unread, why


def compute(
    *,
    workspace: Workspace,
    object_key: str,
    records: list[dict],
    columns: list[ComputedColumn],
    fields: list[FieldDef],
    today: dt.date | None = None,
) -> tuple[list[ComputedSpec], ComputedRead]:
    """The computed columns' values on these records (one page)."""
    read = ComputedRead()
    if not columns:
        return [], read
    by_id = {str(r.get("id") or ""): as_dict(r.get("values")) for r in records if isinstance(r, dict)}
    linking = [c for c in columns if c.kind != ComputedColumn.Kind.FORMULA]
    links: dict[str, list] = {}
    failures: list[errors.ApiError] = []
    if linking and by_id:
        raw, failures = selectors.record_links_many(
            client=workspace.client, workspace_id=workspace.id, object_key=object_key, record_ids=list(by_id)
        )
        wanted = {c.relation_key for c in linking}
        for record_id, bodies in raw.items():
            seen = [link_from(body, object_key=object_key, record_id=record_id) for body in bodies]
            links[record_id] = [link for link in seen if link.relation_key in wanted and link.record_id]
    # The linked objects' fields (cached definitions) by relation key, for the lookups' types.
    linked_fields: dict[str, list[FieldDef]] = {}
    for record_links in links.values():
        for link in record_links:
            if link.relation_key not in linked_fields:
                try:
                    definition = selectors.object_definition_get(
                        client=workspace.client, workspace_id=workspace.id, object_key=link.object_key
                    )
                except errors.ApiError:
                    definition = {}
                linked_fields[link.relation_key] = field_defs(as_dict(definition))
    checked = specs(columns, fields=fields, linked_fields=linked_fields)
    refs = [(link.object_key, link.record_id) for record_links in links.values() for link in record_links]
    needs_values = any(s.needs_links and s.linked_field for s in checked)
    found, unread, why = linked_values(workspace=workspace, refs=refs) if needs_values and refs else ({}, set(), "")
    evaluators = {s.key: s.formula.evaluator(today=today) for s in checked if s.formula is not None}
    partial_rows = 0
    for record_id, values in by_id.items():
        row: dict[str, Any] = {}
        row_links = links.get(record_id)
        row_partial = False
        for spec in checked:
            if spec.problem:
                row[spec.key] = None
            elif spec.formula is not None:
                row[spec.key] = spec.formula.evaluate_with(evaluators[spec.key], values)
            elif row_links is None:
                row[spec.key] = None
                row_partial = True
            else:
                through = [link for link in row_links if link.relation_key == spec.column.relation_key]
                if spec.linked_field:
                    row_partial = row_partial or any((link.object_key, link.record_id) in unread for link in through)
                    raws = [
                        found[(link.object_key, link.record_id)].get(spec.linked_field)
                        for link in through
                        if (link.object_key, link.record_id) in found
                    ]
                else:
                    raws = [link.record_id for link in through]
                if spec.column.kind == ComputedColumn.Kind.LOOKUP:
                    row[spec.key] = lookup(spec.linked_type, raws, spec.linked_choices)
                else:
                    row[spec.key] = rollup(spec.column.function, spec.linked_field and spec.linked_type, raws)
        partial_rows += row_partial
        read.values[record_id] = row
    if partial_rows:
        if failures and not why:
            why = gettext("the links of some rows could not be read")
        read.problem = ngettext(
            "Lookups and rollups of %(count)s row are partial: not every linked record could be read "
            "for this page (%(why)s). Show fewer rows per page to read them all.",
            "Lookups and rollups of %(count)s rows are partial: not every linked record could be read "
            "for this page (%(why)s). Show fewer rows per page to read them all.",
            partial_rows,
        ) % {"count": partial_rows, "why": why or gettext("some could not be read")}
    return checked, read


# --- shown ---------------------------------------------------------------------


SHOWN_TYPES = {NUMBER: "number", DATE: "date", BOOLEAN: "boolean", TEXT: "text"}


def shown_field(spec: ComputedSpec) -> FieldDef:
    """The field a computed column is shown as (a number is right-aligned...)."""
    kind = SHOWN_TYPES.get(spec.result_type, "text")
    return FieldDef(
        key=spec.key,
        label=spec.label,
        type=kind,
        required=False,
        options=(),
        origin="computed",
        max_length=None,
        raw={},
    )


def stored_form(value: Any) -> Any:
    """A computed value as a stored one, for the cells and the CSV of its type."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, decimal.Decimal):
        return as_text(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def shown_as(spec: ComputedSpec, value: Any) -> FieldDef:
    """A lookup of several records is text whatever its field's type."""
    field = shown_field(spec)
    if isinstance(value, str) and field.type != FieldType.TEXT:
        return shown_field(ComputedSpec(column=spec.column, result_type=TEXT))
    return field


def computed_cell(spec: ComputedSpec, value: Any, *, zone: dt.tzinfo) -> Cell:
    return cell(shown_as(spec, value), stored_form(value), zone=zone)


def computed_csv(spec: ComputedSpec, value: Any, *, zone: dt.tzinfo) -> str:
    return csv_value(shown_as(spec, value), stored_form(value), zone=zone)


def grid_columns(checked: list[ComputedSpec]) -> list[tuple[str, str, FieldDef, str]]:
    """The computed columns as the table takes them (objects/table.py build_table)."""
    return [(s.key, s.label, shown_field(s), s.problem or s.description) for s in checked]


def grid_cells(checked: list[ComputedSpec], read: ComputedRead, *, zone: dt.tzinfo) -> dict[str, list[Cell]]:
    return {
        record_id: [computed_cell(s, row.get(s.key), zone=zone) for s in checked]
        for record_id, row in read.values.items()
    }


# --- the console's API and the assistants' tools ----------------------------


COMPUTED_BY = "console"  # how the API and the tools mark a computed value: never the service's


def records_with_computed(
    *,
    workspace: Workspace,
    object_key: str,
    records: list[dict],
    fields: list[FieldDef] | None = None,
    columns: list[ComputedColumn] | None = None,
) -> dict[str, Any]:
    """Records as the console's API and the MCP tools give them: each with its
    computed values by column key under `computed`, beside `values` (never in
    them: the service has no such field), the columns said once
    (`computed_columns`, each `computed_by: "console"`), and what was partial."""
    if columns is None:
        columns = computed_columns(workspace_id=workspace.id, object_key=object_key)
    if not columns:
        return {"records": records, "computed_columns": [], "computed_problem": ""}
    if fields is None:  # the definition (cached) only for an object that has computed columns
        fields = field_defs(
            selectors.object_definition_get(client=workspace.client, workspace_id=workspace.id, object_key=object_key)
        )
    checked, read = compute(workspace=workspace, object_key=object_key, records=records, columns=columns, fields=fields)
    if not checked:
        return {"records": records, "computed_columns": [], "computed_problem": ""}
    shown = []
    for record in records:
        row = read.values.get(str(as_dict(record).get("id") or ""), {})
        shown.append({**as_dict(record), "computed": {s.key: stored_form(row.get(s.key)) for s in checked}})
    described = [
        {
            "key": s.key,
            "name": s.label,
            "type": SHOWN_TYPES.get(s.result_type, "text"),
            "computes": s.description,
            "problem": s.problem,
            "computed_by": COMPUTED_BY,
        }
        for s in checked
    ]
    return {"records": shown, "computed_columns": described, "computed_problem": read.problem}


def record_with_computed(*, workspace: Workspace, object_key: str, record: dict) -> dict:
    """One record as the API and the tools give it: its computed values, their columns said beside."""
    shown = records_with_computed(workspace=workspace, object_key=object_key, records=[record])
    if not shown["computed_columns"]:
        return record
    return {
        **shown["records"][0],
        "computed_columns": shown["computed_columns"],
        "computed_problem": shown["computed_problem"],
    }


# --- counted over every record (objects/tallies.py) ---------------------------


def counted_specs(*, workspace_id: str, object_key: str, fields: list[FieldDef]) -> list[ComputedSpec]:
    """The computed columns a count over every record can read: the formulas
    (computed from the record's own values, no remote call). A lookup or
    rollup needs each record's links, one read per record: never over every record."""
    columns = computed_columns(workspace_id=workspace_id, object_key=object_key)
    return [s for s in specs(columns, fields=fields) if s.formula is not None and not s.problem]


def counted_fields(checked: list[ComputedSpec], *, number: bool = False) -> list[FieldDef]:
    """Those columns as the fields a sum, a chart or a count's filter names (`number`: results that are numbers)."""
    return [shown_field(s) for s in checked if not number or s.result_type == NUMBER]


def formula_values_of(checked: list[ComputedSpec]) -> Callable[[dict], dict[str, Any]] | None:
    """A record's formula values as stored (`FilterPlan.compute_values`), None without formulas."""
    if not checked:
        return None
    return lambda record: as_dict(with_formula_values([record], checked)[0].get("values"))


def uncounted_problem(query: Iterable[str], checked: list[ComputedSpec]) -> str:
    """What a look or an export says of conditions on lookups and rollups it
    leaves out ("" for none): they read each record's links, the table alone reads them."""
    if not computed_keys_named(query) - {s.key for s in checked}:
        return ""
    return "A condition on a lookup or rollup is checked by the records table only (it reads each record's links)."


def with_formula_values(
    records: list[dict], checked: list[ComputedSpec], *, today: dt.date | None = None
) -> list[dict]:
    """Records with their formulas' values among their own (as stored: a
    number as text), for a count's checks, groups and sums. Copies: the records read stay as read."""
    if not checked:
        return records
    evaluators = {s.key: s.formula.evaluator(today=today) for s in checked if s.formula is not None}
    shown = []
    for record in records:
        values = as_dict(as_dict(record).get("values"))
        extra = {
            s.key: stored_form(s.formula.evaluate_with(evaluators[s.key], values))
            for s in checked
            if s.formula is not None
        }
        shown.append({**as_dict(record), "values": {**values, **extra}})
    return shown


def computed_keys_named(names: Iterable[str]) -> set[str]:
    """The computed columns a query's filter has conditions on ("computed:3")."""
    return {matched.group(3) for name in names if (matched := COMPUTED_PARAM.match(name))}
