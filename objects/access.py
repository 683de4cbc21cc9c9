"""Who sees which records of an object, and which of its fields: the
console's access policy, set by Administrators per object (its settings,
objects/views/access.py). Pure: no request, no query, no remote call; the
one place a read goes through it is objects/records.py (`person_access`).

The console enforces this; the service key itself still reads everything
(the contract has no per-record rights): a person holding the key outside
the console is not bound by it.

A policy is two lists, kept as JSON (`ObjectAccessPolicy`):

- record rules: `who` ("role:viewer" or "person:ada@example.com", an email
  or a console user name) and `where`, a records filter in the address's
  own words (objects/filters.py: `f.owner=@me&op.stage=is_not&f.stage=Lost`),
  all of whose conditions must hold (a second one on the same field is a
  one-branch group: `or.1.1.op.stage=is_not&or.1.1.f.stage=Won`), where the
  value `@me` is the signed-in person (their email, else their console user
  name: a rule holds for either);
- field rules: a field key and the roles it is hidden from, or read-only for.

A person with no record rule naming them or their role sees every record;
with some, a record any of them holds for. Administrators see and change
everything (they set the policy). A condition that cannot be read any more
(a field removed, a value of the wrong type) holds for no record: a policy
fails closed, never open.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext_noop  # marked here, translated where shown

from objects.conditions import GROUP_PREFIX, branch_prefix, group_check
from objects.fields import FieldDef
from objects.filters import (
    FilterPlan,
    RecordFilter,
    Test,
    condition_test,
)

ME = "@me"
ROLE_PREFIX = "role:"
PERSON_PREFIX = "person:"
ADMINISTRATOR = "administrator"  # dashboard.people.roles.Role.ADMINISTRATOR, kept pure
MAX_RULES = 20
MAX_WHERE_LENGTH = 2000

ENFORCED_BY_CONSOLE = gettext_noop("The console enforces this; the service key itself still reads everything.")


@dataclass(frozen=True)
class RecordRule:
    who: str
    where: str


@dataclass(frozen=True)
class FieldRule:
    key: str
    hidden: frozenset[str] = frozenset()
    read_only: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Policy:
    records: tuple[RecordRule, ...] = ()
    fields: tuple[FieldRule, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> Policy:
        """A stored policy; entries of the wrong shape are dropped."""
        data = data if isinstance(data, Mapping) else {}
        rules = []
        for raw in data.get("records") or []:
            if isinstance(raw, Mapping) and isinstance(raw.get("who"), str) and isinstance(raw.get("where"), str):
                rules.append(RecordRule(who=raw["who"].strip(), where=raw["where"][:MAX_WHERE_LENGTH]))
        fields = []
        raw_fields = data.get("fields")
        for key, raw in raw_fields.items() if isinstance(raw_fields, Mapping) else []:
            if isinstance(key, str) and isinstance(raw, Mapping):
                hidden = frozenset(r for r in raw.get("hidden") or [] if isinstance(r, str))
                read_only = frozenset(r for r in raw.get("read_only") or [] if isinstance(r, str))
                if hidden or read_only:
                    fields.append(FieldRule(key=key, hidden=hidden, read_only=read_only))
        return cls(records=tuple(rules[:MAX_RULES]), fields=tuple(fields))

    def to_json(self) -> dict:
        return {
            "records": [{"who": r.who, "where": r.where} for r in self.records],
            "fields": {
                f.key: {"hidden": sorted(f.hidden), "read_only": sorted(f.read_only)}
                for f in self.fields
                if f.hidden or f.read_only
            },
        }

    @property
    def empty(self) -> bool:
        return not self.records and not self.fields


@dataclass(frozen=True)
class Person:
    """Who reads: their console role and the names "me" stands for."""

    role: str
    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, *, role: str, email: str = "", username: str = "") -> Person:
        return cls(role=role, names=tuple(dict.fromkeys(n.strip() for n in (email, username) if n and n.strip())))

    def named_by(self, who: str) -> bool:
        if who.startswith(ROLE_PREFIX):
            return who[len(ROLE_PREFIX) :] == self.role
        if who.startswith(PERSON_PREFIX):
            wanted = who[len(PERSON_PREFIX) :].strip().casefold()
            return bool(wanted) and wanted in {n.casefold() for n in self.names}
        return False


@dataclass(frozen=True)
class Access:
    """What one person may do with one object's records. `wheres`: when
    `restricted`, the filters (in address form, "me" filled in) of which
    a record must pass one; none at all means no record."""

    restricted: bool = False
    wheres: tuple[str, ...] = ()
    hidden: frozenset[str] = frozenset()
    read_only: frozenset[str] = frozenset()

    @property
    def everything(self) -> bool:
        return not self.restricted and not self.hidden and not self.read_only

    def may_write(self, key: str) -> bool:
        return key not in self.hidden and key not in self.read_only


EVERYTHING = Access()


def access_of(policy: Policy, person: Person) -> Access:
    """What `person` may see and change under `policy`."""
    if person.role == ADMINISTRATOR:
        return EVERYTHING
    rules = [r for r in policy.records if person.named_by(r.who)]
    wheres: list[str] = []
    for rule in rules:
        wheres.extend(_me_filled(rule.where, person.names))
    hidden = frozenset(f.key for f in policy.fields if person.role in f.hidden)
    read_only = frozenset(f.key for f in policy.fields if person.role in f.read_only) - hidden
    return Access(restricted=bool(rules), wheres=tuple(dict.fromkeys(wheres)), hidden=hidden, read_only=read_only)


def _me_filled(where: str, names: tuple[str, ...]) -> list[str]:
    """The rule's filter once per name "me" stands for (it holds for any);
    none when it names "me" and the person has no name to match."""
    query = QueryDict(where)
    if not any(value == ME for _key, values in query.lists() for value in values):
        return [where]
    filled = []
    for name in names:
        copy = QueryDict(mutable=True)
        for key, values in query.lists():
            copy.setlist(key, [name if value == ME else value for value in values])
        filled.append(copy.urlencode())
    return filled


def record_check(
    access: Access, fields: list[FieldDef], *, zone: dt.tzinfo = dt.UTC, today: dt.date | None = None
) -> Callable[[dict], bool] | None:
    """A record's values → whether this person sees it; None when they see
    every record. Every condition is checked here (not sent to the
    service: a policy does not trust a filter it did not check)."""
    if not access.restricted:
        return None
    today = today or dt.datetime.now(zone).date()
    checks = [c for where in access.wheres if (c := _where_check(where, fields, zone=zone, today=today)) is not None]

    def check(values: dict) -> bool:
        return any(c(values) for c in checks)

    return check


def _where_check(
    where: str, fields: list[FieldDef], *, zone: dt.tzinfo, today: dt.date
) -> Callable[[dict], bool] | None:
    record_filter = RecordFilter.from_query(QueryDict(where), fields)
    known = {f.key: f for f in fields}
    failed = False

    def test_of(condition: Any) -> Test | None:
        nonlocal failed
        try:
            return condition_test(known[condition.key], condition, zone=zone, today=today)
        except (ValueError, KeyError):
            failed = True
            return None

    tests = [(key, t) for key, c in record_filter.conditions.items() if (t := test_of(c)) is not None]
    groups = [group_check(g, test_of) for g in record_filter.groups]
    if failed or any(g is None for g in groups) or not (tests or groups):
        return None  # a condition that cannot be read, or none at all: holds for no record

    def check(values: dict) -> bool:
        return all(test(values.get(key)) for key, test in tests) and all(g(values) for g in groups if g)

    return check


def narrow(plan: FilterPlan, access: Access | None, fields: list[FieldDef], *, zone: dt.tzinfo = dt.UTC) -> FilterPlan:
    """The plan of a filter, narrowed to what this person may see: the
    policy's check joins the console's own (so a page reads on past hidden
    records, and its counts are of the records they see), and the hidden
    fields' values are dropped from every record kept (`FilterPlan.shown`)
    and a search is checked again on the values they see (`search_check`).
    `fields`: every field of the object (a rule may name one hidden from them)."""
    if access is None:
        return plan
    check = record_check(access, fields, zone=zone)
    if check is not None:
        plan.record_checks.append(check)
    if access.hidden and plan.search:
        plan.record_checks.append(search_check(plan.search, access.hidden))
    plan.hidden = plan.hidden | access.hidden
    return plan


def search_check(needle: str, hidden: Iterable[str]) -> Callable[[dict], bool]:
    """The service's `search` finds its text in any of a record's values,
    hidden fields' too: this keeps a record only when the text is in a value
    this person sees (case-insensitive, as the service matches), so a search
    tells nothing of a hidden value."""
    wanted = needle.casefold()
    hidden = frozenset(hidden)

    def texts(value: Any) -> Iterable[str]:
        if isinstance(value, Mapping):
            for inner in value.values():
                yield from texts(inner)
        elif isinstance(value, (list, tuple)):
            for inner in value:
                yield from texts(inner)
        elif value is not None:
            yield str(value)

    def check(values: dict) -> bool:
        return any(wanted in t.casefold() for k, v in values.items() if k not in hidden for t in texts(v))

    return check


def access_params(access: Access | None) -> dict:
    """The access as a background count keeps it (objects/tallies.py): it
    counts what this person may see, and two people who see alike share it
    (the hidden fields kept too: a search counts only what it finds in the values they see)."""
    params: dict[str, Any] = {}
    if access is not None and access.restricted:
        params["access"] = list(access.wheres)
    if access is not None and access.hidden:
        params["hidden"] = sorted(access.hidden)
    return params


def access_from_params(params: Mapping[str, Any]) -> Access | None:
    wheres, hidden = params.get("access"), params.get("hidden")
    if not isinstance(wheres, list) and not isinstance(hidden, list):
        return None
    return Access(
        restricted=isinstance(wheres, list),
        wheres=tuple(w for w in wheres or [] if isinstance(w, str)),
        hidden=frozenset(h for h in hidden or [] if isinstance(h, str)) if isinstance(hidden, list) else frozenset(),
    )


# An import's row whose key finds a record its importer may not see (objects/imports.py).
HIDDEN_MATCH = "a record with this value exists that your role may not see (the object's access policy): not updated."


def params_check(params: Mapping[str, Any], fields: list[FieldDef]) -> Callable[[dict], bool] | None:
    """The check of the records a job's person may see, from the access its
    params kept when it was started (`access_params`): an import's row never
    updates, nor a bulk job touches, a record hidden from them."""
    kept = access_from_params(params)
    return record_check(kept, fields) if kept is not None else None


def sees(check: Callable[[dict], bool] | None, record: Any) -> bool:
    if check is None:
        return True
    values = record.get("values") if isinstance(record, dict) else None
    return check(values if isinstance(values, dict) else {})


def definition_shown(definition: dict, hidden: Iterable[str]) -> dict:
    """The object's definition without the fields hidden from this person."""
    hidden = set(hidden)
    raw = definition.get("fields")
    if not hidden or not isinstance(raw, list):
        return definition
    return {**definition, "fields": [f for f in raw if not (isinstance(f, dict) and f.get("key") in hidden)]}


def refused_fields(access: Access, keys: Iterable[str]) -> list[str]:
    """The field keys of a write this person may not change (hidden or read-only)."""
    return [k for k in keys if not access.may_write(k)]


# --- the policy page's form (objects/views/access.py) -------------------------------------------

# The conditions a rule of the page may say (the filter's own operators: objects/filters.py).
RULE_OPERATORS = (("is", "is"), ("is_not", "is not"), ("contains", "contains"), ("empty", "is empty"))
MAX_FORM_RULES = 10
MAX_CONDITIONS = 3  # per rule on the page, all of which must hold


@dataclass(frozen=True)
class ConditionRow:
    """One condition of a record rule as the page shows it."""

    field: str = ""
    op: str = "is"
    value: str = ""
    me: bool = False


@dataclass(frozen=True)
class RuleRow:
    """One record rule as the page shows it: who, and its conditions (all must hold)."""

    who: str = ""
    person: str = ""
    conditions: tuple[ConditionRow, ...] = ()

    @property
    def slots(self) -> list[tuple[str, ConditionRow]]:
        """Each condition's input names' part after `rule-<n>-` ("" for the
        first: the names a one-condition rule always had) and the condition,
        padded with blank ones to MAX_CONDITIONS."""
        shown = [*self.conditions, *[ConditionRow()] * (MAX_CONDITIONS - len(self.conditions))]
        return [(_slot(c), condition) for c, condition in enumerate(shown)]


def _slot(c: int) -> str:
    return f"and{c}-" if c else ""


def rule_rows(policy: Policy) -> list[RuleRow]:
    """The policy's record rules as the page's rows. A rule's `where` is the
    filter's address: a field's first condition in its own words
    (`f.owner=@me`), another on the same field a one-branch group of it
    (`or.1.1.op.stage=is_not&or.1.1.f.stage=Lost`: objects/conditions.py)."""
    rows = []
    for rule in policy.records:
        query = QueryDict(rule.where)
        named: dict[tuple[str, str], None] = {}
        for name in query:
            prefix = ""
            if name.startswith(GROUP_PREFIX):
                parts = name.split(".", 3)
                if len(parts) < 4:
                    continue
                prefix, name = ".".join(parts[:3]) + ".", parts[3]
            for kind in ("f.", "op."):
                if name.startswith(kind):
                    named[(prefix, name[len(kind) :])] = None
        conditions = []
        for prefix, key in named:
            value = query.get(f"{prefix}f.{key}", "")
            op = query.get(f"{prefix}op.{key}", "is")
            conditions.append(ConditionRow(field=key, op=op, value="" if value == ME else value, me=value == ME))
        who, person = (rule.who, "") if rule.who.startswith(ROLE_PREFIX) else ("person", rule.who[len(PERSON_PREFIX) :])
        rows.append(RuleRow(who=who, person=person, conditions=tuple(conditions)))
    return rows


def rule_row_from_data(data: Mapping[str, Any], n: int) -> RuleRow:
    """Rule row `n` of the page's form as typed (its blank conditions dropped)."""

    def got(name: str) -> str:
        return str(data.get(f"rule-{n}-{name}") or "").strip()

    conditions = []
    for c in range(MAX_CONDITIONS):
        slot = _slot(c)
        row = ConditionRow(
            field=got(slot + "field"), op=got(slot + "op") or "is", value=got(slot + "value"), me=bool(got(slot + "me"))
        )
        if row.field or row.value or row.me or row.op != "is":
            conditions.append(row)
    return RuleRow(who=got("who"), person=got("person"), conditions=tuple(conditions))


def _rule_where(conditions: Iterable[ConditionRow], known: Mapping[str, FieldDef]) -> tuple[str, str]:
    """The rule's filter in address form, or what is missing from it (in words)."""
    query = QueryDict(mutable=True)
    seen: set[str] = set()
    group = 0
    for condition in conditions:
        key, op = condition.field, condition.op
        value = ME if condition.me else condition.value
        if key not in known:
            return "", "Choose the field the records are seen by."
        if op not in dict(RULE_OPERATORS):
            op = "is"
        if op != "empty" and not value:
            return "", "Give the value the field must have, or tick “me”."
        prefix = ""
        if key in seen:  # the same field again: a group of one branch, ANDed with the rest
            group += 1
            prefix = branch_prefix(group, 1)
        seen.add(key)
        if op != "empty":
            query[f"{prefix}f.{key}"] = value
        if op != "is":
            query[f"{prefix}op.{key}"] = op
    if not seen:
        return "", "Choose the field the records are seen by."
    return query.urlencode(), ""


def policy_from_form(
    data: Mapping[str, Any], *, fields: list[FieldDef], roles: Iterable[str]
) -> tuple[Policy, dict[int, str]]:
    """The policy the page's form says, and a message per rule row that is
    not complete (`data`: a QueryDict; rows `rule-<n>-…`, each with up to
    MAX_CONDITIONS conditions, the first `rule-<n>-field`…, the next
    `rule-<n>-and1-field`…; fields `field-<key>-hidden` /
    `field-<key>-read_only` listing roles)."""
    roles = [r for r in roles if r != ADMINISTRATOR]
    known = {f.key: f for f in fields}
    rules: list[RecordRule] = []
    problems: dict[int, str] = {}
    for n in range(MAX_FORM_RULES):
        row = rule_row_from_data(data, n)
        who = row.who
        if not who and not row.conditions:
            continue  # a blank row
        if who == "person":
            if not row.person:
                problems[n] = "Name the person: their email or console user name."
                continue
            who = PERSON_PREFIX + row.person
        elif who[len(ROLE_PREFIX) :] not in roles:
            problems[n] = "Choose whom the rule is for."
            continue
        where, problem = _rule_where(row.conditions, known)
        if problem:
            problems[n] = problem
            continue
        rules.append(RecordRule(who=who, where=where))
    field_rules = []
    for f in fields:
        hidden = frozenset(r for r in _list(data, f"field-{f.key}-hidden") if r in roles)
        read_only = frozenset(r for r in _list(data, f"field-{f.key}-read_only") if r in roles) - hidden
        if hidden or read_only:
            field_rules.append(FieldRule(key=f.key, hidden=hidden, read_only=read_only))
    return Policy(records=tuple(rules), fields=tuple(field_rules)), problems


def _list(data: Any, name: str) -> list[str]:
    return list(data.getlist(name)) if hasattr(data, "getlist") else list(data.get(name) or [])
