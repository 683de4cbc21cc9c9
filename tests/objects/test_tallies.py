"""A count of records (objects/tallies.py) against a mocked service (respx):
what each value counts in, a 429 mid-chunk that is read again after its
wait without counting a page twice, a refused key that stops the count and
says why on the chart, and another workspace that never sees the row."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo

import httpx
import pytest
from django.utils import timezone

from dashboard.jobs import engine
from dashboard.keys.testing import stored_api_key
from objects import buckets, tallies
from objects.fields import field_defs
from objects.filters import RecordFilter
from objects.models import RecordTally
from tests.html import parse, select, text_of
from tests.jobs.support import finish_by_the_watch
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, error_body, page, record

pytestmark = pytest.mark.django_db

RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"
FIELDS = {f.key: f for f in field_defs(DEALS)}


def test_what_a_value_counts_in():
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    stage, tags, when, day = FIELDS["stage"], FIELDS["tags"], FIELDS["meeting_at"], FIELDS["close_date"]
    assert buckets.group_keys(stage, "Won", bucket="", zone=dt.UTC) == ["opt-won"]  # a label counts as its option
    assert buckets.group_keys(stage, {"id": "opt-lead", "label": "Lead"}, bucket="", zone=dt.UTC) == ["opt-lead"]
    assert buckets.group_keys(tags, ["opt-hot", "opt-vip"], bucket="", zone=dt.UTC) == ["opt-hot", "opt-vip"]
    assert buckets.group_keys(stage, None, bucket="", zone=dt.UTC) == [buckets.EMPTY]
    # 23:30 UTC on Sunday 30 November is Monday 1 December in Berlin: another day, week and month.
    late = "2026-11-30T23:30:00Z"
    assert buckets.group_keys(when, late, bucket=buckets.DAY, zone=berlin) == ["2026-12-01"]
    assert buckets.group_keys(when, late, bucket=buckets.WEEK, zone=berlin) == ["2026-11-30"]
    assert buckets.group_keys(when, late, bucket=buckets.MONTH, zone=dt.UTC) == ["2026-11"]
    assert buckets.group_keys(day, "2026-11-05", bucket=buckets.WEEK, zone=dt.UTC) == ["2026-11-02"]
    assert buckets.group_keys(day, "not a date", bucket=buckets.DAY, zone=dt.UTC) == [buckets.EMPTY]


@pytest.fixture
def steps(monkeypatch):
    sent: list[tuple[int, float | None]] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, tally_id, countdown=None: sent.append((tally_id, countdown)))
    return sent


def start(api_key) -> RecordTally:
    params = tallies.tally_params(
        record_filter=RecordFilter(), group=FIELDS["stage"], bucket="", value=FIELDS["amount"], zone_name=""
    )
    return tallies.tally_start(key=api_key, object_key=OBJECT_KEY, params=params)


def test_a_429_mid_chunk_is_read_again_after_its_wait_and_counts_nothing_twice(api_key, remote, steps):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    first = page([record("r1", "One", stage="opt-won", amount=10.5)], next_cursor="c2")
    second = page([record("r2", "Two", stage="opt-lead", amount=2), record("r3", "Three", amount=1)])
    limited = httpx.Response(429, headers={"Retry-After": "7"}, json=error_body("rate_limited", "Slow down"))
    listed = remote.get(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(200, json=first),
            limited,
            httpx.Response(200, json=first),
            httpx.Response(200, json=second),
        ]
    )
    tally = start(api_key)
    assert steps == [(tally.pk, None)]
    engine.job_step(tallies.KIND, tally.pk)
    tally.refresh_from_db()
    # The chunk's first page is not kept: the step waits Retry-After and reads it again.
    assert (tally.status, tally.pages_read, tally.groups, tally.transient_errors) == ("counting", 0, {}, 1)
    assert steps[-1] == (tally.pk, 7.0)
    # Until then the row stays leased: a step sent early (the watch) finds nothing to do.
    engine.job_step(tallies.KIND, tally.pk)
    assert len(listed.calls) == 2
    RecordTally.objects.filter(pk=tally.pk).update(lease_until=timezone.now())
    engine.job_step(tallies.KIND, tally.pk)
    tally.refresh_from_db()
    assert (tally.status, tally.pages_read, tally.records_read) == ("done", 2, 3)
    assert tally.groups == {"opt-won": [1, "10.5", 1], "opt-lead": [1, "2", 1], "": [1, "1", 1]}
    # Every page read the service's largest page, oldest first.
    params = listed.calls[0].request.url.params
    assert (params["limit"], params["sort"]) == ("100", "created_at")
    assert listed.calls[1].request.url.params["cursor"] == "c2"


def test_a_refused_key_stops_the_count_and_the_chart_says_why(api_key, console, remote, steps):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(403, json=error_body("forbidden", "This key may not read records."))
    )
    url = f"/objects/{OBJECT_KEY}/chart/?group=stage&measure=count"
    console.get(url)
    tally = RecordTally.objects.get()
    engine.job_step(tallies.KIND, tally.pk)
    html = parse(console.get(url).content)
    alert = text_of(select(html, "#chart-region [role=alert]")[0])
    assert alert.startswith("The count stopped:") and "This key may not read records." in alert
    assert "req_records_1" in alert
    assert select(html, "#chart-region a")[0]["href"].endswith("recount=1")


def test_another_workspace_never_sees_the_count(api_key, console, remote, steps):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    tally = start(api_key)
    stored_api_key(user=api_key.user, secret="svc_sk_" + "b" * 40, workspace_id="ws-other")
    poll = console.get(f"/objects/{OBJECT_KEY}/chart/{tally.pk}/status/?group=stage", HTTP_HX_REQUEST="true")
    assert poll.status_code == 404
    assert json.dumps(RecordTally.objects.get().groups) == "{}"


def test_a_count_whose_every_step_message_is_lost_is_finished_by_the_watch(api_key, remote, monkeypatch):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    first = page([record("r1", "One", stage="opt-won", amount=10.5)], next_cursor="c2")
    second = page([record("r2", "Two", stage="opt-lead", amount=2)])
    down = httpx.Response(503, json=error_body("server_error", "down"))
    remote.get(RECORDS_PATH).mock(side_effect=[httpx.Response(200, json=first), down, httpx.Response(200, json=second)])
    monkeypatch.setattr(tallies, "PAGES_PER_STEP", 1)
    tally = start(api_key)  # its first message stays in the outbox, never published
    # One step a page, and one wait (503) between them: each next message lost too.
    assert finish_by_the_watch(monkeypatch, tally) == 3
    tally.refresh_from_db()
    assert (tally.status, tally.pages_read, tally.records_read) == ("done", 2, 2)
    assert tally.groups == {"opt-won": [1, "10.5", 1], "opt-lead": [1, "2", 1]}
