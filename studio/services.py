"""Writes of the Studio: start a turn (in background mode) and track it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from dashboard.web.reading import as_dict, text
from studio.live import TURN_KIND, read_turn


def turn_start(
    *,
    key: ApiKey,
    studio: str,
    message: str,
    idempotency_key: str,
    artifact_id: UUID | str | None = None,
    conversation_id: UUID | str | None = None,
    auto: bool = False,
) -> TrackedOperation:
    """Send one message to a studio's director in background mode and record
    the turn for the live poller.

    The form's Idempotency-Key goes with it: posting the same form twice is
    answered with the same turn, which is the same tracked row.
    """
    body: dict[str, Any] = {"message": message, "auto": bool(auto), "background": True}
    if artifact_id:
        body["artifact_id"] = str(artifact_id)
    if conversation_id:
        body["conversation_id"] = str(conversation_id)
    response = key.client().request(
        "POST", api_path("/v1/studio/{}/turns", studio), json=body, idempotency_key=idempotency_key, slow=True
    )
    answer = response.data if isinstance(response.data, dict) else {}
    # The background (202) body is "not shown beyond the turn id": where the id sits is read tolerantly.
    turn_id = text(answer.get("id") or answer.get("turn_id") or as_dict(answer.get("turn")).get("id"))
    if not turn_id:
        raise errors.ServerError(
            "The service accepted the turn but did not say which turn it is.",
            status=response.status_code,
            request_id=response.request_id,
        )
    return operation_track(
        owner_key=key,
        kind=TURN_KIND,
        remote_id=turn_id,
        title=message,
        snapshot=answer,
        context={
            "studio": studio,
            "artifact_id": body.get("artifact_id", ""),
            "conversation_id": body.get("conversation_id", ""),
            "auto": bool(auto),
            "request_id": response.request_id or "",
        },
    )


def turn_reply(*, key: ApiKey, turn: TrackedOperation, message: str, idempotency_key: str) -> TrackedOperation:
    """A further turn in the same conversation, answering a turn that needs
    input (sent with the replying person's key)."""
    read = read_turn(turn, turn.snapshot if isinstance(turn.snapshot, dict) else {})
    return turn_start(
        key=key,
        studio=read["studio"] or "website",
        message=message,
        idempotency_key=idempotency_key,
        conversation_id=read["conversation_id"] or None,
        artifact_id=(turn.context or {}).get("artifact_id") or None,
        auto=False,
    )
