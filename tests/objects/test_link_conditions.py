"""Conditions on a linked record's fields, pure parts: their names in the
address, reading and writing them through the filter's own code, their
words, and the plan checking them on the record's id (objects/linked_fields.py,
objects/filters.py)."""

from __future__ import annotations

from django.http import QueryDict

from objects.condition_editor import linked_choices
from objects.fields import field_defs
from objects.filters import RecordFilter
from objects.linked_fields import LinkedTarget, linked_fields, own_field, parse_linked_key, targets_in_query

COMPANIES = {
    "key": "companies",
    "fields": [
        {"key": "name", "label": "Name", "type": "text"},
        {"key": "industry", "label": "Industry", "type": "select", "options": [{"id": "tech", "label": "Tech"}]},
        {"key": "employees", "label": "Employees", "type": "number"},
    ],
}
DEALS = {
    "key": "deals",
    "fields": [{"key": "name", "label": "Name", "type": "text"}, {"key": "seats", "label": "Seats", "type": "number"}],
}
TARGET = LinkedTarget(relation_key="company", object_key="companies")
LINKED = linked_fields(TARGET, field_defs(COMPANIES))
OWN = field_defs(DEALS)


def test_a_linked_name_says_the_relation_the_object_and_the_field():
    assert [f.key for f in LINKED] == [
        "link.company.companies.name",
        "link.company.companies.industry",
        "link.company.companies.employees",
    ]
    assert [f.label for f in LINKED] == ["Company › Name", "Company › Industry", "Company › Employees"]
    assert parse_linked_key("link.company.companies.industry") == (TARGET, "industry")
    assert parse_linked_key("link.company.industry") is None  # which object's field: not said
    assert parse_linked_key("link.company.companies.industry.more") is None
    assert own_field(LINKED[1]).key == "industry" and own_field(LINKED[1]).label == "Industry"


def test_the_linked_objects_are_found_in_every_parameter_and_inside_or_groups():
    names = [
        "q",
        "f.seats",
        "op.link.company.companies.employees",
        "or.1.2.f.link.owner.people.email",
        "f.link.company.companies.industry",
        "f.link.bad",
    ]
    assert targets_in_query(names) == [TARGET, LinkedTarget(relation_key="owner", object_key="people")]


def test_read_written_and_said_by_the_filters_own_code():
    query = QueryDict(
        "f.link.company.companies.industry=tech&op.link.company.companies.employees=gt&f.link.company.companies.employees=50"
        "&or.1.1.f.seats=3&or.1.2.f.link.company.companies.name=Nova&or.1.2.op.link.company.companies.name=contains"
    )
    record_filter = RecordFilter.from_query(query, OWN, LINKED)
    assert QueryDict(query.urlencode()) == QueryDict("&".join(f"{k}={v}" for k, v in record_filter.pairs()))
    assert record_filter.active_count == 3
    assert record_filter.summary(OWN) == [
        "Seats = 3 or Company › Name contains “Nova”",
        "Company › Industry is “Tech”",
        "Company › Employees > 50",
    ]
    # Without the linked fields (an object that is gone), nothing of them is read.
    assert RecordFilter.from_query(query, OWN).pairs() == [("or.1.1.f.seats", "3")]


def test_the_plan_never_sends_a_linked_condition_and_checks_it_on_the_id():
    query = QueryDict(
        "f.seats=3&f.link.company.companies.industry=tech&or.1.1.f.link.company.companies.name=A&or.1.2.f.seats=4"
    )
    plan = RecordFilter.from_query(query, OWN, LINKED).plan(OWN)
    assert plan.remote == {"seats": 3}
    assert plan.search == ""
    assert plan.narrows
    assert [(c.key, c.together) for c in plan.linked] == [
        ("link.company.companies.industry", True),
        ("link.company.companies.name", False),
    ]
    industry, name = plan.linked
    record = {"id": "d1", "values": {"seats": 4}}
    assert not plan.matches(record)  # before the links are read: nothing passes, never everything
    industry.ids = frozenset({"d1", "d2"})
    assert plan.matches(record)  # Tech, and Seats is 4 (the group's second branch)
    assert not plan.matches({"id": "d3", "values": {"seats": 4}})
    assert not plan.matches({"id": "d2", "values": {"seats": 5}})
    name.ids = frozenset({"d2"})
    assert plan.matches({"id": "d2", "values": {"seats": 5}})  # the group's first branch: the company's name


def test_a_linked_value_that_cannot_be_read_is_said_and_left_out():
    query = QueryDict("op.link.company.companies.employees=gt&f.link.company.companies.employees=lots")
    plan = RecordFilter.from_query(query, OWN, LINKED).plan(OWN)
    assert plan.problems == ["Company › Employees: enter a number."]
    assert plan.linked == [] and not plan.narrows


def test_the_pickers_group_the_linked_fields_under_the_relationship():
    choices = linked_choices(LINKED)
    assert [(c.label, [f.label for f in c.fields]) for c in choices] == [
        ("Company (companies)", ["Company › Name", "Company › Industry", "Company › Employees"])
    ]
