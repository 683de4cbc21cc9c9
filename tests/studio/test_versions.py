"""A document's versions (issue #21, item 4), against the real sandbox: each
completed document turn keeps the content the service then had, once; two
versions compared as a readable diff; a version downloaded; a fork prefills
the home form. The browser test compares two versions in Chromium (axe
through the `page` fixture)."""

from __future__ import annotations

import re

import httpx
import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, expect

from dashboard.api.testing import RemoteCallCounter
from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from sandbox.studio import DIRECTOR_SECONDS
from studio.models import DocumentVersion
from studio.services import turn_continue, turn_start
from studio.versions import document_versions_keep, versions_diff
from tests.helpers import PASSWORD, fill_login_form
from tests.html import one, parse, select, text_of, textarea_value, texts
from tests.live.support import store_key

FIRST_BRIEF = "A one-pager for our spring bicycle sale: 20% off city bikes, free helmet with every bike."
SECOND_BRIEF = "Make it about e-bikes instead: 15% off e-bikes, a free lock with every e-bike, open Sundays."
DOCUMENT_DONE = DIRECTOR_SECONDS["document"] + 5


@pytest.fixture
def sandbox_key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return store_key(user, sandbox.demo_key)


@pytest.fixture(autouse=True)
def tasks_run_at_once(eager_celery):
    """The version's read is a task sent through the outbox: run inline here."""
    return eager_celery


def polled(sandbox, op: TrackedOperation) -> TrackedOperation:
    """The turn polled once through the poll service (the path a worker runs),
    after moving the sandbox's clock past the director's work; the tasks its
    commit sends (the version's read) run then, as a worker would."""
    sandbox.advance(service_seconds=DOCUMENT_DONE)
    with TestCase.captureOnCommitCallbacks(execute=True):
        result = operation_poll(operation_id=op.pk)
    assert result is not None
    return result


def revised_twice(sandbox, key) -> tuple[TrackedOperation, TrackedOperation]:
    """A document written, then revised in the same conversation: two completed turns."""
    first = polled(
        sandbox,
        turn_start(key=key, studio="document", message=FIRST_BRIEF, auto=True, idempotency_key=new_idempotency_key()),
    )
    assert (first.status, first.is_final) == ("completed", True)
    second = polled(
        sandbox,
        turn_continue(key=key, turns=[first], message=SECOND_BRIEF, auto=True, idempotency_key=new_idempotency_key()),
    )
    assert (second.status, second.is_final) == ("completed", True)
    return first, second


def test_a_document_revised_twice_keeps_two_versions_and_compares_them(db, sandbox, sandbox_key, logged_in_client):
    first, second = revised_twice(sandbox, sandbox_key)
    document_id = first.snapshot["artifact"]["id"]
    versions = list(DocumentVersion.objects.filter(document_id=document_id).order_by("created_at", "id"))
    assert [version.turn_id for version in versions] == [first.pk, second.pk]
    assert [version.revision for version in versions] == ["1", "2"]
    assert versions[0].asked == FIRST_BRIEF and versions[1].asked == SECOND_BRIEF
    assert "city bikes" in versions[0].content and "e-bikes" in versions[1].content

    url = reverse("studio:document_versions", args=[document_id])
    item = logged_in_client.get(reverse("studio:library_item", args=["documents", document_id])).content
    assert [a["href"] for a in select(item, ".page-header__actions a") if text_of(a) == "Versions"] == [url]
    listing = logged_in_client.get(url).content
    assert [name.split(",")[0] for name in texts(listing, ".studio-versions__name")] == ["Version 2", "Version 1"]
    assert "alice asked" in texts(listing, ".studio-versions li p.muted")[0]
    # The form starts at the newest change; sent, it shows the comparison.
    form = one(listing, "form.studio-compare")
    older = one(form, "select[name=older] option[selected]")["value"]
    newer = one(form, "select[name=newer] option[selected]")["value"]
    assert (int(older), int(newer)) == (versions[0].pk, versions[1].pk)

    with RemoteCallCounter() as calls:
        compared = logged_in_client.get(url, {"older": newer, "newer": older}).content  # either order reads forwards
    assert calls.count == 0  # versions are the console's own rows
    heading = text_of(one(compared, "#versions-comparison h3"))
    assert heading.startswith("From Version 1") and "to Version 2" in heading
    added = texts(compared, ".studio-diff__line--added")
    removed = texts(compared, ".studio-diff__line--removed")
    assert added and removed
    # Words for screen readers, not colour alone (a blank line reads "Added:" alone); a
    # line alike enough to the one it replaced is "Changed from/to:", its words marked.
    assert all(line.startswith(("Added:", "Changed to:")) for line in added)
    assert all(line.startswith(("Removed:", "Changed from:")) for line in removed)
    assert any("e-bike" in line for line in added) and any("city bikes" in line for line in removed)
    assert not any("e-bike" in line for line in removed)

    # The partial request swaps the comparison region only.
    partial = logged_in_client.get(url, {"older": older, "newer": newer}, headers={"HX-Request": "true"}).content
    assert [tag.get("id") for tag in parse(partial).find_all(recursive=False) if tag.name] == ["versions-comparison"]


def test_two_versions_side_by_side_read_as_they_were(db, sandbox, sandbox_key, logged_in_client):
    first, _second = revised_twice(sandbox, sandbox_key)
    document_id = first.snapshot["artifact"]["id"]
    older, newer = DocumentVersion.objects.filter(document_id=document_id).order_by("created_at", "id")
    url = reverse("studio:document_versions", args=[document_id])
    changes = logged_in_client.get(url, {"older": older.pk, "newer": newer.pk}).content
    layouts = {text_of(a): a for a in select(changes, ".studio-versions__layout a")}
    assert layouts["The changes"].get("aria-current") == "true"
    with RemoteCallCounter() as calls:
        side = logged_in_client.get(url + layouts["Side by side"]["href"]).content
    assert calls.count == 0
    assert not select(side, ".studio-diff")
    left, right = (
        text_of(one(column, "article.document-content")) for column in select(side, ".studio-takes-side__take")
    )
    assert "city bikes" in left and "e-bikes" not in left and "e-bikes" in right


def test_comparing_a_version_with_itself_says_so_in_place(db, sandbox, sandbox_key, logged_in_client):
    first, _ = revised_twice(sandbox, sandbox_key)
    version = DocumentVersion.objects.get(turn=first)
    url = reverse("studio:document_versions", args=[version.document_id])
    page = logged_in_client.get(url, {"older": version.pk, "newer": version.pk})
    assert page.status_code == 200
    assert "Pick two different versions to compare." in text_of(one(page.content, "#versions-comparison"))
    assert not select(page.content, ".studio-diff")


def test_a_version_is_read_copied_and_downloaded_as_it_was(db, sandbox, sandbox_key, logged_in_client):
    first, second = revised_twice(sandbox, sandbox_key)
    version = DocumentVersion.objects.get(turn=first)

    page = logged_in_client.get(reverse("studio:document_version", args=[version.pk])).content
    assert textarea_value(one(page, "textarea[data-copy-source]")) == version.content
    assert one(page, "button[data-copy-button]")
    assert "city bikes" in text_of(one(page, "article.document-content"))

    download = logged_in_client.get(reverse("studio:document_version_download", args=[version.pk]))
    assert download["Content-Type"] == "text/markdown; charset=utf-8"
    disposition = download["Content-Disposition"]
    assert disposition.startswith("attachment; filename=") and disposition.endswith('-revision-1.md"')
    assert download.content.decode() == version.content  # the first version, not the latest content
    assert "e-bikes" not in download.content.decode()


def test_polling_the_same_completed_turn_twice_keeps_one_version(db, sandbox, sandbox_key):
    first = polled(
        sandbox,
        turn_start(
            key=sandbox_key, studio="document", message=FIRST_BRIEF, auto=True, idempotency_key=new_idempotency_key()
        ),
    )
    assert DocumentVersion.objects.filter(turn=first).count() == 1

    # The poll of a final row does nothing; the hook called again (a retried
    # batch, the follower and the poller both seeing the end) reads nothing.
    with RemoteCallCounter() as calls:
        assert operation_poll(operation_id=first.pk) is not None
        assert document_versions_keep([first.pk]) == 0
        assert document_versions_keep([first.pk]) == 0
    assert calls.count == 0
    assert DocumentVersion.objects.filter(turn=first).count() == 1


def test_the_stream_follower_keeps_the_version_when_it_sees_the_result(
    db, sandbox, sandbox_key, eager_celery, django_capture_on_commit_callbacks
):
    """The other path to the end: the follower pushes the stream's result
    (no poll at all) and the version is kept then, once."""
    with django_capture_on_commit_callbacks(execute=True):
        op = turn_start(
            key=sandbox_key, studio="document", message=FIRST_BRIEF, auto=True, idempotency_key=new_idempotency_key()
        )
    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count) == ("completed", True, 0)
    version = DocumentVersion.objects.get(turn=op)
    assert version.document_id == op.snapshot["artifact"]["id"] and "city bikes" in version.content
    assert operation_poll(operation_id=op.pk) is not None  # final: nothing polled, nothing kept again
    assert DocumentVersion.objects.filter(turn=op).count() == 1


def test_a_turn_that_asks_a_question_keeps_no_version(db, sandbox, sandbox_key):
    asked = polled(
        sandbox,
        # A brief this short makes the sandbox's director ask first.
        turn_start(key=sandbox_key, studio="document", message="A short report", idempotency_key=new_idempotency_key()),
    )
    assert (asked.status, asked.is_final) == ("needs_input", True)
    assert not DocumentVersion.objects.exists()


def test_a_version_of_another_workspace_is_not_found(db, sandbox, sandbox_key, other_user, client):
    first, _ = revised_twice(sandbox, sandbox_key)
    version = DocumentVersion.objects.get(turn=first)
    store_key(other_user, "sk_other_secret_value_1234567890", workspace="Other Co")
    client.force_login(other_user)
    assert client.get(reverse("studio:document_version", args=[version.pk])).status_code == 404
    assert client.get(reverse("studio:document_version_download", args=[version.pk])).status_code == 404
    listing = client.get(reverse("studio:document_versions", args=[version.document_id])).content
    assert not select(listing, ".studio-versions li")


def test_a_fork_prefills_the_home_form_with_the_turns_message_and_studio(db, sandbox, sandbox_key, logged_in_client):
    _, second = revised_twice(sandbox, sandbox_key)
    chat = logged_in_client.get(reverse("studio:turn", args=[second.pk])).content
    fork = one(chat, f"#turn-{second.pk} .chat-bubble--person a")
    assert text_of(fork) == "Start a new conversation from this message"
    assert fork["href"] == f"{reverse('studio:index')}?from_turn={second.pk}"
    page = logged_in_client.get(fork["href"]).content
    assert textarea_value(one(page, "#turn-form textarea[name=message]")) == SECOND_BRIEF
    assert one(page, "#turn-form select[name=studio] option[selected]")["value"] == "document"
    # A new conversation: the document is not carried over.
    assert not select(page, "#turn-form input[name=artifact_id]")


def test_a_websites_turn_history_is_its_version_list(db, sandbox, sandbox_key, logged_in_client):
    from sandbox.studio import WEBSITE_BUILD_SECONDS

    op = turn_start(
        key=sandbox_key, studio="website", message="A page for our bike shop", auto=True, idempotency_key="site-1"
    )
    sandbox.advance(service_seconds=DIRECTOR_SECONDS["website"] + WEBSITE_BUILD_SECONDS)
    op = operation_poll(operation_id=op.pk)
    site_id = op.snapshot["artifact"]["id"]
    answer = logged_in_client.get(reverse("studio:artifact_history", args=["websites", site_id]))
    assert answer.status_code == 302 and answer["Location"] == reverse("studio:turn", args=[op.pk]) + f"#turn-{op.pk}"
    assert not DocumentVersion.objects.exists()  # a website keeps no content versions


def test_the_diff_folds_long_unchanged_runs():
    older = "\n".join(f"Line {n}" for n in range(40))
    newer = older.replace("Line 20", "Line twenty")
    lines = versions_diff(older, newer)
    assert [line.change for line in lines] == ["folded", "same", "same", "removed", "added", "same", "same", "folded"]
    assert lines[0].text == "18 unchanged lines"


# --- in Chromium -----------------------------------------------------------------------


@pytest.mark.browser
def test_two_versions_compared_in_the_browser(
    page: Page, live_server, sandbox, settings, transactional_db, django_user_model
):
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    key = store_key(user, sandbox.demo_key)
    first, _ = revised_twice(sandbox, key)
    document_id = first.snapshot["artifact"]["id"]

    page.goto(live_server.url + reverse("studio:document_versions", args=[document_id]))
    fill_login_form(page, "dora")
    expect(page.get_by_role("heading", name="Kept versions")).to_be_visible()
    # Newest first in both lists: from the first version to the second.
    page.get_by_label("From version").select_option(index=1)
    page.get_by_label("To version").select_option(index=0)
    # By keyboard (the two turns' "done" toasts sit over the page's lower corner right now).
    page.get_by_role("button", name="Compare").press("Enter")
    comparison = page.locator("#versions-comparison")
    expect(comparison.get_by_role("heading", level=3)).to_contain_text("From Version 1")
    expect(comparison.locator(".studio-diff__line--added").first).to_contain_text(re.compile("Added:|Changed to:"))
    expect(comparison.locator(".studio-diff__line--removed").first).to_contain_text(
        re.compile("Removed:|Changed from:")
    )

    # On a phone, the list and a version fit the screen: long button labels wrap inside the button.
    page.set_viewport_size({"width": 375, "height": 812})
    for url in (
        reverse("studio:document_versions", args=[document_id]),
        reverse("studio:document_version", args=[first_version_pk(document_id)]),
    ):
        page.goto(live_server.url + url)
        expect(page.locator("main h1").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url


def first_version_pk(document_id: str) -> int:
    from studio.models import DocumentVersion

    return (
        DocumentVersion.objects.filter(document_id=document_id).order_by("created_at").values_list("pk", flat=True)[0]
    )


# --- the read is a task with retries -------------------------------------------------

DOCUMENT_ID = "5b0e1f4a-0000-4000-8000-0000000000d1"


@pytest.fixture
def completed_document_turn(make_turn):
    op = make_turn(due=False)
    TrackedOperation.objects.filter(pk=op.pk).update(
        status="completed",
        is_final=True,
        snapshot={
            "id": op.remote_id,
            "status": "completed",
            "studio": "document",
            "artifact": {"id": DOCUMENT_ID, "type": "document", "name": "Spring sale"},
        },
        context={"studio": "document", "message": FIRST_BRIEF},
    )
    op.refresh_from_db()
    return op


def test_a_read_that_fails_twice_then_succeeds_keeps_exactly_one_version(
    db, remote, completed_document_turn, tasks_run_at_once
):
    from dashboard.outbox.models import OutboxMessage
    from studio.tasks import keep_document_version
    from studio.versions import KEEP_TASK

    op = completed_document_turn
    read = remote.get(f"/v1/documents/{DOCUMENT_ID}").mock(
        side_effect=[
            httpx.Response(503, json={"error": {"type": "server_error", "message": "Busy"}}),
            httpx.ConnectError("refused"),
            httpx.Response(
                200, json={"id": DOCUMENT_ID, "name": "Spring sale", "content": "# Spring\n", "revision": 1}
            ),
        ]
    )

    # The poll that saw the turn end sends the read as a task, through the outbox (not inline).
    assert document_versions_keep([op.pk]) == 1
    sent = OutboxMessage.objects.get(task_name=KEEP_TASK)
    assert (sent.args, sent.kwargs, read.call_count) == ([op.pk], {}, 0)

    # Each failure sends the same task again later, the wait growing: the schedule is a row.
    waits = []
    for attempt in (0, 1):
        before = timezone.now()
        assert keep_document_version(op.pk, attempt) == "later"
        again = OutboxMessage.objects.filter(task_name=KEEP_TASK, kwargs={"attempt": attempt + 1}).get()
        assert again.args == [op.pk]
        waits.append((again.run_at - before).total_seconds())
    assert 29 <= waits[0] < waits[1] and not DocumentVersion.objects.exists()

    assert keep_document_version(op.pk, 2) == "kept"
    version = DocumentVersion.objects.get()
    assert (version.turn_id, version.document_id, version.content) == (op.pk, DOCUMENT_ID, "# Spring\n")

    # Delivered once more (a message sent twice, the poller and the follower both seeing the end): nothing new.
    assert keep_document_version(op.pk, 0) == "kept"
    assert document_versions_keep([op.pk]) == 0
    assert read.call_count == 3 and DocumentVersion.objects.count() == 1


def test_a_refused_read_is_not_repeated_and_transient_ones_stop_after_the_last_attempt(
    db, remote, completed_document_turn, tasks_run_at_once
):
    from dashboard.outbox.models import OutboxMessage
    from studio.tasks import keep_document_version
    from studio.versions import KEEP_ATTEMPTS, KEEP_TASK

    op = completed_document_turn
    read = remote.get(f"/v1/documents/{DOCUMENT_ID}").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "No such document."}})
    )
    assert keep_document_version(op.pk) == "given up"
    read.mock(return_value=httpx.Response(500, json={"error": {"type": "server_error", "message": "Down"}}))
    assert keep_document_version(op.pk, KEEP_ATTEMPTS - 1) == "given up"
    assert not OutboxMessage.objects.filter(task_name=KEEP_TASK).exists()
    assert not DocumentVersion.objects.exists()
    # Not a document turn (or not this kind): nothing read.
    assert keep_document_version(op.pk + 1000) == "none"
    assert read.call_count == 2
