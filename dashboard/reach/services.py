"""Reaching people outside the tab.

- **Producing** (`notifications_produce`, called after each inbox refresh of
  a workspace, in that task, database only): what the inbox now holds (its
  sources' items for each person holding a working key of the workspace)
  and each person's own tracked work (the poller's rows) become `Delivery`
  rows, one per item, person and channel (a unique constraint: two workers
  producing the same news make one row). Overdue items (an area's `due_at`)
  are escalated once (`Escalation`, a unique row made in a transaction).
- **Delivering** (`delivery_step`, the task `reach.deliver`): one worker leases
  the row (and the person's other due rows of that channel: a digest is one
  message), sends it by email (Django's mail backend) or to a chat webhook,
  and marks it sent; a failure is retried later with backoff (the row's
  `due_at`, a task sent with a countdown), never by sleeping. The inbox
  refresh never waits on a delivery.

Links open the item in the console for a signed-in person: a link never decides.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, time, timedelta
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import httpx
from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.inbox.models import Notice
from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.services import NOTICE_WINDOW, VERBS, notice_state, operation_page
from dashboard.inbox.sources import KIND_APPROVAL, InboxItem, InboxViewer
from dashboard.jobs.engine import lease_kept
from dashboard.keys.crypto import encrypt_secret
from dashboard.keys.selectors import workspace_working_keys
from dashboard.live import registry
from dashboard.live.leases import lease_is_free, lease_take
from dashboard.live.models import TrackedOperation
from dashboard.outbox.services import outbox_send
from dashboard.people.backends import role_of
from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.reach.models import Cadence, ChatWebhook, Claim, Delivery, Escalation, NotificationPreference

logger = logging.getLogger("dashboard.reach")

EMAIL = "email"
KIND_APPROVAL_NEWS = "approval"
KIND_ESCALATION = "escalation"
KIND_MY_WORK = "my_work"


# --- preferences -----------------------------------------------------------------------


def preferences_of(user) -> NotificationPreference:
    """The person's preferences, or the defaults (not saved): escalations by email at once."""
    found = NotificationPreference.objects.filter(user=user).first()
    return found or NotificationPreference(user=user, approval_risks=[], my_work_needs_me=False)


def preferences_save(*, user, values: dict[str, Any]) -> NotificationPreference:
    preference, _ = NotificationPreference.objects.update_or_create(user=user, defaults=values)
    return preference


def zone_of(preference: NotificationPreference) -> ZoneInfo:
    try:
        return ZoneInfo(preference.time_zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _in_quiet_hours(local: time, start: time, end: time) -> bool:
    if start == end:
        return False
    if start < end:
        return start <= local < end
    return local >= start or local < end  # over midnight (22:00 to 07:00)


def _next_local(after: datetime, at: time, zone: ZoneInfo) -> datetime:
    """The next moment (after `after`) the person's clock shows `at`."""
    local = after.astimezone(zone)
    candidate = datetime.combine(local.date(), at, tzinfo=zone)
    if candidate <= local:
        candidate = datetime.combine(local.date() + timedelta(days=1), at, tzinfo=zone)
    return candidate.astimezone(ZoneInfo("UTC"))


def when_to_send(preference: NotificationPreference, *, now: datetime, digest: bool) -> tuple[datetime, str]:
    """When a new notification goes out, and what deferred it ("" at once):
    a digest waits for the next hour (or the day's digest hour), then quiet
    hours in the person's time zone push it to their end."""
    zone = zone_of(preference)
    due, deferred_by = now, ""
    if digest and preference.cadence == Cadence.HOURLY:
        due, deferred_by = (now + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0), "digest"
    elif digest and preference.cadence == Cadence.DAILY:
        due, deferred_by = _next_local(now, time(int(settings.REACH_DAILY_DIGEST_HOUR)), zone), "digest"
    start, end = preference.quiet_from, preference.quiet_until
    if start is not None and end is not None and _in_quiet_hours(due.astimezone(zone).time(), start, end):
        due, deferred_by = _next_local(due, end, zone), "quiet hours"
    return due, deferred_by


# --- webhooks ------------------------------------------------------------------------------


class WebhookAddressError(ValueError):
    pass


def webhook_address_check(url: str) -> str:
    """A chat webhook's address as it will be called, or why not (said in the form)."""
    url = url.strip()
    parts = urlsplit(url)
    allowed = ("https", "http") if settings.REACH_WEBHOOK_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed or not parts.hostname:
        raise WebhookAddressError("Give the webhook's full https:// address, as the chat app shows it.")
    return url


def _hint(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}/…{url[-4:]}"[:120]


def webhook_add(*, owner, workspace_id: str, kind: str, label: str, url: str) -> ChatWebhook:
    url = webhook_address_check(url)
    return ChatWebhook.objects.create(
        owner=owner,
        workspace_id=workspace_id,
        kind=kind,
        label=label.strip()[:100],
        url_encrypted=encrypt_secret(url),
        url_hint=_hint(url),
    )


def webhook_remove(*, webhook: ChatWebhook) -> None:
    webhook.delete()


# --- producing -------------------------------------------------------------------------------


def _channels(user, preference: NotificationPreference) -> list[str]:
    channels = [EMAIL] if preference.by_email and bool(getattr(user, "email", "")) else []
    channels += [hook.channel for hook in ChatWebhook.objects.filter(owner=user, workspace_id="").order_by("pk")]
    return channels


def _recipient_for(user, preference: NotificationPreference, now: datetime):
    """Who receives the person's notifications now: their delegate while they are away."""
    if preference.away_until and preference.away_until > now and preference.delegate_id:
        delegate = preference.delegate
        if delegate is not None and delegate.is_active:
            return delegate, preferences_of(delegate), user.get_username()
    return user, preference, ""


def _notify(
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
) -> int:
    """Delivery rows for one item to one person on each of their channels
    (none made twice: ON CONFLICT DO NOTHING on the unique key)."""
    recipient, preference, on_behalf_of = _recipient_for(user, preference, now)
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
            on_behalf_of=on_behalf_of,
            digest=digest and preference.cadence != Cadence.NOW,
            due_at=due,
            deferred_by=deferred_by,
        )
        for channel in _channels(recipient, preference)
    ]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _notify_workspace_hooks(*, workspace_id: str, item_key: str, kind: str, title: str, path: str, now: datetime):
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
            due_at=now,
        )
        for hook in ChatWebhook.objects.filter(workspace_id=workspace_id)
    ]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)


def _people_of(workspace_id: str) -> list:
    """Everyone holding a working key of the workspace (access follows the key)."""
    people: dict[int, Any] = {}
    for key in workspace_working_keys(workspace_id=workspace_id):
        people.setdefault(key.user_id, key.user)
    return list(people.values())


def _escalation_group(people: Iterable) -> list:
    role = settings.REACH_ESCALATION_ROLE
    chosen = set(settings.REACH_ESCALATION_PEOPLE)
    return [person for person in people if person.get_username() in chosen or (role and role_of(person) == role)]


def _own_work_news(user, workspace_id: str, now: datetime) -> list[tuple[str, str, str, str]]:
    """(item key, state, title, path) of the person's tracked work that needs them, failed or finished lately."""
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
    group = _escalation_group(people)
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
            _notify(
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
        _notify_workspace_hooks(
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
    people = _people_of(workspace_id)
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
        if risks and person.has_perm(DECIDE_APPROVALS):
            for item in items:
                if item.kind == KIND_APPROVAL and item.risk in risks:
                    made += _notify(
                        user=person,
                        preference=preference,
                        workspace_id=workspace_id,
                        item_key=item.key,
                        kind=KIND_APPROVAL_NEWS,
                        title=f"Approval waiting ({item.risk}): {item.title}",
                        path=item.url,
                        now=now,
                        digest=True,
                    )
        for key, state, title, path in _own_work_news(person, workspace_id, now):
            wanted = preference.my_work_finished if state == Notice.STATE_FINISHED else preference.my_work_needs_me
            if wanted:
                made += _notify(
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


# --- delivering ---------------------------------------------------------------------------------


def _link(path: str) -> str:
    base = settings.CONSOLE_BASE_URL or "http://localhost:8000"
    return f"{base}{path}"


def _lines(rows: list[Delivery]) -> list[str]:
    return [
        f"- {row.title}{f' (for {row.on_behalf_of}, who is away)' if row.on_behalf_of else ''}\n  {_link(row.path)}"
        for row in rows
    ]


def _send_email(rows: list[Delivery]) -> None:
    user = rows[0].user
    if user is None or not user.email:
        raise DeliveryProblem("The person has no email address.")
    subject = rows[0].title if len(rows) == 1 else f"{len(rows)} things in Workspace Console"
    body = (
        "\n".join(_lines(rows))
        + "\n\nEach link opens the item in the console after you sign in; nothing is decided from this email.\n"
        + "Change what you receive: "
        + _link("/notifications/")
        + "\n"
    )
    send_mail(subject[:200], body, settings.DEFAULT_FROM_EMAIL, [user.email])


def webhook_body(hook: ChatWebhook, rows: list[Delivery]) -> dict[str, Any]:
    """What each kind of chat webhook is sent: Slack and Teams a text, generic JSON the items."""
    if hook.kind == ChatWebhook.KIND_JSON:
        return {
            "notifications": [
                {
                    "kind": row.kind,
                    "title": row.title,
                    "url": _link(row.path),
                    "workspace_id": row.workspace_id,
                    "item": row.item_key,
                    "on_behalf_of": row.on_behalf_of or None,
                }
                for row in rows
            ]
        }
    lines = [f"{row.title} — {_link(row.path)}" for row in rows]
    if hook.kind == ChatWebhook.KIND_SLACK:
        return {"text": "\n".join(f"• <{_link(row.path)}|{row.title}>" for row in rows)}
    return {"text": "\n\n".join(lines)}  # Microsoft Teams' incoming webhook takes a text


class DeliveryProblem(Exception):
    """Why a delivery failed, in words (kept on the row)."""


def _send_webhook(rows: list[Delivery]) -> None:
    hook_id = rows[0].channel.removeprefix("webhook:")
    hook = ChatWebhook.objects.filter(pk=hook_id).first() if hook_id.isdigit() else None
    if hook is None:
        raise DeliveryProblem("The webhook was removed.")
    try:
        answer = httpx.post(hook.url, json=webhook_body(hook, rows), timeout=float(settings.REACH_WEBHOOK_TIMEOUT))
    except httpx.HTTPError as exc:
        raise DeliveryProblem(f"The webhook could not be reached ({type(exc).__name__}).") from exc
    if answer.status_code >= 300:
        raise DeliveryProblem(f"The webhook answered {answer.status_code}.")


def _retry_seconds(attempts: int) -> float | None:
    """Seconds before try number `attempts + 1`, or None: give up."""
    steps = list(settings.REACH_RETRY_SECONDS)
    return float(steps[attempts - 1]) if attempts - 1 < len(steps) else None


def delivery_step(*, delivery_id: int, now: datetime | None = None) -> str:
    """Send one due delivery (with the person's other due rows of the same
    channel: one digest message). One worker holds them (a lease); a second
    worker racing finds them taken, or sent, and does nothing. Returns what
    happened: "sent", "retry", "failed", or "nothing" (not due, or taken)."""
    now = now or timezone.now()
    first = Delivery.objects.filter(pk=delivery_id).first()
    if first is None or first.status != Delivery.STATUS_PENDING or first.due_at > now:
        return "nothing"
    group = Delivery.objects.filter(
        recipient=first.recipient, channel=first.channel, status=Delivery.STATUS_PENDING, due_at__lte=now
    )
    # The stepped jobs' short lease, renewed while the message is sent (dashboard/jobs):
    # a worker killed while sending lets the rows go within JOBS_LEASE_SECONDS.
    seconds = float(settings.JOBS_LEASE_SECONDS)
    token = lease_take(group.filter(Q(pk=first.pk) | Q(digest=True)), seconds=seconds, now=now)
    if token is None:
        return "nothing"
    rows = list(Delivery.objects.filter(lease_token=token, status=Delivery.STATUS_PENDING).select_related("user"))
    if not rows:
        return "nothing"
    try:
        with lease_kept(Delivery.objects.filter(lease_token=token), token=token, seconds=seconds):
            if first.channel == EMAIL:
                _send_email(rows)
            else:
                _send_webhook(rows)
    except Exception as exc:
        problem = str(exc) if isinstance(exc, DeliveryProblem) else f"Sending failed ({type(exc).__name__})."
        logger.warning("reach: delivery %s failed: %s", delivery_id, problem)
        return _failed(rows, token, problem, now)
    Delivery.objects.filter(lease_token=token).update(
        status=Delivery.STATUS_SENT, sent_at=now, lease_until=None, lease_token="", last_error=""
    )
    return "sent"


def _failed(rows: list[Delivery], token: str, problem: str, now: datetime) -> str:
    attempts = max(row.attempts for row in rows) + 1
    wait = _retry_seconds(attempts)
    fields: dict[str, Any] = {"attempts": attempts, "last_error": problem[:300], "lease_until": None, "lease_token": ""}
    if wait is None:
        Delivery.objects.filter(lease_token=token).update(status=Delivery.STATUS_FAILED, **fields)
        return "failed"
    Delivery.objects.filter(lease_token=token).update(due_at=now + timedelta(seconds=wait), **fields)
    with transaction.atomic():
        outbox_send(task="reach.deliver", args=[rows[0].pk], countdown=wait)
    return "retry"


def deliveries_due(*, now: datetime | None = None, limit: int = 200) -> list[int]:
    """Pending rows whose time has come (one per recipient and channel: the
    step takes the rest of a digest with it)."""
    now = now or timezone.now()
    seen: set[tuple[str, str]] = set()
    due = []
    rows = (
        Delivery.objects.filter(status=Delivery.STATUS_PENDING, due_at__lte=now)
        .filter(lease_is_free(now))
        .order_by("due_at", "id")
        .values_list("pk", "recipient", "channel")[: limit * 5]
    )
    for pk, recipient, channel in rows:
        if (recipient, channel) not in seen:
            seen.add((recipient, channel))
            due.append(pk)
    return due[:limit]


def delivery_retry(*, delivery: Delivery) -> None:
    """ "Try again now" on a delivery that gave up (the log page)."""
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk, status=Delivery.STATUS_FAILED).update(
            status=Delivery.STATUS_PENDING, due_at=timezone.now(), attempts=0
        )
        outbox_send(task="reach.deliver", args=[delivery.pk])


# --- claims ------------------------------------------------------------------------------------


def claim_take(*, workspace_id: str, item_key: str, user, assigned_by=None) -> Claim:
    """ "I'm on it" (assigned_by None) or an assignment; replaces an earlier claim."""
    claim, _ = Claim.objects.update_or_create(
        workspace_id=workspace_id, item_key=item_key[:250], defaults={"user": user, "assigned_by": assigned_by}
    )
    return claim


def claim_release(*, workspace_id: str, item_key: str) -> None:
    Claim.objects.filter(workspace_id=workspace_id, item_key=item_key).delete()


def _drop_settled_claims(workspace_id: str, open_keys: set[str]) -> None:
    """A claim goes with its item (decided, gone from the inbox)."""
    Claim.objects.filter(workspace_id=workspace_id).exclude(item_key__in=open_keys).delete()


def people_to_assign(*, workspace_id: str) -> list:
    """Approvers holding a working key of the workspace: whom an item can be assigned to."""
    return [person for person in _people_of(workspace_id) if person.has_perm(DECIDE_APPROVALS)]
