from __future__ import annotations

from django.conf import settings
from django.db import models


class BuilderAnswer(models.Model):
    """The agent builder's last answer about one agent of one workspace.

    Kept in the database, not a session, so that a teammate on another device
    sees the builder's open questions and can answer them. A `needs_input`
    answer stays until someone answers (the next builder turn replaces it);
    a `built` answer's summary is shown once to the person who asked.
    """

    STATUS_NEEDS_INPUT = "needs_input"

    workspace_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=128)
    status = models.CharField(max_length=40)
    message = models.TextField(blank=True, help_text="What the builder said.")
    questions = models.JSONField(default=list, blank=True, help_text="[{text, options: [str]}]")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "agent_id"], name="agents_one_builder_answer_per_agent"),
        ]

    def __str__(self) -> str:
        return f"builder {self.status} for agent {self.agent_id}"

    @property
    def needs_input(self) -> bool:
        return self.status == self.STATUS_NEEDS_INPUT
