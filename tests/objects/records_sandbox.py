"""Helpers for records tests against the real sandbox (and the bench): an
object with one field of every type, records of it, and a console user whose
stored key points at that workspace."""

from __future__ import annotations

import uuid

EVERY_TYPE_FIELDS = [
    {"label": "Name", "key": "name", "type": "text", "required": True},
    {"label": "Notes", "key": "notes", "type": "long_text"},
    {"label": "Seats", "key": "seats", "type": "number"},
    {"label": "Amount", "key": "amount", "type": "currency"},
    {"label": "Close date", "key": "close_date", "type": "date"},
    {"label": "Meeting at", "key": "meeting_at", "type": "datetime"},
    {"label": "Active", "key": "active", "type": "boolean"},
    {"label": "Email", "key": "email", "type": "email"},
    {"label": "Phone", "key": "phone", "type": "phone"},
    {"label": "Website", "key": "website", "type": "url"},
    {
        "label": "Status",
        "key": "status",
        "type": "select",
        "options": [{"label": "Open", "color": "#16a34a"}, {"label": "Lost", "color": "#dc2626"}],
    },
    {
        "label": "Tags",
        "key": "tags",
        "type": "multi_select",
        "options": [{"label": "Hot", "color": "#f97316"}, {"label": "VIP", "color": "#7c3aed"}],
    },
    {
        "label": "Stage",
        "key": "stage",
        "type": "stage",
        "options": [{"label": "Lead", "color": "#64748b"}, {"label": "Won", "color": "#0ea5e9"}],
    },
    {"label": "Logo", "key": "logo", "type": "image"},
    {"label": "Contract", "key": "contract", "type": "file"},
]


def create_every_type_object(client, *, name: str | None = None) -> dict:
    """A fresh custom object (unique key) with one field of each of the 15 types."""
    plural = name or f"Deals {uuid.uuid4().hex[:8]}"
    return client.post(
        "/v1/objects",
        json={
            "singular_name": plural.rstrip("s"),
            "plural_name": plural,
            "title_field": "name",
            "fields": EVERY_TYPE_FIELDS,
        },
    )


def sample_values(i: int) -> dict:
    """Record values of mixed types (choice fields by label; the service stores ids)."""
    return {
        "name": f"Deal {i:03d}",
        "notes": f"Notes for deal {i}",
        "seats": i * 3,
        "amount": round(i * 101.25, 2),
        "close_date": f"2026-12-{(i % 28) + 1:02d}",
        "meeting_at": f"2026-11-{(i % 28) + 1:02d}T09:30:00Z",
        "active": i % 2 == 0,
        "email": f"buyer{i}@example.test",
        "phone": f"+1 555 01{i % 100:02d}",
        "website": f"https://deal{i}.example.test",
        "status": "Open" if i % 3 else "Lost",
        "tags": ["Hot"] if i % 2 else ["Hot", "VIP"],
        "stage": "Won" if i % 5 == 0 else "Lead",
        "logo": f"https://img.example.test/{i}.png",
        "contract": f"https://files.example.test/contract-{i}.pdf",
    }


def store_sandbox_key(user, client, secret: str):
    """Store `secret` as the user's active key, with the identity /v1/me reports."""
    from dashboard.keys.testing import stored_api_key

    me = client.get("/v1/me")
    return stored_api_key(
        user=user,
        secret=secret,
        label="Sandbox",
        workspace_id=me["workspace"]["id"],
        workspace_name=me["workspace"]["name"],
        workspace_timezone=me["workspace"].get("timezone") or "UTC",
        member_id=me["member"]["id"],
        member_role=me["member"]["role"],
        key_id=me["key"]["id"],
    )


class RemoteCallCounter:
    """Counts requests leaving the console's one shared httpx client (an
    event hook), so tests and the bench count calls instead of timing them."""

    def __init__(self):
        self.paths: list[str] = []

    def __call__(self, request):
        self.paths.append(request.url.path)

    def __enter__(self):
        from dashboard.api.client import shared_http_client

        self.client = shared_http_client()
        self.client.event_hooks["request"].append(self)
        return self

    def __exit__(self, *exc):
        self.client.event_hooks["request"].remove(self)

    @property
    def count(self) -> int:
        return len(self.paths)

    def reset(self):
        self.paths.clear()
