from __future__ import annotations

from django.conf import settings
from django.db import models


class WaitingItem(models.Model):
    """One thing the service says waits for a person in a workspace (a
    pending approval, a run waiting or failed), as the last refresh read it.

    Written only by `inbox.refresh_workspace` (and removed at once by the
    write that settles it); read by the header count and the inbox page, so
    neither ever calls the service."""

    workspace_id = models.CharField(max_length=64)
    source = models.CharField(max_length=64, help_text="The inbox source (an area) that read it.")
    remote_id = models.CharField(max_length=200)
    kind = models.CharField(max_length=32)
    data = models.JSONField(default=dict, blank=True)
    since = models.DateTimeField(null=True, blank=True)
    settle_path = models.CharField(max_length=300, blank=True)
    refreshed_at = models.DateTimeField()

    class Meta:
        ordering = ["since", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "source", "remote_id"], name="inbox_one_item_per_remote"),
        ]
        indexes = [models.Index(fields=["settle_path"], name="inbox_item_settle")]

    def __str__(self) -> str:
        return f"{self.source} {self.kind} {self.remote_id}"


class WorkspaceRefresh(models.Model):
    """When a workspace's waiting items were last read from the service, and
    what went wrong if the last try failed (shown on the inbox page)."""

    workspace_id = models.CharField(max_length=64, unique=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)
    tried_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    # Someone's page polled in this workspace (refreshed by the polls at most
    # every WATCH_MARK_SECONDS): its approvals are read more often meanwhile.
    watched_at = models.DateTimeField(null=True, blank=True)
    # The refresh running now (one per workspace at a time); after a 429 it is
    # held until the service's Retry-After, so nothing reads it before then.
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"refresh of {self.workspace_id}"


class Notice(models.Model):
    """A toast shown once: tracked work of the person finished, failed or
    needs them. One row per operation and state, so the same news is never
    announced twice, in any tab."""

    STATE_FINISHED = "finished"
    STATE_FAILED = "failed"
    STATE_NEEDS_YOU = "needs_you"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    operation = models.ForeignKey("live.TrackedOperation", on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["operation", "state"], name="inbox_one_notice_per_state")]

    def __str__(self) -> str:
        return f"{self.state} of operation {self.operation_id}"


class Dismissal(models.Model):
    """A person put an item out of their inbox (a failure seen, a video
    request they will not make): it stays out for them, not for teammates."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workspace_id = models.CharField(max_length=64)
    key = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace_id", "key"], name="inbox_one_dismissal_per_item"),
        ]

    def __str__(self) -> str:
        return f"{self.key} dismissed by {self.user_id}"
