"""Server-sent events of streamed calls (`stream: true`).

The wire decoding is httpx-sse's; this module only turns its events into the
console's `ServerSentEvent` with JSON-decoded data, and an `error` event into
`errors.StreamError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource

from dashboard.api import errors


@dataclass(frozen=True)
class ServerSentEvent:
    event: str
    data: Any
    id: str = ""


def decode_event_data(raw: str) -> Any:
    """JSON when it parses (the contract says every `data:` line is JSON),
    else the raw text, so an odd event never breaks the stream."""
    if raw == "":
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def iter_events(response: httpx.Response, *, request_id: str | None) -> Iterator[ServerSentEvent]:
    """Yield the events of an open `text/event-stream` response; raise
    `StreamError` on an `error` event (its data is `{message, request_id}`)."""
    for raw in EventSource(response).iter_sse():
        event = ServerSentEvent(event=raw.event, data=decode_event_data(raw.data), id=raw.id)
        if event.event == "error":
            data = event.data if isinstance(event.data, dict) else {}
            message = data.get("message") if data else (event.data if isinstance(event.data, str) else None)
            error_body = data.get("error") if isinstance(data.get("error"), dict) else None
            error_body = error_body or {}
            raise errors.StreamError(
                message or error_body.get("message"),
                type=error_body.get("type") or data.get("type"),
                details=error_body.get("details") or data.get("details"),
                request_id=data.get("request_id") or request_id,
            )
        yield event
