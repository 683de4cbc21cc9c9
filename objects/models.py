"""Local state of the Objects area. Records themselves live in the remote
service; the console keeps only each person's view preferences."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ColumnPreference(models.Model):
    """The columns one person hides in one object's records table, remembered
    per workspace (object keys repeat across workspaces)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="column_preferences")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    # Field keys hidden from the table; fields added later show by default.
    hidden_fields = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace_id", "object_key"], name="objects_one_column_preference")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.object_key}: {len(self.hidden_fields)} hidden"
