"""OR groups of a records filter (objects/conditions.py), pure: the address
round-trips (decode(encode(tree)) is the tree, encode(decode(q)) is
canonical), evaluation equals a plain Python evaluation of the same tree,
the words read as the admin means them, and a group never reaches the
service's exact filter."""

from __future__ import annotations

import datetime as dt
import decimal
from urllib.parse import urlencode

from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from objects.conditions import Branch, Group, groups_from_query, groups_pairs
from objects.fields import field_defs
from objects.filters import Condition, RecordFilter, read_condition

DEFINITION = {
    "key": "leads",
    "fields": [
        {"key": "name", "label": "Name", "type": "text"},
        {
            "key": "stage",
            "label": "Stage",
            "type": "stage",
            "options": [{"id": "s1", "label": "Trial"}, {"id": "s2", "label": "Lead"}, {"id": "s3", "label": "Won"}],
        },
        {"key": "seats", "label": "Seats", "type": "number"},
        {"key": "active", "label": "Active", "type": "boolean"},
        {"key": "company", "label": "Company", "type": "text"},
    ],
}
FIELDS = field_defs(DEFINITION)
ORDER = [f.key for f in FIELDS]
STAGES = ("s1", "s2", "s3")

words = st.text(alphabet="abcxyz Nova", min_size=1, max_size=8).map(str.strip).filter(bool)
numbers = st.integers(min_value=-50, max_value=50).map(str)


def condition_of(key: str) -> st.SearchStrategy[Condition]:
    """Conditions as the address reader gives them back (canonical)."""
    valueless = st.sampled_from(["empty", "not_empty"]).map(lambda op: Condition(key=key, op=op))
    if key in {"name", "company"}:
        valued = st.builds(
            lambda op, v: Condition(key=key, op=op, values=(v,)),
            st.sampled_from(["contains", "not_contains", "is", "is_not"]),
            words,
        )
    elif key == "stage":
        valued = st.builds(
            lambda op, vs: Condition(key=key, op=op, values=tuple(vs)),
            st.sampled_from(["is", "is_not", "any_of"]),
            st.lists(st.sampled_from(STAGES), min_size=1, max_size=3, unique=True),
        )
    elif key == "seats":
        single = st.builds(
            lambda op, v: Condition(key=key, op=op, values=(v,)),
            st.sampled_from(["is", "is_not", "lt", "lte", "gt", "gte"]),
            numbers,
        )
        between = st.builds(lambda lo, hi: Condition(key=key, op="between", values=(lo,), upper=hi), numbers, numbers)
        valued = single | between
    else:
        valued = st.sampled_from(["true", "false"]).map(lambda v: Condition(key=key, op="is", values=(v,)))
        valueless = st.just(Condition(key=key, op="empty"))
    return valued | valueless


branches = (
    st.lists(st.sampled_from(ORDER), min_size=1, max_size=3, unique=True)
    .map(lambda keys: sorted(keys, key=ORDER.index))
    .flatmap(lambda keys: st.tuples(*(condition_of(k) for k in keys)))
    .map(lambda conditions: Branch(conditions=conditions))
)
groups = st.lists(
    st.lists(branches, min_size=1, max_size=4).map(lambda bs: Group(branches=tuple(bs))), min_size=0, max_size=3
).map(tuple)
records = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.none(), st.just(""), words),
        "company": st.one_of(st.none(), words),
        "stage": st.one_of(st.none(), st.sampled_from(STAGES)),
        "seats": st.one_of(st.none(), st.integers(min_value=-60, max_value=60)),
        "active": st.one_of(st.none(), st.booleans()),
    },
)


def query_of(pairs: list[tuple[str, str]]) -> QueryDict:
    return QueryDict(urlencode(pairs))


@settings(max_examples=200, deadline=None)
@given(groups)
def test_an_address_of_or_groups_reads_back_as_the_same_groups(tree):
    pairs = groups_pairs(tree)
    assert all(name.startswith("or.") for name, _ in pairs)
    assert groups_from_query(query_of(pairs), FIELDS, read_condition) == tree
    # And through the whole filter (what a saved view and every link keep).
    again = RecordFilter.from_query(query_of(RecordFilter(groups=tree).pairs()), FIELDS)
    assert again.groups == tree


def test_gaps_and_blank_branches_are_dropped_and_renumbered():
    # Group 6 and branch 9 are past MAX_GROUPS and MAX_BRANCHES: not read.
    query = QueryDict(
        "or.3.2.f.stage=s1&or.3.5.f.stage=s2&or.3.4.f.name=&or.5.1.op.company=empty&or.6.1.f.name=x&or.1.9.f.name=y"
    )
    tree = groups_from_query(query, FIELDS, read_condition)
    assert tree == (
        Group(
            branches=(
                Branch(conditions=(Condition(key="stage", op="is", values=("s1",)),)),
                Branch(conditions=(Condition(key="stage", op="is", values=("s2",)),)),
            )
        ),
        Group(branches=(Branch(conditions=(Condition(key="company", op="empty"),)),)),
    )
    assert groups_pairs(tree) == [("or.1.1.f.stage", "s1"), ("or.1.2.f.stage", "s2"), ("or.2.1.op.company", "empty")]


# --- the reference: the same tree evaluated plainly ----------------------------


def reference_holds(condition: Condition, value) -> bool:
    op, values = condition.op, condition.values
    empty = value is None or value == ""
    if op == "empty":
        return empty
    if op == "not_empty":
        return not empty
    if condition.key in {"name", "company"}:
        text = value or ""
        return {
            "contains": values[0].lower() in text.lower(),
            "not_contains": values[0].lower() not in text.lower(),
            "is": text == values[0],
            "is_not": text != values[0],
        }[op]
    if condition.key == "stage":
        return (value in values) if op != "is_not" else value not in values
    if condition.key == "seats":
        if op == "is_not":
            return empty or value != int(values[0])
        if empty:
            return False
        if op == "between":
            low, high = sorted([int(values[0]), int(condition.upper)])
            return low <= value <= high
        target = int(values[0])
        return {"is": value == target, "lt": value < target, "lte": value <= target, "gt": value > target}.get(
            op, value >= target
        )
    return value is (values[0] == "true")


def reference_matches(tree: tuple[Group, ...], values: dict) -> bool:
    return all(
        any(all(reference_holds(c, values.get(c.key)) for c in branch.conditions) for branch in group.branches)
        for group in tree
    )


@settings(max_examples=300, deadline=None)
@given(groups, st.lists(records, max_size=12))
def test_evaluation_equals_the_plain_evaluation_of_the_same_tree(tree, rows):
    plan = RecordFilter(groups=tree).plan(FIELDS, today=dt.date(2026, 12, 3))
    assert plan.problems == []
    assert plan.remote == {}  # the service's exact filter cannot say "or"
    assert plan.narrows == bool(tree)
    for values in rows:
        assert plan.matches({"values": values}) == reference_matches(tree, values)


def test_trial_or_lead_and_no_company_in_words_and_on_records():
    query = QueryDict("or.1.1.f.stage=Trial&or.1.2.f.stage=Lead&op.company=empty")
    record_filter = RecordFilter.from_query(query, FIELDS)
    assert record_filter.active_count == 2
    assert record_filter.sentence(FIELDS) == "Stage is “Trial” or Stage is “Lead”, and Company is empty"
    plan = record_filter.plan(FIELDS)
    # "Company is empty" is still the service's; the OR group is the console's.
    assert plan.remote == {"company": None}
    assert len(plan.record_checks) == 1
    # The service drops the rows with a company; of those it sends, the group keeps Trial or Lead.
    kept = [
        values
        for values in (
            {"stage": "s1"},
            {"stage": "s3"},
            {"stage": "s2", "company": ""},
        )
        if plan.matches({"values": values})
    ]
    assert kept == [{"stage": "s1"}, {"stage": "s2", "company": ""}]


def test_a_branch_of_several_conditions_reads_in_parentheses():
    query = QueryDict(
        "or.1.1.op.seats=gt&or.1.1.f.seats=3&or.1.1.f.active=true&or.1.2.op.name=contains&or.1.2.f.name=Nova"
    )
    assert RecordFilter.from_query(query, FIELDS).summary(FIELDS) == [
        "(Seats > 3 and Active is Yes) or Name contains “Nova”"
    ]


def test_a_condition_that_cannot_be_read_is_explained_and_never_widens_the_group():
    query = QueryDict("or.1.1.op.seats=gt&or.1.1.f.seats=lots&or.1.2.f.stage=s3")
    plan = RecordFilter.from_query(query, FIELDS).plan(FIELDS)
    assert plan.problems == ["Seats: enter a number."]
    # The unreadable branch is left out; it does not become "anything matches".
    assert plan.matches({"values": {"stage": "s3"}})
    assert not plan.matches({"values": {"stage": "s1", "seats": 10}})


def test_numbers_as_decimal_strings_compare_like_the_filter_bar():
    plan = RecordFilter.from_query(QueryDict("or.1.1.op.seats=gte&or.1.1.f.seats=2.5"), FIELDS).plan(FIELDS)
    assert plan.matches({"values": {"seats": str(decimal.Decimal("2.5"))}})
    assert not plan.matches({"values": {"seats": 2}})
