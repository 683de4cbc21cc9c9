"""Constants and helpers of the Objects view tests: the fake service address
(mocked by `remote`, tests/conftest.py), its key and workspace, and storing
that key for a user."""

from __future__ import annotations

import httpx
from django.test import Client

from dashboard.api import ServiceClient
from dashboard.jobs import engine
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.html import select, text_of, texts

SERVICE_URL = "https://service.objects.test"
SECRET = "svc_sk_objs0123456789abcdefghijklmnopqrstuvwxyzABCD"
WORKSPACE_ID = "ws-objects-1"


def store_api_key(user, secret: str = SECRET, *, workspace_id: str = WORKSPACE_ID, timezone: str = "UTC"):
    from dashboard.keys.testing import stored_api_key

    return stored_api_key(
        user=user,
        secret=secret,
        label="Objects key",
        workspace_id=workspace_id,
        workspace_name="Acme Objects",
        workspace_timezone=timezone,
        key_id=f"key-{user.pk}-{workspace_id}",
    )


def record_row(html, record_id: str):
    """The records grid's row of a record: the one whose title links to it
    (a row says its address once, in its title link: objects/table.py)."""
    from tests.html import select

    rows = [
        row
        for row in select(html, "table.records tbody:not(.records-more) tr")
        if any(link["href"].startswith(f"./{record_id}/") for link in row.select("th.record-title a[href]"))
    ]
    assert len(rows) == 1, f"{len(rows)} rows of {record_id}"
    return rows[0]


def grid_cell_text(html) -> str:
    """What a saved cell shows (its swap's markup) without the message sent beside it out of band."""
    from tests.html import parse, text_of

    tree = parse(html)
    for extra in tree.select("[hx-swap-oob]"):
        extra.decompose()
    return text_of(tree)


def every_type_object_with_records(sandbox, settings, user, count: int) -> dict:
    """An object of the sandbox with one field of each type and `count`
    records of sample values, the console pointed at the sandbox and `user`
    holding its demo key. Returns the object."""

    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    for i in range(count):
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
    store_sandbox_key(user, service, sandbox.demo_key)
    return obj


def session_cookie(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}


def record_url(grid, index: int) -> str:
    return f"{grid['server'].url}/objects/{grid['key']}/records/{grid['records'][index]['id']}/"


def run_count(row):
    """A count (objects/tallies.py) stepped by the worker's own code until it is final."""
    from dashboard.jobs import engine
    from objects import tallies

    for _ in range(20):
        engine.job_step(tallies.KIND, row.pk)
        row.refresh_from_db()
        if row.is_final:
            return row
    raise AssertionError("the count never finished")


DEAL = "Deal {:03d}"


def shown(response) -> list[str]:
    """The titles of the records a records page shows, sorted."""
    assert response.status_code == 200
    return sorted(texts(response.content, "th.record-title a"))


def deals_named(*numbers: int, bare: bool = False) -> list[str]:
    """The titles of the seeded deals of these numbers (and the bare record), sorted."""
    return sorted([DEAL.format(n) for n in numbers] + (["Bare"] if bare else []))


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


class PlainClient:
    """The sandbox spoken to without the console (module fixtures make their
    objects before any test's settings or database exist)."""

    def __init__(self, sandbox):
        self.http = httpx.Client(base_url=sandbox.base_url, headers={"Authorization": f"Bearer {sandbox.demo_key}"})

    def post(self, path: str, json: dict) -> dict:
        response = self.http.post(path, json=json)
        response.raise_for_status()
        return response.json()


def tally_steps_inline(monkeypatch):
    """A tally's step task, run in this thread: the `drain()` returned runs
    every step sent, in order, and says how many."""
    from objects import tallies

    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, tally_id, countdown=None: sent.append(tally_id))

    def drain() -> int:
        steps = 0
        while sent:
            engine.job_step(tallies.KIND, sent.pop(0))
            steps += 1
        return steps

    return drain


def table_rows(html) -> list[list[str]]:
    return [[text_of(c) for c in row.find_all(["th", "td"])] for row in select(html, ".look-chart__table tbody tr")]


def console_on_sandbox(sandbox, settings, client, user):
    """The logged-in test client speaking to this sandbox with its demo key stored."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    store_sandbox_key(user, ServiceClient(api_key=sandbox.demo_key), sandbox.demo_key)
    return client


def grid_cell(page, row_title: str, column: str):
    """The records grid's cell of a record (by its title) and a column (by its heading), in Chromium."""
    headers = page.locator("table.records thead th").all_inner_texts()
    index = [h.strip().rstrip("▲▼ ").strip() for h in headers].index(column)
    row = page.locator(
        "table.records tbody:not(.records-more) tr", has=page.get_by_role("link", name=row_title, exact=True)
    )
    return row.locator("th, td").nth(index)


def comment_on_record(user, body: str = "Hello", *, workspace_id: str = WORKSPACE_ID):
    """A comment of `user` on records_fixtures' Acme deal (objects.RecordComment), made directly."""
    from objects.models import RecordComment
    from tests.objects.records_fixtures import OBJECT_KEY, RECORD_ID

    return RecordComment.objects.create(
        workspace_id=workspace_id,
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
        author=user,
        author_name=user.get_username(),
        body=body,
    )
