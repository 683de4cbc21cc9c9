"""The audit trail: the transport's write hook records every remote write
once (with who, which key, the outcome), the Audit page shows it to
Auditors and Administrators only, filtered and exported as CSV, and retention prunes it."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.models import AuditEntry
from dashboard.audit.services import area_of, audit_prune
from dashboard.audit.testing import make_approver, make_auditor
from tests.html import one, parse, text_of, texts
from tests.live.support import SECRET
from tests.write_guard import refusal_of


def test_every_remote_write_is_recorded_once_with_who_and_which_key(remote, api_key, user):
    route = remote.post("/v1/objects/deals/records").mock(
        side_effect=[
            httpx.Response(503, json={"error": {"type": "server_error", "message": "busy"}}),
            httpx.Response(201, json={"id": "r1"}, headers={"X-Request-Id": "req_created"}),
        ]
    )
    api_key.client().post("/v1/objects/deals/records", json={"values": {"name": "Ada"}}, idempotency_key="k" * 20)
    # The same logical write again (a double submit): the same entry, not a second one.
    route.side_effect = None
    route.return_value = httpx.Response(201, json={"id": "r1"}, headers={"X-Request-Id": "req_replayed"})
    api_key.client().post("/v1/objects/deals/records", json={"values": {"name": "Ada"}}, idempotency_key="k" * 20)

    entry = AuditEntry.objects.get()
    assert (entry.user, entry.username, entry.area, entry.kind) == (user, "alice", "objects", "write")
    assert (entry.method, entry.path, entry.status) == ("POST", "/v1/objects/deals/records", 201)
    assert entry.request_id == "req_replayed" and entry.idempotency_key == "k" * 20
    assert entry.key_label == f"{api_key.label} ({api_key.masked})" and SECRET not in entry.key_label
    assert entry.workspace_id == api_key.workspace_id


def test_reads_are_not_recorded_and_a_failed_write_is_with_no_answer(remote, api_key):
    remote.get("/v1/me").mock(return_value=httpx.Response(200, json={}))
    remote.delete("/v1/objects/deals/records/r1").mock(side_effect=httpx.ConnectError("down"))
    api_key.client().get("/v1/me")
    with pytest.raises(Exception):  # noqa: B017 - the transport's typed error; the entry is what is checked
        api_key.client(max_retries=0).delete("/v1/objects/deals/records/r1", idempotency_key="d" * 20)

    entry = AuditEntry.objects.get()
    assert (entry.method, entry.status, entry.details) == ("DELETE", None, {"error": "ApiConnectionError"})


def entry(**fields) -> AuditEntry:
    defaults = {"workspace_id": "ws-Acme Marketing", "method": "POST", "path": "/v1/agents", "status": 201}
    return AuditEntry.objects.create(**{**defaults, **fields})


def test_the_audit_page_is_for_auditors_not_approvers(api_key, user, logged_in_client):
    response = logged_in_client.get(reverse("audit:index"))
    assert response.status_code == 403
    assert refusal_of(parse(response.content)) == (
        "Your console role is Member. Only Auditors and Administrators read the audit trail. "
        "Ask an administrator to make you an Auditor (People page)."
    )
    assert "Audit" not in texts(parse(logged_in_client.get(reverse("home")).content), "nav.main-nav a")

    # An Approver decides approvals; reading the trail is the Auditor's (issue #18's table).
    make_approver(user)
    assert logged_in_client.get(reverse("audit:index")).status_code == 403

    make_auditor(user)
    assert logged_in_client.get(reverse("audit:index")).status_code == 200
    assert "Audit" in texts(parse(logged_in_client.get(reverse("home")).content), "nav.main-nav a")


def test_the_audit_page_filters_by_person_area_kind_and_date(api_key, user, logged_in_client):
    make_auditor(user)
    old = entry(username="alice", area="agents", summary="Last year")
    AuditEntry.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=400))
    entry(username="alice", area="agents", summary="Created an agent")
    entry(username="bob", area="objects", summary="Changed a record")
    entry(username="alice", area="approvals", kind=AuditEntry.KIND_DECISION, summary="Approved: Send", note="ok")
    entry(workspace_id="another-workspace", username="alice", area="agents", summary="Elsewhere")
    url = reverse("audit:index")

    def summaries(**query) -> list[str]:
        page = parse(logged_in_client.get(url, query).content)
        return [
            text_of(cell).split(" The request ")[0] for cell in page.select("#audit-entries tbody td:nth-of-type(3)")
        ]

    assert summaries() == [
        "approvals decision Approved: Send",
        "objects Changed a record",
        "agents Created an agent",
        "agents Last year",
    ]
    assert summaries(person="bob") == ["objects Changed a record"]
    assert summaries(area="agents", since=(timezone.now() - timedelta(days=30)).date().isoformat()) == [
        "agents Created an agent"
    ]
    assert summaries(kind="approval_decision") == ["approvals decision Approved: Send"]
    assert summaries(since="not a date") == summaries()  # an unreadable filter is left out


def test_the_audit_pages_page_back_and_forth_newest_first(api_key, user, logged_in_client):
    make_auditor(user)
    for number in range(55):
        entry(username="alice", summary=f"Write {number:02d}")
    first = parse(logged_in_client.get(reverse("audit:index")).content)
    assert len(first.select("#audit-entries tbody tr")) == 50
    older = one(first, "nav.pager a[rel=next]")["href"]
    second = parse(logged_in_client.get(reverse("audit:index") + older).content)
    rows = [text_of(cell) for cell in second.select("#audit-entries tbody td:nth-of-type(3)")]
    assert len(rows) == 5 and rows[-1].startswith("other Write 00")
    assert one(second, "nav.pager a[rel=prev]")


def test_the_export_is_the_filtered_trail_with_formulas_neutralised(api_key, user, logged_in_client):
    make_auditor(user)
    entry(username="alice", area="agents", summary="Created an agent")
    entry(username="bob", area="objects", summary='=HYPERLINK("http://evil")', note="+1 and more")
    response = logged_in_client.get(reverse("audit:export"), {"person": "bob"})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode().lstrip("\ufeff"))))

    assert response["Content-Type"].startswith("text/csv") and response["Cache-Control"] == "no-store"
    assert rows[0][:2] == ["When (UTC)", "Person"] and len(rows) == 2
    assert rows[1][1] == "bob" and rows[1][10] == '\'=HYPERLINK("http://evil")' and rows[1][11] == "'+1 and more"


def test_retention_prunes_old_entries_only(db, settings):
    recent, old = entry(summary="recent"), entry(summary="old")
    AuditEntry.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))
    settings.AUDIT_RETENTION_DAYS = 30
    assert audit_prune() == 1
    assert list(AuditEntry.objects.values_list("summary", flat=True)) == ["recent"]
    settings.AUDIT_RETENTION_DAYS = 0
    assert audit_prune() == 0 and AuditEntry.objects.filter(pk=recent.pk).exists()


def test_users_cannot_change_or_delete_entries_in_the_admin(admin_client):
    item = entry(summary="kept")
    assert admin_client.get(reverse("admin:audit_auditentry_change", args=[item.pk])).status_code == 200
    assert (
        admin_client.post(reverse("admin:audit_auditentry_delete", args=[item.pk]), {"post": "yes"}).status_code == 403
    )
    assert AuditEntry.objects.filter(pk=item.pk).exists()


@pytest.mark.parametrize(
    ("path", "area"),
    [
        ("/v1/agents/a1/runs", "agents"),
        ("/v1/runs/r1/rerun", "agents"),
        ("/v1/approvals/p1", "approvals"),
        ("/v1/objects/deals/records", "objects"),
        ("/v1/studio/website/turns", "studio"),
        ("/v1/images/i1", "studio"),
        ("/v1/something-new/x", "something-new"),
    ],
)
def test_a_write_is_filed_under_the_area_that_declares_its_resource(path, area):
    # The core names no area: each Area declares its remote resources (dashboard/frame/areas.py).
    assert area_of(path) == area


def agent_writes(api_key) -> tuple[str, str]:
    """Four writes of Agents and Approvals, one agent of them named (the insights refresh's)."""
    from agents.live import INVOCATION_KIND
    from agents.models import InsightsRefresh
    from dashboard.live.services import operation_track

    agent_id, unknown = "995f7252-0000-4000-8000-000000000001", "995f7252-0000-4000-8000-000000000002"
    InsightsRefresh.objects.create(workspace_id=api_key.workspace_id, agent_names={agent_id: "Lead qualifier"})
    operation_track(
        owner_key=api_key, kind=INVOCATION_KIND, remote_id="m" * 32, title="Qualify Ada from Initech", context={}
    )
    runs = f"/v1/agents/{agent_id}/runs"
    workspace = {"workspace_id": api_key.workspace_id, "username": "alice"}
    entry(**workspace, path=runs, idempotency_key="m" * 32, summary=f"Created or sent agents/{agent_id}/runs")
    entry(**workspace, path=f"/v1/agents/{unknown}/pause", summary=f"Created or sent agents/{unknown}/pause")
    entry(**workspace, path="/v1/approvals/a1", status=409, summary="Created or sent approvals/a1")
    entry(
        **workspace,
        path=f"/v1/agents/{agent_id}/activate",
        status=None,
        summary=f"Created or sent agents/{agent_id}/activate",
    )
    return agent_id, runs


def test_agent_writes_read_in_words_with_the_agent_by_name_and_the_outcome(api_key, user, logged_in_client):
    make_auditor(user)
    agent_id, runs = agent_writes(api_key)

    page = parse(logged_in_client.get(reverse("audit:index")).content)
    rows = page.select("#audit-entries tbody tr")
    assert [text_of(one(row, ".audit-words")) for row in rows] == [
        "Activated Lead qualifier",
        "Tried to decide an approval: it was already decided",
        "Paused an agent",
        "Sent a message to Lead qualifier: “Qualify Ada from Initech”",
    ]
    assert [text_of(one(row, ".audit-outcome")) for row in rows] == [
        "No answer from the service",
        "Refused: already done or changed elsewhere (409)",
        "Done (201)",
        "Done (201)",
    ]
    # The request stays beside the words, out of the line; no id is in the words.
    assert all(agent_id not in text_of(one(row, ".audit-words")) for row in rows)
    assert text_of(one(rows[3], ".audit-request code")) == f"POST {runs}"


def test_agent_writes_read_in_the_readers_language_with_names_and_messages_as_kept(api_key, user, logged_in_client):
    """The lines are made when the page renders: in German for a German
    reader; the agent's name and the message sent stay as they were kept."""
    make_auditor(user)
    agent_writes(api_key)

    page = parse(logged_in_client.get(reverse("audit:index"), HTTP_ACCEPT_LANGUAGE="de").content)

    assert [text_of(one(row, ".audit-words")) for row in page.select("#audit-entries tbody tr")] == [
        "Hat Lead qualifier aktiviert",
        "Wollte eine Freigabe entscheiden: Sie war bereits entschieden",
        "Hat einen Agenten pausiert",
        "Hat eine Nachricht an Lead qualifier gesendet: „Qualify Ada from Initech“",
    ]
