"""Access follows the key on every page (issue #30, item 1), over real HTTP
against a sandbox: a member whose key was revoked in the product sees none of
the workspace's data the console keeps once KEY_RECHECK_SECONDS have passed,
on every page, each saying why (the refusal, in words, pointing to API keys);
a 401 learnt by a page's own call refuses that same request; her teammate's
key still works and he still sees everything; beat's sweep marks her key
refused even if she never opens a page. The re-check adds at most one
/v1/me per person per interval, and none on an unchanged poll."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.api.testing import RemoteCallCounter
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.inbox.tasks import refresh_workspace
from dashboard.keys.models import ApiKey
from dashboard.keys.recheck import api_keys_recheck_due
from dashboard.live.services import operation_track
from dashboard.palette.search import KEY_REFUSED_NOTE
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.html import one, parse, select, text_of
from tests.inbox.support import HTMX, sandbox_member
from tests.keys.support import APPROVAL_TEXT, INTERVAL

TURN_TITLE = "Secret spring launch plan"
AUDIT_PATH = "/v1/objects/deals/records/secret-audit-row"
DOCUMENT_ID = "5b0e1f4a-0000-4000-8000-0000000000d1"


@pytest.fixture
def team(own_sandbox, settings, django_user_model):
    """Mona (Administrator, a demo key: admin) and Bob (Approver, a member's
    key) of one workspace; its approvals read into the console, a Studio
    document turn of Mona's and an audit entry kept."""
    settings.SERVICE_BASE_URL = own_sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    settings.KEY_RECHECK_SECONDS = INTERVAL
    mona = django_user_model.objects.create_user(username="mona", password="x" * 20)
    person_role_set(user=mona, role=Role.ADMINISTRATOR)
    bob = make_approver(django_user_model.objects.create_user(username="bob", password="y" * 20))
    mona_key = sandbox_member(mona, own_sandbox)
    bob_key = sandbox_member(bob, own_sandbox, "member")
    refresh_workspace(mona_key.workspace_id)
    turn = operation_track(
        owner_key=mona_key,
        kind="studio.turn",
        remote_id="turn-secret",
        title=TURN_TITLE,
        snapshot={
            "id": "turn-secret",
            "status": "completed",
            "studio": "document",
            "conversation_id": "conv-secret",
            "artifact": {"id": DOCUMENT_ID, "type": "document", "name": "Spring sale"},
        },
        context={"studio": "document", "message": TURN_TITLE},
    )
    AuditEntry.objects.create(
        user=mona, username="mona", workspace_id=mona_key.workspace_id, method="PATCH", path=AUDIT_PATH, status=200
    )
    yield mona, mona_key, bob, bob_key, turn
    for key in (mona_key, bob_key):
        own_sandbox.revoke_key(key.key_id, revoked=False)


def pages(turn) -> dict[str, tuple[str, str]]:
    """Every page the issue names, with the kept data it shows while the key works."""
    return {
        "Studio list": (reverse("studio:index"), TURN_TITLE),
        "inbox": (reverse("inbox:index"), APPROVAL_TEXT),
        "Home": (reverse("home"), APPROVAL_TEXT),
        "turn page": (reverse("studio:turn", args=[turn.pk]), TURN_TITLE),
        "palette": (reverse("palette") + "?" + urlencode({"q": "deals"}), APPROVAL_TEXT),
        "audit export": (reverse("audit:export"), AUDIT_PATH),
        "approvals queue": (reverse("agents:approvals"), APPROVAL_TEXT),
    }


def body_of(response) -> str:
    """The whole body, streamed (an export) or not."""
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def interval_passed(key) -> None:
    """Her last check is older than the interval (rather than waiting a minute)."""
    ApiKey.objects.filter(pk=key.pk).update(checked_at=timezone.now() - timedelta(seconds=INTERVAL + 1))


def assert_refused(response, key, what: str) -> None:
    """The refusal page: 401, the box in words with the refusal's request id and a link to API keys."""
    content = body_of(response)
    for secret in (TURN_TITLE, APPROVAL_TEXT, AUDIT_PATH):
        assert secret not in content, (what, secret)
    html = parse(content)
    key.refresh_from_db()
    assert key.refused_at is not None, what
    if what == "palette":
        # It still finds the console's pages; instead of the workspace's results it says why.
        assert response.status_code == 200
        assert KEY_REFUSED_NOTE in [text_of(note) for note in select(html, ".palette-results__note")]
        return
    assert response.status_code == 401, what
    box = one(html, "[data-remote-error]")
    assert box.get("data-error-kind") == "authentication", what
    assert box.get("data-request-id") == key.refused_request_id, what
    assert "API key" in text_of(box), what
    assert select(box, f'a[href="{reverse("keys:list")}"]'), what
    assert select(html, "#inbox-header") == [], what  # no count in the header


def test_after_the_interval_no_page_shows_her_the_workspace_and_each_says_why(own_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    browser = Client()
    browser.force_login(mona)
    for what, (url, secret) in pages(turn).items():
        assert secret in body_of(browser.get(url)), what  # while her key works

    own_sandbox.revoke_key(mona_key.key_id)
    for what, (url, _secret) in pages(turn).items():
        # Each page on its own: her key is as the console last knew it, its check due.
        ApiKey.objects.filter(pk=mona_key.pk).update(refused_at=None, refused_request_id="")
        interval_passed(mona_key)
        with RemoteCallCounter() as calls:
            response = browser.get(url)
        assert_refused(response, mona_key, what)
        assert calls.paths[0] == "/v1/me", what  # asked before anything was rendered
        assert calls.count == 1, what  # and then nothing more with her refused key

    # A fresh login changes nothing.
    fresh = Client()
    fresh.force_login(mona)
    assert_refused(fresh.get(reverse("inbox:index")), mona_key, "inbox")


def test_a_page_whose_own_call_is_refused_shows_the_refusal_not_the_kept_conversation(own_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    browser = Client()
    browser.force_login(mona)
    own_sandbox.revoke_key(mona_key.key_id)  # checked just now: no re-check is due

    with RemoteCallCounter() as calls:
        response = browser.get(reverse("studio:turn", args=[turn.pk]))

    assert calls.paths == [f"/v1/documents/{DOCUMENT_ID}"]  # the page's own read, answered 401
    assert_refused(response, mona_key, "turn page")


def test_her_teammate_keeps_seeing_everything_with_one_check_per_interval(own_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    own_sandbox.revoke_key(mona_key.key_id)
    interval_passed(mona_key)
    interval_passed(bob_key)
    mona_browser, bob_browser = Client(), Client()
    mona_browser.force_login(mona)
    bob_browser.force_login(bob)
    assert_refused(mona_browser.get(reverse("inbox:index")), mona_key, "inbox")

    # (The audit trail is an Administrator's and an Auditor's: Bob approves.)
    kept_pages = {what: page for what, page in pages(turn).items() if what not in ("turn page", "audit export")}
    with RemoteCallCounter() as calls:
        for what, (url, secret) in kept_pages.items():
            response = bob_browser.get(url)
            assert response.status_code == 200, what
            assert secret in body_of(response), what
    # Bob's key was due: asked once, on his first page; the rest of the interval asks nothing more.
    assert calls.paths.count("/v1/me") == 1
    bob_key.refresh_from_db()
    assert bob_key.refused_at is None and bob_key.checked_at > timezone.now() - timedelta(seconds=INTERVAL)

    # A teammate's key stays the inbox refresh's: her refused one is skipped.
    assert refresh_workspace(bob_key.workspace_id) > 0
    assert APPROVAL_TEXT in bob_browser.get(reverse("inbox:index")).content.decode()


def test_an_unchanged_poll_asks_nothing_and_a_changed_one_refuses_after_the_interval(own_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    browser = Client()
    browser.force_login(mona)
    home = parse(browser.get(reverse("home")).content.decode())
    poll_url = one(home, "#inbox-header").get("hx-get")  # carries the version the header shows
    own_sandbox.revoke_key(mona_key.key_id)
    interval_passed(mona_key)

    with RemoteCallCounter() as calls:
        unchanged = browser.get(poll_url, **HTMX)
    assert unchanged.status_code == 204 and calls.count == 0

    with RemoteCallCounter() as calls:
        changed = browser.get(reverse("inbox:header") + "?v=old", **HTMX)
    assert calls.paths == ["/v1/me"]
    assert changed.status_code == 286 and changed["HX-Retarget"] == "#messages"
    assert "data-inbox-count" not in changed.content.decode()


def test_beat_marks_a_departed_members_key_refused_though_she_opens_no_page(own_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    own_sandbox.revoke_key(mona_key.key_id)
    window = 300.0
    old = timezone.now() - timedelta(seconds=window + 1)
    ApiKey.objects.filter(pk__in=[mona_key.pk, bob_key.pk]).update(checked_at=old)

    with RemoteCallCounter() as calls:
        # Two keys, a window 20 runs long: one key a run, the oldest first.
        first = api_keys_recheck_due(window_seconds=window, run_seconds=window / 2)
        second = api_keys_recheck_due(window_seconds=window, run_seconds=window / 2)
        third = api_keys_recheck_due(window_seconds=window, run_seconds=window / 2)

    assert (first.asked, second.asked, third.asked) == (1, 1, 0)
    assert calls.paths == ["/v1/me", "/v1/me"]
    mona_key.refresh_from_db()
    bob_key.refresh_from_db()
    assert mona_key.refused_at is not None and bob_key.refused_at is None
    assert first.refused + second.refused == 1
