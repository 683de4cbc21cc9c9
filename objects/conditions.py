"""OR groups of a records filter: "(Stage is Trial or Stage is Lead) and
Company is empty". Pure: no request, no remote call.

The shape, two levels deep (as Airtable's condition groups):

    filter  = ALL of [the filter's own conditions (objects/filters.py), *groups]
    group   = ANY of its branches
    branch  = ALL of its conditions (one per field, the filter bar's own kinds)

In the address each branch's conditions are the filter's own parameters
behind a prefix `or.<group>.<branch>.`: `or.1.2.f.stage=Lead` is "group 1,
branch 2: Stage is Lead", `or.1.2.op.seats=gt` its operator, and so on
(`to.`, `days.`). Chosen over one JSON parameter because the one reader of
a condition (`filters.read_condition`) reads a branch unchanged (the same
checks, bounds and older shapes), every value stays its own bounded
parameter, and a link stays readable and diffable. Groups and branches are
numbered from 1 in order when written; read back, gaps and blank branches
are dropped, so encode(decode(q)) is canonical and decode(encode(tree)) is
the tree.

The service's exact `filter` cannot say "or", so a group is always checked
by the console on each record read (`FilterPlan.record_checks`), within the
same page budget as the other conditions it checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import QueryDict

if TYPE_CHECKING:
    from objects.fields import FieldDef
    from objects.filters import Condition

GROUP_PREFIX = "or."
MAX_GROUPS = 5
MAX_BRANCHES = 8
_GROUP_KEY = re.compile(r"^or\.([1-9][0-9]?)\.([1-9][0-9]?)\.(.+)$")

ValueTest = Callable[[Any], bool]
RecordTest = Callable[[dict], bool]


@dataclass(frozen=True)
class Branch:
    """Conditions that must all hold (one per field, in field order)."""

    conditions: tuple[Condition, ...]


@dataclass(frozen=True)
class Group:
    """Branches of which one must hold."""

    branches: tuple[Branch, ...]


def branch_prefix(group: int, branch: int) -> str:
    """The address prefix of a branch (numbered from 1)."""
    return f"{GROUP_PREFIX}{group}.{branch}."


def groups_from_query(
    query: QueryDict, fields: list[FieldDef], read: Callable[[QueryDict, FieldDef], Condition | None]
) -> tuple[Group, ...]:
    """The OR groups an address holds, each branch read by `read` (the
    filter's one condition reader) from its parameters without the prefix."""
    buckets: dict[tuple[int, int], QueryDict] = {}
    for name in query:
        matched = _GROUP_KEY.match(name)
        if not matched:
            continue
        spot = (int(matched.group(1)), int(matched.group(2)))
        if spot[0] > MAX_GROUPS or spot[1] > MAX_BRANCHES:
            continue
        bucket = buckets.setdefault(spot, QueryDict(mutable=True))
        bucket.setlist(matched.group(3), query.getlist(name))
    by_group: dict[int, list[Branch]] = {}
    for group_number, branch_number in sorted(buckets):
        sub = buckets[(group_number, branch_number)]
        conditions = tuple(c for f in fields if (c := read(sub, f)) is not None)
        if conditions:
            by_group.setdefault(group_number, []).append(Branch(conditions=conditions))
    return tuple(Group(branches=tuple(branches)) for _n, branches in sorted(by_group.items()))


def groups_pairs(groups: Iterable[Group]) -> list[tuple[str, str]]:
    """The groups as address pairs, numbered from 1."""
    pairs: list[tuple[str, str]] = []
    for g, group in enumerate(groups, start=1):
        for b, branch in enumerate(group.branches, start=1):
            prefix = branch_prefix(g, b)
            for condition in branch.conditions:
                pairs.extend((prefix + name, value) for name, value in condition.pairs())
    return pairs


def group_check(group: Group, test_of: Callable[[Condition], ValueTest | None]) -> RecordTest | None:
    """A record's values → whether one branch holds. `test_of` gives a
    condition's value check, or None when it could not be read (that
    condition is left out; a branch left with none is dropped, never
    "anything matches"). None when no branch is left."""
    branches: list[list[tuple[str, ValueTest]]] = []
    for branch in group.branches:
        tests = [(c.key, t) for c in branch.conditions if (t := test_of(c)) is not None]
        if tests:
            branches.append(tests)
    if not branches:
        return None

    def check(values: dict) -> bool:
        return any(all(test(values.get(key)) for key, test in tests) for tests in branches)

    return check


def group_phrase(group: Group, phrase_of: Callable[[Condition], str]) -> str:
    """A group in words: "Stage is “Trial” or Stage is “Lead”"; a branch of
    several conditions in parentheses ("(Seats > 3 and Active is Yes) or …")."""
    parts = []
    for branch in group.branches:
        words = " and ".join(phrase_of(c) for c in branch.conditions)
        parts.append(f"({words})" if len(branch.conditions) > 1 and len(group.branches) > 1 else words)
    return " or ".join(parts)


def without_group(groups: tuple[Group, ...], index: int) -> tuple[Group, ...]:
    """The groups without the one at `index` (from 0): what "Remove" links to."""
    return tuple(g for i, g in enumerate(groups) if i != index)
