"""Writes of the inbox: the refresh of a workspace's waiting items from the
service (only ever run by the Celery task), what a remote write settles at
once, and the toasts (notices) of a person's own tracked work."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.hooks import RemoteWrite
from dashboard.api.messages import meaning_of, with_request_id
from dashboard.frame.areas import inbox_sources
from dashboard.inbox.models import Dismissal, Notice, WaitingItem, WorkspaceRefresh
from dashboard.inbox.selectors import WAITING_STATUSES
from dashboard.inbox.sources import StoredItem
from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import workspace_clients, workspace_working_keys
from dashboard.live import registry
from dashboard.live.leases import lease_take
from dashboard.live.models import TrackedOperation
from dashboard.live.storable import storable, storable_text
from dashboard.outbox.services import outbox_send

logger = logging.getLogger("dashboard.inbox")


# --- the refresh (the task's work) -----------------------------------------------------


def workspaces_to_refresh() -> list[str]:
    """Every workspace the console holds a key of."""
    return sorted(set(ApiKey.objects.exclude(workspace_id="").values_list("workspace_id", flat=True)))


def _working_keys_of(workspace_id: str) -> list[ApiKey]:
    """The stored keys of the workspace the refresh may act as: one selection
    for every worker (dashboard/keys/selectors.py)."""
    return workspace_working_keys(workspace_id=workspace_id)


def _client_of_workspace(workspace_id: str):
    """Clients acting as each working key of the workspace, in turn."""
    return workspace_clients(workspace_id=workspace_id)


def _no_working_key(workspace_id: str) -> str:
    """Why the workspace can't be read, for whoever looks at the inbox (an
    administrator, usually): which stored keys the service refused, by whom."""
    refused = [
        f"{key.user.get_username()}'s {key.masked}"
        for key in ApiKey.objects.filter(workspace_id=workspace_id, refused_at__isnull=False)
        .select_related("user")
        .order_by("-refused_at")[:5]
    ]
    if not refused:
        return "No stored key of this workspace can be read."
    return (
        f"No working key of this workspace is stored: the service refused {', '.join(refused)}. "
        "Any member adding a working key resumes the refresh."
    )


def _record(workspace_id: str, *, ok: bool, error: str = "", now: datetime) -> None:
    defaults: dict = {"tried_at": now, "error": error[:300]}
    if ok:
        defaults["refreshed_at"] = now
    WorkspaceRefresh.objects.update_or_create(workspace_id=workspace_id, defaults=defaults)


def _keep(workspace_id: str, source: str, stored: list[StoredItem], now: datetime, kinds: tuple[str, ...] = ()) -> None:
    """The source's rows (of `kinds` only, when given) become exactly `stored` (one transaction)."""
    rows = {storable_text(str(item.remote_id), limit=200): item for item in stored if item.remote_id}
    with transaction.atomic():
        mine = WaitingItem.objects.filter(workspace_id=workspace_id, source=source)
        if kinds:
            mine = mine.filter(kind__in=kinds)
        mine.exclude(remote_id__in=rows).delete()
        # What the service gives no time for has waited since the console first saw it.
        first_seen = dict(mine.filter(remote_id__in=rows).values_list("remote_id", "since"))
        for remote_id, item in rows.items():
            WaitingItem.objects.update_or_create(
                workspace_id=workspace_id,
                source=source,
                remote_id=remote_id,
                defaults={
                    "kind": item.kind[:32],
                    "data": storable(item.data) if isinstance(item.data, dict) else {},
                    "since": item.since or first_seen.get(remote_id) or now,
                    "settle_path": storable_text(item.settle_path, limit=300),
                    "refreshed_at": now,
                },
            )


# Called with (workspace_id, now) after each refresh that read the service:
# what others make of what the inbox now knows (dashboard/reach: notifications,
# escalation). A hook that fails is logged; the refresh stands.
_REFRESHED_HOOKS: list[Callable[[str, datetime], object]] = []


def on_workspace_refreshed(hook: Callable[[str, datetime], object]) -> None:
    if hook not in _REFRESHED_HOOKS:
        _REFRESHED_HOOKS.append(hook)


def _after_refresh(workspace_id: str, now: datetime) -> None:
    for hook in _REFRESHED_HOOKS:
        try:
            hook(workspace_id, now)
        except Exception:
            logger.exception("inbox: a hook after the refresh of workspace %s failed", workspace_id)


def workspace_refresh(*, workspace_id: str, now: datetime | None = None, watched: bool = False) -> int:
    """Read what waits for a person in the workspace from the service (each
    source's `refresh`; `watched`: each source's quick `watched_refresh`
    only) and keep it. A source whose read fails keeps its last rows; the
    failure is recorded for the inbox page. A key the service refuses (401:
    the transport's hook marks it refused) gives way to the next working key
    in the same run. One refresh of a workspace at a time (a lease on its
    WorkspaceRefresh row): another one asked meanwhile does nothing, and a
    429 holds the lease until the service's Retry-After. Returns the rows kept."""
    now = now or timezone.now()
    WorkspaceRefresh.objects.get_or_create(workspace_id=workspace_id)
    token = lease_take(WorkspaceRefresh.objects.filter(workspace_id=workspace_id), seconds=LEASE_SECONDS, now=now)
    if token is None:
        return 0  # another refresh of this workspace runs, or the service asked us to wait
    hold_until, kept = None, 0
    try:
        for client in _client_of_workspace(workspace_id):
            try:
                kept, hold_until = _refresh_as(client, workspace_id, now, watched=watched)
            except errors.AuthenticationError:
                continue
            break
        else:
            _record(workspace_id, ok=False, error=_no_working_key(workspace_id), now=now)
            return 0
    finally:
        WorkspaceRefresh.objects.filter(workspace_id=workspace_id, lease_token=token).update(
            lease_until=hold_until, lease_token=""
        )
    # The hooks (notifications, escalation) run once the lease is let go: a slow one holds no refresh back.
    _after_refresh(workspace_id, now)
    return kept


# A refresh holds its workspace this long at most (a worker that dies lets it go).
LEASE_SECONDS = 120


def _refresh_as(client, workspace_id: str, now: datetime, *, watched: bool) -> tuple[int, datetime | None]:
    """One refresh with one key; AuthenticationError when the service
    refuses it. Answers the rows kept and, after a 429, when to read again."""
    kept, problems, hold_until = 0, [], None
    for source in inbox_sources():
        read = source.watched_refresh if watched else source.refresh
        if read is None:
            continue
        try:
            stored = read(client, workspace_id)
        except errors.AuthenticationError:
            raise
        except errors.ApiError as exc:
            problems.append(with_request_id(meaning_of(exc).title, exc))
            if isinstance(exc, errors.RateLimitedError):
                hold_until = now + timedelta(seconds=max(1.0, exc.retry_after or refresh_seconds()))
                break
            continue
        _keep(workspace_id, source.name, stored, now, kinds=source.watched_kinds if watched else ())
        kept += len(stored)
    _record(workspace_id, ok=not problems, error="; ".join(problems), now=now)
    return kept, hold_until


# --- who is looking (the polls' mark) ----------------------------------------------------

# A poll marks its workspace watched at most this often per process: the
# unchanged poll stays one statement almost every time.
WATCH_MARK_SECONDS = 5.0
_marked: dict[str, float] = {}


def workspace_watched(workspace_id: str) -> None:
    """Someone's page is polling in this workspace: its approvals are read
    every INBOX_WATCHED_REFRESH_SECONDS while it is (one upsert at most
    every WATCH_MARK_SECONDS per process and workspace)."""
    if not workspace_id:
        return
    clock = time.monotonic()
    if clock - _marked.get(workspace_id, -WATCH_MARK_SECONDS) < WATCH_MARK_SECONDS:
        return
    _marked[workspace_id] = clock
    # One statement whether or not the workspace has a row yet.
    WorkspaceRefresh.objects.bulk_create(
        [WorkspaceRefresh(workspace_id=workspace_id, watched_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["workspace_id"],
        update_fields=["watched_at"],
    )


def workspaces_watched(*, now: datetime | None = None) -> list[str]:
    """Workspaces a poll marked in the last INBOX_WATCHED_SECONDS."""
    since = (now or timezone.now()) - timedelta(seconds=float(settings.INBOX_WATCHED_SECONDS))
    return sorted(WorkspaceRefresh.objects.filter(watched_at__gte=since).values_list("workspace_id", flat=True))


def watched_refresh_seconds() -> float:
    return float(settings.INBOX_WATCHED_REFRESH_SECONDS)


def refresh_soon(workspace_id: str) -> None:
    """Send the workspace's refresh through the outbox with the current
    transaction: a broker that can't be reached keeps it there (the sweeper
    sends it later, unless the interval's refresh made it stale). Never breaks
    the caller: a write that succeeded is not failed by its follow-up."""
    try:
        with transaction.atomic():
            outbox_send(task="inbox.refresh_workspace", args=[workspace_id], expires=refresh_seconds())
    except Exception:
        logger.warning("inbox: could not store the refresh of workspace %s", workspace_id, exc_info=True)


def refresh_seconds() -> float:
    return float(settings.INBOX_REFRESH_SECONDS)


def inbox_after_write(write: RemoteWrite) -> None:
    """The write hook: a write that settles a waiting item (a decision on an
    approval) removes it at once, so every header count drops on its next
    poll, and the workspace is read again now rather than on the interval. A
    409 settles too: for an approval it means someone decided it already."""
    if write.status is None or not (write.succeeded or write.status == 409):
        return
    settled, _ = WaitingItem.objects.filter(settle_path=write.path).delete()
    wanted = settled or any(
        write.path.startswith(prefix) for source in inbox_sources() for prefix in source.refresh_after
    )
    if not wanted or write.stored_key_id is None:
        return
    workspace_id = ApiKey.objects.filter(pk=write.stored_key_id).values_list("workspace_id", flat=True).first()
    if workspace_id:
        refresh_soon(workspace_id)


# --- notices (toasts) ----------------------------------------------------------------------

# How old news may be: work that ended longer ago than this is not announced.
NOTICE_WINDOW = timedelta(minutes=15)
FAILED_STATUSES = frozenset({"failed", TrackedOperation.STATUS_STOPPED})
VERBS = {Notice.STATE_FINISHED: "finished", Notice.STATE_FAILED: "failed", Notice.STATE_NEEDS_YOU: "needs you"}


@dataclass(frozen=True)
class NoticeView:
    id: int
    state: str
    heading: str
    title: str
    url: str

    @property
    def text(self) -> str:
        return f"{self.heading}: {self.title}" if self.title else self.heading


def notice_state(op: TrackedOperation) -> str | None:
    """What is news about `op`: it needs the person, failed, or finished."""
    kind = registry.get_kind(op.kind)
    snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
    if kind is not None and kind.needs_person(snapshot):
        return Notice.STATE_NEEDS_YOU
    if not op.is_final:
        return None
    return Notice.STATE_FAILED if op.status in FAILED_STATUSES else Notice.STATE_FINISHED


def operation_page(op: TrackedOperation) -> str:
    kind = registry.get_kind(op.kind)
    if kind is not None and kind.page_url is not None:
        try:
            return kind.page_url(op)
        except Exception:
            logger.warning("inbox: no page for operation %s", op.pk, exc_info=True)
    return reverse("live:detail", args=[op.pk])


def notices_claim(
    *, user, now: datetime | None = None, limit: int = 5, on_screen: frozenset[int] = frozenset()
) -> list[NoticeView]:
    """The person's news not announced yet (their tracked work that finished,
    failed or needs them in the last NOTICE_WINDOW), each claimed once: two
    tabs polling at the same moment never both show it.

    `on_screen`: the operations the polling page shows (it says so, see
    `on_screen_operations` in views.py). Their news is claimed without a
    toast: the person is looking at it, and a toast would only cover it; and
    being claimed, it does not pop up later on another page either."""
    now = now or timezone.now()
    ops = list(
        TrackedOperation.objects.filter(started_by=user, updated_at__gte=now - NOTICE_WINDOW)
        .filter(Q(is_final=True) | Q(status__in=WAITING_STATUSES))
        .order_by("updated_at", "id")[:50]
    )
    if not ops:
        return []
    told = set(Notice.objects.filter(operation__in=ops).values_list("operation_id", "state"))
    news: list[NoticeView] = []
    for op in ops:
        kind = registry.get_kind(op.kind)
        if kind is not None and not kind.announces(op):
            continue  # tracked for a list's live row, not followed by choice
        state = notice_state(op)
        if state is None or (op.pk, state) in told:
            continue
        try:
            with transaction.atomic():
                notice = Notice.objects.create(user=user, operation=op, state=state)
        except IntegrityError:
            continue  # another tab claimed it first
        if op.pk in on_screen:
            continue
        heading = f"{kind.title if kind else 'Work'} {VERBS[state]}"
        news.append(NoticeView(id=notice.pk, state=state, heading=heading, title=op.title, url=operation_page(op)))
        if len(news) >= limit:
            break
    return news


# --- dismissals ------------------------------------------------------------------------------

# Dismissals older than this are forgotten: what they hid has long left the inbox.
DISMISSAL_KEPT = timedelta(days=90)


def item_dismiss(*, user, workspace_id: str, key: str) -> None:
    Dismissal.objects.get_or_create(user=user, workspace_id=workspace_id, key=key)


def dismissals_prune(*, now: datetime | None = None) -> int:
    deleted, _ = Dismissal.objects.filter(created_at__lt=(now or timezone.now()) - DISMISSAL_KEPT).delete()
    return deleted
