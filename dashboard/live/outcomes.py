"""What a poll's result writes on its row, and the writing of a batch's
results: in bulk, guarded by the lease (dashboard/live/services.py polls).

An outcome is the dict of fields one result sets: a success schedules the
next poll (`poll_interval`), a failed check backs off (`error_backoff`) and
the `LIVE_MAX_FAILURES`-th in a row stops the row, a refusal no poll can
change stops it at once. `outcomes_store` writes them, one UPDATE per group
of rows that set the same fields, only where the lease is still the batch's,
and releases the lease in the same UPDATE.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Expression, Field
from django.utils import timezone

from dashboard.api import errors

# An operation's stored words (its last error, why it stopped) stay English,
# whoever writes them: dashboard/live/selectors.py compares them with the catalogue.
from dashboard.api.messages import stored_meaning_of
from dashboard.keys.errors import KeyDecryptionError
from dashboard.live import registry
from dashboard.live.models import TrackedOperation
from dashboard.live.storable import storable, storable_text

logger = logging.getLogger("dashboard.live")

# Spec, "Limits": polling interval 5-10 s, backing off 5 s then 10 s.
FIRST_POLL_INTERVAL = timedelta(seconds=5)
LATER_POLL_INTERVAL = timedelta(seconds=10)
FAST_POLLS = 6  # the first half minute at 5 s, then every 10 s
MAX_ERROR_BACKOFF = timedelta(seconds=120)

SAVE_FAILED = "The console could not store what the service sent; trying again shortly."
STATUS_LIMIT = TrackedOperation._meta.get_field("status").max_length or 40
REQUEST_ID_LIMIT = TrackedOperation._meta.get_field("last_error_request_id").max_length or 128

Clock = Callable[[], datetime]


def max_failures() -> int:
    """Failed checks in a row (polls or saves) after which a row stops."""
    return max(1, int(settings.LIVE_MAX_FAILURES))


def poll_interval(*, poll_count: int) -> timedelta:
    """Delay before the next poll after `poll_count` successful polls."""
    return FIRST_POLL_INTERVAL if poll_count < FAST_POLLS else LATER_POLL_INTERVAL


def error_backoff(*, error_count: int) -> timedelta:
    """10 s, 20 s, 40 s... capped, after `error_count` failed polls in a row."""
    seconds = LATER_POLL_INTERVAL.total_seconds() * (2 ** max(error_count - 1, 0))
    return min(timedelta(seconds=seconds), MAX_ERROR_BACKOFF)


@dataclass
class Fetched:
    op: TrackedOperation
    kind: registry.OperationKind
    polled_at: datetime | None = None  # None: no call was made
    snapshot: Any = None
    error: Exception | None = None
    defer_until: datetime | None = None  # not polled: due again then (None: at once)


def rate_limited_until(exc: errors.RateLimitedError, op: TrackedOperation, polled_at: datetime) -> datetime:
    wait = timedelta(seconds=exc.retry_after) if exc.retry_after else error_backoff(error_count=op.error_count + 1)
    # Strictly after Retry-After, never on its edge.
    return polled_at + wait + timedelta(seconds=1)


# --- outcomes: the fields each result writes ------------------------------------------


def outcome_of(result: Fetched) -> dict[str, Any]:
    op, kind, now = result.op, result.kind, result.polled_at
    if now is None:
        # Not polled (another row's 429, the batch's window past, or its lease lost): released as it was.
        return {"next_poll_at": result.defer_until} if result.defer_until else {}
    exc = result.error
    if isinstance(exc, errors.RateLimitedError):
        return _failed(op, now, exc, next_poll_at=rate_limited_until(exc, op, now))
    if isinstance(exc, errors.ApiError):
        if stored_meaning_of(exc).stops_following:
            # Another poll can't help: the key is refused or may not read
            # this, or the operation no longer exists.
            if exc.status == 401:
                # The transport's hook marked the key from the fetch's pool thread;
                # marked again here, in the thread that holds the batch's database work.
                from dashboard.api.hooks import KeyRefusal, key_refused

                key_refused(KeyRefusal(stored_key_id=op.owner_key_id, request_id=exc.request_id))
            return stopped_fields(op, now, _stop_message(exc), request_id=exc.request_id)
        return _failed(op, now, exc)
    if isinstance(exc, KeyDecryptionError):
        return stopped_fields(op, now, "The stored API key can't be read any more; add it again.")
    if exc is not None:
        logger.error("live: polling operation %s failed", op.pk, exc_info=exc)
        return _failed(op, now, None)
    try:
        return _succeeded(op, kind, result.snapshot, now)
    except Exception:
        # The kind could not read what came back (an odd shape): a failed check.
        logger.exception("live: reading the answer for operation %s failed", op.pk)
        return _failed(op, now, None)


def _succeeded(op: TrackedOperation, kind: registry.OperationKind, snapshot: Any, now: datetime) -> dict[str, Any]:
    snapshot = storable(snapshot if isinstance(snapshot, dict) else {"value": snapshot})
    status = storable_text(str(kind.read_status(snapshot) or op.status), limit=STATUS_LIMIT)
    final = kind.is_final(status)
    return {
        "status": status,
        "snapshot": snapshot,
        "is_final": final,
        "next_poll_at": None if final else now + poll_interval(poll_count=op.poll_count + 1),
        "poll_count": op.poll_count + 1,
        "error_count": 0,
        "last_error": "",
        "last_error_request_id": "",
        "last_polled_at": now,
    }


def _failed(
    op: TrackedOperation,
    now: datetime,
    exc: errors.ApiError | None,
    *,
    next_poll_at: datetime | None = None,
    message: str | None = None,
    reason: str = "an unexpected error",
) -> dict[str, Any]:
    """A failed check (a poll, or the save of its result): polling goes on after a
    backoff, unless this is the `LIVE_MAX_FAILURES`-th failure in a row, which
    stops the row. `message` is what the page shows meanwhile (the catalogue's
    wording for `exc` by default), `reason` what it says when the row stops."""
    error_count = op.error_count + 1
    request_id = getattr(exc, "request_id", None)
    # A 429 is the service asking to wait, not a failure: it never stops a row.
    if error_count >= max_failures() and not isinstance(exc, errors.RateLimitedError):
        if exc is not None:
            reason = stored_meaning_of(exc).title
        stopped = stopped_fields(
            op, now, f"The last {error_count} checks all failed ({reason[:1].lower()}{reason[1:]}).", request_id
        )
        return {**stopped, "error_count": error_count}
    if message is None:
        message = (
            stored_meaning_of(exc).following if exc is not None else "The last check failed; trying again shortly."
        )
    next_poll_at = next_poll_at or now + error_backoff(error_count=error_count)
    logger.warning(
        "live: polling operation %s failed (%s, request id %s); next poll at %s",
        op.pk,
        type(exc).__name__ if exc else "error",
        request_id,
        next_poll_at.isoformat(),
    )
    return {
        "next_poll_at": next_poll_at,
        "error_count": error_count,
        "last_error": storable_text(message),
        "last_error_request_id": storable_text(request_id or "", limit=REQUEST_ID_LIMIT),
        "last_polled_at": now,
    }


def stopped_fields(op: TrackedOperation, now: datetime, message: str, request_id: str | None = None) -> dict[str, Any]:
    logger.warning("live: stopped following operation %s: %s", op.pk, message)
    return {
        "status": TrackedOperation.STATUS_STOPPED,
        "is_final": True,
        "next_poll_at": None,
        "last_error": storable_text(message),
        "last_error_request_id": storable_text(request_id or "", limit=REQUEST_ID_LIMIT),
        "last_polled_at": now,
    }


def owner_deactivated_message(op: TrackedOperation) -> str:
    return (
        f"Stopped following: {op.owner_key.user.get_username()}'s account was deactivated, so their stored "
        "API key is no longer used. Whatever the service did stays there."
    )


def _stop_message(exc: errors.ApiError) -> str:
    meaning = stored_meaning_of(exc)
    if meaning.kind == "invalid":
        return f"{meaning.following.rstrip('.')}: {exc.message}"
    return meaning.following


# --- storing: in bulk, guarded by the lease ------------------------------------------


class _ValueById(Expression):
    """One column's new value for each row of an UPDATE:
    `CASE id WHEN 1 THEN ... WHEN 2 THEN ... ELSE column END`.

    What `bulk_update` writes, without its `When(pk=...)` per row and column,
    each resolved as a filter: that cost more than the remote calls."""

    def __init__(self, field: Field, values: dict[int, Any]) -> None:
        super().__init__(output_field=field)
        self.column_field = field
        self.values = values

    def as_sql(self, compiler, connection) -> tuple[str, list[Any]]:
        quote = compiler.quote_name_unless_alias
        table = quote(self.column_field.model._meta.db_table)
        params: list[Any] = []
        for op_id, value in self.values.items():
            params += [op_id, self.column_field.get_db_prep_save(value, connection)]
        whens = " ".join(["WHEN %s THEN %s"] * len(self.values))
        sql = f"CASE {table}.{quote('id')} {whens} ELSE {table}.{quote(self.column_field.column)} END"
        if connection.features.requires_casted_case_in_updates:
            sql = f"CAST({sql} AS {self.column_field.db_type(connection)})"
        return sql, params


def outcomes_store(
    ops: list[TrackedOperation], outcomes: dict[int, dict[str, Any]], lease_token: str, *, clock: Clock
) -> int:
    """Write every outcome and release the lease, only where the lease is still
    ours: one UPDATE per group of rows that set the same fields (usually one).

    A group whose UPDATE fails is written row by row, and a row whose own
    write fails (something in it the database refuses) is written as a failed
    check instead: its lease is released and, after `LIVE_MAX_FAILURES` of
    them, it stops. A bad answer never holds a row until its lease runs out.
    """
    by_id = {op.pk: op for op in ops}
    released = {"lease_until": None, "lease_token": "", "updated_at": timezone.now()}

    def store_together(op_ids: list[int], names: tuple[str, ...]) -> int:
        try:
            with transaction.atomic():
                return TrackedOperation.objects.filter(id__in=op_ids, lease_token=lease_token).update(
                    **_values_by_field(names, {op_id: outcomes[op_id] for op_id in op_ids}), **released
                )
        except Exception:
            logger.exception("live: storing %d poll results at once failed; storing them one by one", len(op_ids))
            return sum(
                _store_one(by_id[op_id], {**outcomes[op_id], **released}, lease_token, clock=clock) for op_id in op_ids
            )

    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for op_id, fields in outcomes.items():
        groups[tuple(sorted(fields))].append(op_id)
    written = 0
    for names, group in groups.items():
        for op_ids in _chunks(group, names):
            count = store_together(op_ids, names)
            if count < len(op_ids):
                logger.info("live: lost the lease of %d operation(s) meanwhile; results dropped", len(op_ids) - count)
            written += count
    return written


def after_final(ops: list[TrackedOperation], outcomes: dict[int, dict[str, Any]]) -> None:
    """Each kind's `on_final` with its rows this batch found final. A row
    whose write was lost is passed too: the hook re-reads rows and is
    idempotent, so at worst it finds nothing to do."""
    final_by_kind: dict[str, list[int]] = defaultdict(list)
    for op in ops:
        if outcomes.get(op.pk, {}).get("is_final"):
            final_by_kind[op.kind].append(op.pk)
    for name, op_ids in final_by_kind.items():
        run_on_final(registry.get_kind(name), op_ids)


def run_on_final(kind: registry.OperationKind | None, op_ids: list[int]) -> None:
    if kind is None or kind.on_final is None or not op_ids:
        return
    try:
        kind.on_final(op_ids)
    except Exception:
        logger.exception("live: the after-final step of %s failed for %d operation(s)", kind.name, len(op_ids))


def _chunks(op_ids: list[int], names: tuple[str, ...]) -> list[list[int]]:
    """Rows per UPDATE within the database's limit of query parameters (two
    per row and field at most, and the row's id in the filter)."""
    limit = connection.features.max_query_params or 65535
    size = max(1, min(500, (limit - 20) // (2 * len(names) + 1)))
    return [op_ids[start : start + size] for start in range(0, len(op_ids), size)]


def _values_by_field(names: tuple[str, ...], rows: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """For `update()`: a field's value where every row has the same one, else one per row."""
    values: dict[str, Any] = {}
    for name in names:
        column = {op_id: fields[name] for op_id, fields in rows.items()}
        first = next(iter(column.values()))
        if all(type(value) is type(first) and value == first for value in column.values()):
            values[name] = first
        else:
            field = TrackedOperation._meta.get_field(name)
            assert isinstance(field, Field)
            values[name] = _ValueById(field, column)
    return values


def _store_one(op: TrackedOperation, fields: dict[str, Any], lease_token: str, *, clock: Clock) -> int:
    try:
        with transaction.atomic():
            return TrackedOperation.objects.filter(pk=op.pk, lease_token=lease_token).update(**fields)
    except Exception:
        logger.exception("live: storing the poll result of operation %s failed", op.pk)
    failed = _failed(
        op,
        fields.get("last_polled_at") or clock(),
        None,
        message=SAVE_FAILED,
        reason="the console could not store what the service sent",
    )
    try:
        with transaction.atomic():
            return TrackedOperation.objects.filter(pk=op.pk, lease_token=lease_token).update(
                **failed, lease_until=None, lease_token="", updated_at=timezone.now()
            )
    except Exception:
        logger.exception("live: operation %s could not be released; its lease will run out", op.pk)
        return 0
