"""The command palette against the real sandbox over HTTP: a record found by
its title through the service's records search, an agent by name and its
runs, a run by id; remote calls counted (the lists are cached for a minute,
an empty query and a plain word call nothing they need not); what a viewer
is offered."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import store_sandbox_key
from dashboard.palette.search import MIN_REMOTE_CHARS
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from objects.palette import RECORD_OBJECTS
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, root_ids, select, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def workspace(sandbox, settings, db):
    """A fresh object in the sandbox's demo workspace with a record of a title no other test uses."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service, name=f"Palette deals {uuid.uuid4().hex[:6]}")
    title = f"Quokka {uuid.uuid4().hex[:6]}"
    record = service.post(f"/v1/objects/{obj['key']}/records", json={"values": {**sample_values(1), "name": title}})
    return {"service": service, "object": obj, "record": record, "title": title}


@pytest.fixture
def console(workspace, sandbox, client, user):
    store_sandbox_key(user, workspace["service"], sandbox.demo_key)
    client.force_login(user)
    return client


def groups_of(html) -> dict[str, list[tuple[str, str]]]:
    """Each group's heading and its options' (title, address)."""
    return {
        text_of(one(group, ".palette-group__heading")): [
            (text_of(one(option, ".palette-option__title")), option["href"])
            for option in select(group, "[role=option]")
        ]
        for group in select(html, "[role=listbox] [role=group]")
    }


def test_a_record_is_found_by_its_title_and_the_lists_are_read_once_a_minute(console, workspace):
    with RemoteCallCounter() as calls:
        response = console.get(reverse("palette"), {"q": workspace["title"]}, **HTMX)

    assert response.status_code == 200
    # The results region, and the count for a screen reader (out of band).
    assert root_ids(response.content) == ["div#palette-results", "p#palette-count"]
    html = parse(response.content)
    groups = groups_of(html)
    record_url = reverse("objects:record", args=[workspace["object"]["key"], workspace["record"]["id"]])
    assert groups["Records"][0] == (workspace["title"], record_url)
    shown = sum(len(options) for options in groups.values())
    assert text_of(one(html, "#palette-count")) == (f"{shown} results" if shown > 1 else "1 result")
    assert select(html, ".palette-results__failure") == []
    # Cold: the agents list, the objects (every page), at most N records searches, the six library lists.
    searches = [path for path in calls.paths if path.endswith("/records")]
    assert 1 <= len(searches) <= RECORD_OBJECTS
    assert calls.paths.count("/v1/agents") == 1
    assert calls.paths.count("/v1/objects") >= 1

    calls.reset()
    with calls:
        again = console.get(reverse("palette"), {"q": workspace["title"][:-1]}, **HTMX)
    assert groups_of(parse(again.content))["Records"][0][0] == workspace["title"]
    # Within the minute only the records search itself calls the service.
    assert calls.paths and all(path.endswith("/records") for path in calls.paths)


def test_an_agent_by_name_offers_its_page_and_its_runs(console, workspace):
    agent = workspace["service"].page("/v1/agents", params={"limit": 100}, item_key="agents").items[0]
    response = console.get(reverse("palette"), {"q": agent["name"]}, **HTMX)

    groups = groups_of(parse(response.content))
    assert (agent["name"], reverse("agents:detail", args=[agent["id"]])) in groups["Agents"]
    runs = dict(groups["Runs"])
    assert runs[f"Runs of {agent['name']}"] == reverse("agents:runs") + f"?agent={agent['id']}"


def test_a_run_is_found_by_its_id_with_one_read(console, workspace):
    service = workspace["service"]
    agent = service.page("/v1/agents", params={"limit": 100}, item_key="agents").items[0]
    run = service.post(f"/v1/agents/{agent['id']}/runs", json={"message": "Hello from the palette test"})
    run_id = run.get("run_id")
    if not run_id:
        pytest.skip("the sandbox's agent answered without a run")

    with RemoteCallCounter() as calls:
        response = console.get(reverse("palette"), {"q": run_id}, **HTMX)

    assert (f"Run {run_id}", reverse("agents:run", args=[run_id])) in groups_of(parse(response.content))["Runs"]
    assert calls.paths.count(f"/v1/runs/{run_id}") == 1
    # Words are never read as a run's id.
    with RemoteCallCounter() as calls:
        console.get(reverse("palette"), {"q": "quokka"}, **HTMX)
    assert not any(path.startswith("/v1/runs/") for path in calls.paths)


def test_an_empty_query_offers_the_pages_and_calls_nothing(console):
    with RemoteCallCounter() as calls:
        response = console.get(reverse("palette"), {"q": ""}, **HTMX)

    assert calls.count == 0
    html = parse(response.content)
    pages = dict(groups_of(html)["Pages"])
    assert pages["Agents"] == reverse("agents:index")
    assert pages["Objects"] == reverse("objects:index")
    assert pages["Inbox"] == reverse("inbox:index")
    assert f"Type {MIN_REMOTE_CHARS} characters or more" in text_of(one(html, ".palette-results__note"))


def test_the_palette_page_works_without_javascript(console, workspace):
    response = console.get(reverse("palette"), {"q": workspace["title"]})

    html = parse(response.content)
    assert text_of(one(html, "h1")) == "Go to or find"
    field = one(html, "main input[name=q]")
    assert (field["value"], field["role"]) == (workspace["title"], "combobox")
    assert groups_of(html)["Records"][0][0] == workspace["title"]
    # One field and one results region on this page: the dialog is not rendered beside them.
    assert len(select(html, "input[name=q]")) == 1
    assert select(html, "dialog#palette") == []


def test_a_viewer_is_offered_no_action_that_writes(console, workspace, user):
    member = groups_of(parse(console.get(reverse("palette"), {"q": "new"}, **HTMX).content))
    assert {"New agent", "New object", "New conversation"} <= {title for title, _ in member["Actions"]}

    person_role_set(user=user, role=Role.VIEWER)
    viewer = groups_of(parse(console.get(reverse("palette"), {"q": "new"}, **HTMX).content))
    titles = {title for title, _ in viewer.get("Actions", [])}
    assert not titles & {"New agent", "New object", "New conversation"}
    assert not any(title.startswith("New ") for title in titles)


def test_every_page_carries_the_dialog_and_the_header_button(console):
    html = parse(console.get(reverse("agents:index")).content)

    opener = one(html, "header [data-palette-open]")
    assert (opener["href"], opener["aria-keyshortcuts"]) == (reverse("palette"), "Control+K Meta+K")
    dialog = one(html, "dialog#palette")
    field = one(dialog, "input[name=q]")
    assert (field["role"], field["aria-controls"], field["aria-expanded"]) == ("combobox", "palette-listbox", "false")
    assert text_of(one(dialog, f"label[for={field['id']}]")) == "Go to or find"
    assert one(dialog, "#palette-count")["role"] == "status"


def test_a_run_is_found_by_the_first_8_characters_of_its_id_without_a_call(console, workspace, user):
    from agents.services import insights_refresh

    service = workspace["service"]
    agent = service.page("/v1/agents", params={"limit": 100}, item_key="agents").items[0]
    run_id = service.post(f"/v1/agents/{agent['id']}/runs", json={"message": "Hello, prefix"}).get("run_id")
    if not run_id:
        pytest.skip("the sandbox's agent answered without a run")
    # The insights' worker reads the workspace's runs into the console's facts (as beat has it do).
    insights_refresh(workspace_id=ApiKey.objects.get(user=user).workspace_id)

    with RemoteCallCounter() as calls:
        response = console.get(reverse("palette"), {"q": run_id[:8].upper()}, **HTMX)

    html = parse(response.content)
    assert (f"Run {run_id}", reverse("agents:run", args=[run_id])) in groups_of(html)["Runs"]
    option = next(o for o in select(html, "[role=option]") if o["href"] == reverse("agents:run", args=[run_id]))
    line = text_of(one(option, ".palette-option__subtitle"))
    assert line.startswith("Run, ") and "started" in line
    assert text_of(one(option, ".palette-option__why")) == f"Its id starts with “{run_id[:8]}”"
    # Found in the console's database: the service reads runs by their whole id only.
    assert not any(path.startswith("/v1/runs/") for path in calls.paths)
