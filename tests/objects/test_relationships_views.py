"""Record page, relationships panel, add-link form and picker, and record
deletion against a mocked service (respx)."""

from __future__ import annotations

import httpx
import pytest

from tests.html import one, parse, root_ids, select, text_of, texts
from tests.objects.records_fixtures import (
    ACME,
    DEALS,
    OBJECT_KEY,
    OTHER_ID,
    RECORD_ID,
    error_body,
    hidden_value,
    page,
    record,
    sent_json,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
RECORD_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
LINK_URL = f"{RECORD_URL}links/new/"
PICK_URL = f"{RECORD_URL}links/pick/"
DELETE_URL = f"{RECORD_URL}delete/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"
AGENT_ID = "9b9b9b9b-0000-4000-8000-00000000a9e7"

LINKS = [
    {
        "id": "rel-1",
        "relation_key": "related_to",
        "direction": "outgoing",
        "object": OBJECT_KEY,
        "record_id": OTHER_ID,
        "other": {"object": OBJECT_KEY, "id": OTHER_ID},
        "source": {"object": OBJECT_KEY, "id": RECORD_ID},
        "target": {"object": OBJECT_KEY, "id": OTHER_ID},
        "label": "sister deal",
        "metadata": {"weight": 2},
        "created_at": "2026-11-20T10:00:00Z",
    },
    {
        "id": "rel-2",
        "relation_key": "owner",
        "direction": "incoming",
        "object": "agents",
        "record_id": AGENT_ID,
        "other": {"object": "agents", "id": AGENT_ID},
        "source": {"object": "agents", "id": AGENT_ID},
        "target": {"object": OBJECT_KEY, "id": RECORD_ID},
        "label": "",
        "metadata": {},
        "created_at": "2026-11-20T10:00:00Z",
    },
]
OBJECTS = [
    DEALS,
    {"key": "agents", "kind": "system", "singular_name": "Agent", "plural_name": "Agents", "fields": []},
]


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


AGENTS = {"key": "agents", "kind": "system", "singular_name": "Agent", "plural_name": "Agents", "fields": []}


@pytest.fixture
def other_titles(remote):
    """The other ends' records, read once for their titles (then cached)."""
    return [
        remote.get(f"/v1/objects/{OBJECT_KEY}/records/{OTHER_ID}").mock(
            return_value=httpx.Response(200, json=record(OTHER_ID, "Beta upsell"))
        ),
        remote.get("/v1/objects/agents").mock(return_value=httpx.Response(200, json=AGENTS)),
        remote.get(f"/v1/objects/agents/records/{AGENT_ID}").mock(
            return_value=httpx.Response(200, json={"id": AGENT_ID, "values": {}, "name": "Support bot"})
        ),
    ]


@pytest.fixture
def links(remote):
    return remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json=page(LINKS)))


def test_record_page_shows_values_times_and_links_both_ways(console, definition, links, other_titles, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))

    response = console.get(RECORD_URL)

    assert response.status_code == 200
    html = response.content.decode()
    assert text_of(one(html, "h1")) == "Acme renewal"
    main = text_of(one(html, "main"))
    assert "1,234.50" in main and "buyer@acme.test" in main
    assert "2026-11-01 08:00 UTC" in main and "2026-11-20 17:45 UTC" in main  # created, updated
    # Grouped by relation_key, each linking to the other end (built-in objects too).
    assert texts(html, "#relationships .relation-key code") == ["owner", "related_to"]
    # Each link names the other record by its title, the label beside it; an
    # agent opens on its own console page.
    assert texts(html, "a.link-title") == ["Support bot", "Beta upsell"]
    assert one(html, f"a.link-title[href='/objects/deals/records/{OTHER_ID}/']")
    assert one(html, f"a.link-title[href='/agents/{AGENT_ID}/']")
    assert texts(html, ".link-label") == ["“sister deal”"]
    assert "→ to" in text_of(one(html, "#relationships")) and "← from" in text_of(one(html, "#relationships"))
    # Three calls for the page, plus the titles' reads (bounded, once).
    assert len(remote.calls) == 3 + 3

    # Titles are cached per workspace (the definition too): the record and its links only.
    assert console.get(RECORD_URL).status_code == 200
    assert len(remote.calls) == 6 + 2


def test_delete_asks_first_and_says_relationships_go_too(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    # Read first, so the trash keeps the record and its links (objects/trash.py).
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    delete = remote.delete(RECORD_PATH).mock(
        return_value=httpx.Response(200, json={"id": RECORD_ID, "deleted": True, "relationships_deleted": 2})
    )

    confirm = console.get(DELETE_URL, **HTMX).content.decode()
    assert "every relationship to or from it" in confirm
    assert delete.call_count == 0
    key = hidden_value(confirm, "idempotency_key")

    response = console.post(DELETE_URL, {"idempotency_key": key}, **HTMX)

    assert response["HX-Redirect"] == f"/objects/{OBJECT_KEY}/records/"
    assert delete.calls.last.request.headers["Idempotency-Key"] == key


def test_delete_confirmation_page_works_without_javascript(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    html = console.get(DELETE_URL).content.decode()
    main = text_of(one(html, "main"))
    assert root_ids(html) == ["html"] and "Delete this record" in main and "keeps both in the trash" in main


def test_link_form_lists_custom_and_built_in_objects(console, remote):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page(OBJECTS)))
    html = console.get(LINK_URL, **HTMX).content.decode()
    options = {option["value"]: (text_of(option), option.has_attr("selected")) for option in select(html, "option")}
    assert options["deals"] == ("Deals", True)
    assert options["agents"] == ("Agents (built-in)", False)
    assert hidden_value(html, "idempotency_key")


def test_picker_searches_the_target_objects_records(console, definition, remote):
    search = remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(200, json=page([record(OTHER_ID, "Globex"), ACME]))
    )
    html = console.get(PICK_URL, {"target_object": OBJECT_KEY, "target_search": "glo"}, **HTMX).content.decode()
    sent = search.calls.last.request.url.params
    assert sent["search"] == "glo" and sent["limit"] == "10"
    choices = {choice["value"]: text_of(choice.parent) for choice in select(html, "input[name=target_pick]")}
    assert OTHER_ID in choices and "Globex" in choices[OTHER_ID]
    assert RECORD_ID not in [element.get("value") for element in select(html, "[value]")]  # not to itself


def test_link_is_sent_with_metadata_and_key(console, definition, links, other_titles, remote):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page(OBJECTS)))
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    create = remote.post(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(201, json=LINKS[0]))
    key = hidden_value(console.get(LINK_URL, **HTMX).content.decode(), "idempotency_key")

    response = console.post(
        LINK_URL,
        {
            "relation_key": "related_to",
            "target_object": OBJECT_KEY,
            "target_pick": OTHER_ID,
            "label": "sister deal",
            "metadata": '{"weight": 2}',
            "idempotency_key": key,
        },
        **HTMX,
    )

    # The panel, re-read, replaces the form's region in place.
    assert response["HX-Retarget"] == "#relationships"
    html = response.content.decode()
    assert root_ids(html)[0] == "section#relationships"
    assert select(html, f'#relationships a[href="/objects/{OBJECT_KEY}/records/{OTHER_ID}/"]')
    call = create.calls.last
    assert sent_json(call) == {
        "relation_key": "related_to",
        "target": {"object": OBJECT_KEY, "id": OTHER_ID},
        "label": "sister deal",
        "metadata": {"weight": 2},
    }
    assert call.request.headers["Idempotency-Key"] == key


def test_link_without_javascript_redirects_to_the_record_and_enters_both_histories(
    console, definition, other_titles, links, remote
):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page(OBJECTS)))
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.post(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(201, json=LINKS[0]))
    response = console.post(LINK_URL, {"relation_key": "owner", "target_object": OBJECT_KEY, "target_id": OTHER_ID})
    assert response.status_code == 302
    assert response["Location"] == f"{RECORD_URL}#relationships"

    from objects.history import history_rows
    from objects.models import RecordChange

    def seen_from(record_id):
        change = RecordChange.objects.get(record_id=record_id)
        assert (change.action, change.actor) == ("link", "alice")
        [row] = history_rows([change], fields=[], zone=None)
        return [(link.direction, link.title, link.url, link.relation_key) for link in row.links]

    other_url = f"/objects/{OBJECT_KEY}/records/{OTHER_ID}/"
    assert seen_from(RECORD_ID) == [("to", "Beta upsell", other_url, "owner")]
    assert seen_from(OTHER_ID) == [("from", ACME["values"]["name"], RECORD_URL, "owner")]

    history = one(parse(console.get(RECORD_URL).content), "#history")
    assert texts(history, ".history-head strong") == ["Linked"]
    assert texts(history, ".history-link") == ["Linked to Beta upsell as “owner”"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("relation_key", "Related To", "Use snake_case"),
        ("metadata", "{weight: 2}", "This is not valid JSON"),
        ("metadata", "[1, 2]", "Metadata must be a JSON object"),
    ],
)
def test_link_form_checks_snake_case_and_json_before_sending(console, remote, field, value, message):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page(OBJECTS)))
    create = remote.post(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(201, json=LINKS[0]))
    data = {"relation_key": "related_to", "target_object": OBJECT_KEY, "target_id": OTHER_ID, field: value}

    response = console.post(LINK_URL, data, **HTMX)

    assert response.status_code == 200
    html = response.content.decode()
    assert message in text_of(one(html, "#link-form"))
    assert create.call_count == 0
    typed = [element.get("value") for element in select(html, f"#link-form [name={field}]")]
    typed += [element.get_text() for element in select(html, f"#link-form textarea[name={field}]")]
    assert [kept for kept in typed if kept is not None and value in kept]  # what was typed is kept


def test_link_to_a_missing_target_is_shown_in_the_form(console, remote):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json=page(OBJECTS)))
    remote.post(f"{RECORD_PATH}/relationships").mock(
        return_value=httpx.Response(404, json=error_body("not_found", "No record in deals", request_id="req_link_404"))
    )
    html = console.post(
        LINK_URL, {"relation_key": "owner", "target_object": OBJECT_KEY, "target_id": OTHER_ID}, **HTMX
    ).content.decode()
    form = one(html, "form#link-form")
    assert "No record in deals" in text_of(form) and "req_link_404" in text_of(form)
    assert one(form, "[name=relation_key]")["value"] == "owner"


def test_record_of_a_built_in_object_lists_its_links(console, definition, remote):
    agents = {"key": "agents", "kind": "system", "plural_name": "Agents", "fields": []}
    remote.get("/v1/objects/agents").mock(return_value=httpx.Response(200, json=agents))
    remote.get(f"/v1/objects/agents/records/{AGENT_ID}").mock(
        return_value=httpx.Response(404, json=error_body("not_found", "no such record"))
    )
    remote.get(f"/v1/objects/agents/records/{AGENT_ID}/relationships").mock(
        return_value=httpx.Response(
            200, json=page([{**LINKS[1], "direction": "outgoing", "other": {"object": OBJECT_KEY, "id": RECORD_ID}}])
        )
    )
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    html = console.get(f"/objects/agents/records/{AGENT_ID}/").content.decode()
    assert "its values belong to its own area" in text_of(one(html, "main"))
    assert select(html, f'#relationships a[href="/objects/{OBJECT_KEY}/records/{RECORD_ID}/"]')
    assert "Delete" not in text_of(one(html, ".page-header"))
