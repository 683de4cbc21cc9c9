"""The records page costs at most two remote calls (definition and one page
of records) whatever the number of rows and columns, and one when the
definition is cached. Counted, never timed."""

from __future__ import annotations

import httpx
import pytest

from dashboard.api.testing import RemoteCallCounter
from tests.html import select
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, page, record
from tests.objects.support import every_type_object_with_records

pytestmark = pytest.mark.django_db

RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"


def test_records_page_makes_two_calls_cold_and_one_warm(console, remote):
    definition = remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    values = {k: v for k, v in ACME["values"].items() if k != "name"}
    many = [record(f"7a1c2d3e-0000-4000-8000-{i:012d}", f"Deal {i}", **values) for i in range(100)]
    records = remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(200, json=page(many, next_cursor="c2"))
    )

    assert console.get(RECORDS_URL, {"limit": 100}).status_code == 200
    assert (definition.call_count, records.call_count, len(remote.calls)) == (1, 1, 2)

    assert console.get(RECORDS_URL, {"limit": 100, "sort": "amount", "q": "deal"}).status_code == 200
    assert (definition.call_count, records.call_count, len(remote.calls)) == (1, 2, 3)

    # Paging with htmx: one call per page with a warm cache.
    assert console.get(RECORDS_URL, {"back": "", "cursor": "c2"}, HTTP_HX_REQUEST="true").status_code == 200
    assert len(remote.calls) == 4


def test_records_page_calls_counted_against_the_sandbox(sandbox, settings, logged_in_client, user):
    obj = every_type_object_with_records(sandbox, settings, user, 30)
    url = f"/objects/{obj['key']}/records/"

    with RemoteCallCounter() as counter:
        response = logged_in_client.get(url, {"limit": 100})
        cold = list(counter.paths)
        counter.reset()
        logged_in_client.get(url, {"limit": 100, "sort": "-amount"})
        warm = list(counter.paths)

    assert response.status_code == 200
    assert len(select(response.content, 'th[scope="row"].record-title')) == 30
    assert cold == [f"/v1/objects/{obj['key']}", f"/v1/objects/{obj['key']}/records"]
    assert warm == [f"/v1/objects/{obj['key']}/records"]
