"""Computed columns against the real sandbox over HTTP: 10,000 orders, each
linked to one of 200 firms. Formulas are checked over every record (the CSV
export computes them) against values computed here from what the records
were written with; lookups on the orders' grid and rollups on the firms'
grid against references too. Remote calls are counted, never timed: the
formulas cost none, lookups and rollups one read of links per row when cold
(as linked-record columns: the contract lists links one record at a time)
and at most LINKED_VALUE_READS linked records per page, whatever the number
of computed columns; a page past that budget says it is partial."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import secrets
import time

import pytest

from dashboard.api.testing import RemoteCallCounter
from objects import computed
from objects.models import ComputedColumn
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of, texts
from tests.objects.support import PlainClient, console_on_sandbox

pytestmark = pytest.mark.django_db

MANY = 10_000
FIRMS = 200
D = decimal.Decimal


@pytest.fixture(scope="module")
def orders(sandbox):
    plain = PlainClient(sandbox)
    suffix = secrets.token_hex(3)
    deals = create_every_type_object(plain, name=f"Orders {suffix}")
    firms = plain.post(
        "/v1/objects",
        json={
            "singular_name": "Firm",
            "plural_name": f"Firms {suffix}",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Region", "key": "region", "type": "text"},
            ],
        },
    )
    started = time.perf_counter()
    firm_ids = sandbox.insert_record_ids(
        firms["id"], [{"name": f"Firm {c:03d}", "region": "North" if c % 2 else "South"} for c in range(FIRMS)]
    )
    order_ids = sandbox.insert_record_ids(deals["id"], [sample_values(i) for i in range(MANY)])
    sandbox.insert_links(
        "company", deals["id"], firms["id"], [(order_ids[i], firm_ids[i % FIRMS]) for i in range(MANY)]
    )
    print(f"seeded {MANY} orders, {FIRMS} firms and their links in {time.perf_counter() - started:.1f} s")
    return {"orders": deals["key"], "firms": firms["key"], "firm_ids": firm_ids, "order_ids": order_ids}


@pytest.fixture
def console(sandbox, settings, logged_in_client, user):
    # The sandbox lists a record's links by scanning all 10,000: the page's
    # seconds are not what these tests count (the budget of reads is).
    settings.SERVICE_READ_BUDGET = 600
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


def add(console, object_key: str, **fields) -> None:
    response = console.post(f"/objects/{object_key}/settings/computed/add/", fields)
    assert response.status_code == 302, response.content.decode()[:2000]


# Three formulas a person would write, and their references below.
FORMULAS = [
    ("Per seat", "ROUND({Amount} / 7 + seats, 2)"),
    ("Label", 'name & " · " & {Status}'),
    ("Lead", "DAYS(close_date, {Meeting at}) * 2 + IF(active, 1, 0)"),
]


def add_formulas(console, object_key: str) -> None:
    for name, formula in FORMULAS:
        add(console, object_key, name=name, kind="formula", formula=formula)


def per_seat(i: int) -> D:
    values = sample_values(i)
    return (D(str(values["amount"])) / 7 + values["seats"]).quantize(D("0.01"), rounding=decimal.ROUND_HALF_UP)


def label(i: int) -> str:
    values = sample_values(i)
    return f"{values['name']} · {values['status']}"


def lead(i: int) -> int:
    values = sample_values(i)
    days = (dt.date.fromisoformat(values["close_date"]) - dt.date.fromisoformat(values["meeting_at"][:10])).days
    return days * 2 + (1 if values["active"] else 0)


def test_formulas_over_10000_records_match_the_reference_in_the_export(orders, console):
    add_formulas(console, orders["orders"])

    response = console.get(f"/objects/{orders['orders']}/records/export.csv")

    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == MANY
    by_name = {row["Name"]: row for row in rows}
    for i in range(MANY):
        row = by_name[f"Deal {i:03d}"]
        assert D(row["Per seat (computed)"]) == per_seat(i), i
        assert row["Label (computed)"] == label(i)
        assert int(row["Lead (computed)"]) == lead(i)


def test_the_grid_shows_formulas_read_only_at_no_remote_cost(orders, console):
    url = f"/objects/{orders['orders']}/records/"
    console.get(url, {"limit": 100})  # the definition, cached
    with RemoteCallCounter() as counter:
        console.get(url, {"limit": 100})
        without = list(counter.paths)
    add_formulas(console, orders["orders"])
    with RemoteCallCounter() as counter:
        html = parse(console.get(url, {"limit": 100}).content)
        with_formulas = list(counter.paths)

    assert with_formulas == without  # computed on the page's records: not one more call
    headers = select(html, "table.records thead th.records-computed-col")
    assert [text_of(h) for h in headers] == ["Per seat computed", "Label computed", "Lead computed"]
    assert not any(h.has_attr("data-key") for h in headers)  # no inline editor opens on them
    titles = texts(html, "th.record-title a")
    assert len(titles) == 100
    offset = len(select(html, "table.records thead th")) - 5  # ... Per seat, Label, Lead, Created, Updated
    for row in select(html, "table.records tbody:not(.records-more) tr"):
        i = int(text_of(one(row, "th.record-title a")).removeprefix("Deal "))
        cells = [text_of(td) for td in row.find_all(["th", "td"])]
        assert D(cells[offset].replace(",", "")) == per_seat(i)
        assert cells[offset + 1] == label(i)
        assert int(cells[offset + 2]) == lead(i)


def test_lookups_read_each_rows_links_once_and_the_linked_records_within_budget(orders, console):
    add(console, orders["orders"], name="Firm", kind="lookup", relation_key="company", field_key="name")
    add(console, orders["orders"], name="Firm region", kind="lookup", relation_key="company", field_key="region")
    add(console, orders["orders"], name="Firms", kind="rollup", relation_key="company", function="count")
    url = f"/objects/{orders['orders']}/records/"

    with RemoteCallCounter() as counter:
        cold = parse(console.get(url, {"limit": 50, "sort": "name"}).content)
        cold_paths = list(counter.paths)
        counter.reset()
        warm = parse(console.get(url, {"limit": 50, "sort": "name"}).content)
        warm_paths = list(counter.paths)

    link_reads = [p for p in cold_paths if p.endswith("/relationships")]
    firm_reads = [p for p in cold_paths if p.startswith(f"/v1/objects/{orders['firms']}/records/")]
    assert len(link_reads) == 50  # one per row, shared by the three columns
    assert len(firm_reads) == 50  # each distinct firm once, however many columns read it
    assert not [p for p in warm_paths if p.endswith("/relationships") or orders["firms"] in p]
    for html in (cold, warm):
        assert not select(html, ".alert-warning")
        for row in select(html, "table.records tbody:not(.records-more) tr"):
            i = int(text_of(one(row, "th.record-title a")).removeprefix("Deal "))
            cells = [text_of(td) for td in row.find_all("td")]
            assert cells[-5:-2] == [f"Firm {i % FIRMS:03d}", "North" if i % FIRMS % 2 else "South", "1"]


def firm_reference(c: int) -> dict:
    linked = [sample_values(i) for i in range(c, MANY, FIRMS)]
    amounts = [D(str(v["amount"])) for v in linked]
    seats = [D(v["seats"]) for v in linked]
    dates = sorted(v["close_date"] for v in linked)
    return {
        "count": len(linked),
        "sum": sum(amounts),
        "average": sum(seats) / len(seats),
        "min": min(amounts),
        "max": max(seats),
        "earliest": dates[0],
        "latest": dates[-1],
    }


ROLLUPS = [
    ("Orders", "count", ""),
    ("Total", "sum", "amount"),
    ("Average seats", "average", "seats"),
    ("Smallest", "min", "amount"),
    ("Most seats", "max", "seats"),
    ("First close", "earliest", "close_date"),
    ("Last close", "latest", "close_date"),
]


def test_rollups_over_linked_orders_match_the_reference(orders, console, monkeypatch):
    for name, function, field_key in ROLLUPS:
        add(
            console,
            orders["firms"],
            name=name,
            kind="rollup",
            relation_key="company",
            function=function,
            field_key=field_key,
        )
    monkeypatch.setattr(computed, "LINKED_VALUE_READS", 2000)  # every linked order of 25 firms: 1,250 reads
    url = f"/objects/{orders['firms']}/records/"

    html = parse(console.get(url, {"limit": 25, "sort": "name"}).content)

    assert not select(html, ".alert-warning")
    record_rows = select(html, "table.records tbody:not(.records-more) tr")
    assert len(record_rows) == 25
    for row in record_rows:
        c = int(text_of(one(row, "th.record-title a")).removeprefix("Firm "))
        expected = firm_reference(c)
        cells = [text_of(td) for td in row.find_all("td")][-9:-2]
        count, total, average, smallest, most, first, last = cells
        assert int(count) == expected["count"] == MANY // FIRMS
        assert D(total.replace(",", "")) == expected["sum"]
        assert D(average.replace(",", "")) == expected["average"].quantize(D(average.replace(",", "")))
        assert D(smallest.replace(",", "")) == expected["min"]
        assert D(most.replace(",", "")) == expected["max"]
        assert (
            first == dt.date.fromisoformat(expected["earliest"]).strftime("%b %-d, %Y") or expected["earliest"] in first
        )
        assert last == dt.date.fromisoformat(expected["latest"]).strftime("%b %-d, %Y") or expected["latest"] in last


def test_past_the_budget_the_page_says_its_rollups_are_partial(orders, console):
    add(console, orders["firms"], name="Orders", kind="rollup", relation_key="company", function="count")
    add(
        console,
        orders["firms"],
        name="Total",
        kind="rollup",
        relation_key="company",
        function="sum",
        field_key="amount",
    )
    url = f"/objects/{orders['firms']}/records/"

    with RemoteCallCounter() as counter:
        html = parse(console.get(url, {"limit": 25, "sort": "name"}).content)
        paths = list(counter.paths)

    order_reads = [p for p in paths if p.startswith(f"/v1/objects/{orders['orders']}/records/")]
    assert len(order_reads) == computed.LINKED_VALUE_READS  # the budget, not 25 x 50
    said = text_of(one(html, ".alert-warning"))
    assert said.startswith("Lookups and rollups of 23 rows are partial: not every linked record could be read")
    assert "(at most 100 linked records are read for a page)" in said
    counts = [text_of(row.find_all("td")[-4]) for row in select(html, "table.records tbody:not(.records-more) tr")]
    assert counts == ["50"] * 25  # a count of links needs no linked record: whole


def test_the_record_page_shows_its_computed_values(orders, console):
    add(console, orders["orders"], name="Firm", kind="lookup", relation_key="company", field_key="name")
    add(console, orders["orders"], name="Label", kind="formula", formula='name & " · " & {Status}')
    record_id = orders["order_ids"][7]

    html = parse(console.get(f"/objects/{orders['orders']}/records/{record_id}/").content)

    facts = dict(zip(texts(html, ".record-values dt"), texts(html, ".record-values dd"), strict=False))
    assert facts["Firm computed"] == "Firm 007"
    assert facts["Label computed"] == label(7)
    assert ComputedColumn.objects.count() == 2


def test_a_sort_by_a_lookup_reads_one_page_of_links_and_says_so(orders, console):
    add(console, orders["orders"], name="Firm", kind="lookup", relation_key="company", field_key="name")
    column = f"computed:{ComputedColumn.objects.get().pk}"
    url = f"/objects/{orders['orders']}/records/"

    with RemoteCallCounter() as counter:
        html = parse(console.get(url, {"sort": f"-{column}"}).content)
        paths = list(counter.paths)

    # One page of 100 orders (oldest first), their links (one read each) and their firms: never 10,000 rows' links.
    assert len([p for p in paths if p == f"/v1/objects/{orders['orders']}/records"]) == 1
    assert len([p for p in paths if p.endswith("/relationships")]) == 100
    assert len([p for p in paths if p.startswith(f"/v1/objects/{orders['firms']}/records/")]) <= 100
    said = text_of(one(html, ".filter-partial"))
    assert said == "Sorted within the first 100 records read: refine the filters to sort them all."
    firms = [text_of(row.find_all("td")[-3]) for row in select(html, "table.records tbody:not(.records-more) tr")]
    assert len(firms) == 25 and firms == sorted(firms, reverse=True)
    first = {f"Firm {i % FIRMS:03d}" for i in range(100)}  # the orders were written in order
    assert set(firms) <= first
