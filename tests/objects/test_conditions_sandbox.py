"""OR groups against the real sandbox over HTTP, over 10,000 records
(sandbox/fixtures.py sample_values): the CSV export, a chart's background
count and the records grid keep exactly the records a plain evaluation of
the values they were written with keeps; the grid, read within its page
budget, says how far it read; a saved view keeps the groups."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

from objects.models import SavedView
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import one, parse, select, text_of, texts
from tests.objects.support import PlainClient, console_on_sandbox, table_rows, tally_steps_inline

MANY = 10_000

pytestmark = pytest.mark.django_db

# Status is Lost (the service's exact filter), and (Stage is Won, or Seats < 300
# and Active), and (Amount > 500,000, or Close date before 2026-12-05).
QUERY = [
    ("f.status", "Lost"),
    ("or.1.1.f.stage", "Won"),
    ("or.1.2.op.seats", "lt"),
    ("or.1.2.f.seats", "300"),
    ("or.1.2.f.active", "true"),
    ("or.2.1.op.amount", "gt"),
    ("or.2.1.f.amount", "500000"),
    ("or.2.2.op.close_date", "before"),
    ("or.2.2.f.close_date", "2026-12-05"),
]


def kept(i: int) -> bool:
    values = sample_values(i)
    return (
        values["status"] == "Lost"
        and (values["stage"] == "Won" or (values["seats"] < 300 and values["active"]))
        and (values["amount"] > 500000 or values["close_date"] < "2026-12-05")
    )


REFERENCE = [i for i in range(MANY) if kept(i)]


@pytest.fixture
def console(sandbox, settings, logged_in_client, user):
    return console_on_sandbox(sandbox, settings, logged_in_client, user)


@pytest.fixture(scope="module")
def many(sandbox):
    obj = create_every_type_object(PlainClient(sandbox), name="Or deals")
    started = time.perf_counter()
    sandbox.insert_records(obj["id"], [sample_values(i) for i in range(MANY)])
    print(f"seeded {MANY} records in {time.perf_counter() - started:.1f} s; the reference keeps {len(REFERENCE)}")
    return obj


def test_the_export_keeps_exactly_the_reference_set(many, console):
    response = console.get(f"/objects/{many['key']}/records/export.csv?{urlencode(QUERY)}")
    assert response.status_code == 200
    lines = b"".join(response.streaming_content).decode().splitlines()
    names = sorted(line.split(",")[1] for line in lines[1:])
    assert names == sorted(f"Deal {i:03d}" for i in REFERENCE)
    assert 100 < len(REFERENCE) < MANY // 10  # a real narrowing: neither nothing nor everything


def test_a_chart_counts_exactly_the_reference_set(many, console, monkeypatch):
    url = f"/objects/{many['key']}/chart/?{urlencode([*QUERY, ('group', 'stage')])}"
    drain = tally_steps_inline(monkeypatch)
    region = select(parse(console.get(url).content), "#chart-region")[0]
    drain()
    poll = console.get(region["hx-get"], HTTP_HX_REQUEST="true")
    rows = {row[0]: row[-1] for row in table_rows(parse(poll.content))}
    expected: dict[str, int] = {}
    for i in REFERENCE:
        stage = sample_values(i)["stage"]
        expected[stage] = expected.get(stage, 0) + 1
    assert rows == {stage: f"{count:,}" for stage, count in expected.items()}


def test_the_grid_reads_within_its_budget_says_so_and_the_saved_view_keeps_the_groups(many, console, user):
    address = f"/objects/{many['key']}/records/"
    html = parse(console.get(address, [*QUERY, ("sort", "seats"), ("limit", "100")]).content)
    # The service answers "Status is Lost" (3,334 records, by seats); the console reads 10 pages of them.
    lost = [i for i in range(MANY) if sample_values(i)["status"] == "Lost"]
    within = [i for i in lost[:1000] if kept(i)]
    assert texts(html, "th.record-title a") == [f"Deal {i:03d}" for i in within]
    said = text_of(one(html, ".filter-read"))
    assert f"{len(within)} matches in the 1,000 records read (10 pages); refine the filters" in said
    summary = text_of(one(html, ".filter-summary"))
    assert "Stage is “Won” or (Seats < 300 and Active is Yes)" in summary
    assert "Amount > 500000 or Close date before 2026-12-05" in summary
    assert "Status is “Lost”" in summary

    saved = console.post(
        f"/objects/{many['key']}/views/save/",
        {"name": "Lost and won or small", "query": urlencode(QUERY)},
    )
    assert saved.status_code in (200, 302, 303)
    view = SavedView.objects.get(name="Lost and won or small")
    assert "or.1.2.op.seats=lt" in view.query and "or.2.2.f.close_date=2026-12-05" in view.query
