"""A member whose role may only read (a `viewer` key of the real sandbox, or
a console role that only reads: Viewer, Auditor) sees every area without a
single write form or button, and a line that says why; the same pages offer
them to an admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.html import parse, texts

# The columns a person shows, the views they save and the records they watch
# are their own (kept in the console), not the workspace's.
PERSONAL_FORMS = ("/records/columns/", "/views/save/", "/watch/")


def write_controls(html: bytes) -> list[str]:
    """Every form that posts to the console's write views, and every link to a write page."""
    page = parse(html)
    main = page.select_one("main")
    posts = [
        form.get("action", "")
        for form in main.select("form")
        if form.get("method", "get").lower() == "post" and not form.get("action", "").endswith(PERSONAL_FORMS)
    ]
    links = [
        a["href"]
        for a in main.select("a[href]")
        if a["href"].rstrip("/").endswith(("/new", "/edit", "/settings", "/delete"))
    ]
    return posts + links


@pytest.fixture
def pages(sandbox, settings):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.mint_key("demo"))
    agent_id = service.get("/v1/agents", params={"limit": 1})["data"][0]["id"]
    record_id = service.get("/v1/objects/deals/records", params={"limit": 1})["data"][0]["id"]
    return [
        reverse("agents:index"),
        reverse("agents:detail", args=[agent_id]),
        reverse("agents:chat", args=[agent_id]),
        reverse("studio:index"),
        reverse("objects:index"),
        reverse("objects:records", args=["deals"]),
        reverse("objects:record", args=["deals", record_id]),
    ]


def test_a_viewer_sees_no_write_button_anywhere(sandbox, pages, user, client):
    secret = sandbox.mint_key("readonly")
    key = store_sandbox_key(user, ServiceClient(api_key=secret), secret)
    assert key.member_role == "viewer"
    client.force_login(user)
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert write_controls(response.content) == [], url
    agent_page = client.get(pages[1]).content
    assert texts(agent_page, ".read-only-note")[0] == "Your role in this workspace is viewer: you can look, not change."


@pytest.mark.parametrize("role", [Role.VIEWER, Role.AUDITOR])
def test_a_console_role_that_only_reads_sees_no_write_button_even_with_an_admin_key(sandbox, pages, user, client, role):
    """`can_write` is the console role's word too: the same pages, the same
    absence of write controls, and the note names the console role."""
    secret = sandbox.mint_key("demo")
    store_sandbox_key(user, ServiceClient(api_key=secret), secret)
    person_role_set(user=user, role=role)
    client.force_login(user)
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert write_controls(response.content) == [], url
    agent_page = client.get(pages[1]).content
    label = Role(role).label
    assert texts(agent_page, ".read-only-note")[0] == f"Your console role is {label}: you can look, not change."


def test_an_admin_is_offered_the_same_pages_write_buttons(sandbox, pages, user, client):
    secret = sandbox.mint_key("demo")
    store_sandbox_key(user, ServiceClient(api_key=secret), secret)
    client.force_login(user)
    offered = {url: write_controls(client.get(url).content) for url in pages}
    assert all(offered.values()), [url for url, controls in offered.items() if not controls]
