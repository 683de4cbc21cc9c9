"""The inbox page, the header count's poll and the toasts, from the console's
database alone: the items each area contributes (builder and director
questions, video requests, failed work), filters, who sees decide buttons,
and news shown once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agents.models import BuilderAnswer
from dashboard.audit.testing import make_approver
from dashboard.inbox import services
from dashboard.inbox.models import Notice, WaitingItem
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from tests.html import one, parse, select, text_of
from tests.inbox.support import AGENT_ID, APPROVAL_ID, HTMX, approval_body
from tests.live.support import SECRET, store_key


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


def stored_approval(workspace_id: str, **extra) -> WaitingItem:
    return WaitingItem.objects.create(
        workspace_id=workspace_id,
        source="agents",
        remote_id=f"approval:{extra.get('approval_id', APPROVAL_ID)}",
        kind="approval",
        data={"approval": approval_body(**extra), "agent_name": "Stale deal cleaner"},
        since=timezone.now() - timedelta(hours=2),
        settle_path=f"/v1/approvals/{extra.get('approval_id', APPROVAL_ID)}",
        refreshed_at=timezone.now(),
    )


def turn(key, *, remote_id: str, status: str, snapshot: dict | None = None, title: str = "A landing page", **context):
    op = operation_track(
        owner_key=key,
        kind="studio.turn",
        remote_id=remote_id,
        title=title,
        snapshot={"id": remote_id, "status": status, **(snapshot or {})},
        context={"studio": "website", **context},
    )
    final = status in ("completed", "needs_input", "failed")
    TrackedOperation.objects.filter(pk=op.pk).update(status=status, is_final=final)
    op.refresh_from_db()
    return op


def items_of(client: Client, **query) -> list:
    return select(parse(client.get(reverse("inbox:index"), query).content.decode()), "[data-inbox-item]")


def header_of(client: Client):
    return one(parse(client.get(reverse("home")).content.decode()), "#inbox-header")


# --- the header count and its poll ------------------------------------------------------------


def test_every_page_shows_the_count_and_its_poll_answers_204_while_nothing_changed(api_key, logged_in_client):
    stored_approval(api_key.workspace_id)
    header = header_of(logged_in_client)
    assert header.get("data-inbox-count") == "1"
    assert "Inbox" in text_of(one(header, "a")) and "(1 waiting for a person)" in text_of(one(header, "a"))
    assert one(header, "a").get("href") == reverse("inbox:index")

    poll = header.get("hx-get")
    assert logged_in_client.get(poll, **HTMX).status_code == 204

    stored_approval(api_key.workspace_id, approval_id="aaaaaaaa-0000-4000-8000-000000000009")
    changed = logged_in_client.get(poll, **HTMX)
    assert changed.status_code == 200
    assert one(parse(changed.content.decode()), "#inbox-header").get("data-inbox-count") == "2"


def test_a_full_page_keeps_the_count_under_its_version_and_follows_every_change(api_key, logged_in_client, monkeypatch):
    from dashboard.inbox import selectors

    stored_approval(api_key.workspace_id)
    assert header_of(logged_in_client).get("data-inbox-count") == "1"

    read = selectors.inbox_items
    reads = []
    monkeypatch.setattr(selectors, "inbox_items", lambda **kwargs: reads.append(kwargs) or read(**kwargs))
    # Nothing changed: the count kept under the version, no source read again.
    assert header_of(logged_in_client).get("data-inbox-count") == "1"
    assert reads == []

    # A new item, a turn of the person's own that failed, a dismissal: each is counted on the next page.
    stored_approval(api_key.workspace_id, approval_id="aaaaaaaa-0000-4000-8000-000000000009")
    assert header_of(logged_in_client).get("data-inbox-count") == "2"
    turn(api_key, remote_id="turn-failed", status="failed")
    assert header_of(logged_in_client).get("data-inbox-count") == "3"
    failed = next(item for item in read(viewer=_viewer(api_key)) if item.kind == "failed")
    logged_in_client.post(reverse("inbox:dismiss"), {"key": failed.key})
    assert header_of(logged_in_client).get("data-inbox-count") == "2"
    assert len(reads) == 4  # the three changed pages and the dismissal's own check


def _viewer(key):
    from dashboard.inbox.sources import InboxViewer

    return InboxViewer(user=key.user, workspace_id=key.workspace_id)


def test_the_poll_is_not_activity_and_counts_nothing_without_a_key(logged_in_client):
    from dashboard.inbox import views

    assert views.header.console_background is True
    header = parse(logged_in_client.get(reverse("inbox:header"), **HTMX).content.decode())
    assert one(header, "#inbox-header").get("data-inbox-count") == "0"
    page = parse(logged_in_client.get(reverse("inbox:index")).content.decode())
    assert "Add an API key" in text_of(one(page, ".empty-state"))


# --- what the areas contribute -------------------------------------------------------------------


def test_a_builders_questions_are_in_every_teammates_inbox(api_key, user, other_user):
    teammate_key = store_key(other_user, "svc_sk_team0123456789abcdefghijklmnopqrstuvwxyzABCD", "Acme Marketing")
    assert teammate_key.workspace_id == api_key.workspace_id
    BuilderAnswer.objects.create(
        workspace_id=api_key.workspace_id,
        agent_id=AGENT_ID,
        status="needs_input",
        message="A few questions first.",
        questions=[{"text": "Which mailbox should it watch?", "options": ["sales@", "support@"]}],
        asked_by=user,
    )
    teammate = Client()
    teammate.force_login(other_user)

    [item] = items_of(teammate)

    assert item.get("data-kind") == "question"
    assert "The agent builder asks 1 question: Which mailbox should it watch? (a draft agent)" in text_of(item)
    assert "Started by alice" in text_of(item)
    answer = one(item, "a[data-inbox-primary]")
    assert text_of(answer) == "Answer"
    assert answer.get("href") == reverse("agents:detail", args=[AGENT_ID]) + "#agent-change"


def test_a_directors_question_waits_until_a_later_turn_answers_it(api_key, logged_in_client):
    asked = turn(
        api_key,
        remote_id="turn-1",
        status="needs_input",
        snapshot={"questions": [{"text": "What colours?"}], "conversation_id": "conv-1"},
    )
    [item] = items_of(logged_in_client)
    assert item.get("data-kind") == "question"
    # Named by its brief: two turns waiting for an answer read apart.
    assert "The website director asks: What colours? (about “A landing page”)" in text_of(item)
    assert one(item, "a[data-inbox-primary]").get("href") == reverse("studio:turn", args=[asked.pk])

    turn(api_key, remote_id="turn-2", status="building", conversation_id="conv-1")
    assert items_of(logged_in_client) == []


def test_video_requests_and_failed_turns_and_old_failures_leave(api_key, logged_in_client):
    turn(
        api_key,
        remote_id="video-1",
        status="completed",
        snapshot={"video": {"pending_requests": [{"kind": "ai_shot"}, {"kind": "captions"}]}},
        title="Cut the spring teaser",
        studio="video",
    )
    failed = turn(api_key, remote_id="web-1", status="failed", snapshot={"error": {"message": "The build broke."}})
    old = turn(api_key, remote_id="web-2", status="failed")
    TrackedOperation.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=30))

    items = {item.get("data-kind"): text_of(item) for item in items_of(logged_in_client)}

    assert set(items) == {"video", "failed"}
    assert "2 video requests wait for your go-ahead (Cut the spring teaser)" in items["video"]
    assert "A website turn failed: The build broke." in items["failed"]
    assert failed.pk


def test_filters_by_kind_and_agent(api_key, logged_in_client):
    make_approver(api_key.user)
    stored_approval(api_key.workspace_id)
    turn(api_key, remote_id="web-1", status="failed")

    assert [item.get("data-kind") for item in items_of(logged_in_client)] == ["approval", "failed"]
    assert [item.get("data-kind") for item in items_of(logged_in_client, kind="failed")] == ["failed"]
    assert [item.get("data-kind") for item in items_of(logged_in_client, agent=AGENT_ID)] == ["approval"]
    # An unknown kind or agent is no filter at all.
    assert len(items_of(logged_in_client, kind="nonsense", agent="\x00")) == 2

    page = parse(logged_in_client.get(reverse("inbox:index"), {"kind": "approval"}).content.decode())
    tabs = {text_of(link): link.get("aria-current") for link in select(page, "nav[aria-label='Inbox by kind'] a")}
    assert tabs["Approvals (1)"] == "page" and "Failed (1)" in tabs
    options = [text_of(option) for option in select(page, "#inbox-agent-filter option")]
    assert options == ["Every agent", "Stale deal cleaner"]
    partial = logged_in_client.get(reverse("inbox:index"), {"kind": "failed"}, **HTMX).content.decode()
    region = parse(partial)
    assert [tag.get("id") for tag in region.find_all(recursive=False)] == ["inbox-list"]  # the region alone


# --- who may decide ----------------------------------------------------------------------------------


def test_a_non_approver_sees_the_approval_but_no_decide_button(api_key, logged_in_client):
    stored_approval(api_key.workspace_id)
    [item] = items_of(logged_in_client)
    assert select(item, "form") == [] and select(item, "button") == [] and select(item, "summary") == []
    assert "Only Approvers decide approvals" in text_of(item)


def test_a_viewer_sees_no_decide_button_even_as_an_approver(user, logged_in_client):
    key = store_key(user, SECRET, "Acme Marketing")
    key.member_role = "viewer"
    key.save()
    make_approver(user)
    stored_approval(key.workspace_id)
    [item] = items_of(logged_in_client)
    assert select(item, "form") == [] and select(item, "button") == []
    assert "Your role in this workspace is viewer" in text_of(item)


# --- notices (toasts) -------------------------------------------------------------------------------


def test_finished_work_is_announced_once_on_whatever_page(api_key, logged_in_client):
    header = header_of(logged_in_client)
    poll = header.get("hx-get")
    done = turn(api_key, remote_id="web-1", status="completed", title="Spring sale site")

    answer = logged_in_client.get(poll, **HTMX)
    assert answer.status_code == 200
    html = parse(answer.content.decode())
    toast = one(html, "[hx-swap-oob] .toast")
    assert toast.get("data-notice-text") == "Studio turn finished: Spring sale site"
    assert one(toast, "a").get("href") == reverse("studio:turn", args=[done.pk])
    assert Notice.objects.filter(operation=done, state="finished").count() == 1

    # Shown once: neither the next poll nor the next page shows it again.
    again = parse(logged_in_client.get(reverse("inbox:header"), **HTMX).content.decode())
    assert select(again, ".toast") == []
    assert select(parse(logged_in_client.get(reverse("home")).content.decode()), ".toast") == []


def test_failed_work_and_work_that_needs_the_person_are_announced(api_key, logged_in_client):
    turn(api_key, remote_id="web-1", status="failed", title="Broken site")
    turn(api_key, remote_id="web-2", status="needs_input", title="Ask me")
    page = parse(logged_in_client.get(reverse("home")).content.decode())
    toasts = sorted(toast.get("data-notice-text") for toast in select(page, "#toasts .toast"))
    assert toasts == ["Studio turn failed: Broken site", "Studio turn needs you: Ask me"]


def test_old_news_and_other_peoples_work_are_not_announced(api_key, other_api_key, logged_in_client):
    old = turn(api_key, remote_id="web-1", status="completed")
    TrackedOperation.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(hours=2))
    turn(other_api_key, remote_id="web-2", status="completed")
    page = parse(logged_in_client.get(reverse("home")).content.decode())
    assert select(page, ".toast") == []


def test_an_unchanged_poll_reads_four_rows_and_renders_nothing(api_key, logged_in_client, django_assert_num_queries):
    stored_approval(api_key.workspace_id)
    turn(api_key, remote_id="web-1", status="completed")
    poll = header_of(logged_in_client).get("hx-get")
    services.workspace_watched(api_key.workspace_id)  # marked moments ago: not again for WATCH_MARK_SECONDS

    # Session, user, the core's one statement (workspace, stored items, own
    # work), the builder's questions; no key query, nothing built or rendered.
    with django_assert_num_queries(4):
        answer = logged_in_client.get(poll, **HTMX)
    assert answer.status_code == 204 and answer.content == b""


def test_a_poll_marks_its_workspace_watched_with_one_statement_at_most_every_few_seconds(
    api_key, logged_in_client, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(services, "_marked", {})
    poll = header_of(logged_in_client).get("hx-get")
    with django_assert_num_queries(5):  # the four above, and the mark (one upsert)
        logged_in_client.get(poll, **HTMX)
    assert services.workspaces_watched() == [api_key.workspace_id]
    with django_assert_num_queries(4):  # marked a moment ago
        logged_in_client.get(poll, **HTMX)
    # Nobody looking for longer than INBOX_WATCHED_SECONDS: back to the interval's sweep only.
    later = timezone.now() + timedelta(seconds=31)
    assert services.workspaces_watched(now=later) == []


def test_a_person_dismisses_a_failure_for_themselves_not_an_approval(api_key, user, other_user, logged_in_client):
    from tests.inbox.support import FAILED_RUN_ID

    teammate_key = store_key(other_user, "svc_sk_team0123456789abcdefghijklmnopqrstuvwxyzABCD", "Acme Marketing")
    stored_approval(api_key.workspace_id)
    WaitingItem.objects.create(
        workspace_id=api_key.workspace_id,
        source="agents",
        remote_id=f"run:{FAILED_RUN_ID}",
        kind="failed",
        data={"run": {"id": FAILED_RUN_ID, "status": "failed"}, "agent_id": AGENT_ID, "agent_name": "Cleaner"},
        since=timezone.now(),
        refreshed_at=timezone.now(),
    )
    poll = header_of(logged_in_client).get("hx-get")
    [approval, failed] = items_of(logged_in_client)
    assert select(approval, "form[data-inbox-dismiss]") == []  # only a decision settles an approval
    form = one(failed, "form[data-inbox-dismiss]")
    key = one(form, "input[name=key]").get("value")

    answer = logged_in_client.post(form.get("action"), {"key": key}, **HTMX)
    assert answer.status_code == 200 and answer.content == b""  # the item leaves the list
    logged_in_client.post(form.get("action"), {"key": f"approval:{APPROVAL_ID}"}, **HTMX)

    assert [item.get("data-kind") for item in items_of(logged_in_client)] == ["approval"]
    assert logged_in_client.get(poll, **HTMX).status_code == 200  # the count changed
    teammate = Client()
    teammate.force_login(other_user)
    assert teammate_key.workspace_id == api_key.workspace_id
    assert [item.get("data-kind") for item in items_of(teammate)] == ["approval", "failed"]
