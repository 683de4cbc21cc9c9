"""Reads of notifications: one's preferences, delivery log, push devices, the claims of items, whom to assign."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from dashboard.keys.selectors import workspace_working_keys
from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.reach.models import ChatWebhook, Claim, Delivery, NotificationPreference, PushSubscription

LOG_SIZE = 100


def delivery_log(*, user, workspace_id: str, may_see_workspace_hooks: bool) -> QuerySet[Delivery]:
    """The person's deliveries in this workspace (and its webhooks' for an
    Administrator), newest first: only of the workspace their working key reaches."""
    mine = Q(user=user)
    if may_see_workspace_hooks:
        mine |= Q(recipient=f"workspace:{workspace_id}")
    return Delivery.objects.filter(mine, workspace_id=workspace_id).order_by("-created_at", "-id")[:LOG_SIZE]


def push_devices_of(*, user) -> list[PushSubscription]:
    """The person's devices subscribed to Web Push, dropped ones included (the page says why)."""
    return list(PushSubscription.objects.filter(user=user))


def webhooks_of(*, user, workspace_id: str) -> tuple[list[ChatWebhook], list[ChatWebhook]]:
    """(the person's own webhooks, the workspace's)."""
    own = list(ChatWebhook.objects.filter(owner=user, workspace_id=""))
    shared = list(ChatWebhook.objects.filter(workspace_id=workspace_id)) if workspace_id else []
    return own, shared


def claim_of(*, workspace_id: str, item_key: str) -> Claim | None:
    return (
        Claim.objects.filter(workspace_id=workspace_id, item_key=item_key).select_related("user", "assigned_by").first()
    )


def claims_of(*, workspace_id: str, item_keys: list[str]) -> dict[str, Claim]:
    """Item key -> its claim, for a list's lines (one query, however many lines)."""
    if not workspace_id or not item_keys:
        return {}
    claims = Claim.objects.filter(workspace_id=workspace_id, item_key__in=list(set(item_keys))).select_related(
        "user", "assigned_by"
    )
    return {claim.item_key: claim for claim in claims}


def covering_for(user) -> str:
    """The delegate's name while `user` is away ("" otherwise)."""
    preference = (
        NotificationPreference.objects.filter(user=user, away_until__gt=timezone.now(), delegate__isnull=False)
        .select_related("delegate")
        .first()
    )
    return preference.delegate.get_username() if preference and preference.delegate else ""


def preferences_of(user) -> NotificationPreference:
    """The person's preferences, or the defaults (not saved): escalations by email at once."""
    found = NotificationPreference.objects.filter(user=user).first()
    return found or NotificationPreference(user=user, approval_risks=[], my_work_needs_me=False)


def workspace_people(workspace_id: str) -> list:
    """Everyone holding a working key of the workspace (access follows the key)."""
    people: dict[int, Any] = {}
    for key in workspace_working_keys(workspace_id=workspace_id):
        people.setdefault(key.user_id, key.user)
    return list(people.values())


def people_to_assign(*, workspace_id: str) -> list:
    """Approvers holding a working key of the workspace: whom an item can be assigned to."""
    return [person for person in workspace_people(workspace_id) if person.has_perm(DECIDE_APPROVALS, workspace_id)]
