"""The inbox against a real sandbox over HTTP: the refresh task reads the
workspace's pending approvals into the console, and from then on the inbox
page and the header count, for any number of viewers, read only the console's
database."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.audit.testing import make_approver
from dashboard.inbox.models import WaitingItem
from dashboard.inbox.tasks import refresh_workspace
from tests.html import parse, select, text_of
from tests.inbox.support import sandbox_member


@pytest.fixture
def manager(inbox_sandbox, settings, django_user_model):
    settings.SERVICE_BASE_URL = inbox_sandbox.base_url
    user = make_approver(django_user_model.objects.create_user(username="mona", password="x" * 20))
    key = sandbox_member(user, inbox_sandbox)
    return user, key


def test_the_refresh_reads_pending_approvals_and_the_inbox_shows_them(manager, client):
    user, key = manager
    refresh_workspace(key.workspace_id)

    approvals = WaitingItem.objects.filter(workspace_id=key.workspace_id, kind="approval")
    assert approvals.count() >= 2
    assert all(item.settle_path.startswith("/v1/approvals/") for item in approvals)

    client.force_login(user)
    html = parse(client.get(reverse("inbox:index")).content.decode())
    items = select(html, "[data-inbox-item]")
    titles = [text_of(item) for item in items]
    assert any("Delete records in deals." in title for title in titles)
    assert any("Send the email" in title for title in titles)
    # Each says who started it and how long it has waited, and an Approver is led to
    # exactly that approval's card in the queue, where its exact input sits beside the buttons.
    destructive = next(item for item in items if "Delete records in deals." in text_of(item))
    assert "Started by the agent Stale deal cleaner" in text_of(destructive)
    assert select(destructive, "time")
    decide = select(destructive, "a[data-inbox-primary]")
    assert [text_of(link) for link in decide] == ["Decide"]
    assert decide[0]["href"].startswith(reverse("agents:approvals")) and "approval=" in decide[0]["href"]
    # The header shows the count on every page.
    count = select(html, "#inbox-header")[0]
    assert int(count.get("data-inbox-count")) == len(items)


def test_fifty_viewers_of_the_inbox_and_the_header_count_cost_no_remote_call(manager, django_user_model):
    user, key = manager
    refresh_workspace(key.workspace_id)
    viewers = []
    for number in range(50):
        viewer = django_user_model.objects.create(username=f"viewer{number}")
        key.pk, key.user, key.is_active, key.key_id = None, viewer, True, f"viewer-key-{number}"
        key.save()
        browser = Client()
        browser.force_login(viewer)
        viewers.append(browser)

    with RemoteCallCounter() as calls:
        for browser in viewers:
            page = browser.get(reverse("inbox:index"))
            assert page.status_code == 200
            header = select(parse(page.content.decode()), "#inbox-header")[0]
            assert int(header.get("data-inbox-count")) >= 2
            # A poll that shows no version gets the count; one that shows the current version, 204.
            fresh = browser.get(reverse("inbox:header"), HTTP_HX_REQUEST="true")
            assert fresh.status_code == 200
            assert browser.get(header.get("hx-get"), HTTP_HX_REQUEST="true").status_code == 204

    assert calls.paths == []
