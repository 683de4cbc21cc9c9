"""Data shared by the records tests: an object with one field of every type,
and records of it, in the shapes the service returns (api-spec.md and
sandbox/records.py)."""

from __future__ import annotations

import json

from tests.html import select

OBJECT_KEY = "deals"

OPTIONS_STATUS = [
    {"id": "opt-open", "label": "Open", "color": "#22c55e"},
    {"id": "opt-lost", "label": "Lost", "color": "#ef4444"},
]
OPTIONS_TAGS = [
    {"id": "opt-hot", "label": "Hot", "color": "#f97316"},
    {"id": "opt-vip", "label": "VIP", "color": "#8b5cf6"},
]
OPTIONS_STAGE = [
    {"id": "opt-lead", "label": "Lead", "color": "#64748b"},
    {"id": "opt-won", "label": "Won", "color": "#16a34a"},
]

DEALS = {
    "id": "5f0e8b4c-0000-4000-8000-0000000000d1",
    "key": OBJECT_KEY,
    "kind": "custom",
    "singular_name": "Deal",
    "plural_name": "Deals",
    "description": "",
    "icon": "Briefcase",
    "color": "#3346c9",
    "title_field": "name",
    "fields": [
        {"key": "notes", "label": "Notes", "type": "long_text", "required": False},
        {"key": "name", "label": "Name", "type": "text", "required": True},
        {"key": "seats", "label": "Seats", "type": "number", "required": False},
        {"key": "amount", "label": "Amount", "type": "currency", "required": False},
        {"key": "close_date", "label": "Close date", "type": "date", "required": False},
        {"key": "meeting_at", "label": "Meeting at", "type": "datetime", "required": False},
        {"key": "active", "label": "Active", "type": "boolean", "required": False},
        {"key": "email", "label": "Email", "type": "email", "required": False},
        {"key": "phone", "label": "Phone", "type": "phone", "required": False},
        {"key": "website", "label": "Website", "type": "url", "required": False},
        {"key": "status", "label": "Status", "type": "select", "required": False, "options": OPTIONS_STATUS},
        {"key": "tags", "label": "Tags", "type": "multi_select", "required": False, "options": OPTIONS_TAGS},
        {"key": "stage", "label": "Stage", "type": "stage", "required": False, "options": OPTIONS_STAGE},
        {"key": "logo", "label": "Logo", "type": "image", "required": False},
        {"key": "contract", "label": "Contract", "type": "file", "required": False},
    ],
}

RECORD_ID = "7a1c2d3e-0000-4000-8000-0000000000a1"
OTHER_ID = "7a1c2d3e-0000-4000-8000-0000000000a2"

ACME = {
    "id": RECORD_ID,
    "object": OBJECT_KEY,
    "values": {
        "name": "Acme renewal",
        "notes": "Call before Friday",
        "seats": 1250,
        "amount": 1234.5,
        "close_date": "2026-12-01",
        "meeting_at": "2026-11-22T09:30:00Z",
        "active": True,
        "email": "buyer@acme.test",
        "phone": "+33 1 23 45 67 89",
        "website": "https://acme.test",
        "status": "opt-open",
        "tags": ["opt-hot", "opt-vip"],
        "stage": "opt-won",
        "logo": "https://cdn.acme.test/logo.png",
        "contract": "https://cdn.acme.test/files/contract.pdf",
    },
    "title": "Acme renewal",
    "created_at": "2026-11-01T08:00:00Z",
    "updated_at": "2026-11-20T17:45:00Z",
}


def record(record_id: str, name: str, **values) -> dict:
    return {
        "id": record_id,
        "object": OBJECT_KEY,
        "values": {"name": name, **values},
        "title": name,
        "created_at": "2026-11-01T08:00:00Z",
        "updated_at": "2026-11-02T08:00:00Z",
    }


def page(items: list[dict], next_cursor: str | None = None) -> dict:
    return {"data": items, "next_cursor": next_cursor}


def error_body(error_type: str, message: str, *, details=None, request_id: str = "req_records_1") -> dict:
    error: dict = {"type": error_type, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error, "request_id": request_id}


def sent_json(call) -> dict:
    return json.loads(call.request.content)


def hidden_value(html: str, name: str) -> str:
    fields = [field for field in select(html, f'[name="{name}"]') if field.has_attr("value")]
    assert fields, f"no hidden {name} in the page"
    return fields[0]["value"]
