"""A workspace's outbound events: where they go (Endpoint), what happened
(Event, one row per thing, its id stable for receivers to dedupe), and each
endpoint's delivery of it (Delivery: the row is the schedule) with every
attempt kept (Attempt) for the delivery log."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from dashboard.keys.crypto import decrypt_secret


class EventType(models.TextChoices):
    APPROVAL_REQUESTED = "approval.requested", "An approval was requested"
    APPROVAL_DECIDED = "approval.decided", "An approval was decided"
    RUN_FAILED = "run.failed", "A run failed"
    RECORD_CHANGED = "record.changed", "A record was changed through the console"
    JOB_FINISHED = "job.finished", "A job finished"
    ALERT_BREACHED = "alert.breached", "An alert rule was breached"
    ALERT_RECOVERED = "alert.recovered", "An alert rule recovered"


class Endpoint(models.Model):
    """A receiver of one workspace's events, set by its Administrators. The
    address and the signing secret are stored encrypted like API keys; the
    secret is shown once, when it is made."""

    workspace_id = models.CharField(max_length=64)
    label = models.CharField(max_length=100)
    url_encrypted = models.TextField()
    url_hint = models.CharField(max_length=160, help_text="The host and the end of the address, for people.")
    secret_encrypted = models.TextField()
    event_types = models.JSONField(default=list, help_text="The EventType values it receives.")
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["label", "id"]
        indexes = [models.Index(fields=["workspace_id", "enabled"], name="events_endpoint_ws")]

    def __str__(self) -> str:
        return self.label

    @property
    def url(self) -> str:
        return decrypt_secret(self.url_encrypted)

    @property
    def secret(self) -> str:
        return decrypt_secret(self.secret_encrypted)

    def type_labels(self) -> list[str]:
        return [EventType(value).label for value in self.event_types if value in EventType.values]


class Event(models.Model):
    """One thing that happened in a workspace, as receivers get it. `event_id`
    ("evt_…") is the `webhook-id` of every delivery and retry of it; `key`
    says which happening it is ("approval.decided:<id>"), so a happening seen
    twice (two workers, a retried poll) is one event."""

    event_id = models.CharField(max_length=40, unique=True)
    workspace_id = models.CharField(max_length=64)
    type = models.CharField(max_length=32, choices=EventType.choices)
    key = models.CharField(max_length=250)
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace_id", "key"], name="events_one_event_per_happening")]

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class Delivery(models.Model):
    """One endpoint's delivery of one event: `next_try_at` is when it is
    sent (again); one worker holds it while sending (a lease); a failure
    moves `next_try_at` by EVENTS_RETRY_SECONDS, then gives up."""

    STATUS_PENDING = "pending"
    STATUS_SENT = "sent"
    STATUS_FAILED = "failed"
    STATUSES = [(STATUS_PENDING, "Waiting to be sent"), (STATUS_SENT, "Delivered"), (STATUS_FAILED, "Gave up")]

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=8, choices=STATUSES, default=STATUS_PENDING)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Calls made, every one in Attempt.")
    # Failures in a row since it was (last) asked to be sent: what the backoff and giving up count.
    failures = models.PositiveSmallIntegerField(default=0)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The receiver's last HTTP status.")
    last_error = models.CharField(max_length=300, blank=True)
    next_try_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=32, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["endpoint", "event"], name="events_one_delivery_per_endpoint")]
        indexes = [models.Index(fields=["status", "next_try_at"], name="events_delivery_due")]

    def __str__(self) -> str:
        return f"delivery {self.pk} of {self.event_id} to {self.endpoint_id}"


class Attempt(models.Model):
    """One call of a delivery: when, what the receiver answered, or why it did not."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_rows")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField()
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["delivery_id", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}"
