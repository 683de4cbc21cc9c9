"""Two runs compared, the pure part (agents/run_compare.py): JSON diffed in
words with unchanged parts folded, steps aligned by name and order, the
measures side by side, and runs lacking optional members read tolerantly."""

from __future__ import annotations

from agents.run_compare import (
    ADDED,
    BOTH,
    CHANGED,
    FIRST_ONLY,
    REMOVED,
    SECOND_ONLY,
    align_steps,
    compare_runs,
    json_diff,
)
from agents.run_reading import read_run


def test_a_json_diff_names_each_change_by_its_place_and_folds_the_rest():
    before = {"customer": {"email": "ada@example.com", "name": "Ada"}, "items": [1, 2], "note": "call", "n": 3}
    after = {"customer": {"email": "ada@acme.test", "name": "Ada"}, "items": [1, 2, 5], "n": 3, "new": True}

    diff = json_diff(before, after)

    assert [(change.kind, change.place) for change in diff.changes] == [
        (CHANGED, "customer › email"),
        (ADDED, "items › item 3"),
        (REMOVED, "note"),
        (ADDED, "new"),
    ]
    assert [change.words for change in diff.changes] == [
        "“customer › email” changed from “ada@example.com” to “ada@acme.test”",
        "“items › item 3” added: 5",
        "“note” removed (was “call”)",
        "“new” added: true",
    ]
    assert diff.unchanged == 4  # name, items 1 and 2, n
    assert diff.unchanged_words == "4 unchanged values"
    assert not diff.same


def test_equal_values_are_the_same_and_a_changed_type_is_one_change():
    assert json_diff({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}).same
    assert json_diff(None, None).same
    diff = json_diff({"a": "1"}, {"a": 1})
    assert [change.words for change in diff.changes] == ["“a” changed from “1” to 1"]
    whole = json_diff("hello", "hello there")
    assert [change.words for change in whole.changes] == ["The value changed from “hello” to “hello there”"]


def test_a_long_value_is_cut_and_many_changes_are_counted_past_the_limit():
    diff = json_diff({"text": "a" * 300}, {"text": "b"})
    assert diff.changes[0].before.endswith("…”") and len(diff.changes[0].before) <= 82
    many = json_diff({str(n): n for n in range(250)}, {str(n): n + 1 for n in range(250)})
    assert len(many.changes) == 200 and many.more == 50


def _step(label, **more):
    return {"label": label, "kind": "tool", **more}


def test_steps_are_aligned_by_name_and_order_so_an_inserted_step_shifts_nothing():
    first = [_step("Read lead"), _step("Score"), _step("Send email")]
    second = [_step("Read lead"), _step("Enrich"), _step("Score"), _step("Send email", input={"to": "b"})]

    rows = align_steps(
        read_run({"steps": first})["steps"],
        read_run({"steps": second})["steps"],
    )

    assert [(row.name, row.where) for row in rows] == [
        ("Read lead", BOTH),
        ("Enrich", SECOND_ONLY),
        ("Score", BOTH),
        ("Send email", BOTH),
    ]
    assert [row.same for row in rows] == [True, False, True, False]
    assert rows[3].input is not None and [c.words for c in rows[3].input.changes] == [
        'The value changed from nothing to {"to": "b"}'
    ]


def test_a_step_only_in_the_first_run_is_said():
    rows = align_steps(
        read_run({"steps": [_step("A"), _step("B")]})["steps"], read_run({"steps": [_step("A")]})["steps"]
    )
    assert [(row.name, row.where) for row in rows] == [("A", BOTH), ("B", FIRST_ONLY)]


def _run(**members):
    return read_run(
        {
            "id": "run-x",
            "agent_id": "agent-1",
            "status": "completed",
            "created_at": "2026-11-03T09:00:00Z",
            "completed_at": "2026-11-03T09:00:12Z",
            "cost_usd": 0.012,
            "event": {"kind": "chat", "message": "Qualify Ada"},
            "answer": "Ada is qualified.",
            "steps": [_step("Read lead", input={"id": 1}, result={"score": 70})],
            **members,
        }
    )


def test_two_runs_side_by_side_with_deltas_in_words():
    first = _run()
    second = _run(
        completed_at="2026-11-03T09:00:20Z",
        cost_usd=0.015,
        answer="Ada is not qualified.",
        steps=[_step("Read lead", input={"id": 1}, result={"score": 40})],
        approvals=[
            {"status": "approved", "created_at": "2026-11-03T09:00:01Z", "decided_at": "2026-11-03T09:00:06Z"},
            {"status": "pending", "created_at": "2026-11-03T09:00:07Z"},
        ],
    )

    comparison = compare_runs(first, second)

    assert [(side.label, side.first, side.second, side.delta) for side in comparison.sides] == [
        ("Outcome", "completed", "completed", ""),
        ("Duration", "12 s", "20 s", "+8 s"),
        ("Cost", "$0.0120", "$0.0150", "+$0.0030"),
        ("Approval waits", "no approvals", "2 approvals, waited 5 s, 1 still waiting", ""),
        ("Steps", "1", "1", ""),
    ]
    assert comparison.input.same
    assert [c.words for c in comparison.answer.changes] == [
        "The value changed from “Ada is qualified.” to “Ada is not qualified.”"
    ]
    assert [c.words for c in comparison.steps[0].result.changes] == ["“score” changed from 70 to 40"]
    assert comparison.summary == ("1 of 1 shared steps differ; the input is the same; the answer differs.")


def test_runs_of_another_implementation_without_optional_members_compare_without_guessing():
    bare = read_run({"id": "a", "status": "completed"})
    other = read_run({"id": "b", "steps": ["a bare step"], "cost_usd": "free"})

    comparison = compare_runs(bare, other)

    assert [(side.label, side.first, side.second, side.delta) for side in comparison.sides] == [
        ("Outcome", "completed", "not known", ""),
        ("Duration", "not known", "not known", ""),
        ("Cost", "not known", "not known", ""),
        ("Approval waits", "no approvals", "no approvals", ""),
        ("Steps", "0", "1", ""),
    ]
    assert [(row.name, row.where) for row in comparison.steps] == [("a bare step", SECOND_ONLY)]
    assert (
        comparison.summary
        == "No step in common; 1 only in the second run; the input is the same; the answer is the same."
    )
