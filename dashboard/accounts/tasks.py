"""Sign-in's one task: a password reset email, sent off the request's path."""

from __future__ import annotations

from dashboard.accounts.services import password_reset_send
from dashboard.celery import app


@app.task(name="accounts.send_password_reset")
def send_password_reset(*, email: str, base_url: str, request_id: str) -> int:
    return password_reset_send(email=email, base_url=base_url, request_id=request_id)
