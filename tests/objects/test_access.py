"""The access policy's rules (objects/access.py), pure: who sees which
records, which fields are hidden or read-only, "me", and failing closed."""

from __future__ import annotations

from django.http import QueryDict

from objects import access
from objects.access import Access, FieldRule, Person, Policy, RecordRule
from objects.fields import field_defs
from objects.filters import FilterPlan, redacted

FIELDS = field_defs(
    {
        "fields": [
            {"key": "name", "label": "Name", "type": "text"},
            {"key": "owner", "label": "Owner", "type": "email"},
            {"key": "seats", "label": "Seats", "type": "number"},
            {"key": "salary", "label": "Salary", "type": "number"},
        ]
    }
)
ADA = Person.of(role="viewer", email="ada@example.com", username="ada")
MEMBER = Person.of(role="member", email="max@example.com", username="max")
MINE = Policy(records=(RecordRule(who="role:viewer", where="f.owner=%40me"),))


def record(**values):
    return {"id": "r", "values": values}


def sees(policy: Policy, person: Person, rec: dict) -> bool:
    return access.sees(access.record_check(access.access_of(policy, person), FIELDS), rec)


def test_a_role_without_rules_sees_every_record():
    assert sees(MINE, MEMBER, record(owner="someone@example.com"))
    assert access.access_of(MINE, MEMBER).everything


def test_me_is_the_persons_email_or_user_name():
    assert sees(MINE, ADA, record(owner="ada@example.com"))
    assert sees(MINE, ADA, record(owner="ada"))
    assert not sees(MINE, ADA, record(owner="bob@example.com"))
    assert not sees(MINE, ADA, record())


def test_a_person_without_a_name_matches_no_me_rule():
    nobody = Person.of(role="viewer")
    assert not sees(MINE, nobody, record(owner=""))


def test_rules_of_a_person_and_of_their_role_are_either_or():
    policy = Policy(
        records=(
            RecordRule(who="role:viewer", where="f.owner=%40me"),
            RecordRule(who="person:ADA@example.com", where="f.seats=3&op.seats=gt"),
        )
    )
    assert sees(policy, ADA, record(owner="bob@example.com", seats=5))
    assert sees(policy, ADA, record(owner="ada", seats=1))
    assert not sees(policy, ADA, record(owner="bob@example.com", seats=2))


def test_a_rule_that_cannot_be_read_holds_for_no_record():
    for where in ("f.gone=1", "", "f.seats=many&op.seats=gt"):
        policy = Policy(records=(RecordRule(who="role:viewer", where=where),))
        assert not sees(policy, ADA, record(seats=5, owner="ada"))


def test_administrators_see_and_change_everything():
    policy = Policy(
        records=(RecordRule(who="role:administrator", where="f.gone=1"),),
        fields=(FieldRule(key="salary", hidden=frozenset({"administrator"})),),
    )
    assert access.access_of(policy, Person.of(role="administrator")).everything


def test_hidden_and_read_only_fields_by_role():
    policy = Policy(
        fields=(
            FieldRule(key="salary", hidden=frozenset({"viewer"}), read_only=frozenset({"member"})),
            FieldRule(key="seats", read_only=frozenset({"viewer"})),
        )
    )
    viewer = access.access_of(policy, ADA)
    assert viewer.hidden == {"salary"} and viewer.read_only == {"seats"}
    assert access.refused_fields(viewer, ["name", "salary", "seats"]) == ["salary", "seats"]
    assert access.refused_fields(access.access_of(policy, MEMBER), ["salary", "name"]) == ["salary"]
    assert redacted(record(name="A", salary=9), viewer.hidden) == record(name="A")
    shown = access.definition_shown({"fields": [{"key": "name"}, {"key": "salary"}]}, viewer.hidden)
    assert shown == {"fields": [{"key": "name"}]}


def test_a_narrowed_plan_checks_the_policy_and_drops_hidden_values():
    person = Access(restricted=True, wheres=("f.owner=ada",), hidden=frozenset({"salary"}))
    plan = access.narrow(FilterPlan(remote={}, search="", local=[], problems=[]), person, FIELDS)
    assert plan.narrows
    assert plan.matches(record(owner="ada")) and not plan.matches(record(owner="bob"))
    assert plan.shown(record(owner="ada", salary=1)) == record(owner="ada")


def test_a_background_count_keeps_the_access_it_was_asked_with():
    person = access.access_of(MINE, ADA)
    again = access.access_from_params(access.access_params(person))
    assert again is not None and again.restricted and set(again.wheres) == set(person.wheres)
    assert access.access_params(access.access_of(MINE, MEMBER)) == {}
    nothing = access.access_from_params({"access": []})
    assert not access.sees(access.record_check(nothing, FIELDS), record(owner="ada"))


def test_the_stored_shape_round_trips_and_drops_what_is_malformed():
    policy = Policy(
        records=(RecordRule(who="role:viewer", where="f.owner=%40me"),),
        fields=(FieldRule(key="salary", hidden=frozenset({"viewer", "member"})),),
    )
    assert Policy.from_json(policy.to_json()) == policy
    assert Policy.from_json({"records": [{"who": 1}, "x"], "fields": {"a": "b", "c": {"hidden": [1]}}}).empty
    assert Policy.from_json(None).empty


def test_the_page_form_reads_rules_and_marks_incomplete_rows():
    data = QueryDict(mutable=True)
    data.update({"rule-0-who": "role:viewer", "rule-0-field": "owner", "rule-0-op": "is", "rule-0-me": "1"})
    data.update({"rule-1-who": "person", "rule-1-field": "seats", "rule-1-value": "3"})
    data.update({"rule-2-who": "role:nobody", "rule-2-field": "seats"})
    data.update({"rule-3-who": "role:member", "rule-3-field": "name", "rule-3-op": "empty"})
    data.setlist("field-salary-hidden", ["viewer", "administrator"])
    data.setlist("field-salary-read_only", ["viewer", "member"])
    policy, problems = access.policy_from_form(data, fields=FIELDS, roles=["viewer", "member", "administrator"])
    assert set(problems) == {1, 2}
    assert policy.records == (
        RecordRule(who="role:viewer", where="f.owner=%40me"),
        RecordRule(who="role:member", where="op.name=empty"),
    )
    assert policy.fields == (FieldRule(key="salary", hidden=frozenset({"viewer"}), read_only=frozenset({"member"})),)
    rows = access.rule_rows(policy)
    assert rows[0].conditions == (access.ConditionRow(field="owner", me=True),)
    assert rows[1].conditions == (access.ConditionRow(field="name", op="empty"),)


def test_a_rule_of_several_conditions_holds_only_where_all_do_and_reads_back_on_the_page():
    data = QueryDict(mutable=True)
    data.update({"rule-0-who": "role:viewer", "rule-0-field": "owner", "rule-0-me": "1"})
    data.update({"rule-0-and1-field": "seats", "rule-0-and1-op": "is_not", "rule-0-and1-value": "3"})
    data.update({"rule-0-and2-field": "seats", "rule-0-and2-op": "is_not", "rule-0-and2-value": "4"})  # the same field
    data.update(
        {"rule-1-who": "role:member", "rule-1-field": "name", "rule-1-op": "empty", "rule-1-and1-op": "contains"}
    )
    policy, problems = access.policy_from_form(data, fields=FIELDS, roles=["viewer", "member"])

    assert problems == {1: "Choose the field the records are seen by."}  # a condition without its field
    (rule,) = policy.records
    assert QueryDict(rule.where) == QueryDict(
        "f.owner=%40me&f.seats=3&op.seats=is_not&or.1.1.f.seats=4&or.1.1.op.seats=is_not"
    )
    assert sees(policy, ADA, record(owner="ada@example.com", seats=5))
    assert not sees(policy, ADA, record(owner="ada@example.com", seats=3))  # the second condition fails
    assert not sees(policy, ADA, record(owner="ada", seats=4))  # the third
    assert not sees(policy, ADA, record(owner="bob@example.com", seats=5))  # the first
    # The stored shape is the one-condition rules' (a filter's address): it round-trips, and reads back whole.
    assert Policy.from_json(policy.to_json()) == policy
    (row,) = access.rule_rows(policy)
    assert row.conditions == (
        access.ConditionRow(field="owner", me=True),
        access.ConditionRow(field="seats", op="is_not", value="3"),
        access.ConditionRow(field="seats", op="is_not", value="4"),
    )
    assert [slot for slot, _c in row.slots] == ["", "and1-", "and2-"]
    again, _ = access.policy_from_form(_posted(row), fields=FIELDS, roles=["viewer"])
    assert again == policy  # saved again from the page as it shows it: nothing lost


def test_a_one_condition_rule_stored_before_reads_as_it_did():
    old = Policy.from_json({"records": [{"who": "person:ada", "where": "op.stage=is_not&f.stage=Lost"}]})
    (row,) = access.rule_rows(old)
    assert (row.who, row.person) == ("person", "ada")
    assert row.conditions == (access.ConditionRow(field="stage", op="is_not", value="Lost"),)
    assert [c for _slot, c in row.slots][1:] == [access.ConditionRow()] * (access.MAX_CONDITIONS - 1)


def _posted(row: access.RuleRow) -> QueryDict:
    data = QueryDict(mutable=True)
    data.update({"rule-0-who": row.who, "rule-0-person": row.person})
    for slot, c in row.slots:
        data.update({f"rule-0-{slot}field": c.field, f"rule-0-{slot}op": c.op, f"rule-0-{slot}value": c.value})
        if c.me:
            data[f"rule-0-{slot}me"] = "1"
    return data
