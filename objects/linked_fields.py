"""Conditions on a linked record's fields ("deals whose company's industry is
Tech"), as the Django admin's `list_filter` across a relation: their names
in the address and the fields the filter bar offers for them. Pure: no
request, no remote call (the reads are objects/link_filters.py's).

A linked field is named `link.<relation key>.<object key>.<field key>`: the
kind of link, the object at its other end (a relation key alone may reach
several objects, and the address must say which one's field it means
without a read) and that object's field. The name stands where a field key
stands in every filter parameter, so a linked condition is written, read,
checked and put in words by the filter's own code (`f.link.company.companies.industry=tech`,
`op.link.company.companies.seats=gt`, inside an OR group behind its prefix:
`or.1.2.f.link.company.companies.industry=tech`), with the operators of the
linked field's type.

A record holds when ONE of the records it links to through that relation
(either direction) holds: "is empty" is "linked to a company whose industry
is empty", never "linked to no company".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from objects.fields import FieldDef
from objects.links import relation_label

if TYPE_CHECKING:
    from objects.filters import Condition

LINK_PREFIX = "link."
# Linked objects one filter may reach (each costs a definition read, cached).
MAX_LINKED_OBJECTS = 3
_SEGMENT = r"[A-Za-z0-9_-]{1,100}"
_LINKED_KEY = re.compile(rf"^link\.({_SEGMENT})\.({_SEGMENT})\.({_SEGMENT})$")
_PARAM_PREFIXES = ("f.", "op.", "to.", "days.")
_GROUP_PREFIX = re.compile(r"^or\.[1-9][0-9]?\.[1-9][0-9]?\.")


@dataclass(frozen=True)
class LinkedTarget:
    """A relation and the object at its other end."""

    relation_key: str
    object_key: str

    @property
    def label(self) -> str:
        """The relationship's name as the editor groups its fields under it."""
        return relation_label(self.relation_key)


def linked_key(target: LinkedTarget, field_key: str) -> str:
    return f"{LINK_PREFIX}{target.relation_key}.{target.object_key}.{field_key}"


def parse_linked_key(key: str) -> tuple[LinkedTarget, str] | None:
    """(the relation and object, the field key) a linked name holds, or None."""
    matched = _LINKED_KEY.match(key)
    if not matched:
        return None
    return LinkedTarget(relation_key=matched.group(1), object_key=matched.group(2)), matched.group(3)


def is_linked(key: str) -> bool:
    return key.startswith(LINK_PREFIX)


def targets_in_query(names: Iterable[str]) -> list[LinkedTarget]:
    """The linked objects an address's filter parameters name, in order,
    at most MAX_LINKED_OBJECTS."""
    found: dict[LinkedTarget, None] = {}
    for name in names:
        name = _GROUP_PREFIX.sub("", name, count=1)
        for prefix in _PARAM_PREFIXES:
            if name.startswith(prefix):
                parsed = parse_linked_key(name[len(prefix) :])
                if parsed is not None:
                    found.setdefault(parsed[0])
                break
    return list(found)[:MAX_LINKED_OBJECTS]


def linked_fields(target: LinkedTarget, fields: Iterable[FieldDef]) -> list[FieldDef]:
    """The linked object's fields as this object's filter names them: the
    same type and options, the linked name as key, "Company › Industry" as label."""
    return [
        replace(f, key=linked_key(target, f.key), label=f"{target.label} › {f.label}", required=False) for f in fields
    ]


def own_field(linked: FieldDef) -> FieldDef:
    """A linked field as its own object names it (for reading that object's records)."""
    parsed = parse_linked_key(linked.key)
    key = parsed[1] if parsed else linked.key
    return replace(linked, key=key, label=linked.label.split(" › ", 1)[-1])


@dataclass(eq=False)
class LinkedCheck:
    """A condition on a linked record's field, checked on the record's id:
    `ids` are the records linked to a record where the condition holds, as
    objects/link_filters.py read them (none before it did: nothing passes,
    never everything); `partial` says in words what it could not read."""

    key: str
    field: FieldDef
    condition: Condition
    ids: frozenset[str] = frozenset()
    partial: str = ""
    # Outside any OR group: read together with the others of the same link (one same linked record holds them all).
    together: bool = False

    def test(self, record_id: Any) -> bool:
        return record_id in self.ids


def linked_check(
    checks: list[LinkedCheck], field_def: FieldDef, condition: Condition, *, together: bool = False
) -> LinkedCheck:
    """A linked condition's check, added to a plan's `checks` (read later)."""
    check = LinkedCheck(key=field_def.key, field=field_def, condition=condition, together=together)
    checks.append(check)
    return check
