"""The audit feed: one JSON log line per stored entry on `console.audit`
(stable fields, never the key), and `/audit/feed`, the cursor-paged export
an Auditor pulls: oldest first over (created, id), so nothing is lost or
repeated while new entries arrive, in a flat number of queries per page."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from dashboard.api.hooks import RemoteWrite
from dashboard.audit.models import AuditEntry
from dashboard.audit.services import audit_account_event, audit_write_record
from dashboard.audit.testing import make_auditor
from dashboard.logging import JsonFormatter
from tests.live.support import SECRET

FIELDS = {"id", "at", "workspace", "actor_id", "actor_name", "kind", "area", "action", "via", "object", "words"}
FIELDS |= {"outcome", "status", "request_id"}


def entries(count: int, *, workspace_id: str, summary: str) -> None:
    AuditEntry.objects.bulk_create(
        AuditEntry(workspace_id=workspace_id, method="POST", path="/v1/agents", status=201, summary=f"{summary} {n}")
        for n in range(count)
    )


def feed_page(client, **query):
    response = client.get(reverse("audit:feed"), query)
    assert response.status_code == 200, response.content
    return response.json()


def test_each_stored_entry_is_one_json_line_with_stable_fields_and_never_the_key(
    api_key, user, caplog, django_capture_on_commit_callbacks
):
    write = RemoteWrite(
        method="POST",
        path="/v1/objects/deals/records",
        status=201,
        request_id="req_feed_1",
        idempotency_key="f" * 20,
        stored_key_id=api_key.pk,
        acting_user_id=user.pk,
        error="",
    )
    with caplog.at_level(logging.INFO, logger="console.audit"), django_capture_on_commit_callbacks(execute=True):
        entry = audit_write_record(write)
        audit_account_event(actor=user, subject=user, action="role_changed", summary="Made alice an Auditor")
    records = [record for record in caplog.records if record.name == "console.audit"]
    lines = [json.loads(JsonFormatter().format(record)) for record in records]

    assert len(lines) == 2
    first, second = lines
    assert FIELDS <= first.keys()
    assert (first["id"], first["workspace"], first["actor_id"], first["actor_name"]) == (
        entry.pk,
        api_key.workspace_id,
        user.pk,
        "alice",
    )
    assert (first["action"], first["object"], first["status"], first["outcome"]) == (
        "post",
        "/v1/objects/deals/records",
        201,
        "Done",
    )
    assert first["request_id"] == "req_feed_1" and first["words"]
    assert (second["kind"], second["action"], second["object"], second["words"]) == (
        "account",
        "role_changed",
        "alice",
        "Made alice an Auditor",
    )
    everything = json.dumps(lines)
    assert SECRET not in everything and api_key.masked not in everything and api_key.prefix not in everything


def test_a_rolled_back_write_leaves_no_line(db, caplog):
    with caplog.at_level(logging.INFO, logger="console.audit"):
        AuditEntry.objects.create(workspace_id="ws-x", method="POST", path="/v1/agents", status=201)
    assert [record for record in caplog.records if record.name == "console.audit"] == []  # never committed


def test_ten_thousand_entries_paged_while_new_ones_arrive_none_lost_none_repeated_queries_flat(
    api_key, user, logged_in_client, settings
):
    settings.AUDIT_FEED_SETTLE_SECONDS = 0
    make_auditor(user)
    workspace = api_key.workspace_id
    entries(10_000, workspace_id=workspace, summary="Before")
    # An hour ago, and a block of 2,000 sharing one instant: the id breaks ties.
    AuditEntry.objects.update(created_at=F("created_at") - timedelta(hours=1))
    tied = list(AuditEntry.objects.order_by("id").values_list("id", flat=True)[4000:6000])
    AuditEntry.objects.filter(id__in=tied).update(created_at=timezone.now() - timedelta(minutes=30))
    entries(30, workspace_id="another-workspace", summary="Elsewhere")

    seen: list[int] = []
    queries: list[int] = []
    cursor, pages = "", 0
    while True:
        with CaptureQueriesContext(connection) as captured:
            page = (
                feed_page(logged_in_client, after=cursor, limit=500)
                if cursor
                else feed_page(logged_in_client, limit=500)
            )
        queries.append(len(captured))
        seen += [line["id"] for line in page["entries"]]
        cursor, pages = page["next"], pages + 1
        if not page["entries"]:
            break
        if pages <= 25:
            entries(40, workspace_id=workspace, summary=f"Arrived after page {pages}")

    expected = set(AuditEntry.objects.filter(workspace_id=workspace).values_list("id", flat=True))
    assert len(seen) == len(set(seen)) == len(expected) == 10_000 + 25 * 40
    assert set(seen) == expected
    assert min(queries[:-1]) == max(queries[:-1])  # a page's queries do not grow with its depth
    assert feed_page(logged_in_client, after=cursor)["entries"] == []  # caught up: the same cursor, nothing new


def test_an_entry_waits_until_it_is_settled(api_key, user, logged_in_client, settings):
    """A young entry's transaction may still be committing behind an older
    stamp: the feed hands out nothing younger than AUDIT_FEED_SETTLE_SECONDS."""
    settings.AUDIT_FEED_SETTLE_SECONDS = 5
    make_auditor(user)
    entries(1, workspace_id=api_key.workspace_id, summary="Old")
    AuditEntry.objects.update(created_at=timezone.now() - timedelta(seconds=10))
    entries(1, workspace_id=api_key.workspace_id, summary="Young")

    page = feed_page(logged_in_client)
    assert [line["words"] for line in page["entries"]] == ["Old 0"]
    AuditEntry.objects.filter(summary="Young 0").update(created_at=timezone.now() - timedelta(seconds=6))
    assert [line["words"] for line in feed_page(logged_in_client, after=page["next"])["entries"]] == ["Young 0"]


def test_the_feed_follows_the_audit_role_and_refuses_a_cursor_it_did_not_make(api_key, user, logged_in_client):
    refused = logged_in_client.get(reverse("audit:feed"), headers={"Accept": "application/json"})
    assert refused.status_code == 403 and "Auditors" in refused.json()["message"]

    make_auditor(user)
    bad = logged_in_client.get(reverse("audit:feed"), {"after": "not-a-cursor"})
    assert bad.status_code == 400 and "not made by this console" in bad.json()["message"]
    assert feed_page(logged_in_client, limit="lots")["entries"] == []  # an unreadable limit is the default
