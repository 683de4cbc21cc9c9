"""Linked-record columns in the records grid: a column per relation key,
chosen in the column picker like a field, showing the linked records' titles
as chips that open them. Against the real sandbox over HTTP; remote calls
counted, never timed: one read of links per row when cold (the contract lists
links one record at a time), none when warm."""

from __future__ import annotations

import secrets
from urllib.parse import urljoin

import httpx
import pytest
from django.core.cache import cache

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.testing import store_sandbox_key
from objects.models import ColumnPreference
from tests.html import one, select, text_of, texts
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, RECORD_ID, page, record

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def linked(sandbox, settings, logged_in_client, user):
    """Deals (12) and companies (3): each deal linked to one company ("company"),
    the first deal also to a second one, and the first two deals "related_to"
    each other."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    fields = [{"label": "Name", "key": "name", "type": "text", "required": True}]
    suffix = secrets.token_hex(3)  # the sandbox lives for the session: each test its own objects
    companies = service.post(
        "/v1/objects", json={"singular_name": "Company", "plural_name": f"Companies {suffix}", "fields": fields}
    )
    deals = service.post(
        "/v1/objects",
        json={
            "singular_name": "Deal",
            "plural_name": f"Deals {suffix}",
            "fields": [*fields, {"label": "Seats", "type": "number"}],
        },
    )
    firms = [
        service.post(f"/v1/objects/{companies['key']}/records", json={"values": {"name": name}})
        for name in ("Acme", "Globex", "Initech")
    ]
    rows = [
        service.post(f"/v1/objects/{deals['key']}/records", json={"values": {"name": f"Deal {i:02d}", "seats": i}})
        for i in range(12)
    ]

    def link(source, relation_key, target_object, target):
        service.post(
            f"/v1/objects/{deals['key']}/records/{source['id']}/relationships",
            json={"relation_key": relation_key, "target": {"object": target_object, "id": target["id"]}},
        )

    for i, row in enumerate(rows):
        link(row, "company", companies["key"], firms[i % 3])
    link(rows[0], "company", companies["key"], firms[1])
    link(rows[0], "related_to", deals["key"], rows[1])
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"deals": deals["key"], "companies": companies["key"], "firms": firms, "rows": rows}


def choose_columns(client, object_key: str, shown: list[str]):
    return client.post(f"/objects/{object_key}/records/columns/", {"shown": shown, "query": ""}, **HTMX)


def test_a_relation_key_is_a_column_of_chips_that_open_the_linked_records(linked, logged_in_client, user):
    url = f"/objects/{linked['deals']}/records/"
    # The picker offers the kinds of link seen on this object's records (a record page read them).
    first = linked["rows"][0]
    assert logged_in_client.get(f"{url}{first['id']}/").status_code == 200
    offered = select(logged_in_client.get(url).content, ".columns-form input[value^='link:']")
    assert [box["value"] for box in offered] == ["link:company", "link:related_to"]
    assert not any(box.has_attr("checked") for box in offered)  # none shown until chosen

    response = choose_columns(logged_in_client, linked["deals"], ["name", "seats", "link:company"])

    assert response.status_code == 200
    assert ColumnPreference.objects.get(user=user).link_columns == ["company"]
    headers = [text.rstrip(" ▲▼") for text in texts(response.content, "table.records thead th")]
    assert headers[-3:] == ["Company (linked)", "Created", "Updated"]
    rows = select(response.content, "table.records tbody:not(.records-more) tr")
    by_title = {text_of(one(row, "th.record-title a")): row for row in rows}
    company_cell = by_title["Deal 00"].select("td")[-3]
    chips = company_cell.select("a.chip")
    assert sorted(text_of(chip) for chip in chips) == ["Acme", "Globex"]
    firm_ids = {firm["values"]["name"]: firm["id"] for firm in linked["firms"]}
    assert {urljoin(url, chip["href"]) for chip in chips} == {
        f"/objects/{linked['companies']}/records/{firm_ids['Acme']}/",
        f"/objects/{linked['companies']}/records/{firm_ids['Globex']}/",
    }
    assert [text_of(chip) for chip in by_title["Deal 04"].select("td")[-3].select("a.chip")] == ["Globex"]
    # The chip opens the company's page.
    opened = logged_in_client.get(chips[0]["href"])
    assert opened.status_code == 200


def test_linked_columns_cost_one_read_per_row_cold_and_none_warm(linked, logged_in_client, user):
    choose_columns(logged_in_client, linked["deals"], ["name", "link:company", "link:related_to"])
    url = f"/objects/{linked['deals']}/records/"

    cache.clear()  # choosing the columns read them already
    with RemoteCallCounter() as counter:
        cold = logged_in_client.get(url, {"limit": 25})
        cold_paths = list(counter.paths)
        counter.reset()
        warm = logged_in_client.get(url, {"limit": 25})
        warm_paths = list(counter.paths)

    assert cold.status_code == warm.status_code == 200
    link_reads = [p for p in cold_paths if p.endswith("/relationships")]
    title_reads = [p for p in cold_paths if p.startswith(f"/v1/objects/{linked['companies']}/records/")]
    # The definition and the page, one list of links per row (12), the
    # companies' definition and their 3 titles once each (the linked deals
    # are on this page, which names them): bounded by the page, whatever the
    # number of links.
    assert len(link_reads) == 12
    assert len(title_reads) == 3
    assert len(cold_paths) == 2 + 12 + 1 + 3
    assert warm_paths == [f"/v1/objects/{linked['deals']}/records"]
    assert texts(warm.content, "tbody a.chip") == texts(cold.content, "tbody a.chip")
    related = [row for row in select(warm.content, "tbody tr") if text_of(one(row, "th a")) == "Deal 00"][0]
    assert texts(related.select("td")[-3], "a.chip") == ["Deal 01"]


def test_a_failed_read_of_links_is_named_and_the_page_stands(console, remote):
    """respx: a service failing to list links: the page names the cause (its
    words, the request id) and still shows its rows."""
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(200, json=page([record(RECORD_ID, "Acme renewal")]))
    )
    links = remote.get(f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}/relationships").mock(
        return_value=httpx.Response(
            503,
            json={"error": {"type": "server_error", "message": "Links are resting."}},
            headers={"X-Request-Id": "req_links"},
        )
    )
    choose_columns(console, OBJECT_KEY, ["name", "link:company"])

    response = console.get(f"/objects/{OBJECT_KEY}/records/")

    assert response.status_code == 200
    assert text_of(one(response.content, "th.record-title a")) == "Acme renewal"
    problem = text_of(one(response.content, ".records-table .alert-warning"))
    assert problem.startswith("Linked records of 1 row could not be read")
    assert "Links are resting." in problem and "req_links" in problem
    assert links.call_count >= 1


def test_a_link_made_in_the_console_shows_in_the_column_at_once(linked, logged_in_client):
    """The rows' links are cached for a while; a link made through the console drops both ends' entries."""
    choose_columns(logged_in_client, linked["deals"], ["name", "link:company"])
    url = f"/objects/{linked['deals']}/records/"
    logged_in_client.get(url)  # the links are cached now
    deal = linked["rows"][5]
    firm = linked["firms"][0]

    response = logged_in_client.post(
        f"{url}{deal['id']}/links/new/",
        {
            "relation_key": "company",
            "target_object": linked["companies"],
            "target_id": firm["id"],
            "idempotency_key": "5b0c3a52-3f7e-4a43-9c55-2f0b8f9a0a01",
        },
    )

    assert response.status_code in (200, 302)
    row = [r for r in select(logged_in_client.get(url).content, "tbody tr") if text_of(one(r, "th a")) == "Deal 05"][0]
    assert sorted(texts(row.select("td")[-3], "a.chip")) == ["Acme", "Initech"]
