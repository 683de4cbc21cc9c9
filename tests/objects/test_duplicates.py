"""Normalising values and grouping likely twins (objects/duplicates.py): pure."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from objects.duplicates import (
    EXACT,
    default_choices,
    duplicate_groups,
    normalise_email,
    normalise_phone,
    normalise_text,
    value_key,
)


def test_text_by_case_spaces_and_punctuation():
    assert normalise_text("ACME Corp.") == normalise_text("  acme   corp") == "acme corp"
    assert normalise_text("O'Brien & Sons") == normalise_text("o brien sons")
    assert normalise_text("Acme Corp") != normalise_text("Acme Co")


@given(st.text(max_size=40))
def test_text_normalising_is_stable_and_ignores_case_and_outer_spaces(value):
    once = normalise_text(value)
    assert normalise_text(once) == once
    assert normalise_text(f"  {value.upper()}  ") == normalise_text(value.upper())


def test_emails_by_case_only_never_gmail_dots_or_tags():
    assert normalise_email(" Ann@Example.COM ") == normalise_email("ann@example.com")
    assert normalise_email("a.nn@gmail.com") != normalise_email("ann@gmail.com")
    assert normalise_email("ann+work@gmail.com") != normalise_email("ann@gmail.com")


def test_phones_by_digits_with_a_leading_country_code_tolerated():
    assert normalise_phone("+1 (555) 010-2000") == normalise_phone("555 010 2000") == "5550102000"
    assert normalise_phone("0044 20 7946 0958") == normalise_phone("+44 20 7946 0958")
    assert normalise_phone("ext") == "" and normalise_phone("12") == ""


@given(
    st.lists(st.integers(min_value=0, max_value=9), min_size=10, max_size=10), st.sampled_from(["+1 ", "1", "+33", ""])
)
def test_a_country_code_never_splits_a_number(digits, prefix):
    number = "".join(map(str, digits))
    spaced = f"{number[:3]} {number[3:6]}-{number[6:]}"
    assert normalise_phone(prefix + spaced) == normalise_phone(number)


def _rec(record_id, value, key="name"):
    return {"id": record_id, "values": {key: value}}


def test_groups_of_two_or_more_largest_first_empties_never():
    records = [
        _rec("1", "ACME Corp."),
        _rec("2", "Globex"),
        _rec("3", "acme corp"),
        _rec("4", ""),
        _rec("5", None),
        _rec("6", "GLOBEX"),
        _rec("7", "Acme  Corp"),
        _rec("8", "Initech"),
    ]
    groups = duplicate_groups(records, field_key="name", field_type="text")
    assert [(g.ids, g.shown) for g in groups] == [(["1", "3", "7"], "ACME Corp."), (["2", "6"], "Globex")]
    exact = duplicate_groups(records + [_rec("9", "Initech")], field_key="name", field_type="text", mode=EXACT)
    assert [g.ids for g in exact] == [["8", "9"]]


def test_emails_and_phones_group_by_their_own_rule():
    records = [_rec("1", "Ann@x.io", "email"), _rec("2", "ann@X.IO", "email"), _rec("3", "a.nn@x.io", "email")]
    assert [g.ids for g in duplicate_groups(records, field_key="email", field_type="email")] == [["1", "2"]]
    phones = [_rec("1", "+1 555 010 2000", "phone"), _rec("2", "(555) 010-2000", "phone")]
    assert [g.ids for g in duplicate_groups(phones, field_key="phone", field_type="phone")] == [["1", "2"]]


def test_exact_keeps_case():
    assert value_key("Acme", field_type="text", mode=EXACT) != value_key("acme", field_type="text", mode=EXACT)


def test_a_merge_keeps_the_kept_value_else_the_first_not_empty():
    records = [{"values": {"name": "Acme", "phone": ""}}, {"values": {"name": "ACME", "phone": "555"}}]
    assert default_choices(records, ["name", "phone", "email"]) == {"name": 0, "phone": 1, "email": 0}
