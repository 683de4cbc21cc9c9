"""Totals of a filtered table: page 1 tells the total when it can; otherwise a
background count (a tally with no group, objects/tallies.py) runs over the
sandbox's pages, each record checked against the conditions, is shown
as "about N" while it runs, polled from the database (204 unchanged, 286
final), kept for a short time, and shown only within the workspace."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from dashboard.jobs import engine
from dashboard.outbox.models import OutboxMessage
from objects import tallies
from objects.models import RecordTally
from tests.html import one, parse, text_of
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, page, record
from tests.objects.support import run_count, store_api_key

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def total_text(response) -> str:
    return text_of(one(parse(response.content), "#records-total"))


def test_a_first_page_that_is_all_tells_the_total_and_counts_nothing(deals, logged_in_client):
    html = parse(logged_in_client.get(f"/objects/{deals['key']}/records/", {"view": "all"}).content)
    assert text_of(one(html, ".records-count")) == "13 shown, that is all"
    assert not RecordTally.objects.exists()


def test_a_longer_filter_is_counted_in_the_background_and_polled(many_deals, logged_in_client):
    address = f"/objects/{many_deals['key']}/records/"
    # Seats above 3: every deal but 000 and 001 (30 of the 33 records, the bare one has none).
    query = {"op.seats": "gt", "f.seats": "3"}
    first = logged_in_client.get(address, query)
    row = RecordTally.objects.get()
    assert total_text(first) == "counting the total…"
    assert OutboxMessage.objects.filter(task_name="jobs.step", args=[tallies.KIND, row.pk]).exists()
    poll = one(parse(first.content), "#records-total")["hx-get"]
    assert poll.startswith(f"/objects/{many_deals['key']}/records/count/{row.pk}/?v=")

    assert logged_in_client.get(poll, **HTMX).status_code == 204  # nothing moved: nothing rendered
    run_count(row)
    assert (row.status, row.records_read) == (RecordTally.DONE, 30)
    final = logged_in_client.get(poll, **HTMX)
    assert final.status_code == 286  # htmx stops polling
    assert total_text(final) == "30 in all"

    # Another page of the same filter within the TTL: the same count, no new one.
    again = logged_in_client.get(address, {**query, "sort": "seats"})
    assert total_text(again) == "30 in all"
    assert RecordTally.objects.count() == 1
    assert OutboxMessage.objects.filter(task_name="jobs.step").count() == 1


def test_an_old_count_is_shown_as_about_n_while_counted_again(many_deals, logged_in_client, settings):
    address = f"/objects/{many_deals['key']}/records/"
    logged_in_client.get(address, {"view": "all"})
    row = run_count(RecordTally.objects.get())
    assert row.records_read == 33
    RecordTally.objects.filter(pk=row.pk).update(
        finished_at=timezone.now() - timedelta(seconds=settings.OBJECTS_COUNT_FRESH_SECONDS + 1)
    )
    assert total_text(logged_in_client.get(address, {"view": "all"})) == "about 33 in all (counting again)"
    assert run_count(row).records_read == 33


def test_a_count_belongs_to_its_workspace(many_deals, logged_in_client, django_user_model):
    logged_in_client.get(f"/objects/{many_deals['key']}/records/", {"view": "all"})
    row = RecordTally.objects.get()
    stranger = django_user_model.objects.create_user(username="stranger", password="a long password here")
    store_api_key(stranger)  # a key of another workspace
    logged_in_client.force_login(stranger)
    answer = logged_in_client.get(f"/objects/{many_deals['key']}/records/count/{row.pk}/", **HTMX)
    assert answer.status_code == 404


def test_a_failing_service_waits_then_a_refusal_ends_the_count_with_its_reason(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    listed = remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(200, json=page([record(f"r{i}", f"Deal {i}") for i in range(25)], next_cursor="c2"))
    )
    console.get(f"/objects/{OBJECT_KEY}/records/")
    row = RecordTally.objects.get()
    listed.mock(return_value=httpx.Response(503, json={"error": {"type": "server_error", "message": "down"}}))
    engine.job_step(tallies.KIND, row.pk)
    row.refresh_from_db()
    assert row.status == RecordTally.COUNTING  # a wait, sent again with a countdown
    assert OutboxMessage.objects.filter(task_name="jobs.step", run_at__isnull=False).exists()
    listed.mock(return_value=httpx.Response(401, json={"error": {"type": "authentication", "message": "revoked"}}))
    RecordTally.objects.filter(pk=row.pk).update(lease_until=timezone.now())  # the wait is over
    engine.job_step(tallies.KIND, row.pk)
    row.refresh_from_db()
    assert row.status == RecordTally.STOPPED
    assert tallies.total_text(row).startswith("the total could not be counted: ")
    assert "revoked" in row.message


def test_past_the_page_limit_the_total_says_at_least_n(many_deals, logged_in_client, settings, monkeypatch):
    monkeypatch.setattr(tallies, "PAGE_SIZE", 10)
    settings.OBJECTS_COUNT_MAX_PAGES = 2
    address = f"/objects/{many_deals['key']}/records/"
    logged_in_client.get(address, {"view": "all"})
    row = run_count(RecordTally.objects.get())
    assert (row.status, row.pages_read, row.records_read) == (RecordTally.STOPPED, 2, 20)
    assert total_text(logged_in_client.get(address, {"view": "all"})) == "at least 20 (the first 2 pages counted)"


def test_a_stopped_total_stays_until_it_is_as_old_as_a_fresh_one_then_counts_again(
    many_deals, logged_in_client, settings
):
    address = f"/objects/{many_deals['key']}/records/"
    logged_in_client.get(address, {"view": "all"})
    row = RecordTally.objects.get()
    RecordTally.objects.filter(pk=row.pk).update(
        status=RecordTally.STOPPED, message="The service kept failing.", finished_at=timezone.now()
    )
    stopped = total_text(logged_in_client.get(address, {"view": "all"}))
    assert stopped == "the total could not be counted: The service kept failing."
    RecordTally.objects.filter(pk=row.pk).update(
        finished_at=timezone.now() - timedelta(seconds=settings.OBJECTS_COUNT_FRESH_SECONDS + 1)
    )
    assert total_text(logged_in_client.get(address, {"view": "all"})) == "counting the total…"
    assert run_count(row).records_read == 33
