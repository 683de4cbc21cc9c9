"""Poller slots: a bounded number of `live.poll_due` messages.

At most `LIVE_POLL_MAX_QUEUED` poll messages are queued or running at any
time, whatever the worker's speed: `live.tick` sends one only for an idle
slot (or one whose message is presumed lost), so a slow worker or broker
never faces a growing queue and no message needs an expiry (a backlog
drains instead of feeding itself). Each message carries its slot's token; a
stale one (its slot sent again meanwhile) is dropped without polling. The
rows themselves are claimed with leases when a message runs
(dashboard/live/services.py)."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from dashboard.live.claims import batch_longest, operations_due_count, poll_batch_size
from dashboard.live.models import PollerSlot


def batches_for(due: int) -> int:
    """Poll tasks that cover `due` rows, `LIVE_POLL_BATCH` each."""
    return math.ceil(due / poll_batch_size()) if due > 0 else 0


@dataclass(frozen=True)
class SlotTicket:
    """A `live.poll_due` message to send: the slot it holds and its token."""

    slot: int
    token: str


def poll_max_queued() -> int:
    """Poll messages queued or running at once, in all (a few per worker process)."""
    return max(1, int(settings.LIVE_POLL_MAX_QUEUED))


def poll_task_seconds() -> float:
    return float(settings.LIVE_POLL_TASK_SECONDS)


def _slot_lost(slot: PollerSlot, now: datetime) -> bool:
    """A message presumed lost: sent and never started for a lease's length
    (a broker that lost it, an embedded broker's consumer killed), or started
    and still not ended past its run budget and a batch's lease (a killed
    worker). Its slot is sent again; should the old message come after all,
    its token no longer matches and it is dropped. Not the rows' short lease:
    a message may wait that long behind busy workers, and a live task runs
    for its budget and then its last batch (which the rows' lease does not
    wait for: they are free within seconds of a kill)."""
    if slot.started_at is None:
        return slot.sent_at is None or now - slot.sent_at > poll_task_longest()
    return now - slot.started_at > poll_task_longest()


def poll_task_longest() -> timedelta:
    """The longest a live `live.poll_due` runs: its budget, then its last batch."""
    return timedelta(seconds=poll_task_seconds()) + batch_longest()


def _slots(now: datetime) -> list[PollerSlot]:
    wanted = poll_max_queued()
    slots = list(PollerSlot.objects.filter(id__lte=wanted).order_by("id"))
    if len(slots) < wanted:  # first tick, or a larger setting: make the missing rows
        have = {slot.id for slot in slots}
        PollerSlot.objects.bulk_create(
            [PollerSlot(id=number) for number in range(1, wanted + 1) if number not in have], ignore_conflicts=True
        )
        slots = list(PollerSlot.objects.filter(id__lte=wanted).order_by("id"))
    return slots


def _take_slot(slot: PollerSlot, now: datetime) -> SlotTicket | None:
    """Mark `slot` sent under a new token, unless another tick changed it first."""
    token = uuid.uuid4().hex
    taken = PollerSlot.objects.filter(id=slot.id, token=slot.token, sent_at=slot.sent_at).update(
        token=token, sent_at=now, started_at=None
    )
    return SlotTicket(slot=slot.id, token=token) if taken else None


def poller_tick(*, now: datetime | None = None) -> tuple[int, list[SlotTicket]]:
    """What one tick sends: (rows due, one ticket per poll message to send).

    Messages already queued (sent, not started) count against the due rows,
    since each will claim a batch when it starts; running ones don't (they may
    be ending). With every slot busy the tick reads nothing else."""
    now = now or timezone.now()
    slots = _slots(now)
    free = [slot for slot in slots if not slot.token or _slot_lost(slot, now)]
    if not free:
        return 0, []
    queued = sum(1 for slot in slots if slot.token and slot.started_at is None and not _slot_lost(slot, now))
    due = operations_due_count(now=now, limit=(len(free) + queued) * poll_batch_size())
    tickets = []
    for slot in free[: max(0, batches_for(due) - queued)]:
        ticket = _take_slot(slot, now)
        if ticket is not None:
            tickets.append(ticket)
    return due, tickets


def poller_slot_start(*, slot: int, token: str, now: datetime | None = None) -> bool:
    """A worker begins the message of `slot`: False when it is not the one the
    slot waits for (sent again meanwhile), and then it must not poll."""
    return bool(PollerSlot.objects.filter(id=slot, token=token).update(started_at=now or timezone.now()))


def poller_slot_finish(*, slot: int, token: str, again: bool = False, now: datetime | None = None) -> str | None:
    """The message of `slot` ended. `again` (rows still due when its budget ran
    out): the slot stays busy under a new token, returned for the message to
    send at once, rather than waiting for a tick; otherwise it is idle."""
    if again:
        new = uuid.uuid4().hex
        fields: dict[str, Any] = {"token": new, "sent_at": now or timezone.now(), "started_at": None}
    else:
        new, fields = "", {"token": "", "sent_at": None, "started_at": None}
    done = PollerSlot.objects.filter(id=slot, token=token).update(**fields)
    return new if done and again else None


def poller_slot_release(*, slot: int, token: str) -> None:
    """A message that could not be sent: its slot is idle again."""
    PollerSlot.objects.filter(id=slot, token=token).update(token="", sent_at=None, started_at=None)
