"""The runs search's words, the pure part (agents/run_search.py): what a run
keeps (inputs, answer, step names, results, errors), a query's words and a
result's excerpt; odd bodies of another implementation never raise."""

from __future__ import annotations

from agents.run_search import MAX_RUN_TEXT, excerpt, query_words, run_words


def test_a_runs_words_are_its_input_answer_steps_and_errors():
    body = {
        "event": {"kind": "webhook", "message": "New lead", "payload": {"email": "ada@example.com", "seats": 40}},
        "answer": "Ada qualifies for the Pro plan.",
        "steps": [
            {"kind": "tool", "label": "Look up CRM", "input": {"query": "Ada"}, "result": {"found": True, "id": 77}},
            {"kind": "email", "error": {"type": "send_failed", "message": "Mailbox full"}},
            "a bare step",
        ],
        "error": "Quota reached",
    }

    words = run_words(body)

    assert (
        words.split()
        == (
            "New lead email ada@example.com seats 40 Ada qualifies for the Pro plan. "
            "Look up CRM tool query Ada found id 77 email Mailbox full a bare step Quota reached"
        ).split()
    )


def test_odd_bodies_give_what_they_have_and_huge_ones_are_capped():
    assert run_words(None) == ""
    assert run_words({"event": "schedule", "steps": "not a list", "answer": 5}) == "schedule"
    assert run_words({"steps": [{"label": "x\x00y"}]}) == "xy"
    assert len(run_words({"answer": "word " * 10_000})) == MAX_RUN_TEXT


def test_a_query_is_its_words_and_an_excerpt_shows_where_one_is():
    assert query_words("  refund   “Ada”  refund! ") == ["refund", "Ada"]
    assert query_words("!!! ???") == []
    assert len(query_words(" ".join(f"w{n}" for n in range(20)))) == 8
    text = "start " + "x " * 100 + "the refund of 40 EUR was sent " + "y " * 100
    shown = excerpt(text, ["REFUND"])
    assert shown.startswith("…") and shown.endswith("…") and "the refund of 40 EUR was sent" in shown
    assert excerpt("short text", ["absent"]) == "short text"
