"""assistants.carry_out: an approved assistant request's write, made once
(sent by the decision through the outbox; retries send it again with a countdown)."""

from __future__ import annotations

from celery import shared_task

from dashboard.assistants.services import assistant_request_carry_out


@shared_task(name="assistants.carry_out")
def carry_out(request_id: int) -> None:
    assistant_request_carry_out(request_id=request_id)
