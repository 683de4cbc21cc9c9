"""A records filter, in one place: read from the URL, checked against the
object's fields, split into what the service can answer and what the
console checks itself, and shown as the filter bar and its summary.

URL parameters (all optional; one condition per field, all combined with AND):

- `q`: search text (the service's `search`);
- `f.<field key>`: the condition's value (repeated for several options);
- `op.<field key>`: its operator (below). Absent, it is `is`: the exact
  match every filter meant before operators, so older links and saved views
  keep their meaning without being rewritten;
- `to.<field key>`: the upper bound of `between`; `days.<field key>`: the N of
  "within the last N days";
- `empty`: a field key whose value must be empty (the older shape of
  `op.<key>=empty`, still read);
- `or.<group>.<branch>.<any of the above but q>`: OR groups, each holding
  when one of its branches does, ANDed with the rest (objects/conditions.py);
- a field key may be a linked record's field, `link.<relation>.<object>.<field>`
  (objects/linked_fields.py): never sent to the service, checked on the ids
  of the records linked to the matching ones (objects/link_filters.py).

The service's `filter` matches exact values only (`{key: value}`, `null` for
empty, a list for "has all of" a multi-select). What it can express is sent;
every other condition is checked by the console on the service's pages
(`FilterPlan.matches`), which a text "contains" narrows first through the
service's `search` when the person has not typed one.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from objects.conditions import Group, group_check, group_phrase, groups_from_query, groups_pairs
from objects.fields import FieldDef, parse_stored_date, parse_stored_datetime, parse_stored_number, yes_no
from objects.linked_fields import LinkedCheck, is_linked, linked_check
from objects.schema import NUMBER_TYPES, SINGLE_CHOICE_TYPES, FieldType

FILTER_PREFIX = "f."
OPERATOR_PREFIX = "op."
UPPER_PREFIX = "to."
DAYS_PREFIX = "days."
MAX_SEARCH_LENGTH = 500
MAX_VALUE_LENGTH = 500
MAX_DAYS = 36500
MAX_NUMBER = decimal.Decimal(10) ** 18

# Operators, in the words the filter bar shows (number words as signs).
IS = "is"
IS_NOT = "is_not"
CONTAINS = "contains"
NOT_CONTAINS = "not_contains"
ANY_OF = "any_of"
LT, LTE, GT, GTE = "lt", "lte", "gt", "gte"
BETWEEN = "between"
BEFORE, AFTER = "before", "after"
LAST_DAYS = "last_days"
EMPTY = "empty"
NOT_EMPTY = "not_empty"
VALUELESS = frozenset({EMPTY, NOT_EMPTY})

TEXT_OPERATORS = (
    (CONTAINS, "contains"),
    (NOT_CONTAINS, "does not contain"),
    (IS, "is"),
    (IS_NOT, "is not"),
    (EMPTY, "is empty"),
    (NOT_EMPTY, "is not empty"),
)
CHOICE_OPERATORS = (
    (IS, "is"),
    (IS_NOT, "is not"),
    (ANY_OF, "is any of"),
    (EMPTY, "is empty"),
    (NOT_EMPTY, "is not empty"),
)
MULTI_OPERATORS = (
    (IS, "has all of"),
    (ANY_OF, "has any of"),
    (EMPTY, "is empty"),
    (NOT_EMPTY, "is not empty"),
)
NUMBER_OPERATORS = (
    (IS, "="),
    (IS_NOT, "≠"),
    (LT, "<"),
    (LTE, "≤"),
    (GT, ">"),
    (GTE, "≥"),
    (BETWEEN, "between"),
    (EMPTY, "is empty"),
    (NOT_EMPTY, "is not empty"),
)
DATE_OPERATORS = (
    (IS, "on"),
    (BEFORE, "before"),
    (AFTER, "after"),
    (BETWEEN, "between"),
    (LAST_DAYS, "within the last"),
    (EMPTY, "is empty"),
    (NOT_EMPTY, "is not empty"),
)
DATETIME_OPERATORS = tuple(pair for pair in DATE_OPERATORS if pair[0] != IS)  # an exact instant is not a filter
BOOLEAN_OPERATORS = ((IS, "is"), (EMPTY, "is empty"))
EMPTY_OPERATORS = ((EMPTY, "is empty"), (NOT_EMPTY, "is not empty"))

TEXT_TYPES = frozenset({FieldType.TEXT, FieldType.LONG_TEXT, FieldType.EMAIL, FieldType.PHONE, FieldType.URL})


def control_kind(field_def: FieldDef) -> str:
    """Which control the filter bar shows for a field."""
    field_type = field_def.type
    if field_type in SINGLE_CHOICE_TYPES:
        return "choice"
    if field_type == FieldType.MULTI_SELECT:
        return "multi"
    if field_type == FieldType.BOOLEAN:
        return "boolean"
    if field_type in NUMBER_TYPES:
        return "number"
    if field_type == FieldType.DATE:
        return "date"
    if field_type == FieldType.DATETIME:
        return "datetime"
    if field_type in TEXT_TYPES:
        return "text"
    return "empty_only"  # images and files: an address is not something to search for


OPERATORS_BY_CONTROL: dict[str, tuple[tuple[str, str], ...]] = {
    "text": TEXT_OPERATORS,
    "choice": CHOICE_OPERATORS,
    "multi": MULTI_OPERATORS,
    "number": NUMBER_OPERATORS,
    "date": DATE_OPERATORS,
    "datetime": DATETIME_OPERATORS,
    "boolean": BOOLEAN_OPERATORS,
    "empty_only": EMPTY_OPERATORS,
}


def operators_for(field_def: FieldDef) -> tuple[tuple[str, str], ...]:
    return OPERATORS_BY_CONTROL[control_kind(field_def)]


def filterable(field_def: FieldDef) -> bool:
    """Fields with a value control in the filter bar (every field can be
    filtered as empty or not)."""
    return control_kind(field_def) != "empty_only"


@dataclass(frozen=True)
class Condition:
    """One field's condition as the URL gave it (values unchecked)."""

    key: str
    op: str
    values: tuple[str, ...] = ()
    upper: str = ""
    days: str = ""

    def pairs(self) -> list[tuple[str, str]]:
        pairs = [(FILTER_PREFIX + self.key, value) for value in self.values]
        if self.op != IS:
            pairs.append((OPERATOR_PREFIX + self.key, self.op))
        if self.upper:
            pairs.append((UPPER_PREFIX + self.key, self.upper))
        if self.days:
            pairs.append((DAYS_PREFIX + self.key, self.days))
        return pairs


def read_condition(query: QueryDict, field_def: FieldDef) -> Condition | None:
    key = field_def.key
    values = tuple(v.strip()[:MAX_VALUE_LENGTH] for v in query.getlist(FILTER_PREFIX + key) if v.strip())
    allowed = dict(operators_for(field_def))
    op = query.get(OPERATOR_PREFIX + key, "").strip() or IS
    if key in query.getlist("empty"):
        op = EMPTY  # the older shape of "is empty"
    if op not in allowed:
        # An operator this field does not have (a changed type, a hand-made
        # URL): an exact match when it can be one, else nothing.
        op = IS if IS in allowed else ""
    if not op:
        return None
    if op in VALUELESS:
        return Condition(key=key, op=op)
    if op == LAST_DAYS:
        days = query.get(DAYS_PREFIX + key, "").strip()[:12]
        return Condition(key=key, op=op, days=days) if days else None
    upper = query.get(UPPER_PREFIX + key, "").strip()[:MAX_VALUE_LENGTH] if op == BETWEEN else ""
    if not values and not upper:
        return None  # a control left blank is no condition
    if control_kind(field_def) not in {"choice", "multi"}:
        values = values[:1]
    return Condition(key=key, op=op, values=values, upper=upper)


# --- reading values ----------------------------------------------------------


def _number(field_def: FieldDef, raw: str) -> decimal.Decimal:
    number = parse_stored_number(raw)
    # Bounded: a number past a float's range would go to the service as "Infinity", which is no JSON.
    if number is None or not number.is_finite() or abs(number) > MAX_NUMBER:
        raise ValueError(f"{field_def.label}: enter a number.")
    return number


def _day(field_def: FieldDef, raw: str) -> dt.date:
    parsed = parse_stored_date(raw)
    if parsed is None:
        raise ValueError(f"{field_def.label}: enter a date as YYYY-MM-DD.")
    return parsed


def _number_json(number: decimal.Decimal) -> int | float:
    return int(number) if number == number.to_integral_value() else float(number)


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or (isinstance(value, str) and not value.strip())


def _text_of(value: Any) -> str:
    """A stored text value as text (another implementation may send a number)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return ""
    return str(value) if isinstance(value, (int, float)) else ""


def _day_of(field_def: FieldDef, value: Any, zone: dt.tzinfo) -> dt.date | None:
    """The calendar day a stored date or datetime falls on, in the workspace's zone."""
    if field_def.type == FieldType.DATETIME:
        instant = parse_stored_datetime(value)
        return instant.astimezone(zone).date() if instant else None
    return parse_stored_date(value)


Test = Callable[[Any], bool]


def _choice_ids(field_def: FieldDef, value: Any) -> set[str]:
    items = value if isinstance(value, list) else ([] if _is_empty(value) else [value])
    return {str(field_def.option_id(item)) for item in items}


def condition_test(field_def: FieldDef, condition: Condition, *, zone: dt.tzinfo, today: dt.date) -> Test:
    """The check the console makes on a record's value for a condition the
    service's exact filter cannot express. ValueError (a message for the
    person) when the condition's values can't be read."""
    op = condition.op
    kind = control_kind(field_def)
    if op == EMPTY:
        return _is_empty
    if op == NOT_EMPTY:
        return lambda v: not _is_empty(v)
    if kind == "text":
        needle = condition.values[0]
        folded = needle.casefold()
        if op == CONTAINS:
            return lambda v: folded in _text_of(v).casefold()
        if op == NOT_CONTAINS:
            return lambda v: folded not in _text_of(v).casefold()
        if op == IS_NOT:
            return lambda v: _text_of(v) != needle
        return lambda v: _text_of(v) == needle
    if kind in {"choice", "multi"}:
        wanted = {str(field_def.option_id(v)) for v in condition.values}
        if op == IS_NOT:
            return lambda v: not (_choice_ids(field_def, v) & wanted)
        if op == IS and kind == "multi":
            return lambda v: wanted <= _choice_ids(field_def, v)
        return lambda v: bool(_choice_ids(field_def, v) & wanted)  # any of (and "is" of several options)
    if kind == "boolean":
        truth = condition.values[0] == "true"
        return lambda v: v is truth or (isinstance(v, str) and v.strip().lower() == str(truth).lower())
    if kind == "number":
        return _number_test(field_def, condition)
    if kind in {"date", "datetime"}:
        return _date_test(field_def, condition, zone=zone, today=today)
    return lambda v: True


def _number_test(field_def: FieldDef, condition: Condition) -> Test:
    op = condition.op
    if op == BETWEEN:
        low = _number(field_def, condition.values[0]) if condition.values else None
        high = _number(field_def, condition.upper) if condition.upper else None
        if low is not None and high is not None and low > high:
            low, high = high, low
        return lambda v: (
            (n := parse_stored_number(v)) is not None and ((low is None or n >= low) and (high is None or n <= high))
        )
    target = _number(field_def, condition.values[0])
    compare: dict[str, Callable[[decimal.Decimal], bool]] = {
        IS: lambda n: n == target,
        LT: lambda n: n < target,
        LTE: lambda n: n <= target,
        GT: lambda n: n > target,
        GTE: lambda n: n >= target,
    }
    if op == IS_NOT:
        return lambda v: (n := parse_stored_number(v)) is None or n != target
    check = compare[op]
    return lambda v: (n := parse_stored_number(v)) is not None and check(n)


def _date_test(field_def: FieldDef, condition: Condition, *, zone: dt.tzinfo, today: dt.date) -> Test:
    op = condition.op
    if op == LAST_DAYS:
        try:
            days = int(condition.days)
        except ValueError:
            days = -1
        if not 0 <= days <= MAX_DAYS:
            raise ValueError(f"{field_def.label}: enter a number of days (0 or more).")
        low: dt.date | None = today - dt.timedelta(days=days)
        high: dt.date | None = today
    elif op == BETWEEN:
        low = _day(field_def, condition.values[0]) if condition.values else None
        high = _day(field_def, condition.upper) if condition.upper else None
        if low is not None and high is not None and low > high:
            low, high = high, low
    else:
        day = _day(field_def, condition.values[0])
        low, high = {
            IS: (day, day),
            BEFORE: (None, day - dt.timedelta(days=1)),
            AFTER: (day + dt.timedelta(days=1), None),
        }[op]

    def test(value: Any) -> bool:
        found = _day_of(field_def, value, zone)
        return found is not None and (low is None or found >= low) and (high is None or found <= high)

    return test


def _remote_value(field_def: FieldDef, condition: Condition) -> tuple[bool, Any]:
    """(True, value) when the service's exact-match filter says exactly this
    condition, else (False, None). Checks the values (ValueError)."""
    op = condition.op
    kind = control_kind(field_def)
    if op == EMPTY:
        return True, None
    if op == IS:
        if kind == "multi":
            return True, list(condition.values)
        if kind == "choice" and len(condition.values) == 1:
            return True, condition.values[0]
        if kind == "boolean":
            return True, condition.values[0] == "true"
        if kind == "number":
            return True, _number_json(_number(field_def, condition.values[0]))
        if kind == "date":
            return True, _day(field_def, condition.values[0]).isoformat()
        if kind == "text":
            return True, condition.values[0]
    if op == ANY_OF and len(condition.values) == 1:
        return True, [condition.values[0]] if kind == "multi" else condition.values[0]
    return False, None


# --- the filter --------------------------------------------------------------


@dataclass
class FilterPlan:
    """A filter split for the service: `remote` (its exact `filter`), the
    `search` to send, and `local` checks the console makes on each record."""

    remote: dict[str, Any]
    search: str
    local: list[tuple[str, Test]]
    problems: list[str]
    # Checks of a record's whole values (an OR group: objects/conditions.py).
    record_checks: list[Callable[[dict], bool]] = field(default_factory=list)
    # Conditions on linked records' fields, checked on the record's id (read
    # before any record is checked: objects/link_filters.py `read_links`).
    linked: list[LinkedCheck] = field(default_factory=list)
    # Fields whose values this person may not see (objects/access.py): dropped from every record read.
    hidden: frozenset[str] = frozenset()

    def shown(self, record: Any) -> Any:
        """The record as this person may see it (without the hidden fields' values)."""
        return redacted(record, self.hidden)

    # Keys of the computed columns the conditions read (objects/computed_order.py),
    # and their values by record id, filled in before each page's records are checked.
    computed: set[str] = field(default_factory=set)
    computed_values: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A record's computed values when none were filled in (formulas, from its own values: objects/computed.py).
    compute_values: Callable[[dict], dict[str, Any]] | None = None

    @property
    def narrows(self) -> bool:
        """Whether the console checks records itself (pages read up to a budget)."""
        return bool(self.local or self.record_checks or self.linked)

    @property
    def partial(self) -> list[str]:
        """What the linked conditions could not read, in words (none: complete)."""
        return list(dict.fromkeys(check.partial for check in self.linked if check.partial))

    def matches(self, record: Any) -> bool:
        values = record.get("values") if isinstance(record, dict) else None
        values = values if isinstance(values, dict) else {}
        if self.linked:
            # A linked condition's "value" is the record's id (LinkedCheck.test).
            record_id = str(record.get("id") or "") if isinstance(record, dict) else ""
            values = {**values, **dict.fromkeys((check.key for check in self.linked), record_id)}
        if self.computed:
            # A computed column's value is the console's, never the service's (objects/computed_order.py).
            record_id = str(record.get("id") or "") if isinstance(record, dict) else ""
            extra = self.computed_values.get(record_id)
            if extra is None and self.compute_values is not None:
                extra = self.compute_values(record)
            values = {**values, **(extra or {})}
        return all(test(values.get(key)) for key, test in self.local) and all(
            check(values) for check in self.record_checks
        )


@dataclass
class RecordFilter:
    search: str = ""
    conditions: dict[str, Condition] = field(default_factory=dict)
    # OR groups, each ANY of its branches, ANDed with the conditions above.
    groups: tuple[Group, ...] = ()
    # The linked records' fields the address may name (objects/linked_fields.py).
    linked: tuple[FieldDef, ...] = ()
    # The reader's access to the records (objects/access.py `Access`), set by
    # objects/records.py `filter_plan` and never read from an address: a
    # background count (objects/tallies.py) counts only what they may see.
    access: Any = None

    # The object's computed columns as fields (objects/computed_order.py): checked by the console only.
    computed: tuple[FieldDef, ...] = ()

    @classmethod
    def from_query(
        cls,
        query: QueryDict,
        fields: list[FieldDef],
        linked: tuple[FieldDef, ...] | list[FieldDef] = (),
        computed: tuple[FieldDef, ...] | list[FieldDef] = (),
    ) -> RecordFilter:
        """What the URL asks for, keeping only the object's own fields and
        the `linked` fields given (those of the linked objects it names)
        and the `computed` columns'."""
        linked, computed = tuple(linked), tuple(computed)
        every = [*fields, *linked, *computed]
        conditions = {}
        for f in every:
            condition = read_condition(query, f)
            if condition is not None:
                conditions[f.key] = condition
        return cls(
            search=query.get("q", "").strip()[:MAX_SEARCH_LENGTH],
            conditions=conditions,
            groups=groups_from_query(query, every, read_condition),
            linked=linked,
            computed=computed,
        )

    @property
    def filters(self) -> dict[str, list[str]]:
        """Each condition's values by field key (what the kanban compares its columns with)."""
        return {key: list(c.values) for key, c in self.conditions.items() if c.values}

    def plan(self, fields: list[FieldDef], *, zone: dt.tzinfo = dt.UTC, today: dt.date | None = None) -> FilterPlan:
        """The service's `filter` and `search` and the console's own checks;
        a message for each condition that could not be read (that one is
        left out, the rest still apply)."""
        known = {f.key: f for f in [*fields, *self.linked, *self.computed]}
        computed_keys = {f.key for f in self.computed}
        today = today or dt.datetime.now(zone).date()
        plan = FilterPlan(remote={}, search=self.search, local=[], problems=[])
        for key, condition in self.conditions.items():
            field_def = known[key]
            try:
                exact, value = _remote_value(field_def, condition)
                test = condition_test(field_def, condition, zone=zone, today=today)
            except ValueError as exc:
                plan.problems.append(str(exc))
                continue
            if is_linked(key):
                plan.local.append((key, linked_check(plan.linked, field_def, condition, together=True).test))
                continue
            if key in computed_keys:  # never the service's: it has no such field
                plan.computed.add(key)
                plan.local.append((key, test))
                continue
            if exact:
                plan.remote[key] = value
                continue
            plan.local.append((key, test))
            if condition.op == CONTAINS and not plan.search:
                # The service's search finds the text anywhere in the record:
                # fewer pages to read, and the check keeps only this field's.
                plan.search = condition.values[0]
        for group in self.groups:
            check = group_check(group, lambda c: self._group_test(known, c, zone=zone, today=today, plan=plan))
            if check is not None:
                plan.record_checks.append(check)
        return plan

    @staticmethod
    def _group_test(
        known: dict[str, FieldDef], condition: Condition, *, zone: dt.tzinfo, today: dt.date, plan: FilterPlan
    ) -> Test | None:
        try:
            test = condition_test(known[condition.key], condition, zone=zone, today=today)
        except ValueError as exc:
            plan.problems.append(str(exc))
            return None
        if is_linked(condition.key):
            return linked_check(plan.linked, known[condition.key], condition).test
        if known[condition.key].origin == "computed":
            plan.computed.add(condition.key)
        return test

    def pairs(self) -> list[tuple[str, str]]:
        """This filter as URL query pairs."""
        pairs: list[tuple[str, str]] = []
        if self.search:
            pairs.append(("q", self.search))
        for condition in self.conditions.values():
            pairs.extend(condition.pairs())
        pairs.extend(groups_pairs(self.groups))
        return pairs

    @property
    def active_count(self) -> int:
        return len(self.conditions) + len(self.groups)

    def summary(self, fields: list[FieldDef]) -> list[str]:
        """Each condition in words ("Name contains “Nova”"), in field order,
        after each OR group ("Stage is “Trial” or Stage is “Lead”")."""
        every = [*fields, *self.linked, *self.computed]
        known = {f.key: f for f in every}
        return [group_phrase(group, lambda c: phrase(known[c.key], c)) for group in self.groups] + [
            phrase(f, self.conditions[f.key]) for f in every if f.key in self.conditions
        ]

    def sentence(self, fields: list[FieldDef]) -> str:
        """The whole filter as one sentence: "Stage is “Trial” or Stage is
        “Lead”, and Company is empty" (the search first, when there is one)."""
        parts = ([f"text “{self.search}” found"] if self.search else []) + self.summary(fields)
        return ", and ".join(parts)


def phrase(field_def: FieldDef, condition: Condition) -> str:
    words = dict(operators_for(field_def)).get(condition.op, condition.op)
    labels = {o.id: o.label for o in field_def.options}
    shown = [labels.get(v, v) for v in condition.values]
    if control_kind(field_def) == "boolean":
        shown = [yes_no(v == "true") for v in condition.values]
    if condition.op in VALUELESS:
        return f"{field_def.label} {words}"
    if condition.op == LAST_DAYS:
        return f"{field_def.label} within the last {condition.days} days"
    if condition.op == BETWEEN:
        return f"{field_def.label} between {shown[0] if shown else '…'} and {condition.upper or '…'}"
    kind = control_kind(field_def)
    # Words are quoted (a space in them would blur the sentence); numbers, dates and Yes/No are not.
    quoted = [f"“{v}”" for v in shown] if kind in {"text", "choice", "multi"} else shown
    joined = (" and " if kind == "multi" and condition.op == IS else " or ").join(quoted)
    return f"{field_def.label} {words} {joined}"


def remote_query(*, filters: dict | None, search: str | None, sort: str | None) -> dict[str, str]:
    """The records list's query for the service (httpx URL-encodes `filter`)."""
    params: dict[str, str] = {}
    if filters:
        params["filter"] = json.dumps(filters, separators=(",", ":"), ensure_ascii=False)
    if search:
        params["search"] = search
    if sort:
        params["sort"] = sort
    return params


def redacted(record: Any, hidden: Iterable[str]) -> Any:
    """The record without the values of the fields hidden from this person (objects/access.py
    decides which: a plan's `hidden`)."""
    hidden = set(hidden)
    if not hidden or not isinstance(record, dict) or not isinstance(record.get("values"), dict):
        return record
    return {**record, "values": {k: v for k, v in record["values"].items() if k not in hidden}}
