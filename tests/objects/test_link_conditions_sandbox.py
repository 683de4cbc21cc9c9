"""Conditions on a linked record's fields against the real sandbox over
HTTP, over 10,000 deals linked to 200 companies: the CSV export and the
records grid keep exactly the deals the sandbox's own records and links
say (read back from its store, not from how they were seeded), alone and
inside an OR group; the linked reads are made once per page, the same
number whatever the rows shown, never one per row; when the read budget
runs out, the page and the file say the result is partial, in words."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest
from django.core.cache import cache

from dashboard.api.testing import RemoteCallCounter
from objects import link_filters
from objects.models import SavedView
from objects.records import view_address
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of, texts
from tests.objects.support import PlainClient, console_on_sandbox, table_rows, tally_steps_inline

MANY = 10_000
COMPANIES = 200
INDUSTRIES = ["Tech", "Retail", "Health", "Energy", "Media"]

pytestmark = pytest.mark.django_db


def company_of(i: int) -> int | None:
    """The company deal i links to (every 17th deal links to none)."""
    return None if i % 17 == 0 else (i * 31) % COMPANIES


@pytest.fixture(scope="module")
def linked(sandbox):
    plain = PlainClient(sandbox)
    deals = create_every_type_object(plain, name="Linked deals")
    companies = plain.post(
        "/v1/objects",
        json={
            "singular_name": "Linked company",
            "plural_name": "Linked companies",
            "title_field": "name",
            "fields": [
                {"key": "name", "label": "Name", "type": "text"},
                {"key": "industry", "label": "Industry", "type": "select", "options": INDUSTRIES},
                {"key": "employees", "label": "Employees", "type": "number"},
            ],
        },
    )
    started = time.perf_counter()
    sandbox.insert_records(
        companies["id"],
        [
            {"name": f"Company {j:03d}", "industry": INDUSTRIES[(j * 7) % 5], "employees": (j * 37) % 1000}
            for j in range(COMPANIES)
        ],
    )
    sandbox.insert_records(deals["id"], [sample_values(i) for i in range(MANY)])
    deal_ids, company_ids = sandbox.record_ids(deals["id"]), sandbox.record_ids(companies["id"])
    pairs = [(deal_ids[i], company_ids[company]) for i in range(MANY) if (company := company_of(i)) is not None]
    sandbox.insert_links("company", deals["id"], companies["id"], pairs)
    print(f"seeded {MANY} deals, {COMPANIES} companies and {len(pairs)} links in {time.perf_counter() - started:.1f} s")
    return {"deals": deals, "companies": companies, "sandbox": sandbox}


def reference(linked, holds) -> list[str]:
    """The deals' names whose linked company's values `holds`, from the sandbox's own store."""
    store = linked["sandbox"].store
    companies = {
        doc["id"]: doc["values"] for doc in store.list("record", where={"object_id": linked["companies"]["id"]})
    }
    labels = {o["id"]: o["label"] for f in linked["companies"]["fields"] for o in f.get("options") or []}
    deals = {doc["id"]: doc["values"] for doc in store.list("record", where={"object_id": linked["deals"]["id"]})}
    kept = set()
    for link in store.list("relationship", where={"relation_key": "company", "source_object": linked["deals"]["key"]}):
        values = dict(companies[link["target_id"]])
        values["industry"] = labels.get(values.get("industry"), values.get("industry"))
        if holds(deals[link["source_id"]], values):
            kept.add(deals[link["source_id"]]["name"])
    return sorted(kept)


@pytest.fixture
def console(sandbox, settings, logged_in_client, user, monkeypatch):
    # The sandbox reads 10,000 records' JSON for every page and link list, far slower than
    # the service: time is not what these tests measure (the read budgets in calls are).
    settings.SERVICE_READ_BUDGET = 120.0
    monkeypatch.setattr(link_filters, "LINKED_SECONDS", 60.0)
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


def industry(linked) -> str:
    return f"link.company.{linked['companies']['key']}.industry"


def employees(linked) -> str:
    return f"link.company.{linked['companies']['key']}.employees"


def exported(console, linked, query) -> list[str]:
    response = console.get(f"/objects/{linked['deals']['key']}/records/export.csv?{urlencode(query)}")
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode().splitlines()


def names_of(lines: list[str]) -> list[str]:
    return sorted(line.split(",")[1] for line in lines[1:] if not line.startswith("# "))


def test_the_export_keeps_exactly_the_deals_whose_company_is_in_the_industry(linked, console):
    expected = reference(linked, lambda deal, company: company["industry"] == "Tech")
    lines = exported(console, linked, [(f"f.{industry(linked)}", "Tech")])
    assert [line for line in lines if line.startswith("# ")] == []  # neither stopped early nor partial
    assert names_of(lines) == expected
    assert MANY // 10 < len(expected) < MANY // 2  # a real narrowing


def test_an_or_group_mixing_a_linked_condition_with_the_records_own(linked, console):
    # Status is Lost, and (the company has more than 700 employees, or Stage is Won).
    query = [
        ("f.status", "Lost"),
        (f"or.1.1.op.{employees(linked)}", "gt"),
        (f"or.1.1.f.{employees(linked)}", "700"),
        ("or.1.2.f.stage", "Won"),
    ]
    linked_kept = set(reference(linked, lambda deal, company: company["employees"] > 700))
    own = {
        sample_values(i)["name"]
        for i in range(MANY)
        if sample_values(i)["status"] == "Lost" and sample_values(i)["stage"] == "Won"
    }
    lost = {sample_values(i)["name"] for i in range(MANY) if sample_values(i)["status"] == "Lost"}
    expected = sorted(own | (linked_kept & lost))
    lines = exported(console, linked, query)
    assert [line for line in lines if line.startswith("# ")] == []
    assert names_of(lines) == expected
    assert own - linked_kept and linked_kept & lost - own  # both branches keep deals of their own

    html = parse(console.get(f"/objects/{linked['deals']['key']}/records/", query).content)
    summary = text_of(one(html, ".filter-summary"))
    assert "Company › Employees > 700 or Stage is “Won”" in summary
    shown = texts(html, "th.record-title a")
    assert len(shown) == 25 and set(shown) <= set(expected)


def test_the_grid_reads_the_links_once_a_page_whatever_its_rows(linked, console):
    address = f"/objects/{linked['deals']['key']}/records/"
    query = [(f"f.{industry(linked)}", "Tech"), ("sort", "seats")]
    expected = reference(linked, lambda deal, company: company["industry"] == "Tech")
    tech = sum(1 for j in range(COMPANIES) if INDUSTRIES[(j * 7) % 5] == "Tech")
    paths = {}
    for limit in (25, 100):
        cache.clear()
        with RemoteCallCounter() as counter:
            html = parse(console.get(address, [*query, ("limit", str(limit))]).content)
        paths[limit] = list(counter.paths)
        by_seats = sorted(expected, key=lambda name: int(name.split()[1]))
        assert texts(html, "th.record-title a") == by_seats[:limit]
        assert not select(html, ".filter-partial")
    for limit, called in paths.items():
        links = [p for p in called if p.endswith("/relationships")]
        assert len(links) == tech, limit  # one per matching company, none per row
        assert all(f"/{linked['companies']['key']}/records/" in p for p in links)
        # The 40 companies in one page: "Industry is Tech" is the service's own exact filter.
        assert sum(p == f"/v1/objects/{linked['companies']['key']}/records" for p in called) == 1
    # Four times the rows: the same linked reads; only the deals' own pages grow.
    assert [p for p in paths[25] if "relationships" in p] == [p for p in paths[100] if "relationships" in p]


def test_past_the_read_budget_the_page_and_the_file_say_the_result_is_partial(linked, console, monkeypatch):
    monkeypatch.setattr(link_filters, "LINKED_LOOKUPS", 10)
    address = f"/objects/{linked['deals']['key']}/records/"
    query = [(f"f.{industry(linked)}", "Tech")]
    expected = set(reference(linked, lambda deal, company: company["industry"] == "Tech"))
    html = parse(console.get(address, [*query, ("limit", "100")]).content)
    said = text_of(one(html, ".filter-partial"))
    assert "the result is partial" in said
    assert "the links of only 10 of the 40 matching linked records were read" in said
    assert "a partial result" in text_of(one(html, ".records-count"))
    shown = texts(html, "th.record-title a")
    assert shown and set(shown) <= expected  # some of those that hold, never one that does not

    lines = exported(console, linked, query)
    kept = names_of(lines)
    assert set(kept) < expected
    assert lines[-1].startswith("# partial: Company › Industry: the result is partial")


def test_a_chart_counts_exactly_the_deals_of_the_linked_condition(linked, console, monkeypatch):
    url = f"/objects/{linked['deals']['key']}/chart/?{urlencode([(f'f.{industry(linked)}', 'Health'), ('group', 'stage')])}"
    drain = tally_steps_inline(monkeypatch)
    region = select(parse(console.get(url).content), "#chart-region")[0]
    drain()
    poll = console.get(region["hx-get"], HTTP_HX_REQUEST="true")
    rows = {row[0]: row[-1] for row in table_rows(parse(poll.content))}
    kept = reference(linked, lambda deal, company: company["industry"] == "Health")
    expected: dict[str, int] = {}
    for name in kept:
        stage = sample_values(int(name.split()[1]))["stage"]
        expected[stage] = expected.get(stage, 0) + 1
    assert rows == {stage: f"{count:,}" for stage, count in expected.items()}


def test_a_saved_view_and_every_look_keep_the_linked_condition(linked, console):
    key = linked["deals"]["key"]
    query = urlencode(
        [
            (f"f.{industry(linked)}", "Retail"),
            (f"op.{employees(linked)}", "lt"),
            (f"f.{employees(linked)}", "300"),
            ("sort", "seats"),
        ]
    )
    saved = console.post(f"/objects/{key}/views/save/", {"name": "Small retail", "query": query})
    assert saved.status_code in (200, 302, 303)
    view = SavedView.objects.get(name="Small retail")
    assert f"f.{industry(linked)}=Retail" in view.query.replace("%2E", ".")
    expected = set(reference(linked, lambda d, c: c["industry"] == "Retail" and c["employees"] < 300))
    html = parse(console.get(view_address(view)).content)
    shown = texts(html, "th.record-title a")
    assert shown and set(shown) <= expected
    looks = (
        ("gallery", "#look-filter", ".look-gallery__title"),
        ("kanban", "#kanban-filter", ".kanban-card__title"),
        ("calendar", "#look-filter", ""),
    )
    for look, said, card in looks:
        answer = console.get(f"/objects/{key}/{look}/?{query}")
        assert answer.status_code == 200, look
        page = parse(answer.content)
        assert "2 filters" in text_of(one(page, said)), look  # both linked conditions read
        if card:
            cards = texts(page, card)
            assert cards and set(cards) <= expected, look


def test_the_filter_bar_offers_the_linked_objects_fields_under_the_relationship(linked, console):
    key = linked["deals"]["key"]
    deal = linked["sandbox"].record_ids(linked["deals"]["id"])[1]
    assert console.get(f"/objects/{key}/records/{deal}/").status_code == 200  # its links seen: company → companies
    html = parse(console.get(f"/objects/{key}/records/", {"limit": "25"}).content)
    for picker in ('select[name="link.add"]', 'select[name="or.add"]'):
        groups = select(html, f"{picker} optgroup")
        assert [g["label"] for g in groups] == [f"Company ({linked['companies']['key']})"], picker
        assert texts(groups[0], "option") == ["Company › Name", "Company › Industry", "Company › Employees"]
    # Chosen in the picker: its control among the bar's, with the operators of its type.
    html = parse(console.get(f"/objects/{key}/records/", {"link.add": employees(linked)}).content)
    control = one(html, f'.filter-linked select[name="op.{employees(linked)}"]')
    assert "≥" in texts(control, "option")
    assert one(html, f'.filter-linked input[name="f.{employees(linked)}"]')


def test_a_bulk_action_over_the_filter_refuses_a_linked_condition(linked, console):
    key = linked["deals"]["key"]
    query = urlencode([(f"f.{industry(linked)}", "Tech")])
    html = parse(console.get(f"/objects/{key}/bulk/", {"scope": "filter", "query": query, "action": "edit"}).content)
    assert "cannot follow a condition on a linked record" in text_of(one(html, ".bulk-linked-refused"))
    posted = console.post(
        f"/objects/{key}/bulk/",
        {"scope": "filter", "query": query, "action": "delete", "step": "start", "checked": "x"},
    )
    assert "nothing was changed" in text_of(one(parse(posted.content), ".bulk-linked-refused"))
