from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditEntry(models.Model):
    """One remote write made through the console, or one approval decision.

    Written by the transport's write hook (dashboard/api/hooks.py), once per
    logical write: a repeat of the same write (same Idempotency-Key, e.g. a
    poll that repeats a background request) updates the entry's outcome
    instead of adding one. Users never edit or delete entries; only the
    retention task removes old ones.
    """

    KIND_WRITE = "write"
    KIND_DECISION = "approval_decision"
    # A change to people, roles, invitations or sign-in (no remote write:
    # method and path stay empty; `subject` is the account it was about).
    KIND_ACCOUNT = "account"
    KINDS = [(KIND_WRITE, _("Write")), (KIND_DECISION, _("Approval decision")), (KIND_ACCOUNT, _("People and sign-in"))]

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    username = models.CharField(max_length=150, blank=True, help_text=_("Kept when the user is deleted."))
    workspace_id = models.CharField(max_length=64, blank=True)
    key_label = models.CharField(max_length=200, blank=True, help_text=_("The stored key, by prefix (never the key)."))
    kind = models.CharField(max_length=32, choices=KINDS, default=KIND_WRITE)
    area = models.CharField(max_length=32, blank=True)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=500)
    idempotency_key = models.CharField(max_length=128, blank=True, db_index=True)
    status = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("None: no answer (unreachable)."))
    request_id = models.CharField(max_length=128, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    note = models.TextField(blank=True, help_text="A decision's note, kept in the console only.")
    details = models.JSONField(default=dict, blank=True)
    # Account events only: whom the change was about (kept by name when the
    # account is deleted) and what happened, as a stable word ("role_changed").
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject_name = models.CharField(max_length=254, blank=True, help_text=_("Kept when the account is deleted."))
    action = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace_id", "kind", "-created_at"], name="audit_ws_kind_time")]
        permissions = [
            ("decide_approvals", _("Can decide approvals")),
            ("view_audit_trail", _("Can view the audit trail")),
        ]

    def __str__(self) -> str:
        if self.kind == self.KIND_ACCOUNT:
            return self.summary
        return f"{self.method} {self.path} ({self.status})"

    @property
    def actor_shown(self) -> str:
        """Who made the entry, in words: the person (by the name kept when
        they are deleted), or the console itself when no person acted (a reset
        link sent, a worker's write): those entries never had a person, while
        a deleted person's keep their name."""
        return self.username or "the console"

    @property
    def succeeded(self) -> bool:
        return self.status is not None and self.status < 300
