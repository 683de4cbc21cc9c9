"""A long table's rows as one scrolls (#39, "Large tables"): the page ends in
a row that asks for the next slice (objects/views/records.py records_rows),
each slice says its first row's position and the next slice's address, and
every slice costs what the first does: one remote call (the definition is
cached) and the same queries, however far it is. Counted, never timed (the
time: bench/large_table.py). Scrolling in Chromium, 50,000 records:
test_large_table_browser.py."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.api.testing import RemoteCallCounter
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of
from tests.objects.support import PlainClient, console_on_sandbox

pytestmark = pytest.mark.django_db

RECORDS = 230
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(scope="module")
def long_object(sandbox):
    """230 records of every field type, written straight into the sandbox's store."""
    obj = create_every_type_object(PlainClient(sandbox), name="Long deals")
    sandbox.insert_records(obj["id"], [sample_values(i) for i in range(RECORDS)])
    return obj


@pytest.fixture
def console(sandbox, settings, logged_in_client, user):
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


def titles(html) -> list[str]:
    return [text_of(cell) for cell in select(html, "tbody th.record-title")]


def slice_params(url: str) -> dict[str, str]:
    return {name: values[-1] for name, values in parse_qs(urlsplit(url).query).items()}


def test_the_page_ends_in_a_row_that_asks_for_the_next_slice(long_object, console):
    url = f"/objects/{long_object['key']}/records/"
    html = parse(console.get(url, {"sort": "seats"}).content)

    more = one(html, "table.records tbody.records-more")
    assert more["hx-trigger"] == "intersect once"
    asked = slice_params(more["hx-get"])
    assert (asked["sort"], asked["limit"], asked["at"], asked["start"]) == ("seats", "50", "25", "1")
    assert urlsplit(more["hx-get"]).path == f"/objects/{long_object['key']}/records/rows/"
    # This page again as a slice (put back once scrolled past): its own size and cursor.
    again = slice_params(more["data-first"])
    assert (again["limit"], again["at"], again.get("cursor")) == ("25", "0", None)
    assert int(one(more, "td")["colspan"]) == len(select(html, "table.records thead th"))
    # Without JavaScript the pager goes on as before.
    assert select(html, 'nav.pager a[rel="next"]')
    # Grouped, the page's groups are the page's: it pages, and the last page asks for nothing.
    grouped = parse(console.get(url, {"group": "stage"}).content)
    assert not select(grouped, "tbody.records-more") and select(grouped, 'nav.pager a[rel="next"]')
    everything = parse(console.get(url, {"q": "Deal 00"}).content)  # Deal 000..009: one page
    assert not select(everything, "tbody.records-more")


def test_slices_follow_each_other_by_cursor_at_one_call_and_the_same_queries_each(long_object, console):
    url = f"/objects/{long_object['key']}/records/"
    page = parse(console.get(url, {"sort": "seats"}).content)
    seen = titles(page)
    address = one(page, "tbody.records-more")["hx-get"]
    costs = []
    positions = []
    first = True
    while address:
        with RemoteCallCounter() as counter, CaptureQueriesContext(connection) as queries:
            response = console.get(address, **HX)
        assert response.status_code == 200
        html = parse(response.content)
        body = one(html, "tbody[data-slice]")
        # The first slice brings the script that loads the others; they come without it.
        assert bool(select(html, 'script[src*="objects_window"]')) is first
        first = False
        costs.append((counter.paths, len(queries)))
        positions.append(int(body["data-at"]))
        seen += titles(body)
        address = body["data-next"]

    # Every record once, in the sort's order, each slice where the one before ended.
    assert seen == [f"Deal {i:03d}" for i in range(RECORDS)]
    assert positions == [25, 75, 125, 175, 225]
    # Flat: one call to the service per slice (the definition is cached) and the same queries.
    assert all(paths == [f"/v1/objects/{long_object['key']}/records"] for paths, _ in costs)
    assert len({count for _, count in costs}) == 1, costs


def test_a_slice_keeps_the_filter_sort_and_columns_and_the_selection_boxes(long_object, console):
    url = f"/objects/{long_object['key']}/records/"
    page = parse(console.get(url, {"sort": "-seats", "f.active": "true"}).content)
    body = parse(console.get(one(page, "tbody.records-more")["hx-get"], **HX).content)

    # Active deals are the even ones; by seats descending the page took the first 25.
    expected = [f"Deal {i:03d}" for i in range(RECORDS - 2, -1, -2)][25:75]
    assert titles(body) == expected
    row = select(body, "tbody[data-slice] tr")[0]
    assert len(row.find_all(["th", "td"])) == len(select(page, "table.records thead th"))
    assert row.select_one('input[type="checkbox"][name="ids"][form="bulk-form"]')["aria-label"].startswith("Select ")


def test_a_slice_the_service_refuses_is_a_message_box_not_a_blank_swap(long_object, console):
    url = f"/objects/{long_object['key']}/records/rows/"
    response = console.get(url, {"cursor": "not-a-cursor", "at": "50"}, **HX)

    assert response.status_code == 200
    assert response["HX-Retarget"] == "#messages"
    assert not select(response.content, "tbody[data-slice]")
    assert select(response.content, '[role="alert"], .alert')
