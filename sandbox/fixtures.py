"""Sample data for tests and benchmarks against a sandbox: an object with one
field of each of the 15 types, and record values of it. `client` is anything
with `post(path, json=...)` (the console's ServiceClient, or a plain one).
Also a people object and a CSV file of it of any length, for the import's
memory test and bench."""

from __future__ import annotations

import csv
import uuid
from pathlib import Path

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


# A people object and the mapping of a CSV file's columns to it (column index
# → field key), as the import's mapping step stores it; "Notes" stays unmapped.
PEOPLE_DEFINITION = {
    "key": "people",
    "title_field": "name",
    "fields": [
        {"key": "name", "label": "Name", "type": "text", "required": True},
        {"key": "seats", "label": "Seats", "type": "number"},
        {"key": "email", "label": "Email", "type": "email"},
        {
            "key": "stage",
            "label": "Stage",
            "type": "stage",
            "options": [{"id": "o1", "label": "Lead"}, {"id": "o2", "label": "Won"}],
        },
        {"key": "active", "label": "Active", "type": "boolean"},
    ],
}
PEOPLE_MAPPING = {"0": "name", "1": "seats", "2": "email", "3": "stage", "4": "active"}


def write_people_csv(path: Path | str, rows: int) -> None:
    """A CSV file of `rows` valid people (about 95 bytes a row), written a row at a time."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Name", "Seats", "Email", "Stage", "Active", "Notes"])
        for n in range(rows):
            writer.writerow(
                [f"Person {n}", n % 90, f"p{n}@example.test", "Won" if n % 3 else "Lead", "yes", "Lorem ipsum " * 4]
            )
