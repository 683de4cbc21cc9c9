"""A read-only member and every write address of the Agents area (and its
approvals queue): one refusal (`dashboard.frame.permissions.requires_write`)
before anything is read or sent. The addresses are found from agents/urls.py
through Django's resolver, not listed by hand, so a new write view cannot be
left unguarded."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from agents import urls
from agents.models import BuilderAnswer
from agents.pages import NOT_AN_APPROVER, READ_ONLY
from agents.views import alerts, deadlines, rules
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.live.models import TrackedOperation
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.agents.support import AGENT_ID, RUN_ID, THREAD_ID
from tests.html import parse, select
from tests.write_guard import area_addresses, refusal_of, refused_writes

pytestmark = pytest.mark.django_db

REFUSAL = f"Your role in this workspace (viewer) can only read. {READ_ONLY}"
# What a forged form would carry: enough for any Agents write to go ahead
# (a missing idempotency key is minted; a reject needs no read first).
FORGED = {
    "name": "A forged agent",
    "message": "Email every contact now",
    "decision": "reject",
    "agent_id": AGENT_ID,
    "thread_id": THREAD_ID,
}
# Approval deadlines, rules and alert rules are the console's own settings (agents/views/deadlines.py, rules.py, alerts.py).
CONSOLE_SETTINGS = {
    "agents:alerts": alerts.NOT_AN_ADMINISTRATOR,
    "agents:alert": alerts.NOT_AN_ADMINISTRATOR,
    "agents:alert_delete": alerts.NOT_AN_ADMINISTRATOR,
    "agents:deadlines": deadlines.NOT_AN_ADMINISTRATOR,
    "agents:rules": rules.NOT_AN_ADMINISTRATOR,
    "agents:rule_remove": rules.NOT_AN_ADMINISTRATOR,
}
# Writes the enumeration must find (proof that it finds any at all).
KNOWN_WRITES = {
    "agents:create",
    "agents:activate",
    "agents:pause",
    "agents:rename",
    "agents:change",
    "agents:chat_send",
    "agents:run_rerun",
    "agents:approval_decide",
}


@pytest.fixture
def viewer(api_key, user, logged_in_client):
    """A viewer who is an Approver too: only the role stands in the way."""
    api_key.member_role = "viewer"
    api_key.save(update_fields=["member_role"])
    make_approver(user)
    return logged_in_client


@pytest.fixture
def service(remote):
    """Every call to the service answered (an unguarded write would be sent)."""
    return remote.route().mock(return_value=httpx.Response(200, json={"id": RUN_ID, "status": "completed"}))


# Posts that are a person's own choice, no workspace write (the role matrix's UNGUARDED says why).
PERSONAL = frozenset({"agents:run_follow", "agents:run_view_new", "agents:run_view_default", "agents:run_view_remove"})


def test_every_address_that_takes_a_post_refuses_a_viewer_before_any_remote_call(viewer, remote, service):
    operations = TrackedOperation.objects.count()
    addresses = [(name, url) for name, url in area_addresses(urls, ["1", AGENT_ID]) if name not in PERSONAL]
    # The console's own settings, not the workspace's: refused for the role
    # (Administrators only), whatever the key may do.
    settings_pages = [address for address in addresses if address[0] in CONSOLE_SETTINGS]
    for name, url in settings_pages:
        response = viewer.post(url, FORGED)
        assert response.status_code == 403 and CONSOLE_SETTINGS[name] in refusal_of(parse(response.content)), name
    writes = refused_writes(viewer, [a for a in addresses if a not in settings_pages], FORGED, REFUSAL)

    assert writes >= KNOWN_WRITES
    assert remote.calls.call_count == 0 and service.call_count == 0
    assert TrackedOperation.objects.count() == operations
    assert not BuilderAnswer.objects.exists() and not AuditEntry.objects.exists()


def test_an_htmx_decision_gets_the_refusal_as_a_message_box_it_can_swap(viewer, remote, service):
    url = reverse("agents:approval_decide", args=[AGENT_ID])

    response = viewer.post(url, FORGED, HTTP_HX_REQUEST="true")

    assert response.status_code == 200  # htmx 2 swaps nothing on a 403
    assert refusal_of(parse(response.content)) == REFUSAL
    assert remote.calls.call_count == 0


def test_a_member_who_may_write_but_is_no_approver_is_refused_by_the_approver_check(
    api_key, user, logged_in_client, remote, service
):
    person_role_set(user=user, role=Role.MEMBER)

    response = logged_in_client.post(reverse("agents:approval_decide", args=[AGENT_ID]), FORGED)

    assert response.status_code == 403
    assert refusal_of(parse(response.content)) == f"Your console role is Member. {NOT_AN_APPROVER}"
    assert remote.calls.call_count == 0


def test_a_viewer_still_reads_the_agent_page_without_its_write_forms(viewer, agent_routes):
    response = viewer.get(reverse("agents:detail", args=[AGENT_ID]))

    assert response.status_code == 200
    assert [form for form in select(response.content, "main form") if form.get("method") == "post"] == []
    assert select(response.content, ".read-only-note")


def test_the_decide_note_names_the_role_that_stands_in_the_way(api_key, user):
    """The note above the queue, a run's approvals and the inbox's asks in the
    guards' order: the console role, the workspace's role, then Approver."""
    from agents.pages import decide_refusal
    from dashboard.frame.workspace import Workspace

    def note() -> str:
        return decide_refusal(workspace=Workspace(user), user=user)

    person_role_set(user=user, role=Role.AUDITOR)
    assert note() == "Your console role is Auditor: you can see the queue, not decide."
    person_role_set(user=user, role=Role.MEMBER)
    assert note() == NOT_AN_APPROVER
    person_role_set(user=user, role=Role.APPROVER)
    assert note() == ""
    api_key.member_role = "viewer"
    api_key.save(update_fields=["member_role"])
    assert note() == "Your role in this workspace is viewer: you can see the queue, not decide."
