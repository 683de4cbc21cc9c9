"""Helpers of the sandbox tests: HTTP clients for a sandbox handle, objects
with one field of every type, reading every page of a list, and parsing an
event stream strictly."""

from __future__ import annotations

import json
import uuid

import httpx


def http_client(handle, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=handle.base_url, headers=headers, timeout=30)


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:8]}"


EVERY_TYPE_FIELDS = [
    {"label": "Title", "type": "text", "required": True},
    {"label": "Body", "type": "long_text"},
    {"label": "Count", "type": "number"},
    {"label": "Price", "type": "currency"},
    {"label": "Due", "type": "date"},
    {"label": "Starts at", "type": "datetime"},
    {"label": "Done", "type": "boolean"},
    {"label": "Email", "type": "email"},
    {"label": "Phone", "type": "phone"},
    {"label": "Website", "type": "url"},
    {"label": "Colour", "type": "select", "options": ["Red", {"label": "Green", "color": "#00ff00"}]},
    {"label": "Labels", "type": "multi_select", "options": ["A", "B", "C"]},
    {"label": "Phase", "type": "stage", "options": ["Todo", "Doing", "Done"]},
    {"label": "Picture", "type": "image"},
    {"label": "Attachment", "type": "file"},
]


def make_object(client: httpx.Client, fields=None, **extra) -> dict:
    """Create a custom object with a unique name (every field type by default)."""
    plural = unique("Things")
    body = {"singular_name": "Thing", "plural_name": plural, "fields": fields or EVERY_TYPE_FIELDS, **extra}
    response = client.post("/v1/objects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def all_pages(client: httpx.Client, path: str, params: dict | None = None, *, between=None) -> list[dict]:
    """Every item over every page; `between(page_number)` runs after each page."""
    items: list[dict] = []
    cursor = None
    pages = 0
    while True:
        query = dict(params or {})
        if cursor:
            query["cursor"] = cursor
        response = client.get(path, params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        items.extend(body["data"])
        pages += 1
        if between:
            between(pages)
        cursor = body["next_cursor"]
        if cursor is None:
            return items
        assert pages < 1000


def read_events(response: httpx.Response) -> list[tuple[str, dict]]:
    """Parse a `text/event-stream` body strictly: each frame is exactly one
    `event:` line and one `data:` line of JSON, then a blank line."""
    assert response.headers["content-type"].startswith("text/event-stream")
    text = response.read().decode()
    assert text.endswith("\n\n")
    events = []
    for frame in text[:-2].split("\n\n"):
        lines = frame.split("\n")
        assert len(lines) == 2, frame
        assert lines[0].startswith("event: ") and lines[1].startswith("data: "), frame
        events.append((lines[0][len("event: ") :], json.loads(lines[1][len("data: ") :])))
    return events
