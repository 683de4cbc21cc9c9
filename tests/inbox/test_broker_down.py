"""A decision made while the broker is down (a closed port): the decision is
sent once, the person sees its outcome (no server error), its inbox refresh
waits in the outbox and runs once the broker is back."""

from __future__ import annotations

import pytest

from dashboard.inbox.models import WaitingItem
from dashboard.outbox.models import OutboxMessage
from tests.inbox.support import FAILED_RUN_ID, HTMX, approval_decision_ready
from tests.live.support import SECRET, store_key


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


def kept(workspace_id: str) -> dict[str, str]:
    return dict(WaitingItem.objects.filter(workspace_id=workspace_id).values_list("remote_id", "kind"))


def test_a_decision_while_the_broker_is_down_is_answered_and_its_refresh_runs_once_it_is_back(
    remote, api_key, logged_in_client, broker_down, django_capture_on_commit_callbacks
):
    form, fields, decide = approval_decision_ready(remote, api_key, logged_in_client)
    data = {**fields, "decision": "approve-confirmed", "note": "Checked."}

    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in_client.post(form.get("action"), data, **HTMX)
    assert response.status_code == 200 and decide.call_count == 1
    assert OutboxMessage.objects.filter(task_name="inbox.refresh_workspace", attempts=1).count() == 1
    # Settled at once by the write hook; the rest of the inbox waits for its refresh.
    assert kept(api_key.workspace_id) == {"agent-names": "agent-names", f"run:{FAILED_RUN_ID}": "failed"}

    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(form.get("action"), data, **HTMX)  # sent again: the same key
    keys = {call.request.headers["Idempotency-Key"] for call in decide.calls}
    assert keys == {fields["key_approve"]}  # the approve button's own key, both times

    assert broker_down.back() >= 1
    assert kept(api_key.workspace_id) == {"agent-names": "agent-names"}
    assert not OutboxMessage.objects.exists()
