"""Celery tasks of the live poller. They take ids only (never a key or a
secret), re-read the rows, never sleep, and are safe to run twice."""

from __future__ import annotations

import logging
import time

from dashboard.celery import app
from dashboard.live import services, slots

logger = logging.getLogger("dashboard.live")

# Bound to the project's app, not `shared_task`: a shared task resolves the
# "current" app per thread, which in a thread of its own (a test poller, an
# embedded runner) can be a default app that isn't configured.


def _send(ticket: slots.SlotTicket) -> bool:
    """Send the poll message of a slot; a send that fails frees the slot again
    (the next tick tries once more) instead of holding it until presumed lost."""
    try:
        poll_due.apply_async(args=(ticket.slot, ticket.token))
    except Exception:
        logger.exception("live: sending the poll task of slot %s failed", ticket.slot)
        slots.poller_slot_release(slot=ticket.slot, token=ticket.token)
        return False
    return True


@app.task(name="live.tick")
def tick() -> int:
    """Count the due rows and send enough `live.poll_due` tasks to cover them,
    each holding a free poller slot (`slots.poller_tick`). Returns the rows due
    (0 when every slot was busy: nothing else is read then).

    The tick claims nothing: each poll task claims its rows when it starts, so
    no lease runs out while a message waits in the broker. Poll messages carry
    no expiry: there are never more than `LIVE_POLL_MAX_QUEUED` of them.
    """
    due, tickets = slots.poller_tick()
    for ticket in tickets:
        _send(ticket)
    return due


@app.task(name="live.poll_due")
def poll_due(slot: int | None = None, token: str = "") -> int:
    """Claim a batch of due rows and poll them all; again while rows are due,
    for `LIVE_POLL_TASK_SECONDS` at most. Returns the rows polled.

    It stops early as soon as a batch finds nothing due or polls nothing (every
    row put off by a 429 or a short lease): it never spins on the same rows.
    A message of a slot that was sent again since (presumed lost) is dropped.
    When its budget ran out with rows still due, it sends its slot's next
    message itself: a backlog keeps its pollers without waiting for a tick.
    """
    if slot is not None and not slots.poller_slot_start(slot=slot, token=token):
        logger.info("live: dropping a stale poll task of slot %s", slot)
        return 0
    budget = slots.poll_task_seconds()
    started = time.monotonic()
    polled = 0
    more = False
    try:
        while True:
            report = services.operations_poll_due()
            polled += report.polled
            if report.polled == 0:
                return polled
            if time.monotonic() - started >= budget:
                more = True
                return polled
    finally:
        if slot is not None:
            again = slots.poller_slot_finish(slot=slot, token=token, again=more)
            if again:
                _send(slots.SlotTicket(slot=slot, token=again))


@app.task(name="live.poll_operation")
def poll_operation(operation_id: int, lease_token: str | None = None) -> None:
    """Poll one operation now, if its lease is free (or this task holds it)."""
    services.operation_poll(operation_id=operation_id, lease_token=lease_token)
