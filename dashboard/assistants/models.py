"""An assistant's write that workspace policy gives to a person first
(dashboard/assistants/policy.py): kept here with the exact arguments, decided
by an Approver on the Assistant requests page, carried out once after approval.

The Idempotency-Key is minted when the request is made and kept on the row:
every attempt of the carry-out sends the same one, so the service makes the
write once however often a worker retries it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AssistantRequest(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for approval"
        APPROVED = "approved", "Approved: being carried out"
        DONE = "done", "Carried out"
        FAILED = "failed", "Approved, but the service refused it"
        REJECTED = "rejected", "Rejected"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    token = models.ForeignKey("tokens.AccessToken", null=True, on_delete=models.SET_NULL, related_name="+")
    token_name = models.CharField(max_length=100, help_text="The assistant's token, as named when it asked.")
    workspace_id = models.CharField(max_length=64)
    tool = models.CharField(max_length=100)
    arguments = models.JSONField(default=dict)
    summary = models.CharField(max_length=300, help_text="The change in words, for the approval's card.")
    reason = models.CharField(max_length=300, help_text="Why the workspace's policy asks a person.")
    idempotency_key = models.CharField(max_length=128, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=2000, blank=True)
    # The carry-out's claim: one worker at a time; a worker that died lets go when it lapses.
    carrying_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    carried_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace_id", "status", "-created_at"], name="assistant_req_waiting")]

    def __str__(self) -> str:
        return f"{self.summary} ({self.get_status_display()})"
