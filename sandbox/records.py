"""Records and relationships of objects.

Routes under /v1/objects/{object}/records. Values are checked like the app
checks them (422 naming the field, details `{field_key: [messages]}`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sandbox.clock import iso, parse_iso
from sandbox.core import (
    PAGE_QUERY,
    UUID,
    ApiError,
    Response,
    invalid,
    keyed_order,
    not_found,
    page_of,
    paginate,
    paginate_keyed,
    ref,
    register_schema,
    route,
    sort_value,
)
from sandbox.objects import (
    CHOICE_TYPES,
    SNAKE_RE,
    SYSTEM_RECORDS,
    active_fields,
    field_map,
    find_object,
    get_object_or_404,
)
from sandbox.validation import EMAIL_RE, URL_RE, is_date, is_datetime

PHONE_RE = re.compile(r"^\+?[0-9][0-9 ()\-./]{3,30}$")

register_schema(
    "Record",
    {
        "type": "object",
        "required": ["id", "object", "values", "created_at", "updated_at"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "object": {"type": "string"},
            "values": {"type": "object"},
            "title": {"type": ["string", "null"]},
            "created_at": {"type": "string"},
            "updated_at": {"type": "string"},
        },
    },
)
RECORD_VALUES = register_schema(
    "RecordValues",
    {
        "type": "object",
        "required": ["values"],
        "additionalProperties": False,
        "properties": {"values": {"type": "object", "description": "field key -> value; null clears a field"}},
    },
)
END = {
    "type": "object",
    "required": ["object", "id"],
    "properties": {"object": {"type": "string"}, "id": {"type": "string"}},
}
register_schema(
    "Relationship",
    {
        "type": "object",
        "required": ["id", "relation_key", "direction", "object", "record_id", "label", "metadata", "created_at"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "relation_key": {"type": "string"},
            "direction": {"type": "string", "enum": ["outgoing", "incoming"]},
            "object": {"type": "string", "description": "the other end's object key"},
            "record_id": {"type": "string", "description": "the other end's record id"},
            "other": END,
            "source": END,
            "target": END,
            "label": {"type": "string"},
            "metadata": {"type": "object"},
            "created_at": {"type": "string"},
        },
    },
)
RELATIONSHIP_CREATE = register_schema(
    "RelationshipCreate",
    {
        "type": "object",
        "required": ["relation_key", "target"],
        "additionalProperties": False,
        "properties": {
            "relation_key": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "pattern": SNAKE_RE,
                "x-pattern-message": "must be snake_case (a-z, 0-9, _; starting with a letter)",
            },
            "target": {
                "type": "object",
                "required": ["object", "id"],
                "additionalProperties": False,
                "properties": {
                    "object": {"type": "string", "minLength": 1, "maxLength": 200},
                    "id": {"type": "string", "format": "uuid"},
                },
            },
            "label": {"type": "string", "maxLength": 200},
            "metadata": {"type": "object"},
        },
    },
)

RECORD_PATH = {"id": UUID}


# --------------------------------------------------------------------------
# Values: checking on write, rendering, filtering, searching, sorting
# --------------------------------------------------------------------------
def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def _option_id(field: dict, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for option in field.get("options", []):
        if value == option["id"] or value.strip().lower() == option["label"].lower():
            return option["id"]
    return None


def _choices_text(field: dict) -> str:
    return ", ".join(o["label"] for o in field.get("options", []))


def check_value(field: dict, value: Any) -> tuple[Any, str | None]:
    """(stored value, error message or None) for one value of a field."""
    ftype = field["type"]
    if value is None:
        return None, None
    if value == "" and ftype not in ("text", "long_text"):
        return None, None
    if ftype in ("text", "long_text"):
        return (value, None) if isinstance(value, str) else (None, "must be text")
    if ftype in ("number", "currency"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None, "must be a number"
        return value, None
    if ftype == "boolean":
        return (value, None) if isinstance(value, bool) else (None, "must be true or false")
    if ftype == "date":
        return (value, None) if is_date(value) else (None, "must be a date (YYYY-MM-DD)")
    if ftype == "datetime":
        if not is_datetime(value):
            return None, "must be an ISO 8601 date and time (e.g. 2026-01-31T09:30:00Z)"
        return iso(parse_iso(value)), None
    if ftype == "email":
        ok = isinstance(value, str) and EMAIL_RE.match(value)
        return (value, None) if ok else (None, "must be an email address")
    if ftype == "phone":
        ok = isinstance(value, str) and PHONE_RE.match(value.strip()) and sum(c.isdigit() for c in value) >= 5
        return (value.strip(), None) if ok else (None, "must be a phone number (digits, spaces, + - ( ))")
    if ftype in ("url", "image", "file"):
        ok = isinstance(value, str) and URL_RE.match(value)
        return (value, None) if ok else (None, "must be an http or https URL")
    if ftype in ("select", "stage"):
        option = _option_id(field, value)
        if option is None:
            return None, f"must be one of: {_choices_text(field)} (an option id or label)"
        return option, None
    if ftype == "multi_select":
        if not isinstance(value, list):
            return None, "must be a list of options"
        out: list[str] = []
        for item in value:
            option = _option_id(field, item)
            if option is None:
                return None, f"has {item!r}, which is not one of: {_choices_text(field)}"
            if option not in out:
                out.append(option)
        return out, None
    return value, None


def check_values(obj: dict, values: dict, *, creating: bool) -> dict:
    """Normalised values, or 422 naming the field (details: {key: [messages]})."""
    fields = field_map(obj)
    errors: dict[str, list[str]] = {}
    out: dict[str, Any] = {}
    for key, value in values.items():
        field = fields.get(key)
        if field is None:
            errors.setdefault(key, []).append(f"is not a field of {obj['plural_name']}")
            continue
        stored, error = check_value(field, value)
        if error:
            errors.setdefault(key, []).append(error)
            continue
        if field.get("required") and _is_empty(stored):
            errors.setdefault(key, []).append("is required")
            continue
        out[key] = stored
    if creating:
        for key, field in fields.items():
            if field.get("required") and key not in values and key not in errors:
                errors.setdefault(key, []).append("is required")
    if errors:
        key = next(iter(errors))
        label = fields[key]["label"] if key in fields else key
        raise ApiError(422, "validation_error", f"{label} ({key}) {errors[key][0]}.", errors)
    return out


def render_record(obj: dict, doc: dict) -> dict:
    values = doc.get("values", {})
    shown = {f["key"]: values.get(f["key"]) for f in active_fields(obj)}
    title = values.get(obj.get("title_field")) if obj.get("title_field") else None
    return {
        "id": doc["id"],
        "object": obj["key"],
        "values": shown,
        "title": title if isinstance(title, str) else (None if title is None else str(title)),
        "created_at": doc["created_at"],
        "updated_at": doc["updated_at"],
    }


def _filter_predicate(obj: dict, raw: str):
    try:
        spec = json.loads(raw)
    except ValueError:
        raise invalid({"filter": ["must be a URL-encoded JSON object of field key to value"]})
    if not isinstance(spec, dict):
        raise invalid({"filter": ["must be a URL-encoded JSON object of field key to value"]})
    fields = field_map(obj)
    tests = []
    for key, wanted in spec.items():
        field = fields.get(key)
        if field is None:
            raise invalid({"filter": [f"'{key}' is not a field of {obj['plural_name']}"]})
        tests.append(_value_test(field, wanted))

    def predicate(doc: dict) -> bool:
        values = doc.get("values", {})
        return all(test(values.get(key)) for key, test in zip(spec, tests))

    return predicate


def _value_test(field: dict, wanted: Any):
    ftype = field["type"]
    key = field["key"]
    if wanted is None:
        return _is_empty
    if ftype == "multi_select":
        items = wanted if isinstance(wanted, list) else [wanted]
        ids = [_option_id(field, w) or w for w in items]
        return lambda v: isinstance(v, list) and all(i in v for i in ids)
    if ftype in ("select", "stage"):
        option = _option_id(field, wanted) if isinstance(wanted, str) else None
        target = option or wanted
        return lambda v: v == target
    if ftype == "boolean":
        if isinstance(wanted, str) and wanted.strip().lower() in ("true", "false"):
            wanted = wanted.strip().lower() == "true"
        if not isinstance(wanted, bool):
            raise invalid({"filter": [f"'{key}' must be true or false"]})
        return lambda v: v is wanted
    if ftype in ("number", "currency"):
        try:
            number = float(wanted) if not isinstance(wanted, bool) else None
        except (TypeError, ValueError):
            number = None
        if number is None:
            raise invalid({"filter": [f"'{key}' must be a number"]})
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and float(v) == number
    if ftype == "datetime" and isinstance(wanted, str) and is_datetime(wanted):
        instant = parse_iso(wanted)
        return lambda v: isinstance(v, str) and is_datetime(v) and parse_iso(v) == instant
    return lambda v: v == wanted


def _search_text(obj: dict, doc: dict) -> str:
    parts: list[str] = []
    values = doc.get("values", {})
    for field in active_fields(obj):
        value = values.get(field["key"])
        if value is None:
            continue
        if field["type"] in CHOICE_TYPES:
            ids = value if isinstance(value, list) else [value]
            labels = {o["id"]: o["label"] for o in field.get("options", [])}
            parts.extend(labels.get(i, str(i)) for i in ids)
        else:
            parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(parts).lower()


def _sort_key(obj: dict, sort: str):
    name = sort.lstrip("-")
    descending = sort.startswith("-")
    fields = field_map(obj)
    if name not in ("created_at", "updated_at") and name not in fields:
        choices = ", ".join(["created_at", "updated_at", *fields])
        raise invalid({"sort": [f"must be one of: {choices} (prefix - for descending)"]})
    field = fields.get(name)
    labels = {o["id"]: o["label"] for o in (field or {}).get("options", [])}
    positions = {o["id"]: i for i, o in enumerate((field or {}).get("options", []))}

    def key(doc: dict) -> list:
        if name in ("created_at", "updated_at"):
            value = doc[name]
        else:
            value = doc.get("values", {}).get(name)
            if field and field["type"] in ("select", "stage") and value is not None:
                # choices sort in option order (pipeline order for stages), not by id
                value = positions.get(value, len(positions))
            elif field and field["type"] == "multi_select" and value:
                value = ", ".join(sorted(labels.get(v, v) for v in value))
        if _is_empty(value):
            # empty values last in both directions
            return [0 if descending else 1, 0, 0.0, doc["_seq"]]
        return [1 if descending else 0, *sort_value(value), doc["_seq"]]

    return key, descending


# --------------------------------------------------------------------------
# Lookups
# --------------------------------------------------------------------------
def get_custom_object(req) -> dict:
    obj = get_object_or_404(req, req.path_params["object"])
    if obj["kind"] != "custom":
        raise invalid({"object": [f"'{obj['key']}' is a built-in object: its records belong to their own feature"]})
    return obj


def get_record_or_404(req, obj: dict, record_id: str) -> dict:
    doc = req.store.get("record", record_id, workspace_id=req.workspace_id)
    if doc is None or doc.get("object_id") != obj["id"]:
        raise not_found(f"record in {obj['key']}")
    return doc


def find_any_record(req, obj: dict, record_id: str) -> dict | None:
    """A record of a custom object, or of a built-in one through its source."""
    if obj["kind"] == "system":
        source = SYSTEM_RECORDS.get(obj["key"])
        return source.get(req.store, req.workspace_id, record_id) if source else None
    doc = req.store.get("record", record_id, workspace_id=req.workspace_id)
    return doc if doc is not None and doc.get("object_id") == obj["id"] else None


def system_record_doc(obj: dict, record: dict) -> dict:
    """A built-in object's record in the shape `render_record` takes."""
    return {
        "id": record["id"],
        "values": record.get("values", {}),
        "created_at": record.get("created_at") or "",
        "updated_at": record.get("updated_at") or "",
        "_seq": record.get("_seq", 0),
    }


# --------------------------------------------------------------------------
# Record routes
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/objects/{object}/records",
    operation_id="objects_records_list",
    summary="List records with filter, search and sort",
    description="Records of a custom object, newest change first by default. `filter` is a URL-encoded JSON object of field key to value (choices by id or label, `true` for booleans, a list for multi_select, null for empty); `search` finds text anywhere (case-insensitive); `sort` is `updated_at`, `created_at` or a field key, `-` for descending. A key the object does not have answers 400.",
    tags=["Records"],
    query={
        "filter": {"type": "string", "description": "URL-encoded JSON object of field key to value."},
        "search": {"type": "string", "maxLength": 500, "description": "Text found anywhere in the values."},
        "sort": {
            "type": "string",
            "maxLength": 100,
            "default": "-updated_at",
            "description": "updated_at, created_at or a field key; prefix - for descending.",
        },
        **PAGE_QUERY,
    },
    responses={200: page_of(ref("Record"))},
)
def records_list(req):
    obj = get_object_or_404(req, req.path_params["object"])
    filter_, search, sort = req.params.get("filter"), req.params.get("search"), req.params.get("sort") or "-updated_at"
    predicate = _filter_predicate(obj, filter_) if filter_ else None  # a bad filter answers before a bad sort
    key, descending = _sort_key(obj, sort)

    def ordered() -> list:
        if obj["kind"] == "system":
            source = SYSTEM_RECORDS.get(obj["key"])
            docs = [system_record_doc(obj, r) for r in (source.list(req.store, req.workspace_id) if source else [])]
        else:
            # Only read and rendered here: the store's decoded copies serve.
            docs = req.store.list("record", workspace_id=req.workspace_id, where={"object_id": obj["id"]}, shared=True)
        if predicate is not None:
            docs = [d for d in docs if predicate(d)]
        if search:
            needle = search.strip().lower()
            if needle:
                docs = [d for d in docs if needle in _search_text(obj, d)]
        return keyed_order(docs, key=key, descending=descending)

    if obj["kind"] == "system":
        # A built-in object's records come from their feature (runs move with the clock).
        keyed = ordered()
    else:
        # A person paging through 10,000 records reads the same sorted list 100 times.
        keyed = req.store.remembered(("records", req.workspace_id, obj["id"], filter_, search, sort), ordered)
    return paginate_keyed(req, keyed, descending=descending, render=lambda d: render_record(obj, d))


@route(
    "POST",
    "/v1/objects/{object}/records",
    operation_id="objects_records_create",
    summary="Create a record",
    description="Creates a record from `values` (field key to value), checked as the app checks: unknown keys, missing required fields and wrong types answer 422 naming the field. Choice fields take an option's id or label and store the id. A retry with the same Idempotency-Key returns the record the first request made. 1 credit.",
    tags=["Records"],
    body=RECORD_VALUES,
    responses={201: ref("Record")},
)
def records_create(req):
    obj = get_custom_object(req)
    values = check_values(obj, req.body["values"], creating=True)
    with req.store.lock:
        req.charge(1)
        doc = req.store.insert("record", {"object_id": obj["id"], "values": values}, workspace_id=req.workspace_id)
    return Response(render_record(obj, doc), status=201)


@route(
    "GET",
    "/v1/objects/{object}/records/{id}",
    operation_id="objects_records_get",
    summary="Get a record",
    description="One record with all its values, `created_at` and `updated_at`.",
    tags=["Records"],
    path_params=RECORD_PATH,
    responses={200: ref("Record")},
)
def records_get(req):
    obj = get_object_or_404(req, req.path_params["object"])
    record = find_any_record(req, obj, req.path_params["id"])
    if record is None:
        raise not_found(f"record in {obj['key']}")
    if obj["kind"] == "system":
        record = system_record_doc(obj, record)
    return render_record(obj, record)


@route(
    "PATCH",
    "/v1/objects/{object}/records/{id}",
    operation_id="objects_records_update",
    summary="Change a record: only the keys sent change; null clears",
    description="Only the keys sent change (merged under a row lock, so a concurrent edit is never overwritten); null clears a field. Validated like create: 422 names the field.",
    tags=["Records"],
    path_params=RECORD_PATH,
    body=RECORD_VALUES,
    responses={200: ref("Record")},
)
def records_update(req):
    obj = get_custom_object(req)
    with req.store.lock:  # the merge happens under the lock: a concurrent edit of other keys is never lost
        doc = get_record_or_404(req, obj, req.path_params["id"])
        changes = check_values(obj, req.body["values"], creating=False)
        values = dict(doc.get("values", {}))
        for key, value in changes.items():
            if value is None:
                values.pop(key, None)
            else:
                values[key] = value
        doc["values"] = values
        doc = req.store.save("record", doc)
    return render_record(obj, doc)


@route(
    "DELETE",
    "/v1/objects/{object}/records/{id}",
    operation_id="objects_records_delete",
    summary="Delete a record and every relationship to or from it",
    description="Deletes the record and every relationship to or from it; it cannot be undone.",
    tags=["Records"],
    path_params=RECORD_PATH,
    responses={
        200: {
            "type": "object",
            "required": ["id", "deleted"],
            "properties": {
                "id": {"type": "string"},
                "deleted": {"type": "boolean"},
                "relationships_deleted": {"type": "integer"},
            },
        }
    },
)
def records_delete(req):
    obj = get_custom_object(req)
    with req.store.lock:
        doc = get_record_or_404(req, obj, req.path_params["id"])
        req.store.delete("record", doc["id"])
        removed = req.store.delete_where("relationship", workspace_id=req.workspace_id, where={"source_id": doc["id"]})
        removed += req.store.delete_where("relationship", workspace_id=req.workspace_id, where={"target_id": doc["id"]})
    return {"id": doc["id"], "object": obj["key"], "deleted": True, "relationships_deleted": removed}


# --------------------------------------------------------------------------
# Relationships
# --------------------------------------------------------------------------
def render_relationship(rel: dict, record_id: str) -> dict:
    outgoing = rel["source_id"] == record_id
    source = {"object": rel["source_object"], "id": rel["source_id"]}
    target = {"object": rel["target_object"], "id": rel["target_id"]}
    other = target if outgoing else source
    return {
        "id": rel["id"],
        "relation_key": rel["relation_key"],
        "direction": "outgoing" if outgoing else "incoming",
        "object": other["object"],
        "record_id": other["id"],
        "other": other,
        "source": source,
        "target": target,
        "label": rel.get("label", ""),
        "metadata": rel.get("metadata", {}),
        "created_at": rel["created_at"],
    }


@route(
    "GET",
    "/v1/objects/{object}/records/{id}/relationships",
    operation_id="objects_relationships_list",
    summary="List a record's links in both directions",
    description="The record's links in both directions (`direction` outgoing when this record is the source), optionally one `relation_key`. Works for built-in objects too (an agent's links under `agents`).",
    tags=["Relationships"],
    path_params=RECORD_PATH,
    query={"relation_key": {"type": "string", "maxLength": 64}, **PAGE_QUERY},
    responses={200: page_of(ref("Relationship"))},
)
def relationships_list(req):
    obj = get_object_or_404(req, req.path_params["object"])
    record_id = req.path_params["id"]
    if find_any_record(req, obj, record_id) is None:
        raise not_found(f"record in {obj['key']}")
    where: dict = {}
    if req.params.get("relation_key"):
        where["relation_key"] = req.params["relation_key"]
    rels = req.store.list("relationship", workspace_id=req.workspace_id, where={**where, "source_id": record_id})
    rels += [
        r
        for r in req.store.list("relationship", workspace_id=req.workspace_id, where={**where, "target_id": record_id})
        if r["source_id"] != record_id
    ]
    return paginate(req, rels, render=lambda r: render_relationship(r, record_id))


@route(
    "POST",
    "/v1/objects/{object}/records/{id}/relationships",
    operation_id="objects_relationships_create",
    summary="Link this record to another record (repeating a link returns it)",
    description="Links this record (the source) to `target` (`object` key or id and the record `id`, which may be a record of a built-in object) with a snake_case `relation_key`, an optional `label` (max 200) and `metadata`. One link is source, target and relation_key: sending it again returns the existing one. Both ends must be in the workspace.",
    tags=["Relationships"],
    path_params=RECORD_PATH,
    body=RELATIONSHIP_CREATE,
    responses={200: ref("Relationship"), 201: ref("Relationship")},
)
def relationships_create(req):
    obj = get_object_or_404(req, req.path_params["object"])
    record_id = req.path_params["id"]
    body = req.body
    with req.store.lock:
        if find_any_record(req, obj, record_id) is None:
            raise not_found(f"record in {obj['key']}")
        target_obj = find_object(req.store, req.workspace_id, body["target"]["object"])
        if target_obj is None:
            raise not_found(f"object '{body['target']['object']}'")
        if find_any_record(req, target_obj, body["target"]["id"]) is None:
            raise not_found(f"record in {target_obj['key']}")
        existing = req.store.find_one(
            "relationship",
            workspace_id=req.workspace_id,
            source_id=record_id,
            target_id=body["target"]["id"],
            relation_key=body["relation_key"],
        )
        if existing:
            return Response(render_relationship(existing, record_id), status=200)
        rel = req.store.insert(
            "relationship",
            {
                "relation_key": body["relation_key"],
                "source_object": obj["key"],
                "source_object_id": obj["id"],
                "source_id": record_id,
                "target_object": target_obj["key"],
                "target_object_id": target_obj["id"],
                "target_id": body["target"]["id"],
                "label": body.get("label", ""),
                "metadata": body.get("metadata", {}),
            },
            workspace_id=req.workspace_id,
        )
    return Response(render_relationship(rel, record_id), status=201)
