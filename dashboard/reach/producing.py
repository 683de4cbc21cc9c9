"""Producing notifications (`notifications_produce`, called after each inbox
refresh of a workspace, in that task, database only): what the inbox now
holds (its sources' items for each person holding a working key of the
workspace) and each person's own tracked work (the poller's rows) become
`Delivery` rows, one per item, person and channel (a unique constraint: two
workers producing the same news make one row). Overdue items (an area's
`due_at`) are escalated once (`Escalation`, a unique row made in a
transaction). Links open the item in the console for a signed-in person."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from dashboard.inbox.models import Notice
from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.services import NOTICE_WINDOW, VERBS, notice_state, operation_page
from dashboard.inbox.sources import KIND_APPROVAL, InboxItem, InboxViewer
from dashboard.live import registry
from dashboard.live.models import TrackedOperation
from dashboard.outbox.services import outbox_send
from dashboard.people.backends import role_of
from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.reach.models import (
    Cadence,
    ChatWebhook,
    Claim,
    Delivery,
    Escalation,
    NotificationPreference,
    PushSubscription,
)
from dashboard.reach.selectors import preferences_of, workspace_people
from dashboard.reach.timing import when_to_send

EMAIL = "email"
PUSH_PREFIX = "push:"
KIND_APPROVAL_NEWS = "approval"
KIND_ESCALATION = "escalation"
KIND_MY_WORK = "my_work"


def _hook_wants(hook: ChatWebhook, workspace_id: str, item_key: str) -> bool:
    """Not while paused; never what was open when it was added (no replay of the past)."""
    return hook.paused_at is None and f"{workspace_id}|{item_key}" not in hook.known_items


def _channels(user, preference: NotificationPreference, *, workspace_id: str, item_key: str) -> list[str]:
    channels = [EMAIL] if preference.by_email and bool(getattr(user, "email", "")) else []
    hooks = ChatWebhook.objects.filter(owner=user, workspace_id="").order_by("pk")
    channels += [hook.channel for hook in hooks if _hook_wants(hook, workspace_id, item_key)]
    # Each of the person's devices subscribed to Web Push (a dropped one no longer).
    channels += [
        f"{PUSH_PREFIX}{pk}"
        for pk in PushSubscription.objects.filter(user=user, dropped_at=None)
        .order_by("pk")
        .values_list("pk", flat=True)
    ]
    return channels


def input_summary(item: InboxItem) -> str:
    """What an approval will do, in short (its input as the queue reads it, or
    its JSON): two approvals of the same summary never read alike."""
    approval = item.data.get("approval") if isinstance(item.data, dict) else None
    if not isinstance(approval, dict):
        return ""
    read = approval.get("input_read")
    if isinstance(read, dict) and read.get("rows"):
        text = "; ".join(f"{label}: {value}" for label, value in read["rows"])
    elif approval.get("input") not in (None, "", {}, []):
        text = json.dumps(approval.get("input"), sort_keys=True, ensure_ascii=False)
    else:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= 240 else text[:239] + "…"


def approval_title(item: InboxItem) -> str:
    """An approval's line: its risk, its agent and what it will do."""
    agent = f" from {item.agent_name}" if item.agent_name else ""
    return f"Approval waiting ({item.risk}){agent}: {item.title}"


def _recipient_for(user, preference: NotificationPreference, now: datetime):
    """Who receives the person's notifications now: their delegate while they are away."""
    if preference.away_until and preference.away_until > now and preference.delegate_id:
        delegate = preference.delegate
        if delegate is not None and delegate.is_active:
            return delegate, preferences_of(delegate), user.get_username()
    return user, preference, ""


def notify(
    *,
    user,
    preference: NotificationPreference,
    workspace_id: str,
    item_key: str,
    kind: str,
    title: str,
    path: str,
    now: datetime,
    digest: bool,
    detail: str = "",
    follow_away: bool = True,
) -> int:
    """Delivery rows for one item to one person on each of their channels
    (none made twice: ON CONFLICT DO NOTHING on the unique key); to their
    delegate while they are away, unless `follow_away` is off (the caller chose already)."""
    if follow_away:
        recipient, preference, on_behalf_of = _recipient_for(user, preference, now)
    else:
        recipient, on_behalf_of = user, ""
    due, deferred_by = when_to_send(preference, now=now, digest=digest)
    rows = [
        Delivery(
            user=recipient,
            recipient=f"user:{recipient.pk}",
            workspace_id=workspace_id,
            item_key=item_key[:250],
            channel=channel,
            kind=kind,
            title=title[:300],
            path=path[:500],
            detail=detail[:500],
            on_behalf_of=on_behalf_of,
            digest=digest and preference.cadence != Cadence.NOW,
            due_at=due,
            deferred_by=deferred_by,
        )
        for channel in _channels(recipient, preference, workspace_id=workspace_id, item_key=item_key)
    ]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def notify_workspace_hooks(
    *, workspace_id: str, item_key: str, kind: str, title: str, path: str, now: datetime, detail: str = ""
) -> int:
    """Delivery rows for one item to each of the workspace's own chat webhooks
    (Slack, Teams, signed JSON) that wants it (none made twice, as `notify`)."""
    rows = [
        Delivery(
            user=None,
            recipient=f"workspace:{workspace_id}",
            workspace_id=workspace_id,
            item_key=item_key[:250],
            channel=hook.channel,
            kind=kind,
            title=title[:300],
            path=path[:500],
            detail=detail[:500],
            due_at=now,
        )
        for hook in ChatWebhook.objects.filter(workspace_id=workspace_id)
        if _hook_wants(hook, workspace_id, item_key[:250])
    ]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _escalation_group(people: Iterable, workspace_id: str) -> list:
    role = settings.REACH_ESCALATION_ROLE
    chosen = set(settings.REACH_ESCALATION_PEOPLE)
    return [
        person
        for person in people
        if person.get_username() in chosen or (role and role_of(person, workspace_id) == role)
    ]


def own_work_news(user, workspace_id: str, now: datetime | None) -> list[tuple[str, str, str, str]]:
    """(item key, state, title, path) of the person's tracked work that needs them, failed or finished lately."""
    now = now or timezone.now()
    news = []
    ops = TrackedOperation.objects.filter(
        started_by=user, owner_key__workspace_id=workspace_id, updated_at__gte=now - NOTICE_WINDOW
    ).order_by("updated_at", "id")[:50]
    for op in ops:
        kind = registry.get_kind(op.kind)
        if kind is not None and not kind.announces(op):
            continue  # tracked for a list's live row, not followed by choice: like the toasts
        state = notice_state(op)
        if state is None:
            continue
        title = f"{kind.title if kind else 'Work'} {VERBS[state]}" + (f": {op.title}" if op.title else "")
        news.append((f"operation:{op.pk}:{state}", state, title, operation_page(op)))
    return news


def escalate_overdue(*, workspace_id: str, items: Iterable[InboxItem], people: list, now: datetime) -> int:
    """Each item past its `due_at` escalated once to the escalation group (and
    the workspace's webhooks): the `Escalation` row, unique per item and made
    in its own transaction, decides which worker notifies. Returns how many
    items this call escalated."""
    escalated = 0
    group = _escalation_group(people, workspace_id)
    for item in items:
        if item.due_at is None or item.due_at > now:
            continue
        try:
            with transaction.atomic():
                Escalation.objects.create(
                    workspace_id=workspace_id, item_key=item.key[:250], title=item.title[:300], due_at=item.due_at
                )
        except IntegrityError:
            continue  # escalated already, by this worker before or by another
        title = f"Overdue: {item.title}"
        for person in group:
            notify(
                user=person,
                preference=preferences_of(person),
                workspace_id=workspace_id,
                item_key=f"escalation:{item.key}",
                kind=KIND_ESCALATION,
                title=title,
                path=item.url,
                now=now,
                digest=False,
            )
        notify_workspace_hooks(
            workspace_id=workspace_id,
            item_key=f"escalation:{item.key}",
            kind=KIND_ESCALATION,
            title=title,
            path=item.url,
            now=now,
        )
        Escalation.objects.filter(workspace_id=workspace_id, item_key=item.key[:250]).update(notified=len(group))
        escalated += 1
    return escalated


def notifications_produce(workspace_id: str, now: datetime | None = None) -> int:
    """What the workspace's refresh learned, as deliveries (database only).
    Returns the delivery rows asked for (existing ones are not made again)."""
    now = now or timezone.now()
    people = workspace_people(workspace_id)
    made = 0
    every_item: dict[str, InboxItem] = {}
    for person in people:
        preference = preferences_of(person)
        items = inbox_items(viewer=InboxViewer(user=person, workspace_id=workspace_id))
        for item in items:
            every_item.setdefault(item.key, item)
        if preference.pk is None:
            continue  # no preferences saved: escalations only
        risks = set(preference.approval_risks or [])
        if risks and person.has_perm(DECIDE_APPROVALS, workspace_id):
            for item in items:
                if item.kind == KIND_APPROVAL and item.risk in risks:
                    made += notify(
                        user=person,
                        preference=preference,
                        workspace_id=workspace_id,
                        item_key=item.key,
                        kind=KIND_APPROVAL_NEWS,
                        title=approval_title(item),
                        path=item.url,
                        now=now,
                        digest=True,
                        detail=input_summary(item),
                    )
        for key, state, title, path in own_work_news(person, workspace_id, now):
            wanted = preference.my_work_finished if state == Notice.STATE_FINISHED else preference.my_work_needs_me
            if wanted:
                made += notify(
                    user=person,
                    preference=preference,
                    workspace_id=workspace_id,
                    item_key=key,
                    kind=KIND_MY_WORK,
                    title=title,
                    path=path,
                    now=now,
                    digest=True,
                )
    escalate_overdue(workspace_id=workspace_id, items=every_item.values(), people=people, now=now)
    _drop_settled_claims(workspace_id, set(every_item))
    if Delivery.objects.filter(workspace_id=workspace_id, status=Delivery.STATUS_PENDING, due_at__lte=now).exists():
        outbox_send(task="reach.deliver_due", args=[])
    return made


def _drop_settled_claims(workspace_id: str, open_keys: set[str]) -> None:
    """A claim goes with its item (decided, gone from the inbox)."""
    Claim.objects.filter(workspace_id=workspace_id).exclude(item_key__in=open_keys).delete()
