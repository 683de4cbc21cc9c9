"""Saved views, the grid's count and carried filters, export following the
columns, names of linked records (batched, cached, bounded, tolerant) and
relation keys offered, against a mocked service (respx)."""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest

from objects import names
from objects.models import SavedView
from tests.html import one, select, text_of, texts
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID, error_body, page, record
from tests.objects.support import SERVICE_URL, WORKSPACE_ID

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"
RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def many(count: int) -> list[dict]:
    return [record(f"7a1c2d3e-0000-4000-8000-{i:012d}", f"Deal {i}") for i in range(count)]


def test_count_says_more_after_until_the_last_page_then_the_exact_total(console, definition, remote):
    remote.get(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(200, json=page(many(25), next_cursor="c2")),
            httpx.Response(200, json=page(many(7))),
        ]
    )
    first = console.get(RECORDS_URL).content
    # The total is counted in the background meanwhile (tests/objects/test_record_totals.py).
    assert text_of(one(first, ".records-count")) == "25 shown, more after · counting the total…"
    last = console.get(RECORDS_URL, {"cursor": "c2", "back": ""}).content
    assert text_of(one(last, ".records-count")) == "32 in all"


def test_record_links_carry_the_table_query_and_the_record_page_returns_to_it(console, definition, remote):
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    remote.get(f"{RECORDS_PATH}/{RECORD_ID}").mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORDS_PATH}/{RECORD_ID}/relationships").mock(return_value=httpx.Response(200, json=page([])))
    table = console.get(RECORDS_URL, {"q": "acme", "f.status": "opt-open", "sort": "seats"}).content
    # Relative to the records page (the one page that shows rows), as a browser resolves it.
    href = urljoin(RECORDS_URL, one(table, "th.record-title a")["href"])
    assert href.startswith(f"{RECORDS_URL}{RECORD_ID}/?")
    carried = parse_qs(urlsplit(href).query)["list"][0]
    assert parse_qs(carried) == {"q": ["acme"], "f.status": ["opt-open"], "sort": ["seats"]}

    record_page = console.get(href).content
    back = one(record_page, ".breadcrumbs a[href^='/objects/deals/records/']")["href"]
    assert parse_qs(urlsplit(back).query) == {"q": ["acme"], "f.status": ["opt-open"], "sort": ["seats"]}
    # Only a table query comes back: anything else carried is dropped.
    odd = console.get(href.split("?")[0], {"list": "q=x&next=https://evil.test&sort=nope"}).content
    assert one(odd, ".breadcrumbs a[href^='/objects/deals/records/']")["href"] == f"{RECORDS_URL}?q=x"


def test_cells_are_editable_and_the_row_leads_with_its_selection_box(console, definition, remote):
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    html = console.get(RECORDS_URL).content
    row = one(html, "table.records tbody:not(.records-more) tr")
    # A cell's editor is its row's address (its title link) + its column's key
    # (static/js/objects_grid.js): nothing per cell.
    assert urljoin(RECORDS_URL, one(row, "th.record-title a")["href"]) == f"{RECORDS_URL}{RECORD_ID}/"
    assert all(not td.attrs for td in row.select("td")[1:] if "num" not in td.get("class", []))
    assert one(html, "table.records[data-editable]")
    keys = [th.get("data-key") for th in select(html, "table.records thead th")]
    # The selection box (bulk actions) and the timestamps open no editor; the
    # title's opens by F2 or its Edit button (its click follows the link).
    assert keys[:4] == [None, "name", "notes", "seats"] and keys[-2:] == [None, None]
    assert one(row, "td:first-child input[name=ids]")["value"] == RECORD_ID
    assert one(html, "#records-grid-help")


def test_a_saved_view_keeps_query_and_columns_opens_by_url_and_by_default(console, definition, remote, user):
    records = remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    console.post(f"{RECORDS_URL}columns/", {"shown": ["name", "seats"], "query": "sort=seats"}, **HTMX)

    response = console.post(
        f"/objects/{OBJECT_KEY}/views/save/",
        {"name": "  Big   deals ", "query": "f.status=opt-open&sort=seats&limit=50&cursor=zz", "make_default": "on"},
    )

    view = SavedView.objects.get()
    assert (view.name, view.owner, view.workspace_id, view.shared) == ("Big deals", user, WORKSPACE_ID, False)
    assert parse_qs(view.query) == {"f.status": ["opt-open"], "sort": ["seats"], "limit": ["50"]}  # no page
    assert "amount" in view.hidden_fields and "seats" not in view.hidden_fields
    assert response.status_code == 302
    assert parse_qs(urlsplit(response["Location"]).query)["view"] == [str(view.pk)]

    # Its own address; the bare records address opens it (the default); ?view=all does not.
    assert console.get(f"/objects/{OBJECT_KEY}/views/{view.pk}/")["Location"] == response["Location"]
    assert console.get(RECORDS_URL)["Location"] == response["Location"]
    whole = console.get(RECORDS_URL, {"view": "all"})
    assert whole.status_code == 200 and not select(whole.content, ".records-view-name")

    opened = console.get(response["Location"]).content
    assert text_of(one(opened, ".records-view-name")) == "Big deals"
    assert [name.rstrip(" ▲▼") for name in texts(opened, "table.records thead th a")][:3] == [
        "Name",
        "Seats",
        "Created",
    ]
    assert "filter" in parse_qs(urlsplit(str(records.calls.last.request.url)).query)
    export = one(opened, "a[download]")["href"]
    assert parse_qs(urlsplit(export).query)["view"] == [str(view.pk)]
    # Sorting, paging and the way back from a record stay in the view.
    for href in [a["href"] for a in select(opened, "a.sort-link")] + [one(opened, "th.record-title a")["href"]]:
        query = parse_qs(urlsplit(href).query)
        carried = parse_qs(query["list"][0]) if "list" in query else query
        assert carried["view"] == [str(view.pk)], href
    # The view's own query holds no view.
    assert "view" not in parse_qs(view.query)


def test_a_view_is_private_unless_shared_and_only_its_owner_deletes_it(
    console, definition, remote, user, other_user, client
):
    from tests.objects.support import store_api_key

    private = SavedView.objects.create(owner=other_user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name="Mine")
    shared = SavedView.objects.create(
        owner=other_user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name="Team", shared=True
    )
    elsewhere = SavedView.objects.create(
        owner=user, workspace_id="another-workspace", object_key=OBJECT_KEY, name="Other ws"
    )
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))

    html = console.get(RECORDS_URL, {"view": "all"}).content
    assert texts(html, ".views-list a") == ["All deals", "Team"]
    assert console.get(f"/objects/{OBJECT_KEY}/views/{private.pk}/").status_code == 404
    assert console.get(f"/objects/{OBJECT_KEY}/views/{elsewhere.pk}/").status_code == 404
    assert console.get(f"/objects/{OBJECT_KEY}/views/{shared.pk}/").status_code == 302
    assert console.post(f"/objects/{OBJECT_KEY}/views/{shared.pk}/delete/").status_code == 403
    assert SavedView.objects.filter(pk=shared.pk).exists()

    # Columns chosen in someone else's shared view become this person's own.
    response = console.post(f"{RECORDS_URL}columns/", {"shown": ["name"], "query": f"view={shared.pk}"}, **HTMX)
    assert response.status_code == 200
    shared.refresh_from_db()
    assert shared.hidden_fields == []

    other = client
    other.force_login(other_user)
    store_api_key(other_user)
    assert other.post(f"/objects/{OBJECT_KEY}/views/{shared.pk}/delete/").status_code == 302
    assert not SavedView.objects.filter(pk=shared.pk).exists()


def test_a_view_without_a_name_is_explained_and_nothing_is_saved(console, definition):
    response = console.post(f"/objects/{OBJECT_KEY}/views/save/", {"name": "   ", "query": "q=a"})
    assert response.status_code == 200
    assert "required" in text_of(one(response.content, ".field-error")).lower()
    assert not SavedView.objects.exists()


def test_export_follows_the_columns_shown(console, definition, remote):
    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page([ACME])))
    console.post(f"{RECORDS_URL}columns/", {"shown": ["name", "seats", "status"], "query": ""}, **HTMX)
    body = b"".join(console.get(f"{RECORDS_URL}export.csv").streaming_content).decode("utf-8-sig")
    header, acme = list(csv.reader(io.StringIO(body)))
    assert header == ["id", "Name", "Seats", "Status", "Created", "Updated"]
    assert acme[1:4] == ["Acme renewal", "1250", "Open"]


# --- names of linked records ---


def definition_of(key: str) -> dict:
    return DEALS


def test_titles_are_read_once_then_cached_and_a_write_drops_one(console, remote):
    from dashboard.api import ServiceClient

    client = ServiceClient(api_key="svc_sk_test_names_0123456789abcdefghijklmnop", base_url=SERVICE_URL)
    ids = [f"7a1c2d3e-0000-4000-8000-{i:012d}" for i in range(3)]
    routes = [
        remote.get(f"{RECORDS_PATH}/{rid}").mock(return_value=httpx.Response(200, json=record(rid, f"Deal {i}")))
        for i, rid in enumerate(ids)
    ]
    refs = [(OBJECT_KEY, rid) for rid in ids]

    titles = names.record_titles(client=client, workspace_id="ws1", refs=refs, definition_of=definition_of)
    assert [titles[ref] for ref in refs] == ["Deal 0", "Deal 1", "Deal 2"]
    names.record_titles(client=client, workspace_id="ws1", refs=refs, definition_of=definition_of)
    assert [route.call_count for route in routes] == [1, 1, 1]

    names.title_forget(workspace_id="ws1", object_key=OBJECT_KEY, record_id=ids[1])
    names.record_titles(client=client, workspace_id="ws1", refs=refs, definition_of=definition_of)
    assert [route.call_count for route in routes] == [1, 2, 1]
    # Per workspace: another workspace reads its own.
    names.record_titles(client=client, workspace_id="ws2", refs=refs[:1], definition_of=definition_of)
    assert routes[0].call_count == 2


def test_titles_are_bounded_and_a_failing_read_leaves_the_page_standing(console, remote, monkeypatch):
    from dashboard.api import ServiceClient

    monkeypatch.setattr(names, "MAX_LOOKUPS", 2)
    client = ServiceClient(api_key="svc_sk_test_names_0123456789abcdefghijklmnop", base_url=SERVICE_URL)
    remote.get(f"{RECORDS_PATH}/a").mock(return_value=httpx.Response(503, json=error_body("server_error", "down")))
    remote.get(f"{RECORDS_PATH}/b").mock(return_value=httpx.Response(404, json=error_body("not_found", "gone")))
    third = remote.get(f"{RECORDS_PATH}/c").mock(return_value=httpx.Response(200, json=record("c", "C")))
    refs = [(OBJECT_KEY, "a"), (OBJECT_KEY, "b"), (OBJECT_KEY, "c")]

    titles = names.record_titles(client=client, workspace_id="ws1", refs=refs, definition_of=definition_of)

    assert titles == {(OBJECT_KEY, "b"): ""}  # a: not known yet (asked again later); c: beyond the bound
    assert third.call_count == 0
    titles = names.record_titles(client=client, workspace_id="ws1", refs=refs, definition_of=definition_of)
    assert third.call_count == 1 and titles[(OBJECT_KEY, "c")] == "C"


def test_relation_keys_in_use_are_offered_when_linking(console, definition, remote):
    remote.get(f"{RECORDS_PATH}/{RECORD_ID}").mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORDS_PATH}/{RECORD_ID}/relationships").mock(
        return_value=httpx.Response(200, json=page([{"relation_key": "company", "direction": "outgoing"}]))
    )
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page([DEALS])))
    console.get(f"{RECORDS_URL}{RECORD_ID}/")
    form = console.get(f"{RECORDS_URL}{RECORD_ID}/links/new/", **HTMX).content
    assert one(form, "input[name=relation_key]")["list"] == "relation-keys"
    assert [o["value"] for o in select(form, "datalist#relation-keys option")] == ["company"]


def test_records_page_reads_its_local_state_in_a_fixed_number_of_queries(console, definition, remote, user):
    """Columns, the default view, the views menu and the computed columns:
    the same few queries whatever the number of saved views or rows."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    remote.get(RECORDS_PATH).mock(return_value=httpx.Response(200, json=page(many(100))))
    console.get(RECORDS_URL, {"view": "all"})  # session and key read once
    with CaptureQueriesContext(connection) as few:
        console.get(RECORDS_URL, {"view": "all"})
    for i in range(5):
        SavedView.objects.create(owner=user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name=f"V{i}")
    with CaptureQueriesContext(connection) as more:
        html = console.get(RECORDS_URL, {"view": "all", "limit": 100}).content
    assert len(select(html, ".views-list li")) == 6
    assert len(more.captured_queries) == len(few.captured_queries)
    objects_queries = [q["sql"] for q in more.captured_queries if "objects_" in q["sql"]]
    # This person's preference, the views they may open, the object's computed columns.
    assert len(objects_queries) == 3, objects_queries
