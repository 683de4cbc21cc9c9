from __future__ import annotations

from django.db import models


class OutboxMessage(models.Model):
    """A Celery task a write decided to send, stored in the same transaction
    as the write's own rows (a tracked operation, an object job...), so the
    task is never lost when the broker cannot take it at that moment.

    The row is deleted once the broker has taken the message; until then the
    sweeper (`outbox.sweep`) sends it again. `about` names the row the task
    works on ("live.trackedoperation:12"), so a page can say that its work
    waits here. Never a secret: tasks take ids.
    """

    task_name = models.CharField(max_length=200)
    args = models.JSONField(default=list, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)
    queue = models.CharField(max_length=200, blank=True)
    about = models.CharField(max_length=200, blank=True)
    # Not run before (a countdown), and not worth sending after (an expiry).
    run_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    # The request (or task run) that stored it: published with it as the task's
    # `request_id` header, so a message the sweeper sends minutes later still
    # logs, and calls the service, under the id of the request that asked for it.
    request_id = models.CharField(max_length=128, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    # When the sweeper may try it; a publisher holds it until `claimed_until`.
    send_after = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    claim_token = models.CharField(max_length=32, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["send_after", "id"]
        indexes = [
            models.Index(fields=["send_after"], name="outbox_msg_due"),
            models.Index(fields=["about"], name="outbox_msg_about"),
        ]

    def __str__(self) -> str:
        return f"{self.task_name} {self.args!r} ({self.attempts} attempts)"
