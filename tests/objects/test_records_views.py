"""Records table, export and column choice against a mocked service (respx):
typed cells, the URL state sent as the service's query, paging both ways,
remote errors in place, CSV through every page."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from objects.models import ColumnPreference
from tests.helpers import allow_images_from
from tests.html import one, parse, root_ids, select, text_of, texts
from tests.objects.records_fixtures import (
    ACME,
    DEALS,
    OBJECT_KEY,
    RECORD_ID,
    error_body,
    page,
    record,
)
from tests.objects.support import WORKSPACE_ID, record_row


def column_labels(html: str | bytes) -> list[str]:
    """The records table's column headings, left to right (without the sort mark)."""
    return [text_of(link).rstrip(" ▲▼") for link in select(html, "thead a.sort-link")]


pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"
RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


def mock_definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(str(call.request.url)).query, keep_blank_values=True)


def test_records_page_shows_every_type_in_its_cell(paris_console, remote, settings):
    allow_images_from(settings, "https://cdn.acme.test")  # the logo's host, listed as CSP_IMG_HOSTS would
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))

    response = paris_console.get(RECORDS_URL)

    assert response.status_code == 200
    html = parse(response.content)
    row = record_row(html, RECORD_ID)
    cells = text_of(row)
    # Title first, linking to the record page (relative to the records page).
    title = one(row, f'th.record-title a[href="./{RECORD_ID}/"]')
    assert text_of(title) == "Acme renewal"
    assert column_labels(html).index("Name") < column_labels(html).index("Notes")
    assert "1,250" in cells  # number
    assert "1,234.50" in cells  # currency, 2 decimals
    assert "2026-11-22 10:30 CET" in cells  # datetime in the workspace zone (Paris), not UTC
    assert "2026-12-01" in cells
    assert texts(row, ".cell-mark--yes") == ["Yes"]  # boolean, in words
    # Numbers and currency right-aligned (their cells' one class); no other cell carries anything.
    assert [text_of(td) for td in row.select("td.num")] == ["1,250", "1,234.50"]
    links = [link["href"] for link in row.select("a[href]")]
    assert {"mailto:buyer@acme.test", "tel:+33123456789", "https://acme.test"} <= set(links)
    # Choices by label in their stored colour (ids never shown).
    chips = [[(chip["data-c"], text_of(chip)) for chip in cell.select(".chip")] for cell in row.select("td")]
    assert [("#22c55e", "Open")] in chips
    assert [("#f97316", "Hot"), ("#8b5cf6", "VIP")] in chips
    assert "opt-open" not in str(one(html, "tbody"))
    assert [image["src"] for image in row.select("img")] == ["https://cdn.acme.test/logo.png"]
    assert "contract.pdf" in [text_of(link) for link in row.select("a")]
    assert html.find_all(style=True) == []  # CSP: colours come from data-c


def test_unsafe_url_values_are_not_links(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(
            200, json=page([record(RECORD_ID, "Bad", website="javascript:alert(1)", logo="ftp://x.test/a.png")])
        )
    )
    html = console.get(RECORDS_URL).content.decode()
    assert select(html, "[href^='javascript:' i]") == []
    assert select(html, "[src^='ftp://' i]") == []
    assert "javascript:alert(1)" in text_of(one(html, "tbody"))  # shown as text


def test_url_state_becomes_the_service_query(console, remote):
    mock_definition(remote)
    records_route = remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([])))

    response = console.get(
        RECORDS_URL,
        {
            "q": "acme",
            "f.status": "opt-open",
            "f.tags": ["opt-hot", "opt-vip"],
            "f.active": "false",
            "f.seats": "12",
            "f.name": "Acme renewal",
            "empty": "email",
            "sort": "-amount",
            "limit": "50",
        },
    )

    assert response.status_code == 200
    sent = query_of(records_route.calls.last)
    assert json.loads(sent["filter"][0]) == {
        "status": "opt-open",
        "tags": ["opt-hot", "opt-vip"],
        "active": False,
        "seats": 12,
        "name": "Acme renewal",
        "email": None,
    }
    assert sent["search"] == ["acme"]
    assert sent["sort"] == ["-amount"]
    assert sent["limit"] == ["50"]
    assert "cursor" not in sent
    html = response.content.decode()
    assert one(html, "#records-search")["value"] == "acme"  # the search box keeps the state
    assert "No deals match this search and these filters." in text_of(one(html, "#records-table .empty-state"))


def test_a_bad_filter_value_is_explained_and_left_out(console, remote):
    mock_definition(remote)
    records_route = remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([])))
    html = console.get(RECORDS_URL, {"f.seats": "twelve", "f.status": "opt-lost"}).content.decode()
    assert json.loads(query_of(records_route.calls.last)["filter"][0]) == {"status": "opt-lost"}
    assert "Seats: enter a number." in html


def test_sort_header_toggles_and_unknown_sort_falls_back(console, remote):
    mock_definition(remote)
    records_route = remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))

    html = console.get(RECORDS_URL, {"sort": "amount"}).content.decode()
    assert query_of(records_route.calls.last)["sort"] == ["amount"]
    assert text_of(one(html, "th[aria-sort=ascending]")).startswith("Amount")
    sort_links = [link["href"] for link in select(html, "thead a.sort-link")]
    assert any("?sort=-amount" in href for href in sort_links)  # clicking again reverses
    assert any("?sort=created_at" in href for href in sort_links)  # created and updated are sortable too

    console.get(RECORDS_URL, {"sort": "no_such_field"})
    assert query_of(records_route.calls.last)["sort"] == ["-updated_at"]


def test_paging_forward_and_back_keeps_the_cursor_trail(console, remote):
    mock_definition(remote)
    records_route = remote.get(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(200, json=page([record(RECORD_ID, "One")], next_cursor="c2")),
            httpx.Response(200, json=page([record(RECORD_ID, "Two")], next_cursor="c3")),
            httpx.Response(200, json=page([record(RECORD_ID, "One")], next_cursor="c2")),
        ]
    )

    first = console.get(RECORDS_URL, {"q": "x"}).content.decode()
    assert "Previous page" not in text_of(parse(first))
    assert f"{RECORDS_URL}?q=x&back=&cursor=c2" in [link["href"] for link in select(first, "a[href]")]

    second = console.get(RECORDS_URL, {"q": "x", "back": "", "cursor": "c2"}, **HTMX)
    assert query_of(records_route.calls[1])["cursor"] == ["c2"]
    html = second.content.decode()
    assert root_ids(html)[0] == "div#records-table" and "html" not in root_ids(html)  # only the region
    hrefs = [link["href"] for link in select(html, "a[href]")]
    assert f"{RECORDS_URL}?q=x&back=&back=c2&cursor=c3" in hrefs  # next
    assert f"{RECORDS_URL}?q=x" in hrefs  # previous: the first page
    assert "Page 2" in text_of(parse(html))

    console.get(RECORDS_URL, {"q": "x"})
    assert "cursor" not in query_of(records_route.calls[2])


def test_history_restore_gets_the_whole_page(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    html = console.get(RECORDS_URL, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true").content.decode()
    assert root_ids(html) == ["html"] and one(html, "#records-search")


def test_htmx_swap_keeps_the_query_form_sort_in_step(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    html = console.get(RECORDS_URL, {"sort": "seats"}, **HTMX).content.decode()
    state = one(html, "#records-state")
    assert state["hx-swap-oob"] == "true"
    assert [(field["type"], field["name"], field["value"]) for field in state.select("input")] == [
        ("hidden", "sort", "seats")
    ]


def test_remote_error_on_the_records_page_is_shown_with_the_request_id(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(500, json=error_body("server_error", "boom", request_id="req_boom_7"))
    )
    response = console.get(RECORDS_URL, **HTMX)
    assert response.status_code == 200  # htmx swaps it
    html = response.content.decode()
    assert "req_boom_7" in html
    assert "Traceback" not in html


def test_unknown_object_shows_not_found(console, remote):
    remote.get("/v1/objects/nope").mock(
        return_value=httpx.Response(404, json=error_body("not_found", "No object nope", request_id="req_404"))
    )
    response = console.get("/objects/nope/records/")
    assert response.status_code == 404
    assert "req_404" in response.content.decode()


def test_columns_are_remembered_per_user_and_object(console, remote, user):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))

    response = console.post(
        f"/objects/{OBJECT_KEY}/records/columns/",
        {"shown": ["name", "amount", "status"], "query": "q=acme&sort=amount"},
        **HTMX,
    )

    assert response.status_code == 200
    preference = ColumnPreference.objects.get(user=user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY)
    assert "notes" in preference.hidden_fields and "amount" not in preference.hidden_fields
    html = console.get(RECORDS_URL).content.decode()
    head = texts(html, "thead th")
    assert {"Amount", "Status", "Name"} <= {label.rstrip(" ▲▼") for label in head}
    assert "Notes" not in head and "Email" not in head


def test_export_streams_every_page_with_labels(console, remote):
    mock_definition(remote)
    records_route = remote.get(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(200, json=page([ACME], next_cursor="c2")),
            httpx.Response(200, json=page([record("7a1c2d3e-0000-4000-8000-0000000000b2", "Beta, Inc", seats=3)])),
        ]
    )

    response = console.get(f"/objects/{OBJECT_KEY}/records/export.csv", {"f.status": "opt-open", "sort": "seats"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0][:3] == ["id", "Name", "Notes"]
    assert len(rows) == 3
    header = rows[0]
    acme = dict(zip(header, rows[1]))
    assert acme["Status"] == "Open"
    assert acme["Tags"] == "Hot; VIP"
    assert acme["Amount"] == "1234.50"
    assert acme["Active"] == "yes"
    assert dict(zip(header, rows[2]))["Name"] == "Beta, Inc"
    # Same filter and sort on every page; 100 a page; the second page by cursor.
    first, second = (query_of(call) for call in records_route.calls)
    assert json.loads(first["filter"][0]) == {"status": "opt-open"} == json.loads(second["filter"][0])
    assert first["sort"] == ["seats"] and first["limit"] == ["100"]
    assert second["cursor"] == ["c2"]


def test_export_neutralises_cells_a_spreadsheet_would_run_as_formulas(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(
            200,
            json=page([record("7a1c2d3e-0000-4000-8000-0000000000b3", '=HYPERLINK("http://evil")', notes="@SUM(1)")]),
        )
    )
    body = b"".join(console.get(f"/objects/{OBJECT_KEY}/records/export.csv").streaming_content).decode("utf-8-sig")
    exported = dict(zip(*list(csv.reader(io.StringIO(body)))[:2]))
    assert exported["Name"] == '\'=HYPERLINK("http://evil")' and exported["Notes"] == "'@SUM(1)"


def test_export_leaves_plain_numbers_alone_and_still_neutralises_formulas(console, remote):
    mock_definition(remote)
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(
            200,
            json=page(
                [
                    record("7a1c2d3e-0000-4000-8000-0000000000b4", "-5", seats=-5, amount=-5.25, notes="-1e3"),
                    record("7a1c2d3e-0000-4000-8000-0000000000b5", "-2+3+cmd|' /C calc'!A0", notes="+5 apples"),
                ]
            ),
        )
    )
    body = b"".join(console.get(f"/objects/{OBJECT_KEY}/records/export.csv").streaming_content).decode("utf-8-sig")
    header, refund, formula = list(csv.reader(io.StringIO(body)))[:3]
    refund_cells, formula_cells = dict(zip(header, refund)), dict(zip(header, formula))
    # A refund stays a number a spreadsheet sums, whatever the field's type.
    assert (refund_cells["Name"], refund_cells["Seats"], refund_cells["Amount"]) == ("-5", "-5", "-5.25")
    assert refund_cells["Notes"] == "-1e3"
    # Text that merely starts like a number is still no number: neutralised.
    assert formula_cells["Name"] == "'-2+3+cmd|' /C calc'!A0"
    assert formula_cells["Notes"] == "'+5 apples"


def test_export_of_a_missing_object_is_an_error_page_not_a_file(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(401, json=error_body("authentication", "Key revoked", request_id="req_401"))
    )
    response = console.get(f"/objects/{OBJECT_KEY}/records/export.csv")
    assert response.status_code == 401
    assert not response.streaming if hasattr(response, "streaming") else True
    assert "req_401" in response.content.decode()
