"""The audit trail's retention: old entries go after AUDIT_RETENTION_DAYS."""

from __future__ import annotations

from dashboard.audit.services import audit_prune
from dashboard.celery import app


@app.task(name="audit.prune")
def prune() -> int:
    return audit_prune()
