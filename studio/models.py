from __future__ import annotations

from django.conf import settings
from django.db import models


class AppRun(models.Model):
    """One Content App run sent through the console: what was asked (so it
    can be run again with changes) and what came back. A video shot that
    answers 202 is followed by a tracked operation (`operation`), which
    repeats the same request with the same Idempotency-Key until it is done.
    """

    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="studio_app_runs")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="studio_app_runs")
    studio = models.CharField(max_length=16)
    app = models.CharField(max_length=64)
    label = models.CharField(max_length=200, blank=True)
    # The body sent (the form's values), never a secret.
    inputs = models.JSONField(default=dict, blank=True)
    # The same inputs as a person reads them ([{label, text, picture}], AppForm.asked):
    # names of boards, projects and images are only at hand when the form is sent.
    asked = models.JSONField(default=list, blank=True)
    idempotency_key = models.CharField(max_length=128)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=40, blank=True)
    result = models.JSONField(default=dict, blank=True)
    request_id = models.CharField(max_length=128, blank=True)
    operation = models.ForeignKey(
        "live.TrackedOperation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Posting the same form twice is the same logical run: one row.
            models.UniqueConstraint(fields=["owner_key", "idempotency_key"], name="studio_run_unique_key"),
        ]
        indexes = [models.Index(fields=["owner_key", "studio", "app", "-created_at"], name="studio_run_app")]

    def __str__(self) -> str:
        return f"{self.studio}/{self.app} ({self.status})"

    @property
    def summary(self) -> str:
        """The run in a few words: what it was asked for."""
        inputs = self.inputs if isinstance(self.inputs, dict) else {}
        for name in ("prompt", "product", "direction"):
            if isinstance(inputs.get(name), str) and inputs[name].strip():
                return inputs[name].strip()
        return self.label or self.app
