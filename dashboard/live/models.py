from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class TrackedOperation(models.Model):
    """One long remote operation (a Studio turn, an agent run...) that the
    console follows until it reaches a final status.

    The row is the schedule: `next_poll_at` says when it is due, a lease
    (`lease_until` + `lease_token`) says which poller holds it right now. A
    poller that dies simply lets its lease run out.
    """

    # Statuses of our own, used when polling ends without a final remote status.
    STATUS_PENDING = "pending"  # recorded, never polled yet
    STATUS_STOPPED = "stopped"  # polling ended on an error that retrying can't fix

    owner_key = models.ForeignKey(
        "keys.ApiKey",
        on_delete=models.CASCADE,
        related_name="tracked_operations",
        help_text="The stored API key the operation was started with; polls use it.",
    )
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tracked_operations"
    )
    kind = models.CharField(max_length=64)
    remote_id = models.CharField(max_length=128)
    title = models.CharField(max_length=200, blank=True, help_text="What the person asked, short.")
    # What the console sent when it started the operation (studio, conversation...), never a secret.
    context = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=40, default=STATUS_PENDING)
    snapshot = models.JSONField(default=dict, blank=True)
    is_final = models.BooleanField(default=False)

    next_poll_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=64, blank=True)
    poll_count = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0, help_text="Failed polls in a row.")
    last_error = models.TextField(blank=True)
    last_error_request_id = models.CharField(max_length=128, blank=True)
    last_polled_at = models.DateTimeField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # A double submit replays the same remote operation: it must stay one row.
            models.UniqueConstraint(fields=["owner_key", "kind", "remote_id"], name="live_op_unique_remote"),
        ]
        indexes = [
            # The tick's due-rows query: not final, next_poll_at <= now.
            models.Index(fields=["next_poll_at"], name="live_op_due", condition=Q(is_final=False)),
            models.Index(fields=["started_by", "kind", "-created_at"], name="live_op_user_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.remote_id} ({self.status})"


class PollerSlot(models.Model):
    """One of the `LIVE_POLL_MAX_QUEUED` poll messages that may exist at once.

    `live.tick` sends `live.poll_due(slot, token)` only for a slot that is idle
    (or whose message is presumed lost), so however slow the worker, at most
    that many poll messages wait in the broker or run: they need no expiry,
    and a backlog drains instead of feeding itself. `token` names the message
    the slot is waiting for; a message whose token no longer matches (its slot
    was presumed lost and sent again) is dropped without polling.
    """

    id = models.PositiveSmallIntegerField(primary_key=True)
    token = models.CharField(max_length=32, blank=True, help_text="The message in flight; empty: idle.")
    sent_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="When a worker began that message.")

    def __str__(self) -> str:
        return f"poller slot {self.id} ({'idle' if not self.token else 'running' if self.started_at else 'queued'})"
