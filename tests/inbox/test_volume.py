"""The inbox at a team's volume, from the console's database alone: 50, 200
and 1,000 waiting approvals cost the same number of queries (the claim on
each line, who may be assigned, who may decide: read once for the page, not
per item), and the page stays dense: a line per item, not a card with the
approval's input and its form."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.testing import make_approver
from dashboard.inbox.models import WaitingItem
from dashboard.reach.models import Claim
from tests.html import parse, select
from tests.inbox.support import approval_body
from tests.live.support import SECRET, store_key

# What the page may cost whatever the number of items (measured: 21 at 50, 200 and 1,000; 420, 1,620
# and 8,020 before the lines read their claims at once and stopped asking who may be assigned per item).
MAX_QUERIES = 25


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


def keep_waiting(workspace_id: str, count: int) -> list[str]:
    now = timezone.now()
    ids = [str(uuid.UUID(int=n + 1)) for n in range(count)]
    WaitingItem.objects.bulk_create(
        WaitingItem(
            workspace_id=workspace_id,
            source="agents",
            remote_id=f"approval:{approval_id}",
            kind="approval",
            data={
                "approval": {**approval_body(approval_id=approval_id, risk=("send", "write", "destructive")[n % 3])},
                "agent_name": f"Agent {n % 7}",
            },
            since=now - timedelta(minutes=n),
            settle_path=f"/v1/approvals/{approval_id}",
            refreshed_at=now,
        )
        for n, approval_id in enumerate(ids)
    )
    return ids


@pytest.mark.parametrize("how_many", [50, 200, 1000])
def test_the_inbox_costs_the_same_queries_at_50_200_and_1000_waiting(
    how_many, api_key, user, other_user, logged_in_client, django_assert_max_num_queries
):
    make_approver(user)
    make_approver(other_user)
    store_key(other_user, SECRET, "Acme Marketing")  # someone to assign to
    ids = keep_waiting(api_key.workspace_id, how_many)
    # A few are claimed or assigned: each line says so.
    Claim.objects.create(workspace_id=api_key.workspace_id, item_key=f"approval:{ids[0]}", user=other_user)
    Claim.objects.create(
        workspace_id=api_key.workspace_id, item_key=f"approval:{ids[1]}", user=user, assigned_by=other_user
    )
    with django_assert_max_num_queries(MAX_QUERIES):
        response = logged_in_client.get(reverse("inbox:index"))
    assert response.status_code == 200
    page = parse(response.content.decode())
    assert len(select(page, "[data-inbox-item]")) == how_many
    print(f"inbox at {how_many}: {len(response.content)} bytes")
