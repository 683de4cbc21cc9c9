"""Grouping and footers (objects/grouping.py) against reference sums over
10,000 generated records: each group's and the table's count, sum,
average, min, max and empties, computed here the plain way; a datetime's
month in the workspace's zone; the empty group last; kept rows folded page
by page equal to one fold of everything."""

from __future__ import annotations

import datetime as dt
import decimal
import random
import zoneinfo

from objects import grouping
from objects.fields import field_defs
from tests.objects.records_fixtures import DEALS

FIELDS = {f.key: f for f in field_defs(DEALS)}
ZONE = zoneinfo.ZoneInfo("Pacific/Auckland")


def generated(n: int = 10_000) -> list[dict]:
    rng = random.Random(38)
    records = []
    for i in range(n):
        start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=rng.randrange(0, 60 * 24 * 365))
        values = {
            "name": f"Deal {i}",
            "seats": rng.choice([None, rng.randrange(-50, 500)]),
            "amount": rng.choice([None, "", f"{rng.randrange(0, 10**7) / 100:.2f}"]),
            "close_date": rng.choice([None, (dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(400))).isoformat()]),
            "meeting_at": rng.choice([None, start.isoformat().replace("+00:00", "Z")]),
            "active": rng.choice([True, False, None, "true"]),
            "stage": rng.choice(["opt-lead", "opt-won", "Won", None]),
        }
        records.append({"id": f"r{i}", "values": values})
    return records


def reference(records: list[dict], key: str) -> dict:
    numbers = [decimal.Decimal(str(r["values"][key])) for r in records if r["values"].get(key) not in (None, "")]
    return {
        "count": len(numbers),
        "empty": len(records) - len(numbers),
        "sum": sum(numbers, decimal.Decimal(0)),
        "average": sum(numbers, decimal.Decimal(0)) / len(numbers) if numbers else None,
        "min": min(numbers, default=None),
        "max": max(numbers, default=None),
    }


def test_footers_equal_reference_sums_over_ten_thousand_records():
    records = generated()
    fields = list(FIELDS.values())
    summaries = grouping.summarise(records, fields)
    for key in ("seats", "amount"):
        expected = reference(records, key)
        for aggregate, value in expected.items():
            assert summaries[key].value(aggregate) == value, (key, aggregate)
    days = sorted(r["values"]["close_date"] for r in records if r["values"]["close_date"])
    assert summaries["close_date"].value("min") == days[0]
    assert summaries["close_date"].value("max") == days[-1]
    assert summaries["name"].value("count") == 10_000
    assert summaries["name"].value("empty") == 0


def test_groups_by_a_choice_with_footers_per_group_equal_reference_sums():
    records = generated()
    groups = grouping.records_grouped(records, FIELDS["stage"], zone=dt.UTC)
    # Options in the field's order (a label groups with its option), the empty group last.
    assert [g.key for g in groups] == ["opt-lead", "opt-won", ""]
    assert [g.label for g in groups] == ["Lead", "Won", "No stage"]
    assert sum(len(g.records) for g in groups) == 10_000
    for group in groups:
        wanted = {"": [None], "opt-lead": ["opt-lead"], "opt-won": ["opt-won", "Won"]}[group.key]
        members = [r for r in records if r["values"]["stage"] in wanted]
        assert [r["id"] for r in group.records] == [r["id"] for r in members]  # each keeps the page's order
        summary = grouping.summarise(group.records, [FIELDS["amount"]])["amount"]
        for aggregate, value in reference(members, "amount").items():
            assert summary.value(aggregate) == value


def test_groups_by_yes_no_and_by_a_datetimes_month_in_the_workspace_zone():
    records = generated()
    yes_no = grouping.records_grouped(records, FIELDS["active"], zone=dt.UTC)
    assert [g.label for g in yes_no] == ["Yes", "No", "No active"]
    assert len(yes_no[0].records) == sum(1 for r in records if r["values"]["active"] in (True, "true"))
    months = grouping.records_grouped(records, FIELDS["meeting_at"], zone=ZONE)
    keys = [g.key for g in months]
    assert keys[-1] == "" and keys[:-1] == sorted(keys[:-1])
    # 23:30 UTC on 31 January is already February in Auckland.
    late = [{"id": "x", "values": {"meeting_at": "2026-01-31T23:30:00Z"}}]
    assert grouping.records_grouped(late, FIELDS["meeting_at"], zone=ZONE)[0].label == "February 2026"
    assert grouping.records_grouped(late, FIELDS["meeting_at"], zone=dt.UTC)[0].label == "January 2026"


def test_kept_rows_folded_page_by_page_equal_one_fold():
    records = generated(2_500)
    fields = [FIELDS[k] for k in ("seats", "amount", "close_date", "meeting_at", "name")]
    rows: dict = {}
    for start in range(0, len(records), 100):
        rows = grouping.summaries_fold(rows, records[start : start + 100], fields)
    folded = grouping.summaries_read(rows, fields)
    whole = grouping.summarise(records, fields)
    for f in fields:
        for aggregate in grouping.aggregates_for(f):
            assert folded[f.key].value(aggregate) == whole[f.key].value(aggregate), (f.key, aggregate)


def test_footer_words_and_choices():
    amount, seats, day = FIELDS["amount"], FIELDS["seats"], FIELDS["close_date"]
    summary = grouping.summarise([{"values": {"amount": "1200.5"}}, {"values": {"amount": "3"}}], [amount])["amount"]
    assert grouping.aggregate_text(amount, "sum", summary, zone=dt.UTC) == "1,203.50"
    assert grouping.aggregate_text(amount, "average", summary, zone=dt.UTC) == "601.75"
    empty = grouping.Summary()
    assert grouping.aggregate_text(seats, "average", empty, zone=dt.UTC) == "—"
    assert grouping.aggregate_choice(day, "sum") == "count"  # a date has no sum
    assert grouping.aggregate_choice(seats, "max") == "max"
    assert grouping.Summary.from_row(seats, "junk").records == 0
    assert [f.key for f in grouping.groupable_fields(list(FIELDS.values()))] == [
        "close_date", "meeting_at", "active", "status", "stage",
    ]  # fmt: skip
