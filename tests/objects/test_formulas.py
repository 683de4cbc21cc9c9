"""The formula language of computed columns (objects/formulas.py) and the
rollups (objects/rollups.py), pure: no database, no service. Values are
checked against references computed here in plain Python; errors are read
as the words a person sees."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objects.formulas import (
    BOOLEAN,
    DATE,
    NUMBER,
    TEXT,
    FormulaError,
    FormulaField,
    as_text,
    compile_formula,
)
from objects.rollups import lookup, rollup, rollup_problem

FIELDS = [
    FormulaField.of("amount", "Amount", "currency"),
    FormulaField.of("seats", "Seats", "number"),
    FormulaField.of("name", "Name", "text"),
    FormulaField.of("close_date", "Close date", "date"),
    FormulaField.of("meeting_at", "Meeting at", "datetime"),
    FormulaField.of("active", "Active", "boolean"),
    FormulaField.of("status", "Status", "select", {"opt_1": "Open", "opt_2": "Lost"}),
]
RECORD = {
    "amount": 1234.5,
    "seats": "12",
    "name": "Acme",
    "close_date": "2026-12-10",
    "meeting_at": "2026-11-03T09:30:00Z",
    "active": True,
    "status": "opt_2",
}
D = decimal.Decimal


def run(source: str, values: dict | None = None):
    return compile_formula(source, FIELDS).evaluate(RECORD if values is None else values, today=dt.date(2026, 12, 1))


@pytest.mark.parametrize(
    ("source", "expected", "kind"),
    [
        ("amount * 2", D("2469.0"), NUMBER),
        ("{Amount} + seats", D("1246.5"), NUMBER),
        ("{close date} - {Meeting at}", D(37), NUMBER),  # names in braces are case-blind
        ("DAYS(close_date, TODAY())", D(9), NUMBER),
        ("close_date + 3", dt.date(2026, 12, 13), DATE),
        ("ROUND(amount / 7, 2)", D("176.36"), NUMBER),
        ('IF(amount > 1000, "Large", "Small")', "Large", TEXT),
        ('name & " (" & seats & " seats)"', "Acme (12 seats)", TEXT),
        ('CONCAT(UPPER(name), "-", YEAR(close_date))', "ACME-2026", TEXT),
        ("active = TRUE", True, BOOLEAN),
        ('AND(active, status = "lost")', True, BOOLEAN),  # a choice reads as its label; text compares case-blind
        ("seats <> 12", False, BOOLEAN),
        ("NOT(ISBLANK(name))", True, BOOLEAN),
        ("MIN(seats, amount, 3) + MAX(1, 2)", D(5), NUMBER),
        ("LEN(TRIM('  ab  '))", D(2), NUMBER),
    ],
)
def test_a_formula_computes_its_reference_value_with_its_type(source, expected, kind):
    formula = compile_formula(source, FIELDS)
    assert formula.result_type == kind
    assert formula.evaluate(RECORD, today=dt.date(2026, 12, 1)) == expected


def test_an_empty_field_or_a_division_by_zero_is_an_empty_result_not_an_error():
    assert run("amount * 2", {"amount": None}) is None
    assert run("amount / 0") is None
    assert run("amount / (seats - 12)") is None
    assert run('name & "!"', {}) == "!"  # joined text treats empty as nothing
    assert run('IF(ISBLANK(amount), "none", "some")', {}) == "none"
    assert run("seats * 2", {"seats": "not a number"}) is None


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("amount + name", "{Name} is text: text is joined with &, not +."),
        ("{Amout} * 2", "No field is called “Amout”. Did you mean {Amount}?"),
        ("price * 2", "No field is called “price”."),
        ("IF(amount, 1, 2)", "IF needs true or false, but {Amount} is a number."),
        ('IF(active, 1, "x")', "IF gives a number one way and text the other"),
        ("name < seats", "{Name} (text) cannot be compared with {Seats} (a number)."),
        ("DAYS(close_date, name)", "DAYS needs a date, but {Name} is text."),
        ("ROUND()", "ROUND takes 1 to 2 values; it was given 0."),
        ("SQRT(amount)", "There is no function SQRT."),
        ("ROUDN(amount)", "Did you mean ROUND?"),
        ('"open', "A text in quotes is not closed"),
        ("(amount", "cannot be read near"),
        ("{Amount", "A field name in braces is not closed"),
        ("", "Write a formula"),
        ("active < TRUE", "True or false values can only be compared with = or <>."),
    ],
)
def test_errors_are_said_in_words_naming_the_field(source, said):
    with pytest.raises(FormulaError) as refused:
        compile_formula(source, FIELDS)
    assert said in str(refused.value)


@pytest.mark.parametrize(
    "source",
    [
        '__import__("os").system("true")',
        "amount.__class__",
        "[x for x in (1, 2)]",
        "(lambda: 1)()",
        "open('/etc/passwd')",
        "name[0]",
        "{'a': 1}",
        "amount ** 99999999",
        "amount if active else 0",
    ],
)
def test_nothing_outside_the_language_is_evaluated(source):
    """Python beyond the language's few nodes is refused before anything runs."""
    with pytest.raises(FormulaError):
        compile_formula(source, FIELDS)


# --- properties --------------------------------------------------------------

numbers = st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(a=numbers, b=numbers)
def test_arithmetic_agrees_with_decimal_arithmetic(a, b):
    values = {"amount": str(a), "seats": str(b)}
    formula = compile_formula("(amount + seats) * 2 - seats", FIELDS)
    assert formula.evaluate(values) == (a + b) * 2 - b
    comparison = compile_formula("amount >= seats", FIELDS)
    assert comparison.evaluate(values) is (a >= b)
    rounded = compile_formula("ROUND(amount / 3, 1)", FIELDS).evaluate(values)
    assert rounded == (a / 3).quantize(D("0.1"), rounding=decimal.ROUND_HALF_UP)


@settings(max_examples=200, deadline=None)
@given(start=st.dates(), end=st.dates())
def test_date_differences_are_days(start, end):
    values = {"close_date": end.isoformat(), "meeting_at": f"{start.isoformat()}T12:00:00Z"}
    assert compile_formula("close_date - meeting_at", FIELDS).evaluate(values) == (end - start).days
    assert compile_formula("DAYS(close_date, meeting_at)", FIELDS).evaluate(values) == (end - start).days


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_typed_text_is_refused_in_words_or_computes_never_raises_otherwise(source):
    try:
        formula = compile_formula(source, FIELDS)
    except FormulaError as exc:
        assert str(exc)
        return
    formula.evaluate(RECORD)  # whatever it gives, it gives without an exception


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.characters(blacklist_characters='"\\\x00', blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
        max_size=40,
    )
)
def test_quoted_text_joins_as_typed(typed):
    assert compile_formula(f'"{typed}" & name', FIELDS).evaluate(RECORD) == (typed + "Acme")[:10_000]


# --- rollups -----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), numbers), max_size=30))
def test_rollups_agree_with_plain_python(raws):
    present = [v for v in raws if v is not None]
    assert rollup("count", "", raws) == len(raws)
    assert rollup("count", NUMBER, raws) == len(present)
    assert rollup("sum", NUMBER, raws) == (sum(present, D(0)) if present else None)
    assert rollup("min", NUMBER, raws) == (min(present) if present else None)
    assert rollup("max", NUMBER, raws) == (max(present) if present else None)
    if present:
        assert rollup("average", NUMBER, raws) == sum(present, D(0)) / len(present)


def test_earliest_and_latest_dates_and_lookups():
    raws = ["2026-03-01", None, "2025-12-31T23:00:00Z", "2026-01-15"]
    assert rollup("earliest", DATE, raws) == dt.date(2025, 12, 31)
    assert rollup("latest", DATE, raws) == dt.date(2026, 3, 1)
    assert lookup(TEXT, ["Acme"]) == "Acme"
    assert lookup(TEXT, ["opt_1", "opt_2"], {"opt_1": "Open", "opt_2": "Lost"}) == "Open, Lost"
    assert lookup(NUMBER, []) is None
    assert as_text(D("12.50")) == "12.50" and as_text(D("12.0")) == "12"


def test_a_rollup_that_cannot_summarise_its_field_says_why():
    assert rollup_problem("sum", TEXT, "Name") == "Sum needs a number field, but Name is not a number."
    assert rollup_problem("latest", NUMBER, "Seats") == "Latest needs a date field, but Seats is not a date."
    assert rollup_problem("count", TEXT, "Name") == ""
