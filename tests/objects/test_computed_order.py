"""The records table sorted and filtered by computed columns
(objects/computed_order.py) against the real sandbox over HTTP: the order
and the rows against values computed here, the next page, the read said
when it stopped at the budget, remote calls counted (flat as the records
grow, never timed); the console's API and the assistants' tools giving
computed values marked as the console's; a bulk action over a filter on a
computed column refused. Pure parts (the order, the names) first."""

from __future__ import annotations

import decimal
import secrets
from urllib.parse import urlencode, urljoin

import pytest
from django.http import QueryDict

from dashboard.api.testing import RemoteCallCounter
from dashboard.assistants.tools import ToolCall
from dashboard.frame.workspace import Workspace
from dashboard.tokens.scopes import READ
from objects import selectors
from objects.assistant_tools import RECORD_TOOLS
from objects.computed_order import names_computed, sort_offset, sorted_records
from objects.fields import FieldDef
from objects.filters import RecordFilter
from objects.models import ComputedColumn, RecordTally
from sandbox.fixtures import create_every_type_object, sample_values
from tests.console_api.support import send, token_for
from tests.html import one, parse, select, text_of, texts
from tests.objects.support import PlainClient, console_on_sandbox, table_rows, tally_steps_inline

pytestmark = pytest.mark.django_db

D = decimal.Decimal
COUNT = 60
# Even deals count their seats, odd ones against: an order the service has no field for.
SIGNED = "IF(active, seats, 0 - seats)"


def signed(i: int) -> int:
    values = sample_values(i)
    return values["seats"] if values["active"] else -values["seats"]


# --- pure ------------------------------------------------------------------------


def test_records_sort_by_a_value_with_empty_ones_last_either_way_and_ties_kept():
    records = [{"id": str(i)} for i in range(5)]
    values = {"0": {"k": D(2)}, "1": {"k": None}, "2": {"k": D(-1)}, "3": {"k": D(2)}, "4": {}}

    up = [r["id"] for r in sorted_records(records, values, key="k", descending=False)]
    down = [r["id"] for r in sorted_records(records, values, key="k", descending=True)]

    assert up == ["2", "0", "3", "1", "4"]
    assert down == ["0", "3", "2", "1", "4"]


def test_a_computed_condition_is_never_sent_and_its_names_are_known():
    shown = FieldDef(
        key="computed:7", label="Signed", type="number", required=False, options=(), origin="computed",
        max_length=None, raw={},
    )  # fmt: skip
    query = QueryDict("f.computed:7=5&op.computed:7=gt&f.seats=3")
    seats = FieldDef(
        key="seats", label="Seats", type="number", required=False, options=(), origin="custom", max_length=None,
        raw={},
    )  # fmt: skip
    record_filter = RecordFilter.from_query(query, [seats], computed=[shown])
    plan = record_filter.plan([seats])

    assert plan.remote == {"seats": 3} and plan.computed == {"computed:7"}
    assert record_filter.summary([seats]) == ["Seats = 3", "Signed > 5"]
    plan.computed_values = {"a": {"computed:7": "6"}, "b": {"computed:7": "5"}}
    assert [plan.matches({"id": r, "values": {"seats": 3}}) for r in ("a", "b")] == [True, False]
    assert names_computed(query) and names_computed(["or.1.2.op.computed:7"]) and not names_computed(["f.seats"])
    assert (sort_offset("csort:50"), sort_offset("csort:x"), sort_offset("abc")) == (50, 0, 0)


# --- against the sandbox -----------------------------------------------------------


@pytest.fixture(scope="module")
def deals(sandbox):
    obj = create_every_type_object(PlainClient(sandbox), name=f"Signed {secrets.token_hex(3)}")
    sandbox.insert_record_ids(obj["id"], [sample_values(i) for i in range(COUNT)])
    return obj["key"]


@pytest.fixture
def workspace_id(sandbox, deals):
    return sandbox.store.find_one("object", key=deals)["workspace_id"]


@pytest.fixture
def console(sandbox, settings, logged_in_client, user):
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


@pytest.fixture
def column(console, deals):
    response = console.post(
        f"/objects/{deals}/settings/computed/add/", {"name": "Signed", "kind": "formula", "formula": SIGNED}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return f"computed:{ComputedColumn.objects.get().pk}"


def titles(html) -> list[str]:
    return texts(html, "th.record-title a")


def deal(i: int) -> str:
    return f"Deal {i:03d}"


def test_the_grid_sorts_by_a_formula_both_ways_and_pages_on(console, deals, column):
    url = f"/objects/{deals}/records/"
    reference = sorted(range(COUNT), key=signed)
    console.get(url)  # the definition, cached

    with RemoteCallCounter() as counter:
        html = parse(console.get(url, {"sort": column}).content)
    assert counter.paths == [f"/v1/objects/{deals}/records"]  # one read of the service's first 100
    assert titles(html) == [deal(i) for i in reference[:25]]
    header = one(html, "th.records-computed-col")
    assert header["aria-sort"] == "ascending"
    assert "sort=-computed" in one(header, "a.sort-link")["href"]  # again: descending
    assert not select(html, ".filter-partial")  # every record was read

    next_href = one(html, 'a[rel="next"]')["href"]
    second = parse(console.get(next_href).content)
    assert titles(second) == [deal(i) for i in reference[25:50]]

    down = parse(console.get(url, {"sort": f"-{column}"}).content)
    assert titles(down) == [deal(i) for i in sorted(range(COUNT), key=signed, reverse=True)[:25]]


def test_past_the_budget_the_sort_says_what_it_read_and_reads_no_more(console, deals, column, settings, monkeypatch):
    monkeypatch.setattr(selectors, "SCAN_PAGE_SIZE", 10)
    settings.OBJECTS_FILTER_PAGE_BUDGET = 2
    url = f"/objects/{deals}/records/"
    console.get(url)

    with RemoteCallCounter() as counter:
        html = parse(console.get(url, {"sort": column}).content)
        computed_calls = counter.count
        counter.reset()
        console.get(url, {"sort": "seats"})
        plain_calls = counter.count

    assert (computed_calls, plain_calls) == (2, 1)  # the budget's pages, whatever the number of records
    said = text_of(one(html, ".filter-partial"))
    assert said == "Sorted within the first 20 records read: refine the filters to sort them all."
    assert titles(html) == [deal(i) for i in sorted(range(20), key=signed)]
    assert "a partial result" in text_of(one(html, "main"))


def test_a_condition_on_a_formula_keeps_the_rows_it_holds_for(console, deals, column):
    url = f"/objects/{deals}/records/"

    html = parse(console.get(url, {f"f.{column}": "90", f"op.{column}": "gt", "sort": "seats", "limit": 100}).content)

    assert titles(html) == [deal(i) for i in range(COUNT) if signed(i) > 90]
    assert "Signed > 90" in text_of(one(html, ".filter-summary"))
    assert one(html, f'[name="op.{column}"]')  # the bar's control for it, with the number operators
    sorted_too = parse(console.get(url, {f"f.{column}": "0", f"op.{column}": "lt", "sort": column}).content)
    assert titles(sorted_too) == [deal(i) for i in sorted(range(COUNT), key=signed) if signed(i) < 0][:25]


def test_a_bulk_action_over_a_filter_on_a_computed_column_is_refused(console, deals, column):
    response = console.get(
        f"/objects/{deals}/bulk/", {"scope": "filter", "query": f"f.{column}=3&op.{column}=gt", "action": "delete"}
    )

    assert "cannot follow a condition on a computed column" in text_of(one(parse(response.content), "main"))


def test_the_console_api_and_the_tools_give_computed_values_as_the_consoles(
    console, deals, column, client, user, workspace_id
):
    token = token_for(user, workspace_id, (READ,))

    listed = send(client, "GET", f"/api/v1/objects/{deals}/records?sort={column}", token).json()
    one_record = send(client, "GET", f"/api/v1/objects/{deals}/records/{listed['data'][0]['id']}", token).json()

    reference = sorted(range(COUNT), key=signed)[:25]
    assert [r["computed"][column] for r in listed["data"]] == [str(signed(i)) for i in reference]
    assert all(column not in r["values"] for r in listed["data"])  # never among the service's values
    assert listed["computed_columns"] == [
        {
            "key": column,
            "name": "Signed",
            "type": "number",
            "computes": f"Formula: {SIGNED}",
            "problem": "",
            "computed_by": "console",
        }
    ]
    assert one_record["computed"] == {column: str(signed(reference[0]))}
    assert one_record["computed_columns"][0]["computed_by"] == "console"

    # The MCP tools: the same values, the column said once (one page read, its links none: a formula).
    tools = {tool.name: tool for tool in RECORD_TOOLS}
    workspace = Workspace(user, workspace_id=workspace_id)
    with RemoteCallCounter() as counter:
        page = tools["records_list"].run(ToolCall(workspace=workspace, arguments={"object": deals, "limit": 50}))
    assert counter.paths == [f"/v1/objects/{deals}/records"]  # the definition was cached by the pages
    assert {r["id"]: r["computed"][column] for r in page["records"]} == {
        r["id"]: str(signed(int(r["values"]["name"].removeprefix("Deal ")))) for r in page["records"]
    }
    assert page["computed_columns"] == listed["computed_columns"]
    got = tools["record_get"].run(
        ToolCall(workspace=workspace, arguments={"object": deals, "record_id": listed["data"][0]["id"]})
    )
    assert got["computed"] == one_record["computed"]


# --- counted over every record: the total, the board's sums, a chart -------------------------


def test_the_total_of_a_filter_on_a_formula_is_counted_over_every_record(console, deals, column, monkeypatch):
    drain = tally_steps_inline(monkeypatch)
    url = f"/objects/{deals}/records/"
    query = {f"f.{column}": "0", f"op.{column}": "lt", "limit": 25}
    console.get(url, query)
    drain()

    tally = RecordTally.objects.get()
    assert tally.status == RecordTally.DONE
    assert tally.records_read == sum(1 for i in range(COUNT) if signed(i) < 0)


def test_the_board_sums_a_formula_per_column_and_a_chart_measures_it(console, deals, column, monkeypatch):
    drain = tally_steps_inline(monkeypatch)
    board = parse(console.get(f"/objects/{deals}/kanban/", {"by": "stage", "sum": column}).content)
    assert [o["value"] for o in select(board, "#kanban-sum option")][-1] == column  # offered after the number fields
    drain()
    tally = RecordTally.objects.get()
    counts = parse(console.get(f"/objects/{deals}/kanban/counts/{tally.pk}/?by=stage&sum={column}").content)
    sums = dict.fromkeys(("Won", "Lead"), 0)
    for i in range(COUNT):
        sums[sample_values(i)["stage"]] += signed(i)
    said = texts(counts, ".kanban-sum")
    assert {f"Signed: {sums['Lead']:,}", f"Signed: {sums['Won']:,}"} <= set(said)

    chart = f"/objects/{deals}/chart/?{urlencode({'group': 'stage', 'measure': 'sum', 'value': column})}"
    # The board's count answers the chart too (the same question: one tally).
    rows = {row[0]: row[1] for row in table_rows(parse(console.get(chart).content))}
    assert {label: D(shown.replace(",", "")) for label, shown in rows.items()} == {k: D(v) for k, v in sums.items()}
    assert RecordTally.objects.count() == 1


def test_a_chart_of_a_sum_below_zero_draws_its_bar_down_from_a_zero_line(console, deals, column, monkeypatch):
    drain = tally_steps_inline(monkeypatch)
    chart = f"/objects/{deals}/chart/"
    query = {"group": "active", "measure": "sum", "value": column}
    console.get(chart, query)
    drain()
    html = parse(console.get(chart, query).content)

    sums = {"Yes": sum(signed(i) for i in range(COUNT) if signed(i) >= 0)}
    sums["No"] = sum(signed(i) for i in range(COUNT) if signed(i) < 0)
    assert sums["No"] < 0 < sums["Yes"]
    rows = {row[0]: D(row[1].replace(",", "")) for row in table_rows(html)}
    assert rows == {k: D(v) for k, v in sums.items()}
    zero = select(html, "svg.chart line.chart-zero")
    assert len(zero) == 1
    zero_y = float(zero[0]["y1"])
    frame = [float(n) for n in one(html, "svg.chart")["viewbox"].split()]
    bars = {r.find("title").get_text().split(":")[0]: r for r in select(html, "svg.chart rect.chart-bar")}
    up, down = bars["Yes"], bars["No"]
    assert "chart-bar--below" in down["class"] and "chart-bar--below" not in up["class"]
    # Up from the zero line, and down from it: neither clipped to nothing, both inside the drawing.
    assert float(up["y"]) + float(up["height"]) == pytest.approx(zero_y, abs=0.2)
    assert float(down["y"]) == pytest.approx(zero_y, abs=0.2)
    assert float(up["height"]) > 0 and float(down["height"]) > 0
    assert 0 <= float(up["y"]) and float(down["y"]) + float(down["height"]) <= frame[3]
    # Each bar's length is its number's share of the axis: the two in proportion.
    ratio = float(down["height"]) / float(up["height"])
    assert ratio == pytest.approx(abs(sums["No"]) / sums["Yes"], rel=0.02)
    ticks = [text_of(t) for t in select(html, "svg.chart text.chart-label[text-anchor=end]")]
    assert "0" in ticks and ticks[0].startswith("-")  # the axis reaches below zero


def test_the_settings_page_says_the_service_has_no_such_fields_and_where_they_sort(console, deals):
    said = text_of(one(parse(console.get(f"/objects/{deals}/settings/computed/").content), "main"))

    assert "The service has no computed fields" in said
    assert "Sorting or filtering by one works on the records the console reads" in said


# --- carried to the record page, and the CSV export --------------------------------


def test_the_record_pages_link_back_keeps_a_computed_sort_and_condition(console, deals, column):
    url = f"/objects/{deals}/records/"
    query = {f"f.{column}": "0", f"op.{column}": "lt", "sort": f"-{column}"}
    html = parse(console.get(url, query).content)
    first = select(html, "th.record-title a")[0]["href"]  # the record's address with `?list=` of this view

    record = parse(console.get(urljoin(url, first)).content)
    back = QueryDict(one(record, ".breadcrumbs a:nth-of-type(2)")["href"].split("?", 1)[1])

    assert (back["sort"], back[f"f.{column}"], back[f"op.{column}"]) == (f"-{column}", "0", "lt")
    again = parse(console.get(url, back).content)
    assert titles(again) == titles(html) == [deal(i) for i in sorted(range(COUNT), key=signed, reverse=True) if signed(i) < 0][:25]  # fmt: skip


def csv_rows(response) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


def test_the_csv_export_of_a_table_sorted_by_a_computed_column_comes_in_that_order(console, deals, column):
    url = f"/objects/{deals}/records/export.csv"
    console.get(f"/objects/{deals}/records/")

    with RemoteCallCounter() as counter:
        rows = csv_rows(console.get(url, {"sort": f"-{column}"}))
    assert counter.paths == [f"/v1/objects/{deals}/records"]  # one read of the service's 100, as the page's

    header, body = rows[0], rows[1:]
    name, signed_at = header.index("Name"), header.index("Signed (computed)")
    reference = sorted(range(COUNT), key=signed, reverse=True)
    assert [r[name] for r in body] == [deal(i) for i in reference]
    assert [int(D(r[signed_at])) for r in body] == [signed(i) for i in reference]
    assert not any(r[0].startswith("#") for r in body)  # every record was read: not partial

    kept = csv_rows(console.get(url, {"sort": column, f"f.{column}": "90", f"op.{column}": "gt"}))
    assert [r[name] for r in kept[1:]] == [deal(i) for i in sorted(range(COUNT), key=signed) if signed(i) > 90]


def test_past_the_budget_the_export_sorts_what_the_page_reads_and_says_so(
    console, deals, column, settings, monkeypatch
):
    monkeypatch.setattr(selectors, "SCAN_PAGE_SIZE", 10)
    settings.OBJECTS_FILTER_PAGE_BUDGET = 2
    console.get(f"/objects/{deals}/records/")

    with RemoteCallCounter() as counter:
        rows = csv_rows(console.get(f"/objects/{deals}/records/export.csv", {"sort": column}))
    assert counter.count == 2  # the budget's pages, whatever the number of records

    name = rows[0].index("Name")
    assert [r[name] for r in rows[1:-1]] == [deal(i) for i in sorted(range(20), key=signed)]
    assert rows[-1] == ["# partial: Sorted within the first 20 records read: refine the filters to sort them all."]
