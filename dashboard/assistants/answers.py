"""What an assistant is told: a tool's answer or its refusal in words, a held
request's state, a remote error in the message catalogue's words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dashboard.api import errors
from dashboard.api.messages import meaning_of, said_by_service, with_request_id
from dashboard.assistants.models import AssistantRequest


@dataclass(frozen=True)
class ToolOutcome:
    """What the assistant is told: the tool's answer, or why not (`refused`, in words)."""

    data: Any = None
    refused: str = ""


def service_words(exc: errors.ApiError) -> str:
    """A remote error in the catalogue's words, with what the service said and its request id."""
    meaning = meaning_of(exc)
    said = said_by_service(exc)
    return with_request_id(f"{meaning.title}{': ' + said if said else ''}. {meaning.advice}".strip(), exc)


def request_outcome(row: AssistantRequest) -> ToolOutcome:
    """What an assistant is told about its held request (the call's answer and the status tool's)."""
    data: dict[str, Any] = {
        "request_id": row.pk,
        "status": row.status,
        "words": request_words(row),
        "tool": row.tool,
        "arguments": row.arguments,
    }
    if row.status == AssistantRequest.Status.WAITING:
        data["poll"] = "Call assistant_request_status with this request_id to learn the decision."
    if row.status == AssistantRequest.Status.DONE:
        data["result"] = row.result
    return ToolOutcome(data=data)


def request_words(row: AssistantRequest) -> str:
    who = row.decided_by.get_username() if row.decided_by else "an Approver"
    if row.status == AssistantRequest.Status.WAITING:
        return f"Waiting for approval: {row.summary}. {row.reason}"
    if row.status == AssistantRequest.Status.REJECTED:
        return f"Rejected by {who}: {row.summary}. Nothing was sent to the service." + (
            f" Their note: {row.note}" if row.note else ""
        )
    if row.status == AssistantRequest.Status.APPROVED:
        return f"Approved by {who}: {row.summary}. It is being carried out."
    if row.status == AssistantRequest.Status.DONE:
        return f"Approved by {who} and carried out: {row.summary}."
    return f"Approved by {who}, but it could not be carried out: {row.error}"
