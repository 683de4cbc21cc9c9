"""Reads of the outbox: what waits there, for a page that names why."""

from __future__ import annotations

from django.core.cache import cache
from django.db import models

from dashboard.outbox.models import OutboxMessage
from dashboard.outbox.services import HELD_CACHE_KEY, outbox_label

# What a page says of work whose task waits here (the live status region, a job's page).
HELD_MESSAGE = (
    "Your work started. Its task waits in the console's outbox because the task queue (the broker) "
    "cannot be reached; live updates resume once it is back."
)


def outbox_holds(about: models.Model) -> bool:
    """Whether a task about this row waits in the outbox for the broker.
    One cache read while no message is held (no query); a query on the
    `about` index while some are."""
    if not cache.get(HELD_CACHE_KEY):
        return False
    return OutboxMessage.objects.filter(about=outbox_label(about), attempts__gt=0).exists()


def outbox_waiting_count() -> int:
    """Messages the broker has not taken yet (the after-commit try failed at least once)."""
    return OutboxMessage.objects.filter(attempts__gt=0).count()
