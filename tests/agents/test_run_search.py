"""Runs searched by content and two runs compared, against a real sandbox
over HTTP: the insights worker keeps each run's words; a search finds a run
by a word of its answer among 1,000 runs with its range stated, in the same
queries at 50 runs as at 1,000 and no remote call; the compare page reads
two runs (two calls, steps included) and its words match a golden copy;
the runs list and a run's page lead to it."""

from __future__ import annotations

import copy
from zoneinfo import ZoneInfo

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from agents import tasks
from agents.models import RunFact
from agents.services import run_search_index
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from tests.agents.support import AGENT_ID, RUN_ID, agents_page
from tests.html import one, parse, root_ids, select, text_of

pytestmark = pytest.mark.django_db

WORKSPACE = "ws-test"  # store_demo_key's workspace id (dashboard/keys/testing.py)
HTMX = {"HTTP_HX_REQUEST": "true"}


def _http(handle) -> httpx.Client:
    return httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.mint_key('demo')}"})


def _agent_id(handle, name: str) -> str:
    with _http(handle) as http:
        return next(agent["id"] for agent in http.get("/v1/agents").json()["data"] if agent["name"] == name)


def _run_of(handle, agent_id: str, message: str) -> dict:
    """A run made through the sandbox's API, then the clock moved on so it ends."""
    with _http(handle) as http:
        answer = http.post(f"/v1/agents/{agent_id}/runs", json={"message": message})
        assert answer.status_code == 200, answer.text
        handle.advance(service_seconds=60)
        return http.get(f"/v1/runs/{answer.json()['run_id']}").json()


def _copies(handle, template_id: str, count: int, *, answers: dict[int, str] | None = None) -> None:
    """`count` more runs of the template's agent stored straight in the
    sandbox (volume, not the write path): the same body, their own event and answer."""
    store = handle.store
    raw = store.get("run", template_id)
    docs = []
    for number in range(count):
        doc = copy.deepcopy({key: value for key, value in raw.items() if key not in ("id", "_seq", "workspace_id")})
        doc["event"] = {**doc["event"], "message": f"Volume message {number}"}
        doc["answer"] = (answers or {}).get(number, f"Routine answer {number}.")
        docs.append(doc)
    store.insert_many("run", docs, workspace_id=raw["workspace_id"])


def _search(client, query: str, **extra):
    with RemoteCallCounter() as calls, CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("agents:runs"), {"q": query}, **extra)
    assert response.status_code == 200
    return response, calls.count, len(queries)


def test_a_word_of_one_answer_finds_its_run_among_1000_with_the_range_said(sandbox_client, seeded_sandbox):
    agent_id = _agent_id(seeded_sandbox, "Weekly pipeline report")
    template = _run_of(seeded_sandbox, agent_id, "Report the pipeline")
    assert template["status"] == "completed"
    tasks.insights_refresh(WORKSPACE)
    _copies(seeded_sandbox, template["id"], 50 - RunFact.objects.filter(workspace_id=WORKSPACE).count())
    tasks.insights_refresh(WORKSPACE)
    assert RunFact.objects.filter(workspace_id=WORKSPACE, words_read=True).count() == 50

    _search(sandbox_client, "routine")  # the first look asks the worker for a read (writes): counted apart
    _, calls_at_50, queries_at_50 = _search(sandbox_client, "routine")

    _copies(seeded_sandbox, template["id"], 950, answers={417: "The Zanzibar refunds were sent to finance."})
    tasks.insights_refresh(WORKSPACE)
    read = RunFact.objects.filter(workspace_id=WORKSPACE, words_read=True)
    assert read.count() == 1000
    since = read.order_by("started_at").first().started_at

    _, calls_at_1000, queries_at_1000 = _search(sandbox_client, "routine")
    response, calls, queries = _search(sandbox_client, "zanzibar REFUNDS")

    assert calls == calls_at_1000 == calls_at_50 == 0
    assert queries_at_1000 == queries_at_50  # flat as runs grow
    assert queries == queries_at_50
    html = response.content.decode()
    local_since = timezone.localtime(since, sandbox_client_zone())
    assert text_of(one(html, "#run-search-range")).startswith(
        f"Searched the 1,000 runs the console has read since {local_since.day} {local_since:%b}: 1 match."
    )
    rows = select(html, "#run-search-results > li")
    assert len(rows) == 1
    said = [text_of(rows[0].select_one(part)) for part in (".run-found__agent", ".run-found__outcome")]
    assert said == ["Weekly pipeline report", "Completed"]
    assert "Zanzibar refunds were sent" in text_of(rows[0].select_one(".run-search-excerpt"))
    found = RunFact.objects.get(workspace_id=WORKSPACE, search_text__contains="Zanzibar")
    assert rows[0].select_one("a")["href"] == reverse("agents:run", args=[found.run_id])

    # The copies' common word: the newest 50 shown, all counted.
    routine = [fact.run_id for fact in read.order_by("-started_at", "-id") if "Routine answer" in fact.search_text]
    response, calls, _ = _search(sandbox_client, "routine")
    assert calls == 0
    html = response.content.decode()
    assert text_of(one(html, "#run-search-range")).startswith(
        f"Searched the 1,000 runs the console has read since {local_since.day} {local_since:%b}: "
        f"{len(routine):,} matches, the newest 50 shown."
    )
    shown = [row.select_one("input[type=checkbox]")["value"] for row in select(html, "#run-search-results > li")]
    assert shown == routine[:50]


def sandbox_client_zone():
    return ZoneInfo("Europe/Berlin")  # store_demo_key's workspace time zone


def test_a_search_is_its_own_region_for_htmx_and_nothing_to_look_for_is_said(sandbox_client):
    response, calls, _ = _search(sandbox_client, "!!!", **HTMX)
    assert calls == 0
    html = response.content.decode()
    assert root_ids(html) == ["div#run-results"]  # the region alone, swapped in place
    assert text_of(one(html, "#run-search [role=status]")) == "Type a word to search for: “!!!” has none."


def test_a_search_before_any_read_says_the_runs_are_being_read(sandbox_client):
    response, calls, _ = _search(sandbox_client, "anything")
    assert calls == 0
    assert text_of(one(response.content.decode(), "#run-search-range")).startswith(
        "The console has read no runs of this workspace yet; it is reading them now."
    )


def test_runs_kept_before_the_search_are_read_again_once_for_their_words(sandbox_client, seeded_sandbox):
    tasks.insights_refresh(WORKSPACE)
    kept = RunFact.objects.filter(workspace_id=WORKSPACE, final=True)
    assert kept.exists()
    kept.update(words_read=False, search_text="")  # as after the upgrade's migration

    tasks.insights_refresh(WORKSPACE)

    assert not RunFact.objects.filter(workspace_id=WORKSPACE, words_read=False).exists()
    assert not RunFact.objects.filter(workspace_id=WORKSPACE, search_text="").exists()


# --- compare -----------------------------------------------------------------------------------


def _compare(client, first: str, second: str):
    with RemoteCallCounter() as calls:
        response = client.get(reverse("agents:runs_compare"), {"run": [first, second]})
    return response, calls


def test_two_fixed_sandbox_runs_compare_in_the_golden_words_with_two_reads(sandbox_client, seeded_sandbox):
    agent_id = _agent_id(seeded_sandbox, "Weekly pipeline report")
    first = _run_of(seeded_sandbox, agent_id, "Report the pipeline for EMEA")
    second = _run_of(seeded_sandbox, agent_id, "Report the pipeline for APAC")

    response, calls = _compare(sandbox_client, second["id"], first["id"])  # the earlier run comes first anyway

    assert response.status_code == 200
    assert calls.paths == [f"/v1/runs/{second['id']}", f"/v1/runs/{first['id']}"]  # two runs, steps inside
    html = response.content.decode()
    assert _page_words(html, first, second) == GOLDEN_COMPARE


def _page_words(html: str, first: dict, second: dict) -> list[str]:
    """The compare page's words, top to bottom, with what differs from one
    sandbox to another (the runs' times, the ids the email step made) named."""
    names = {}
    for run, which in ((first, "first"), (second, "second")):
        for step in run["steps"]:
            if isinstance(step.get("result"), dict) and step["result"].get("message_id"):
                names[step["result"]["message_id"]] = f"<{which} message id>"
    words = []
    page = parse(html)
    run_row = select(page, "#compare-sides tbody tr")[0]
    assert [link["href"] for link in run_row.select("a")] == [
        reverse("agents:run", args=[first["id"]]),
        reverse("agents:run", args=[second["id"]]),
    ]
    for element in select(page, "main p, main h2, main h3, main tr, main ul.json-diff li"):
        said = "Run <first start> <second start> the same agent" if element is run_row else text_of(element)
        for value, name in names.items():
            said = said.replace(value, name)
        words.append(said)
    return words


GOLDEN_COMPARE = [
    "2 of 3 shared steps differ; the input differs; the answer differs.",
    "The runs",
    "Measure First run Second run Difference",
    "Run <first start> <second start> the same agent",
    "Outcome Completed Completed same",
    "Duration 0 s 0 s same",
    "Cost $0.0070 $0.0070 same",
    "Approval waits No approvals No approvals same",
    "Steps 3 3 same",
    "What woke them",
    "The value changed from “Report the pipeline for EMEA” to “Report the pipeline for APAC”",
    "Their answers",
    "The value changed from “Done. You said: Report the pipeline for EMEA” to “Done. You said: Report the pipeline for APAC”",
    "Steps, aligned by name and order",
    "Wake up: chat the same",
    "Took 0 s in both.",
    "The same input and result.",
    "Understand the request and plan differs",
    "Took 0 s in both.",
    "“message” changed from “Report the pipeline for EMEA” to “Report the pipeline for APAC”",
    "1 unchanged value not shown.",
    "The same result.",
    "Send an email differs",
    "Took 0 s in both.",
    "“body” changed from “Report the pipeline for EMEA” to “Report the pipeline for APAC”",
    "2 unchanged values not shown.",
    "“message_id” changed from “<first message id>” to “<second message id>”",
    "3 unchanged values not shown.",
]


def test_picking_other_than_two_runs_is_said_without_a_remote_call(sandbox_client):
    for picked in ([], ["run-a"], ["run-a", "run-b", "run-c"]):
        with RemoteCallCounter() as calls:
            response = sandbox_client.get(reverse("agents:runs_compare"), {"run": picked})
        assert response.status_code == 400 and calls.count == 0
        words = text_of(one(response.content.decode(), "#compare-pick-error"))
        assert words.startswith("Pick two runs to compare")


def test_the_runs_list_ticks_two_rows_into_a_get_form_and_a_run_links_to_its_previous(sandbox_client, seeded_sandbox):
    agent_id = _agent_id(seeded_sandbox, "Weekly pipeline report")
    earlier = _run_of(seeded_sandbox, agent_id, "Report the pipeline for LATAM")
    later = _run_of(seeded_sandbox, agent_id, "Report the pipeline for NA")
    tasks.insights_refresh(WORKSPACE)

    html = sandbox_client.get(reverse("agents:runs"), {"agent": agent_id}).content.decode()
    form = one(html, "form#run-compare")
    assert form["method"] == "get" and form["action"] == reverse("agents:runs_compare")
    boxes = select(html, "#run-list input[type=checkbox][form=run-compare]")
    assert {box["value"] for box in boxes} >= {earlier["id"], later["id"]}
    assert all(box["name"] == "run" and box.get("aria-label", "").startswith("Compare the run") for box in boxes)

    with RemoteCallCounter() as calls:
        page = sandbox_client.get(reverse("agents:run", args=[later["id"]])).content.decode()
    link = next(
        a for a in select(page, ".page-header a") if text_of(a) == "Compare with the previous run of this agent"
    )
    assert link["href"] == (reverse("agents:runs_compare") + f"?run={earlier['id']}&run={later['id']}")
    assert [path for path in calls.paths if path.startswith("/v1/runs")] == [f"/v1/runs/{later['id']}"]


def test_runs_of_another_implementation_lacking_optional_members_compare_in_words(remote, api_key, client, user):
    remote.get("/v1/runs/run-a").mock(return_value=httpx.Response(200, json={"id": "run-a"}))
    remote.get("/v1/runs/run-b").mock(
        return_value=httpx.Response(200, json={"id": "run-b", "status": "failed", "steps": [{"kind": "tool"}, 7]})
    )
    client.force_login(user)

    response, calls = _compare(client, "run-a", "run-b")

    assert response.status_code == 200 and calls.count == 2
    html = response.content.decode()
    rows = [[text_of(cell) for cell in row.select("th, td")] for row in select(html, "#compare-sides tbody tr")]
    assert rows[1:] == [
        ["Outcome", "Not known", "Failed", "differs"],
        ["Duration", "Not known", "Not known", "neither known"],
        ["Cost", "Not known", "Not known", "neither known"],
        ["Approval waits", "No approvals", "No approvals", "same"],
        ["Steps", "0", "2", "differs"],
    ]
    assert [text_of(h3) for h3 in select(html, "li.compare-step h3")] == [
        "Tool only in the second run",
        "7 only in the second run",
    ]


def _read_fact(workspace_id: str, run_id: str, words: str) -> RunFact:
    """A run's fact as the worker keeps it, with its words read."""
    now = timezone.now()
    fact = dict(agent_id="agent-x", started_at=now, status="completed", final=True, read_at=now)
    return RunFact.objects.create(workspace_id=workspace_id, run_id=run_id, search_text=words, words_read=True, **fact)


def test_a_search_reads_only_the_keys_workspace_and_needs_a_working_key(sandbox_client, user):
    now = timezone.now()
    _read_fact("ws-other", "theirs", "Quarterly secretword figures")
    response, calls, _ = _search(sandbox_client, "secretword")
    assert calls == 0
    html = response.content.decode()
    assert select(html, "#run-search-results > li") == []
    assert "theirs" not in [box["value"] for box in select(html, "input[name=run]")]

    ApiKey.objects.filter(user=user).update(refused_at=now)
    with RemoteCallCounter() as refused_calls:
        refused = sandbox_client.get(reverse("agents:runs"), {"q": "secretword"})
    assert refused_calls.count == 0 and refused.status_code != 500
    assert select(refused.content.decode(), "#run-search") == []


def test_on_postgresql_the_words_have_their_gin_index_and_their_vector(db):
    if connection.vendor != "postgresql":
        pytest.skip("the GIN index and the tsvector are PostgreSQL's; SQLite searches the text")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'agents_fact_search'")
        (definition,) = cursor.fetchone()
    assert "USING gin (search_vector)" in definition
    _read_fact(WORKSPACE, "r1", "The invoices were archived")
    run_search_index(workspace_id=WORKSPACE, run_ids=["r1"])
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM agents_runfact WHERE run_id = 'r1'")
        (vector,) = cursor.fetchone()
    assert vector == "'archiv':4 'invoic':2"  # English stems: "archive", "invoice" find it too


def test_a_live_row_of_the_runs_list_keeps_its_compare_checkbox(agent_routes, remote, logged_in_client):
    remote.get("/v1/agents").mock(return_value=agents_page())
    page = parse(logged_in_client.get(reverse("agents:runs"), {"agent": AGENT_ID}).content)
    row = one(page, "#run-list tbody tr")
    box = one(row, "input[type=checkbox]")
    assert (box["name"], box["value"], box["form"]) == ("run", RUN_ID, "run-compare")

    op = TrackedOperation.objects.get(kind="agents.run")
    remote.get(f"/v1/runs/{op.remote_id}").mock(
        return_value=httpx.Response(200, json={"id": RUN_ID, "agent_id": AGENT_ID, "status": "completed"})
    )
    operation_poll(operation_id=op.pk)
    swapped = parse(logged_in_client.get(row["hx-get"], **HTMX).content)
    assert [(box["value"], box["form"]) for box in select(swapped, "tr input[type=checkbox]")] == [
        (RUN_ID, "run-compare")
    ]


def test_a_run_the_service_no_longer_has_is_said_not_a_server_error(remote, api_key, client, user):
    remote.get("/v1/runs/run-a").mock(return_value=httpx.Response(200, json={"id": "run-a"}))
    remote.get("/v1/runs/run-b").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "No such run."}})
    )
    client.force_login(user)

    response, calls = _compare(client, "run-a", "run-b")

    assert response.status_code == 404 and calls.count == 2
    html = response.content.decode()
    assert select(html, "#compare-sides") == []
    assert "The service said: No such run." in text_of(one(html, "main"))
