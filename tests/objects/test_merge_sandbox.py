"""Find and merge duplicates against the real sandbox over HTTP (no
browser), the job steps run in this thread: a merge of two records with
links both ways keeps every link and undoes whole; the candidates page over
10,000 records reads within its budget, its queries flat. Counted in the
sandbox's own store and in remote calls."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.testing import store_sandbox_key
from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord
from tests.helpers import running_sandbox
from tests.html import parse, select, text_of
from tests.objects.jobs_support import drain, run_jobs_inline

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


def _object(service: ServiceClient, name: str) -> dict:
    return service.post(
        "/v1/objects",
        json={
            "singular_name": name.rstrip("s"),
            "plural_name": name,
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Email", "key": "email", "type": "email"},
                {"label": "Phone", "key": "phone", "type": "phone"},
                {"label": "Seats", "key": "seats", "type": "number"},
            ],
        },
    )


@pytest.fixture
def world(sandbox, settings, logged_in_client, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    suffix = uuid.uuid4().hex[:6]
    companies, people = _object(service, f"Companies {suffix}"), _object(service, f"People {suffix}")
    store_sandbox_key(user, service, sandbox.demo_key)
    return {"service": service, "companies": companies, "people": people}


def _links(sandbox, *ids: str) -> set[tuple[str, str, str]]:
    return {
        (r["relation_key"], r["source_id"], r["target_id"])
        for r in sandbox.store.list("relationship")
        if r["source_id"] in ids or r["target_id"] in ids
    }


def test_a_merge_of_two_records_with_links_both_ways_keeps_every_link_and_undoes_whole(
    world, sandbox, logged_in_client, monkeypatch
):
    service, key, people = world["service"], world["companies"]["key"], world["people"]["key"]
    post = service.post
    kept = post(f"/v1/objects/{key}/records", json={"values": {"name": "ACME Corp.", "seats": 10}})
    twin = post(
        f"/v1/objects/{key}/records",
        json={"values": {"name": "acme corp", "email": "Sales@Acme.io", "phone": "+1 555 010 2000", "seats": 12}},
    )
    other = post(f"/v1/objects/{key}/records", json={"values": {"name": "Globex"}})
    ann = post(f"/v1/objects/{people}/records", json={"values": {"name": "Ann"}})
    bob = post(f"/v1/objects/{people}/records", json={"values": {"name": "Bob"}})

    def link(source_object, source, relation, target_object, target):
        post(
            f"/v1/objects/{source_object}/records/{source['id']}/relationships",
            json={"relation_key": relation, "target": {"object": target_object, "id": target["id"]}},
        )

    link(key, twin, "parent", key, other)  # outgoing from the twin
    link(people, ann, "employer", key, twin)  # incoming to the twin
    link(people, bob, "employer", key, kept)  # the kept record's own
    link(key, kept, "sibling", key, twin)  # between the two: would link the kept record to itself

    # The candidates page finds the pair by name (case and punctuation aside).
    page = parse(logged_in_client.get(f"/objects/{key}/duplicates/?field=name").content)
    groups = select(page, ".duplicates-group")
    assert len(groups) == 1 and "2 records" in text_of(groups[0].select_one("h2"))
    merge_url = groups[0].select_one("a.btn")["href"]
    # From the record's page too: "Find duplicates of this record".
    record_page = parse(logged_in_client.get(f"/objects/{key}/records/{kept['id']}/").content)
    assert select(record_page, f"a[href='/objects/{key}/duplicates/?of={kept['id']}']")

    # Compare: the kept record's values by default, the twin's where the kept one is empty.
    page = parse(logged_in_client.get(merge_url).content)
    checked = {i["name"]: i["value"] for i in select(page, "#merge-compare input[type=radio]:checked")}
    assert checked["kept"] == kept["id"]
    assert (checked["use.name"], checked["use.email"], checked["use.seats"]) == (kept["id"], twin["id"], kept["id"])
    # The twin's seats chosen; the dry run says what changes.
    query = dict(checked) | {"use.seats": twin["id"], "review": "1", "ids": [kept["id"], twin["id"]]}
    page = parse(logged_in_client.get(f"/objects/{key}/merge/", query).content)
    said = text_of(page.select_one(".merge-review"))
    assert (
        "Email → Sales@Acme.io" in said
        and "Seats → 12" in said
        and "Name" not in said.split("Written")[1].split(".")[0]
    )
    assert "3 links moved" in said
    form = page.select_one(".merge-review form")
    data: dict = {}
    for field in form.select("input[type=hidden]"):
        data.setdefault(field["name"], []).append(field["value"])
    sent = run_jobs_inline(monkeypatch)
    with RemoteCallCounter() as counter:
        response = logged_in_client.post(form["action"], data)
        assert response.status_code == 302
        # A second press of the same form opens the same job.
        assert logged_in_client.post(form["action"], data)["Location"] == response["Location"]
        drain(sent)
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_MERGE)
    assert (job.status, job.total, job.succeeded, job.failed) == ("done", 2, 2, 0)
    # Reads: the definition at most, the kept record, the twin's links and the twin (kept in the trash).
    writes = [p for p in counter.paths if "/relationships" in p or p.endswith(twin["id"]) or p.endswith(kept["id"])]
    assert len(counter.paths) <= 14, counter.paths
    assert writes

    values = service.get(f"/v1/objects/{key}/records/{kept['id']}")["values"]
    assert (values["name"], values["email"], values["phone"], values["seats"]) == (
        "ACME Corp.",
        "Sales@Acme.io",
        "+1 555 010 2000",
        12,
    )
    assert TrashedRecord.objects.filter(record_id=twin["id"]).exists()
    assert _links(sandbox, kept["id"]) == {
        ("parent", kept["id"], other["id"]),
        ("employer", ann["id"], kept["id"]),
        ("employer", bob["id"], kept["id"]),
    }
    assert RecordChange.objects.filter(record_id=kept["id"], action="merge").exists()
    item = JobItem.objects.get(job=job, record_id=twin["id"])
    assert "2 links moved" in item.message and "1 link between the merged records left out" in item.message

    # Undo, whole: the kept record's values back, the twin back with all its links.
    page = parse(logged_in_client.get(f"/objects/jobs/{job.pk}/").content)
    key_input = select(page, "form[action$='/undo/'] input[name=idempotency_key]")[0]["value"]
    assert logged_in_client.post(f"/objects/jobs/{job.pk}/undo/", {"idempotency_key": key_input}).status_code == 302
    drain(sent)
    undo = ObjectJob.objects.get(kind=ObjectJob.KIND_UNDO)
    assert (undo.status, undo.total, undo.succeeded, undo.failed) == ("done", 2, 2, 0)
    values = service.get(f"/v1/objects/{key}/records/{kept['id']}")["values"]
    assert (values["name"], values.get("email"), values.get("phone"), values["seats"]) == ("ACME Corp.", None, None, 10)
    back = TrashedRecord.objects.get(record_id=twin["id"]).restored_id
    assert back
    assert service.get(f"/v1/objects/{key}/records/{back}")["values"]["email"] == "Sales@Acme.io"
    assert _links(sandbox, back) == {
        ("parent", back, other["id"]),
        ("employer", ann["id"], back),
        ("sibling", kept["id"], back),
    }
    # The copies on the kept record stay (no call removes a link), and the undo says so.
    page = parse(logged_in_client.get(f"/objects/jobs/{undo.pk}/").content)
    assert "no call that removes a link" in text_of(page.select_one(".job__failures"))


def test_the_merge_refuses_in_words_a_kept_record_changed_since_the_review(world, logged_in_client, monkeypatch):
    service, key = world["service"], world["companies"]["key"]
    kept = service.post(f"/v1/objects/{key}/records", json={"values": {"name": "Initech", "seats": 1}})
    twin = service.post(f"/v1/objects/{key}/records", json={"values": {"name": "INITECH", "seats": 2}})
    query = {"ids": [kept["id"], twin["id"]], "kept": kept["id"], "use.seats": twin["id"], "review": "1"}
    form = parse(logged_in_client.get(f"/objects/{key}/merge/", query).content).select_one(".merge-review form")
    data: dict = {}
    for field in form.select("input[type=hidden]"):
        data.setdefault(field["name"], []).append(field["value"])
    service.patch(f"/v1/objects/{key}/records/{kept['id']}", json={"values": {"seats": 5}})  # a colleague
    sent = run_jobs_inline(monkeypatch)
    logged_in_client.post(form["action"], data)
    drain(sent)
    job = ObjectJob.objects.get(kind=ObjectJob.KIND_MERGE)
    assert (job.status, job.succeeded) == ("done", 0)
    said = JobItem.objects.get(job=job, position=0).message
    assert "Changed since the compare page (Seats): nothing was merged." in said
    assert service.get(f"/v1/objects/{key}/records/{twin['id']}")["values"]["seats"] == 2  # not trashed
    assert service.get(f"/v1/objects/{key}/records/{kept['id']}")["values"]["seats"] == 5


def test_candidates_over_10000_records_read_within_the_budget_queries_flat(world, sandbox, logged_in_client, settings):
    settings.OBJECTS_DUPLICATES_PAGE_BUDGET = 50
    service, companies = world["service"], world["companies"]
    first = service.post(f"/v1/objects/{companies['key']}/records", json={"values": {"name": "Firm 0"}})
    workspace_id = sandbox.store.get("record", first["id"])["workspace_id"]
    url = f"/objects/{companies['key']}/duplicates/?field=name"
    logged_in_client.get(url)  # warm: the first request of a session does its own once-only queries
    measured = []
    for start, end in ((1, 1_000), (1_000, 10_000)):
        # Two of every 200 names alike ("Firm 7" and "FIRM 7."), the rest unique.
        sandbox.store.insert_many(
            "record",
            [
                {"object_id": companies["id"], "values": {"name": f"Firm {i // 200}" if i % 200 == 0 else f"Other {i}"}}
                for i in range(start, end)
            ]
            + [
                {"object_id": companies["id"], "values": {"name": f"FIRM {i // 200}."}}
                for i in range(start, end)
                if i % 200 == 0
            ],
            workspace_id=workspace_id,
        )
        with CaptureQueriesContext(connection) as queries, RemoteCallCounter() as counter:
            page = parse(logged_in_client.get(url).content)
        said = text_of(page.select_one("#duplicates-list [role=status]"))
        reads = [p for p in counter.paths if p.endswith("/records")]
        measured.append((len(queries), len(reads), len(select(page, ".duplicates-group")), said))
    (small_queries, small_reads, small_groups, small_said), (big_queries, big_reads, big_groups, big_said) = measured
    assert small_reads == 11 and "found among 1,004 records read" in small_said, small_said
    # At most the budget's 50 pages; a slow sandbox (a loaded machine) stops the reading sooner, said the same way.
    assert big_reads <= 50 and "found among the first" in big_said and "(the rest were not read)" in big_said, big_said
    assert small_groups == 4 and big_groups >= 4
    assert small_queries == big_queries  # flat: no query per record or per group
    print(
        f"\ncandidates: 1,004 records {small_reads} reads {small_queries} queries; 10,049 records {big_reads} reads (50 at most, 6 s of reading) {big_queries} queries"
    )
