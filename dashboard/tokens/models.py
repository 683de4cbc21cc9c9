"""Personal access tokens: how a script or an assistant acts through the
console as one person, in one workspace, within scopes (dashboard/tokens/scopes.py).

The token itself (`wsc_<id>_<secret>`) is shown once and never stored: the
row keeps its id part (to find it, and for people to recognise it) and the
SHA-256 of the whole (a random 32-byte secret needs no slow hash: nothing
short to guess)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class AccessToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    workspace_id = models.CharField(max_length=64, help_text="The one workspace it acts in (one of the person's keys).")
    name = models.CharField(max_length=100)
    token_id = models.CharField(max_length=16, unique=True, help_text="The token's public part, after wsc_.")
    secret_hash = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    allowed_from = models.JSONField(default=list, blank=True, help_text="Addresses or networks; empty: anywhere.")
    # "Ask first": every write made with it waits for an Approver (dashboard/assistants/policy.py).
    ask_first = models.BooleanField(default=False, help_text="Every write made with it waits for an Approver.")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_from = models.CharField(max_length=64, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} (wsc_{self.token_id}…)"

    @property
    def shown_prefix(self) -> str:
        return f"wsc_{self.token_id}"

    @property
    def state(self) -> str:
        """ "active", "expired" or "revoked", in words for the pages."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        return "active"


class TokenPolicy(models.Model):
    """What Administrators set for every personal access token (one row, made
    on first use): the longest life a token may be given, within the
    operator's ceiling TOKEN_MAX_DAYS. dashboard/tokens/policy.py."""

    max_days = models.PositiveIntegerField(null=True, blank=True, help_text="Empty: the operator's TOKEN_MAX_DAYS.")
    changed_at = models.DateTimeField(auto_now=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"Tokens live at most {self.max_days or 'the operator’s'} days"
