"""The records filter bar's controls: each field's condition (`FilterControl`),
and the OR groups, editable without JavaScript: each
group's branches as the bar's own controls (their parameters behind the
branch's prefix, objects/conditions.py), a "Remove" link per group, and two
field pickers the GET form sends: `or.add=<field key>` begins a new group
with that field's blank control, `or.add.<group>=<field key>` adds another
alternative to a group. A blank control is no condition, so a picker that
was not used changes nothing; the page with a picker used is a whole page
(the bar itself changes, not only the table: `adding`).

Conditions on a linked record's fields (objects/linked_fields.py) are
offered in every picker, each linked object's fields grouped under the
relationship's name (`LinkedChoice`); `link.add=<linked key>` shows a blank
control for one among the bar's own conditions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from objects.conditions import MAX_BRANCHES, MAX_GROUPS, branch_prefix, group_phrase, without_group
from objects.fields import FieldDef
from objects.filters import (
    DAYS_PREFIX,
    FILTER_PREFIX,
    OPERATOR_PREFIX,
    UPPER_PREFIX,
    VALUELESS,
    Condition,
    RecordFilter,
    control_kind,
    filterable,
    operators_for,
    phrase,
)
from objects.linked_fields import parse_linked_key

if TYPE_CHECKING:
    from django.http import QueryDict

    from objects.table import TableState


@dataclass
class FilterControl:
    """One field's entry in the filter bar (in an OR group's branch, its
    parameters behind the branch's `prefix`: objects/conditions.py)."""

    field: FieldDef
    control: str  # choice, multi, boolean, number, date, datetime, text, empty_only
    operators: tuple[tuple[str, str], ...]
    op: str
    values: list[str]
    upper: str
    days: str
    prefix: str = ""

    @property
    def name(self) -> str:
        return self.prefix + FILTER_PREFIX + self.field.key

    @property
    def op_name(self) -> str:
        return self.prefix + OPERATOR_PREFIX + self.field.key

    @property
    def upper_name(self) -> str:
        return self.prefix + UPPER_PREFIX + self.field.key

    @property
    def days_name(self) -> str:
        return self.prefix + DAYS_PREFIX + self.field.key

    @property
    def value(self) -> str:
        return self.values[0] if self.values else ""

    @property
    def active(self) -> bool:
        return bool(self.values or self.upper or self.days or self.op in VALUELESS)


def filter_control(f: FieldDef, condition: Condition | None, *, prefix: str = "") -> FilterControl:
    operators = operators_for(f)
    if not filterable(f):
        # No value to leave blank: "any" is the control left alone.
        operators = (("", "any"), *operators)
    return FilterControl(
        field=f,
        control=control_kind(f),
        operators=operators,
        # A blank control shows the type's first operator (text: contains).
        op=condition.op if condition else operators[0][0],
        values=list(condition.values) if condition else [],
        upper=condition.upper if condition else "",
        days=condition.days if condition else "",
        prefix=prefix,
    )


def filter_controls(fields: list[FieldDef], record_filter: RecordFilter) -> list[FilterControl]:
    return [filter_control(f, record_filter.conditions.get(f.key)) for f in fields]


ADD_GROUP = "or.add"
ADD_BRANCH_PREFIX = "or.add."
ADD_LINKED = "link.add"


@dataclass
class LinkedChoice:
    """A relationship's name and the linked object's fields, as a picker's group."""

    label: str
    fields: list[FieldDef]


def linked_choices(linked: list[FieldDef]) -> list[LinkedChoice]:
    """The linked fields grouped by the relationship and object they reach
    (their label's head: "Company › Industry" under "Company")."""
    groups: dict[str, LinkedChoice] = {}
    for f in linked:
        parsed = parse_linked_key(f.key)
        if parsed is None:
            continue
        target = parsed[0]
        name = f"{target.label} ({target.object_key})"
        groups.setdefault(name, LinkedChoice(label=name, fields=[])).fields.append(f)
    return list(groups.values())


def linked_controls(linked: list[FieldDef], state: TableState, query: QueryDict) -> list[FilterControl]:
    """The bar's conditions on linked fields: those the filter holds, then the
    blank one `link.add` asks for."""
    known = {f.key: f for f in linked}
    controls = [filter_control(known[key], c) for key, c in state.filter.conditions.items() if key in known]
    added = known.get(query.get(ADD_LINKED, ""))
    if added is not None and added.key not in state.filter.conditions:
        controls.append(filter_control(added, None))
    return controls


@dataclass
class GroupEditor:
    number: int
    branches: list[list[FilterControl]]
    words: str
    remove_query: str
    add_name: str
    can_add: bool


def adding(query: QueryDict) -> bool:
    """Whether a field picker was used (a new group or alternative to show)."""
    return any(
        (name in (ADD_GROUP, ADD_LINKED) or name.startswith(ADD_BRANCH_PREFIX)) and query.get(name) for name in query
    )


def group_editors(fields: list[FieldDef], state: TableState, query: QueryDict) -> list[GroupEditor]:
    """Each OR group as the bar shows it, then the group a picker begins."""
    known = {f.key: f for f in fields}
    groups = state.filter.groups
    editors = []
    for index, group in enumerate(groups):
        number = index + 1
        branches = [
            [filter_control(known[c.key], c, prefix=branch_prefix(number, b)) for c in branch.conditions]
            for b, branch in enumerate(group.branches, start=1)
        ]
        added = known.get(query.get(f"{ADD_BRANCH_PREFIX}{number}", ""))
        if added is not None and len(branches) < MAX_BRANCHES:
            branches.append([filter_control(added, None, prefix=branch_prefix(number, len(branches) + 1))])
        rest = replace(state, filter=replace(state.filter, groups=without_group(groups, index)))
        editors.append(
            GroupEditor(
                number=number,
                branches=branches,
                words=group_phrase(group, lambda c: phrase(known[c.key], c)),
                remove_query=rest.first_page_query(),
                add_name=f"{ADD_BRANCH_PREFIX}{number}",
                can_add=len(branches) < MAX_BRANCHES,
            )
        )
    begun = known.get(query.get(ADD_GROUP, ""))
    if begun is not None and len(groups) < MAX_GROUPS:
        number = len(groups) + 1
        editors.append(
            GroupEditor(
                number=number,
                branches=[[filter_control(begun, None, prefix=branch_prefix(number, 1))]],
                words="",
                remove_query=state.first_page_query(),
                add_name=f"{ADD_BRANCH_PREFIX}{number}",
                can_add=False,  # first give it a condition
            )
        )
    return editors
