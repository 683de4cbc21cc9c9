"""The records pages against the real sandbox over HTTP (no browser): the
filter bar's values mean what the service means, and built-in objects'
records and links are reachable."""

from __future__ import annotations

import pytest

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of, texts

pytestmark = pytest.mark.django_db


@pytest.fixture
def deals(sandbox, settings, logged_in_client, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(12)]
    # One record with most values empty.
    records.append(service.post(f"/v1/objects/{obj['key']}/records", json={"values": {"name": "Bare"}}))
    store_sandbox_key(user, service, sandbox.demo_key)
    options = {f["key"]: {o["label"]: o["id"] for o in f.get("options", [])} for f in obj["fields"]}
    return {"key": obj["key"], "options": options, "service": service, "records": records}


def titles(response) -> list[str]:
    return texts(response.content, "th.record-title a")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"f.active": "false"}, [1, 3, 5, 7, 9, 11]),  # odd deals; the bare record has no value
        ({"f.tags": ["VIP"]}, [0, 2, 4, 6, 8, 10]),
        ({"f.tags": ["Hot", "VIP"]}, [0, 2, 4, 6, 8, 10]),
        ({"f.seats": "9"}, [3]),
        ({"f.amount": "303.75"}, [3]),
        ({"f.close_date": "2026-12-04"}, [3]),
        ({"f.email": "buyer7@example.test"}, [7]),
        ({"f.stage": "Won"}, [0, 5, 10]),
        ({"f.status": "Lost", "f.active": "true"}, [0, 6]),
        ({"empty": "email"}, ["Bare"]),
        ({"q": "DEAL1"}, [1, 10, 11]),  # in the website addresses, any case
    ],
)
def test_filters_mean_what_the_service_means(deals, logged_in_client, query, expected):
    # Choice filters carry option ids, as the filter bar sends them.
    ids = deals["options"]
    sent = {}
    for name, value in query.items():
        key = name.removeprefix("f.")
        if key in ids and ids[key]:
            value = [ids[key][v] for v in value] if isinstance(value, list) else ids[key][value]
        sent[name] = value
    response = logged_in_client.get(f"/objects/{deals['key']}/records/", {**sent, "sort": "seats"})
    assert response.status_code == 200
    want = [e if isinstance(e, str) else f"Deal {e:03d}" for e in expected]
    assert sorted(titles(response)) == sorted(want)


def test_built_in_objects_records_and_links_are_reachable(deals, logged_in_client, sandbox):
    service = deals["service"]
    agents = list(service.paginate("/v1/objects/agents/records"))
    if not agents:
        pytest.skip("the sandbox's demo workspace has no agents yet")
    agent_id = agents[0]["id"]
    record_id = deals["records"][0]["id"]
    service.post(
        f"/v1/objects/{deals['key']}/records/{record_id}/relationships",
        json={"relation_key": "owner", "target": {"object": "agents", "id": agent_id}},
    )

    listing = logged_in_client.get("/objects/agents/records/")
    assert listing.status_code == 200
    assert select(listing.content, f'th.record-title a[href="./{agent_id}/"]')
    assert "New agent" not in text_of(parse(listing.content))  # their records belong to their own feature

    page = logged_in_client.get(f"/objects/agents/records/{agent_id}/").content.decode()
    assert "owner" in texts(page, "#relationships .relation-key code") and "← from" in text_of(
        one(page, "#relationships")
    )
    assert select(page, f'#relationships a[href="/objects/{deals["key"]}/records/{record_id}/"]')
