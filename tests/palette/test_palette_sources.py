"""The palette's sources against a mocked service (respx): a source that
fails or is slow is named on its line while the others answer; approvals and
Studio conversations come from the console's database (no call); a refused
key still finds the console's pages; hostile queries never break it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.testing import RemoteCallCounter
from dashboard.frame.areas import Area, register_area, unregister_area
from dashboard.inbox.models import WaitingItem
from dashboard.palette.search import clean_query, told_apart
from dashboard.palette.sources import PaletteResult, PaletteSource, id_prefix, is_id_shaped, score, why_matched
from tests.helpers import use_fake_service
from tests.html import one, parse, select, text_of
from tests.live.support import SECRET, SERVICE_URL, store_key

HTMX = {"HTTP_HX_REQUEST": "true"}
DEALS = {
    "key": "deals",
    "kind": "custom",
    "singular_name": "Deal",
    "plural_name": "Deals",
    "title_field": "name",
    "fields": [{"key": "name", "label": "Name", "type": "text"}],
}
LIBRARY_PATHS = ("/v1/websites", "/v1/documents", "/v1/apps", "/v1/images/boards", "/v1/images", "/v1/videos")


@pytest.fixture(autouse=True)
def palette_service(settings):
    # One attempt per call: the tests count calls, and a 503 is not retried.
    return use_fake_service(settings, SERVICE_URL, max_retries=0)


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET)


@pytest.fixture
def console(logged_in_client, api_key):
    return logged_in_client


@pytest.fixture
def service(remote):
    """A workspace with one agent, one object and an empty library."""
    agents = [{"id": "6f1d0c1e-0000-4000-8000-000000000001", "name": "Quokka helper", "status": "active"}]
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"agents": agents}))
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json={"objects": [DEALS]}))
    for path in LIBRARY_PATHS:
        remote.get(path).mock(return_value=httpx.Response(200, json={"items": []}))
    return remote


def groups_of(html) -> dict[str, list[str]]:
    return {
        text_of(one(group, ".palette-group__heading")): [
            text_of(one(option, ".palette-option__title")) for option in select(group, "[role=option]")
        ]
        for group in select(html, "[role=listbox] [role=group]")
    }


def test_a_failing_records_search_is_named_and_the_rest_is_shown(console, service):
    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(503, json={"error": {}}))

    response = console.get(reverse("palette"), {"q": "quokka"}, **HTMX)

    assert response.status_code == 200
    html = parse(response.content)
    assert groups_of(html)["Agents"] == ["Quokka helper"]
    assert [text_of(line) for line in select(html, ".palette-results__failure")] == [
        "Records could not be searched (the service had an error)"
    ]
    assert text_of(one(html, "#palette-count")).endswith("; 1 source could not be searched")


def test_a_slow_source_is_named_as_slow_without_holding_the_others(console, service, monkeypatch):
    service.get("/v1/objects/deals/records").mock(
        return_value=httpx.Response(200, json={"records": [{"id": "r1", "values": {"name": "Quokka farm"}}]})
    )
    released = threading.Event()

    def stuck(request, query, limit):
        released.wait(5)  # a service that does not answer (released when the test ends)
        return []

    monkeypatch.setattr("dashboard.palette.search.PALETTE_WAIT_SECONDS", 0.2)
    register_area(Area(name="slowpoke", order=99, palette_sources=(PaletteSource("Slow things", stuck, remote=True),)))
    try:
        html = parse(console.get(reverse("palette"), {"q": "quokka"}, **HTMX).content)
    finally:
        released.set()
        unregister_area("slowpoke")

    assert groups_of(html)["Records"] == ["Quokka farm"]
    assert [text_of(line) for line in select(html, ".palette-results__failure")] == [
        "Slow things could not be searched (the service is slow)"
    ]


def test_a_source_that_breaks_is_a_line_not_an_error_page(console, service):
    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(200, json={"records": []}))

    def broken(request, query, limit):
        raise KeyError("a bug")

    def refused(request, query, limit):
        raise errors.ApiTimeoutError("slow")

    register_area(
        Area(
            name="broken",
            order=98,
            palette_sources=(PaletteSource("Broken things", broken), PaletteSource("Timed things", refused)),
        )
    )
    try:
        response = console.get(reverse("palette"), {"q": "quokka"}, **HTMX)
    finally:
        unregister_area("broken")

    assert response.status_code == 200
    assert [text_of(line) for line in select(parse(response.content), ".palette-results__failure")] == [
        "Broken things could not be searched (something went wrong)",
        "Timed things could not be searched (the service is slow)",
    ]


def test_approvals_and_conversations_come_from_the_database(console, service, api_key, make_turn):
    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(200, json={"records": []}))
    WaitingItem.objects.create(
        workspace_id=api_key.workspace_id,
        source="agents",
        remote_id="approval:ap-1",
        kind="approval",
        data={
            "approval": {
                "id": "ap-1",
                "status": "pending",
                "summary": "Send the spring sale email to 40 leads",
                "agent_id": "6f1d0c1e-0000-4000-8000-000000000001",
                "risk": "send",
            },
            "agent_name": "Quokka helper",
        },
        since=datetime(2026, 11, 20, tzinfo=UTC),
        refreshed_at=timezone.now(),
    )
    turn = make_turn()  # "Build a landing page for our spring sale"

    with RemoteCallCounter() as calls:
        html = parse(console.get(reverse("palette"), {"q": "spring sale"}, **HTMX).content)

    groups = groups_of(html)
    assert groups["Approvals"] == ["Send the spring sale email to 40 leads"]
    assert groups["Conversations"] == ["Build a landing page for our spring sale"]
    addresses = {
        text_of(one(option, ".palette-option__title")): option["href"] for option in select(html, "[role=option]")
    }
    assert addresses["Build a landing page for our spring sale"] == reverse("studio:turn", args=[turn.pk])
    assert addresses["Send the spring sale email to 40 leads"] == (
        reverse("agents:approvals") + "?agent=6f1d0c1e-0000-4000-8000-000000000001"
    )
    assert not any(path.startswith(("/v1/approvals", "/v1/turns")) for path in calls.paths)


def test_a_refused_key_still_finds_the_console_pages(console, api_key):
    api_key.refused_at = timezone.now()
    api_key.save(update_fields=["refused_at"])

    with RemoteCallCounter() as calls:
        response = console.get(reverse("palette"), {"q": "keys"}, **HTMX)

    assert response.status_code == 200
    groups = groups_of(parse(response.content))
    assert "API keys" in groups["Pages"]
    assert calls.count == 0


# As a hostile client sends them (percent-encoded bytes: a lone surrogate, NUL, a control character).
@pytest.mark.parametrize(
    "raw", ["%00", "a%ED%A0%80b", "x" * 5000, "%3Cscript%3Ealert(1)%3C/script%3E", "%E2%80%AE", "%0d%0a"]
)
def test_hostile_queries_are_answered(console, service, raw):
    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(200, json={"records": []}))

    response = console.get(f"{reverse('palette')}?q={raw}", **HTMX)

    assert response.status_code == 200
    assert select(parse(response.content), "script") == []


def test_a_query_is_cleaned_before_any_source_reads_it():
    assert clean_query("a\x00b\ud800c") == "abc"
    assert clean_query("  spring \r\n sale ") == "spring sale"
    assert len(clean_query("x" * 5000)) == 100


def test_matching_and_id_shapes():
    assert score("deal", "Deals") == 0
    assert score("acme", "Big Acme deal") == 1
    assert score("acme big", "Big Acme deal") == 2
    assert score("cafe", "Café Zurich") == 0
    assert score("zzz", "Deals") is None
    assert is_id_shaped("6f1d0c1e-0000-4000-8000-000000000001")
    assert is_id_shaped("run_8f3a2c91")
    assert not is_id_shaped("spring sale") and not is_id_shaped("run_abcdef")
    assert PaletteResult("a", "b", "/c", "Pages").kind == "Pages"
    # The start of a run's id, 8 characters or more, hyphens kept or not; never a word or a whole id.
    assert id_prefix("6F1D0C1E") == "6f1d0c1e"
    assert id_prefix("6f1d0c1e00") == id_prefix("6f1d0c1e-00") == "6f1d0c1e-00"
    assert id_prefix("6f1d0c1") == id_prefix("deadbeef cafe") == id_prefix("6f1d-0c1e00") == ""
    assert id_prefix("6f1d0c1e-0000-4000-8000-000000000001") == ""


def test_each_result_says_why_it_matched_and_twins_are_told_apart():
    assert why_matched("dea", "Deals") == "Starts with “dea”"
    assert why_matched("acme", "Big Acme deal") == "“acme” in the title"
    assert why_matched("totp", "Two-factor sign-in", "", "security totp") == "“totp” in its keywords"
    assert why_matched("area", "Agents", "Every area's agents") == "“area” in the description"
    assert why_matched("", "Deals") == ""
    twins = told_apart(
        [
            PaletteResult("Untitled", "Deal", "/objects/deals/0a1b2c3d4e5f/", "Records"),
            PaletteResult("Untitled", "Deal", "/objects/deals/9f8e7d6c5b4a/", "Records"),
            PaletteResult("Acme", "Deal", "/objects/deals/77/", "Records"),
        ]
    )
    assert [result.subtitle for result in twins] == ["Deal, id 0a1b2c3d…", "Deal, id 9f8e7d6c…", "Deal"]


def test_a_source_budget_is_its_own_and_never_more_than_the_request_has_left():
    from dashboard.api.attempts import read_budget, separate_read_budget

    with read_budget(10) as request_budget:
        request_budget.spent = 9.5
        with separate_read_budget(1.2) as own:
            assert own is not request_budget
            assert own.seconds == 0.5
    with separate_read_budget(1.2) as alone:
        assert alone.seconds == 1.2


def test_without_a_key_the_pages_and_adding_a_key_are_found(logged_in_client):
    with RemoteCallCounter() as calls:
        html = parse(logged_in_client.get(reverse("palette"), {"q": "key"}, **HTMX).content)

    groups = groups_of(html)
    assert "API keys" in groups["Pages"]
    assert "Add an API key" in groups["Actions"]
    assert calls.count == 0


def test_saved_briefs_are_found_by_their_words_from_the_database(console, service, api_key, user):
    from studio.briefs import brief_create

    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(200, json={"records": []}))
    brief = brief_create(
        workspace_id=api_key.workspace_id,
        user_id=user.pk,
        name="Quarterly report",
        text="A report on {{quarter}} revenue",
        studio="document",
        shared=False,
    )
    with RemoteCallCounter() as calls:
        html = parse(console.get(reverse("palette"), {"q": "revenue"}, **HTMX).content)
    assert groups_of(html)["Briefs"] == ["Quarterly report"]
    option = next(o for o in select(html, "[role=option]") if "Quarterly report" in text_of(o))
    assert option["href"] == reverse("studio:brief", args=[brief.pk])
    assert not any("brief" in path for path in calls.paths)


def test_in_german_the_core_entries_groups_and_a_failure_read_in_german(console, service):
    """The person's language (here the browser's): the core's entries, the
    group headings and why a source failed; a name from the service stays."""
    service.get("/v1/objects/deals/records").mock(return_value=httpx.Response(503, json={"error": {}}))

    html = parse(console.get(reverse("palette"), {"q": "quokka"}, HTTP_ACCEPT_LANGUAGE="de", **HTMX).content)

    assert groups_of(html)["Agenten"] == ["Quokka helper"]
    assert [text_of(line) for line in select(html, ".palette-results__failure")] == [
        "Datensätze: Suche nicht möglich (beim Dienst ist ein Fehler aufgetreten)"
    ]


def test_in_german_home_and_inbox_are_found_by_their_german_words(logged_in_client):
    with RemoteCallCounter() as calls:
        html = parse(logged_in_client.get(reverse("palette"), {"q": "posteingang"}, HTTP_ACCEPT_LANGUAGE="de").content)

    options = select(html, "[role=listbox] [role=group] [role=option]")
    assert [text_of(one(option, ".palette-option__title")) for option in options][:1] == ["Posteingang"]
    assert text_of(one(options[0], ".palette-option__subtitle")).startswith("Alles, was auf eine Person wartet")
    assert calls.count == 0
