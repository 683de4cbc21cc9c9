"""Reads of the Studio's conversations. Turn states come from the tracked
rows only (the poller stores them): nothing here calls the service.

A conversation is every tracked turn of the workspace with the same
`conversation_id` (in what the console sent, `context`, or in what the
service answered, `snapshot`), whoever of the workspace's console users
started it: teammates see and continue each other's conversations.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import EPOCH, PAUSED_AFTER, OperationView, operation_view
from dashboard.web.reading import as_dict, text
from studio.live import TURN_KIND

MAX_TURNS = 200  # turns of one conversation shown (the newest)
RECENT_ROWS = 300  # newest turn rows read to find the recent conversations


def conversation_id_of(op: TrackedOperation) -> str:
    snapshot = as_dict(op.snapshot)
    return text(snapshot.get("conversation_id") or as_dict(op.context).get("conversation_id"))


def turn_in_workspace(*, workspace_id: str, operation_id: int) -> TrackedOperation:
    """A turn of the workspace the viewer works in now (started by anyone of
    it through the console); 404 for any other row, with no hint it exists."""
    if not workspace_id:
        raise Http404("No such conversation.")
    op = (
        TrackedOperation.objects.select_related("owner_key", "started_by")
        .filter(id=operation_id, kind=TURN_KIND, owner_key__workspace_id=workspace_id)
        .first()
    )
    if op is None:
        raise Http404("No such conversation.")
    return op


def _conversation_rows(*, workspace_id: str, anchor: TrackedOperation):
    rows = TrackedOperation.objects.filter(kind=TURN_KIND, owner_key__workspace_id=workspace_id)
    conversation_id = conversation_id_of(anchor)
    if conversation_id:
        return rows.filter(
            Q(pk=anchor.pk) | Q(context__conversation_id=conversation_id) | Q(snapshot__conversation_id=conversation_id)
        )
    return rows.filter(pk=anchor.pk)


def conversation_turns(*, workspace_id: str, anchor: TrackedOperation) -> list[TrackedOperation]:
    """The anchor's conversation, oldest turn first."""
    rows = _conversation_rows(workspace_id=workspace_id, anchor=anchor).select_related("owner_key", "started_by")
    newest = list(rows.order_by("-created_at", "-id")[:MAX_TURNS])
    return newest[::-1]


def _aware(moment: datetime) -> datetime:
    # A raw cursor on SQLite reads datetimes naive (they are stored in UTC).
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _version(rows, now: datetime) -> str:
    """The version of a conversation region from its rows' version columns
    (id, updated_at, last_polled_at, created_at, is_final): "" once all are
    final (that render is always sent, answered 286, and stops the polling)."""
    rows = sorted(rows)
    if all(row[4] for row in rows):
        return ""
    parts = []
    for op_id, updated_at, polled_at, created_at, is_final in rows:
        refreshed = _aware(polled_at or created_at)
        paused = not is_final and now - refreshed > PAUSED_AFTER
        stamp = (_aware(updated_at) - EPOCH) // timedelta(microseconds=1)
        parts.append(
            f"{op_id}:{stamp}:{(refreshed - EPOCH) // timedelta(microseconds=1)}:{int(bool(is_final))}:{int(paused)}"
        )
    return hashlib.blake2s("|".join(parts).encode(), digest_size=8).hexdigest()


def turns_version(turns: list[TrackedOperation], *, now: datetime | None = None) -> str:
    """The version of the region that shows these turns."""
    return _version(
        [(op.pk, op.updated_at, op.last_polled_at, op.created_at, op.is_final) for op in turns], now or timezone.now()
    )


def _shown_version_sql(count: int) -> str:
    """The version columns of the turns a region shows, by id, only where
    they belong to the viewer's workspace (their active key's, unless the
    service refused it: then no row, and the poll meets the refusal): written out,
    one query, because it is the whole of an unchanged poll's work (building
    an ORM queryset costs more than the query; bench/studio_poll.py)."""
    ops = connection.ops.quote_name(TrackedOperation._meta.db_table)
    keys = connection.ops.quote_name(ApiKey._meta.db_table)
    ids = ", ".join(["%s"] * count)
    return (
        f"SELECT o.id, o.updated_at, o.last_polled_at, o.created_at, o.is_final FROM {ops} o "
        f"JOIN {keys} k ON k.id = o.owner_key_id "
        f"WHERE o.id IN ({ids}) AND o.kind = %s AND k.workspace_id = "
        f"(SELECT a.workspace_id FROM {keys} a WHERE a.user_id = %s AND a.is_active = %s AND a.refused_at IS NULL)"
    )


def shown_turns_version(*, user, turn_ids: list[int], now: datetime | None = None) -> str | None:
    """The current version of the region showing `turn_ids`, or None when one
    of them is not (or no longer) a turn of the viewer's workspace."""
    if not turn_ids or len(turn_ids) > MAX_TURNS:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_shown_version_sql(len(turn_ids)), [*turn_ids, TURN_KIND, user.pk, True])
        rows = cursor.fetchall()
    if len(rows) != len(set(turn_ids)):
        return None
    return _version(rows, now or timezone.now())


@dataclass(frozen=True)
class ConversationSummary:
    latest: OperationView
    studio: str
    artifact: dict[str, Any]
    turn_count: int
    started_by: str


def conversations_recent(*, workspace_id: str, limit: int = 20) -> list[ConversationSummary]:
    """The workspace's latest conversations (newest activity first), each with
    its latest turn, its artifact and who started it."""
    if not workspace_id:
        return []
    rows = list(
        TrackedOperation.objects.select_related("owner_key", "started_by")
        .filter(kind=TURN_KIND, owner_key__workspace_id=workspace_id)
        .order_by("-created_at", "-id")[:RECENT_ROWS]
    )
    grouped: dict[str, list[TrackedOperation]] = {}
    for op in rows:
        grouped.setdefault(conversation_id_of(op) or f"turn-{op.pk}", []).append(op)
    summaries = []
    for ops in list(grouped.values())[:limit]:
        latest = ops[0]
        artifact = next(
            (as_dict(as_dict(op.snapshot).get("artifact")) for op in ops if as_dict(op.snapshot).get("artifact")), {}
        )
        summaries.append(
            ConversationSummary(
                latest=operation_view(op=latest),
                studio=text(as_dict(latest.snapshot).get("studio") or as_dict(latest.context).get("studio")),
                artifact=artifact,
                turn_count=len(ops),
                started_by=ops[-1].started_by.get_username(),
            )
        )
    return summaries


def latest_artifact(turns: list[TrackedOperation]) -> tuple[dict[str, Any], TrackedOperation | None]:
    """The artifact the conversation works on (its latest turn that names one)."""
    for op in reversed(turns):
        artifact = as_dict(as_dict(op.snapshot).get("artifact"))
        if text(artifact.get("id")):
            return artifact, op
    return {}, None
