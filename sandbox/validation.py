"""A small JSON Schema checker (the subset the sandbox's OpenAPI uses).

The same schemas a route declares for OpenAPI are used to check request
bodies and query parameters, so the published document and the behaviour
cannot drift apart. Supported keywords: type (string or list), properties,
required, additionalProperties (bool or schema), items, minItems, maxItems,
minLength, maxLength, pattern, enum, const, minimum, maximum, minProperties,
format (uuid, date, date-time, email, uri), anyOf, oneOf (treated as anyOf),
allOf, not, if/then, $ref to `#/components/schemas/<Name>`.

Rules between fields (a PATCH needs one of two fields, `always` only with
`approve`) are stated with anyOf / not / if-then, so the OpenAPI document says
them too; `x-error: {"at": field, "message": text}` beside such a rule names the
field and the words a client sees when it fails (instead of the closest
alternative's first error), as the handlers used to say it by hand.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import date
from typing import Any

from sandbox.clock import parse_iso

Path = tuple[str, ...]

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


def is_uuid(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return len(value) == 36


def is_date(value: Any) -> bool:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_datetime(value: Any) -> bool:
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", value):
        return False
    try:
        parse_iso(value)
    except ValueError:
        return False
    return True


FORMATS: dict[str, Callable[[Any], bool]] = {
    "uuid": is_uuid,
    "date": is_date,
    "date-time": is_datetime,
    "email": lambda v: isinstance(v, str) and bool(EMAIL_RE.match(v)),
    "uri": lambda v: isinstance(v, str) and bool(URL_RE.match(v)),
}

TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "object":
        return isinstance(value, dict)
    if type_name == "array":
        return isinstance(value, list)
    if type_name == "null":
        return value is None
    return True


class Validator:
    def __init__(self, components: dict[str, dict] | None = None):
        self.components = components if components is not None else {}

    def resolve(self, schema: dict) -> dict:
        while "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = self.components[name]
        return schema

    def errors(self, value: Any, schema: dict, path: Path = ()) -> list[tuple[Path, str]]:
        schema = self.resolve(schema)
        out: list[tuple[Path, str]] = []
        # Rules between fields (named by `x-error`) are reported beside the fields' own errors.
        for rule in schema.get("allOf", []):
            out.extend(self.errors(value, rule, path))
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if alternatives:
            best: list[tuple[Path, str]] | None = None
            for alt in alternatives:
                errs = self.errors(value, alt, path)
                if not errs:
                    best = []
                    break
                if best is None or len(errs) < len(best):
                    best = errs
            if best:
                named = _named(schema, path)
                if not named:  # the closest alternative's errors say it best
                    return out + best
                out.extend(named)
        if "not" in schema and not self.errors(value, schema["not"], path):
            out.extend(_named(schema, path) or [(path, "is not accepted in this combination")])
        if "if" in schema and "then" in schema and not self.errors(value, schema["if"], path):
            errs = self.errors(value, schema["then"], path)
            if errs:
                out.extend(_named(schema, path) or errs)
        types = schema.get("type")
        if types is not None:
            type_list = types if isinstance(types, list) else [types]
            if not any(_type_ok(value, t) for t in type_list):
                names = " or ".join(TYPE_NAMES.get(t, t) for t in type_list)
                return [(path, f"must be {names}")]
        if "const" in schema and value != schema["const"]:
            out.append((path, f"must be {schema['const']!r}"))
        if "enum" in schema and value not in schema["enum"]:
            choices = ", ".join(str(v) for v in schema["enum"] if v is not None)
            out.append((path, f"must be one of: {choices}"))
        if isinstance(value, str):
            if "minLength" in schema and len(value) < schema["minLength"]:
                out.append(
                    (
                        path,
                        "may not be blank"
                        if schema["minLength"] == 1
                        else f"must be at least {schema['minLength']} characters",
                    )
                )
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                out.append((path, f"must be at most {schema['maxLength']} characters"))
            if "pattern" in schema and not re.search(schema["pattern"], value):
                out.append((path, schema.get("x-pattern-message", "has an invalid format")))
            fmt = schema.get("format")
            if fmt in FORMATS and not FORMATS[fmt](value):
                out.append(
                    (
                        path,
                        {
                            "uuid": "must be a UUID",
                            "date": "must be a date (YYYY-MM-DD)",
                            "date-time": "must be an ISO 8601 date and time",
                            "email": "must be an email address",
                            "uri": "must be an http or https URL",
                        }[fmt],
                    )
                )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                out.append((path, f"must be at least {schema['minimum']}"))
            if "maximum" in schema and value > schema["maximum"]:
                out.append((path, f"must be at most {schema['maximum']}"))
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                out.append((path, f"must have at least {schema['minItems']} item(s)"))
            if "maxItems" in schema and len(value) > schema["maxItems"]:
                out.append((path, f"must have at most {schema['maxItems']} items"))
            if "items" in schema:
                for i, item in enumerate(value):
                    out.extend(self.errors(item, schema["items"], path + (str(i),)))
        if isinstance(value, dict):
            props = schema.get("properties", {})
            if "minProperties" in schema and len(value) < schema["minProperties"]:
                out.append((path, f"must have at least {schema['minProperties']} field(s)"))
            for name in schema.get("required", []):
                if name not in value:
                    out.append((path + (name,), "is required"))
            for name, item in value.items():
                if name in props:
                    out.extend(self.errors(item, props[name], path + (name,)))
                else:
                    extra = schema.get("additionalProperties", True)
                    if extra is False:
                        out.append((path + (name,), "is not an accepted field"))
                    elif isinstance(extra, dict):
                        out.extend(self.errors(item, extra, path + (name,)))
        return out


def _named(schema: dict, path: Path) -> list[tuple[Path, str]]:
    """The rule's own words (`x-error`), filed under the field it names."""
    named = schema.get("x-error")
    if not named:
        return []
    return [(path + ((named["at"],) if named.get("at") else ()), named["message"])]


def details_from(errors: list[tuple[Path, str]], *, root: str = "body") -> dict:
    """Nest error paths into the spec's details shape: {"fields": {"0": {"label": ["..."]}}}.
    An error on the whole document is filed under `root`."""
    details: dict = {}
    for path, message in errors:
        if not path:
            path = (root,)
        node = details
        for part in path[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        leaf = node.setdefault(path[-1], [])
        if isinstance(leaf, list) and message not in leaf:
            leaf.append(message)
    return details


def first_message(errors: list[tuple[Path, str]]) -> str:
    path, message = errors[0]
    where = ".".join(path) if path else "body"
    return f"{where} {message}"
