"""Objects (record systems): definitions, fields, options, system objects.

Routes: GET/POST /v1/objects, GET/PATCH /v1/objects/{object}.
Records and relationships live in records.py.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sandbox.core import (
    PAGE_QUERY,
    Response,
    conflict,
    invalid,
    not_found,
    page_of,
    paginate,
    ref,
    register_schema,
    route,
)
from sandbox.storage import Store
from sandbox.validation import is_uuid

FIELD_TYPES = [
    "text",
    "long_text",
    "number",
    "currency",
    "date",
    "datetime",
    "boolean",
    "email",
    "phone",
    "url",
    "select",
    "multi_select",
    "stage",
    "image",
    "file",
]
CHOICE_TYPES = {"select", "multi_select", "stage"}
SYSTEM_OBJECT_KEYS = ["agents", "websites", "image_boards", "video_boards", "files"]
OPTION_COLORS = ["#3b82f6", "#22c55e", "#f59e0b", "#ef4444", "#8b5cf6", "#ec4899", "#14b8a6", "#64748b"]
SNAKE_RE = r"^[a-z][a-z0-9_]*$"


def snake_case(text: str) -> str:
    """The service's key rule: `Sales leads` -> `sales_leads`."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")


# --------------------------------------------------------------------------
# Schemas (request checking and OpenAPI)
# --------------------------------------------------------------------------
OPTION_INPUT = {
    "anyOf": [
        {"type": "string", "minLength": 1, "maxLength": 120},
        {
            "type": "object",
            "required": ["label"],
            "additionalProperties": False,
            "properties": {
                "id": {"type": "string", "maxLength": 64},
                "label": {"type": "string", "minLength": 1, "maxLength": 120},
                "color": {"type": "string", "maxLength": 32},
            },
        },
    ]
}
FIELD_INPUT_PROPS = {
    "label": {"type": "string", "minLength": 1, "maxLength": 120},
    "key": {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": SNAKE_RE,
        "x-pattern-message": "must be snake_case (a-z, 0-9, _; starting with a letter)",
    },
    "type": {"type": "string", "enum": FIELD_TYPES},
    "options": {"type": "array", "maxItems": 200, "items": OPTION_INPUT},
    "required": {"type": "boolean"},
}
# A choice field (select, multi_select, stage) needs its options: a rule the document states too.
CHOICE_NEEDS_OPTIONS = {
    "if": {"required": ["type"], "properties": {"type": {"enum": ["select", "multi_select", "stage"]}}},
    "then": {"required": ["options"], "properties": {"options": {"minItems": 1}}},
    "x-error": {"at": "options", "message": "is required for select, multi_select and stage fields"},
}
register_schema(
    "FieldInput",
    {
        "type": "object",
        "required": ["label"],
        "additionalProperties": False,
        "properties": FIELD_INPUT_PROPS,
        **CHOICE_NEEDS_OPTIONS,
    },
)
register_schema(
    "FieldChange",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": FIELD_INPUT_PROPS,
        "description": "With an existing `key`: updates that field. Otherwise adds one (label required).",
    },
)
register_schema(
    "Option",
    {
        "type": "object",
        "required": ["id", "label", "color"],
        "properties": {"id": {"type": "string"}, "label": {"type": "string"}, "color": {"type": "string"}},
    },
)
register_schema(
    "Field",
    {
        "type": "object",
        "required": ["key", "label", "type", "required", "origin"],
        "properties": {
            "id": {"type": "string"},
            "key": {"type": "string"},
            "label": {"type": "string"},
            "type": {"type": "string", "enum": FIELD_TYPES},
            "required": {"type": "boolean"},
            "origin": {"type": "string", "enum": ["custom", "system"]},
            "options": {"type": "array", "items": ref("Option")},
        },
    },
)
register_schema(
    "Object",
    {
        "type": "object",
        "required": [
            "id",
            "key",
            "kind",
            "singular_name",
            "plural_name",
            "description",
            "icon",
            "color",
            "title_field",
            "fields",
            "created_at",
            "updated_at",
        ],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "key": {"type": "string"},
            "kind": {"type": "string", "enum": ["custom", "system"]},
            "singular_name": {"type": "string"},
            "plural_name": {"type": "string"},
            "description": {"type": "string"},
            "icon": {"type": "string"},
            "color": {"type": "string"},
            "title_field": {"type": ["string", "null"]},
            "fields": {"type": "array", "items": ref("Field")},
            "views": {"type": "array", "items": {"type": "object"}},
            "created_at": {"type": "string"},
            "updated_at": {"type": "string"},
        },
    },
)
NAME = {"type": "string", "minLength": 1, "maxLength": 80}
OBJECT_PROPS = {
    "singular_name": NAME,
    "plural_name": NAME,
    "description": {"type": "string", "maxLength": 2000},
    "icon": {"type": "string", "minLength": 1, "maxLength": 64},
    "color": {"type": "string", "minLength": 1, "maxLength": 32},
    "title_field": {"type": "string", "minLength": 1, "maxLength": 64},
}
OBJECT_CREATE = register_schema(
    "ObjectCreate",
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["singular_name", "plural_name", "fields"],
        "properties": {
            **OBJECT_PROPS,
            "fields": {"type": "array", "minItems": 1, "maxItems": 200, "items": ref("FieldInput")},
        },
    },
)
OBJECT_UPDATE = register_schema(
    "ObjectUpdate",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            **OBJECT_PROPS,
            "fields": {"type": "array", "maxItems": 200, "items": ref("FieldChange")},
            "remove_fields": {
                "type": "array",
                "maxItems": 200,
                "items": {"type": "string", "minLength": 1, "maxLength": 64},
            },
        },
    },
)


# --------------------------------------------------------------------------
# System objects and their records (the hook the Studio library registers with)
# --------------------------------------------------------------------------
@dataclass
class SystemRecords:
    """Where the records of a built-in object come from: documents of a
    storage `kind` in the workspace, shown with `values(doc, now)` (`now`
    from the store's clock, for values that move with time)."""

    kind: str
    values: Callable[[dict, datetime], dict]

    def list(self, store: Store, workspace_id: str) -> list[dict]:
        now = store.clock.now()
        return [self.as_record(d, now) for d in store.list(self.kind, workspace_id=workspace_id)]

    def get(self, store: Store, workspace_id: str, record_id: str) -> dict | None:
        doc = store.get(self.kind, record_id, workspace_id=workspace_id)
        return self.as_record(doc, store.clock.now()) if doc else None

    def as_record(self, doc: dict, now: datetime) -> dict:
        return {
            "id": doc["id"],
            "values": self.values(doc, now),
            "created_at": doc.get("created_at"),
            "updated_at": doc.get("updated_at"),
            "_seq": doc.get("_seq", 0),
        }


def _name_and_status(doc: dict, now: datetime) -> dict:
    return {"name": doc.get("name") or doc.get("title") or "", "status": doc.get("status")}


SYSTEM_RECORDS: dict[str, SystemRecords] = {
    "agents": SystemRecords("agent", _name_and_status),
    "websites": SystemRecords("website", _name_and_status),
    "image_boards": SystemRecords("image_board", _name_and_status),
    "video_boards": SystemRecords("video_project", _name_and_status),
    "files": SystemRecords("file", _name_and_status),
}


def register_system_records(
    object_key: str, *, kind: str, values: Callable[[dict, datetime], dict] | None = None
) -> None:
    """Say which storage kind holds the records of a built-in object
    (e.g. `register_system_records("agents", kind="agent")`), so they can be
    listed, read and linked under `/v1/objects/{object_key}/records`."""
    SYSTEM_RECORDS[object_key] = SystemRecords(kind, values or _name_and_status)


SYSTEM_OBJECTS = [
    ("agents", "Agent", "Agents", "Bot", "#8b5cf6", "The workspace's agents."),
    ("websites", "Website", "Websites", "Globe", "#3b82f6", "Websites made in the Studio."),
    ("image_boards", "Image board", "Image boards", "Image", "#ec4899", "Image boards made in the Studio."),
    ("video_boards", "Video board", "Video boards", "Clapperboard", "#f59e0b", "Video projects made in the Studio."),
    ("files", "File", "Files", "File", "#64748b", "Files in the workspace library."),
]


def ensure_system_objects(store: Store, workspace_id: str) -> None:
    for key, singular, plural, icon, color, description in SYSTEM_OBJECTS:
        if store.find_one("object", workspace_id=workspace_id, key=key):
            continue
        fields = [
            {
                "id": str(uuid.uuid4()),
                "key": "name",
                "label": "Name",
                "type": "text",
                "required": True,
                "origin": "system",
            },
            {
                "id": str(uuid.uuid4()),
                "key": "status",
                "label": "Status",
                "type": "text",
                "required": False,
                "origin": "system",
            },
        ]
        store.insert(
            "object",
            {
                "key": key,
                "kind": "system",
                "singular_name": singular,
                "plural_name": plural,
                "description": description,
                "icon": icon,
                "color": color,
                "title_field": "name",
                "fields": fields,
                "views": [{"id": str(uuid.uuid4()), "type": "table", "name": "Table"}],
            },
            workspace_id=workspace_id,
        )


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------
def active_fields(obj: dict) -> list[dict]:
    return [f for f in obj["fields"] if not f.get("removed")]


def field_map(obj: dict) -> dict[str, dict]:
    return {f["key"]: f for f in active_fields(obj)}


def render_field(f: dict) -> dict:
    out = {
        "id": f.get("id"),
        "key": f["key"],
        "label": f["label"],
        "type": f["type"],
        "required": bool(f.get("required")),
        "origin": f.get("origin", "custom"),
    }
    if f["type"] in CHOICE_TYPES:
        out["options"] = [dict(o) for o in f.get("options", [])]
    return out


def render_object(obj: dict) -> dict:
    return {
        "id": obj["id"],
        "object": "object",
        "key": obj["key"],
        "kind": obj["kind"],
        "singular_name": obj["singular_name"],
        "plural_name": obj["plural_name"],
        "description": obj.get("description", ""),
        "icon": obj.get("icon", "Box"),
        "color": obj.get("color", "#64748b"),
        "title_field": obj.get("title_field"),
        "fields": [render_field(f) for f in active_fields(obj)],
        "views": obj.get("views", []),
        "created_at": obj["created_at"],
        "updated_at": obj["updated_at"],
    }


def find_object(store: Store, workspace_id: str, key_or_id: str) -> dict | None:
    obj = store.find_one("object", workspace_id=workspace_id, key=key_or_id)
    if obj is None and is_uuid(key_or_id):
        obj = store.get("object", key_or_id, workspace_id=workspace_id)
    return obj


def get_object_or_404(req, key_or_id: str) -> dict:
    obj = find_object(req.store, req.workspace_id, key_or_id)
    if obj is None:
        raise not_found(f"object '{key_or_id}'")
    return obj


def build_options(raw: list, existing: list[dict] | None = None) -> list[dict]:
    """Options from strings or {id, label, color}; a label or id already
    known keeps its id, new ones get a fresh id and a palette colour."""
    existing = existing or []
    by_id = {o["id"]: o for o in existing}
    by_label = {o["label"].lower(): o for o in existing}
    out: list[dict] = []
    for i, item in enumerate(raw):
        if isinstance(item, str):
            item = {"label": item}
        known = by_id.get(item.get("id")) or by_label.get(item["label"].lower())
        option = {
            "id": item.get("id") or (known["id"] if known else str(uuid.uuid4())),
            "label": item["label"],
            "color": item.get("color") or (known["color"] if known else OPTION_COLORS[i % len(OPTION_COLORS)]),
        }
        out.append(option)
    return out


def _field_error(details: dict, index: int, name: str, message: str) -> None:
    details.setdefault("fields", {}).setdefault(str(index), {}).setdefault(name, []).append(message)


def _check_options(details: dict, index: int, ftype: str, options: list | None) -> None:
    if ftype in CHOICE_TYPES and not options:
        _field_error(details, index, "options", f"is required for {ftype} fields")
    if options:
        labels = [(o if isinstance(o, str) else o["label"]).strip().lower() for o in options]
        if len(set(labels)) != len(labels):
            _field_error(details, index, "options", "has the same label twice")


# --------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/objects",
    operation_id="objects_list",
    summary="List objects with their fields",
    description="Every object of the workspace (custom ones and the built-in `agents`, `websites`, `image_boards`, `video_boards`, `files`) with its fields; `kind` narrows to `custom` or `system`. Pages with `limit` and `cursor`.",
    tags=["Objects"],
    query={"kind": {"type": "string", "enum": ["custom", "system"]}, **PAGE_QUERY},
    responses={200: page_of(ref("Object"))},
)
def objects_list(req):
    where = {"kind": req.params["kind"]} if req.params.get("kind") else None
    objects = req.store.list("object", workspace_id=req.workspace_id, where=where)
    return paginate(req, objects, render=render_object)


@route(
    "POST",
    "/v1/objects",
    operation_id="objects_create",
    summary="Create an object",
    description="Makes a custom object: `plural_name` makes its key in snake_case (`Sales leads` becomes `sales_leads`), which never changes. `fields` is required (label max 120; `options` for select, multi_select and stage). Answers 201 with the object and a Table view. 409 when the key is taken, naming the existing object, so a retried create never makes a twin. 1 credit.",
    tags=["Objects"],
    body=OBJECT_CREATE,
    responses={201: ref("Object")},
)
def objects_create(req):
    body = req.body
    key = snake_case(body["plural_name"])
    if not key:
        raise invalid({"plural_name": ["must contain letters or digits (it makes the key)"]})
    details: dict = {}
    fields: list[dict] = []
    seen: set[str] = set()
    for i, item in enumerate(body["fields"]):
        fkey = item.get("key") or snake_case(item["label"])
        ftype = item.get("type", "text")
        if not fkey:
            _field_error(details, i, "label", "must contain letters or digits (it makes the key)")
            continue
        if fkey in seen:
            _field_error(details, i, "key", f"'{fkey}' is used by another field")
        seen.add(fkey)
        _check_options(details, i, ftype, item.get("options"))
        field = {
            "id": str(uuid.uuid4()),
            "key": fkey,
            "label": item["label"],
            "type": ftype,
            "required": bool(item.get("required", False)),
            "origin": "custom",
        }
        if ftype in CHOICE_TYPES:
            field["options"] = build_options(item.get("options") or [])
        fields.append(field)
    title_field = body.get("title_field")
    if title_field is not None and title_field not in seen:
        details.setdefault("title_field", []).append("must be the key of one of the fields")
    if details:
        raise invalid(details)
    with req.store.lock:
        existing = req.store.find_one("object", workspace_id=req.workspace_id, key=key)
        if existing:
            raise conflict(
                f"An object with key '{key}' already exists: {existing['plural_name']} ({existing['id']}).",
                {
                    "key": key,
                    "id": existing["id"],
                    "existing": {
                        "id": existing["id"],
                        "key": key,
                        "kind": existing["kind"],
                        "singular_name": existing["singular_name"],
                        "plural_name": existing["plural_name"],
                    },
                    "plural_name": [f"makes the key '{key}', which {existing['plural_name']} already uses"],
                },
            )
        req.charge(1)
        obj = req.store.insert(
            "object",
            {
                "key": key,
                "kind": "custom",
                "singular_name": body["singular_name"],
                "plural_name": body["plural_name"],
                "description": body.get("description", ""),
                "icon": body.get("icon", "Box"),
                "color": body.get("color", "#64748b"),
                "title_field": title_field or fields[0]["key"],
                "fields": fields,
                "views": [{"id": str(uuid.uuid4()), "type": "table", "name": "Table"}],
            },
            workspace_id=req.workspace_id,
        )
    return Response(render_object(obj), status=201)


@route(
    "GET",
    "/v1/objects/{object}",
    operation_id="objects_get",
    summary="Get an object by key or id",
    description="One object by its key or id, with its fields (keys, types, required flags, options).",
    tags=["Objects"],
    responses={200: ref("Object")},
)
def objects_get(req):
    return render_object(get_object_or_404(req, req.path_params["object"]))


@route(
    "PATCH",
    "/v1/objects/{object}",
    operation_id="objects_update",
    summary="Change an object: only what is sent changes",
    description="Only what is sent changes. A `fields` item whose `key` exists updates that field (label, type, options replace the choices, required); a new key, or a label with no key, adds a field. `remove_fields` lists keys of custom fields to delete (their values stay on records but are no longer shown or validated). Built-in fields (`origin: system`) and the object's key never change.",
    tags=["Objects"],
    body=OBJECT_UPDATE,
    responses={200: ref("Object")},
)
def objects_update(req):
    body = req.body
    with req.store.lock:
        obj = get_object_or_404(req, req.path_params["object"])
        details: dict = {}
        fields = [dict(f) for f in obj["fields"]]
        by_key = {f["key"]: f for f in fields}
        for i, item in enumerate(body.get("fields", [])):
            fkey = item.get("key") or (snake_case(item["label"]) if item.get("label") else "")
            if not fkey:
                _field_error(details, i, "label", "is required (with a key to change a field, or to add one)")
                continue
            current = by_key.get(fkey)
            if current is not None and current.get("origin") == "system":
                _field_error(details, i, "key", f"'{fkey}' is a built-in field and cannot be changed")
                continue
            if current is not None and not current.get("removed"):
                ftype = item.get("type", current["type"])
                options = item.get("options")
                if ftype in CHOICE_TYPES and options is None and not current.get("options"):
                    _field_error(details, i, "options", f"is required for {ftype} fields")
                elif options is not None:
                    _check_options(details, i, ftype, options)
                current["label"] = item.get("label", current["label"])
                current["type"] = ftype
                if "required" in item:
                    current["required"] = bool(item["required"])
                if options is not None:
                    current["options"] = build_options(options, current.get("options"))
                continue
            if "label" not in item:
                _field_error(details, i, "label", "is required to add a field")
                continue
            ftype = item.get("type", "text")
            _check_options(details, i, ftype, item.get("options"))
            new = {
                "id": (current or {}).get("id") or str(uuid.uuid4()),
                "key": fkey,
                "label": item["label"],
                "type": ftype,
                "required": bool(item.get("required", False)),
                "origin": "custom",
            }
            if ftype in CHOICE_TYPES:
                new["options"] = build_options(item.get("options") or [], (current or {}).get("options"))
            if current is not None:  # a removed field comes back
                fields[fields.index(current)] = new
            else:
                fields.append(new)
            by_key[fkey] = new
        for i, fkey in enumerate(body.get("remove_fields", [])):
            current = by_key.get(fkey)
            if current is None or current.get("removed"):
                details.setdefault("remove_fields", {}).setdefault(str(i), []).append(f"'{fkey}' is not a field")
            elif current.get("origin") == "system":
                details.setdefault("remove_fields", {}).setdefault(str(i), []).append(
                    f"'{fkey}' is a built-in field and cannot be removed"
                )
            else:
                current["removed"] = True
        active = [f["key"] for f in fields if not f.get("removed")]
        title_field = body.get("title_field", obj.get("title_field"))
        if "title_field" in body and title_field not in active:
            details.setdefault("title_field", []).append("must be the key of one of the fields")
        if details:
            raise invalid(details)
        if title_field not in active:
            title_field = active[0] if active else None
        for name in ("singular_name", "plural_name", "description", "icon", "color"):
            if name in body:
                obj[name] = body[name]
        obj["fields"] = fields
        obj["title_field"] = title_field
        obj = req.store.save("object", obj)
    return render_object(obj)
