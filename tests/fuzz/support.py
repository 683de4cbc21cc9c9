"""What the fuzz suite sends: hostile values, and every URL of the console
with the query parameters and form fields its views read.

`FUZZ_TABLE` names, for each URL name, the methods to try and the names of
the values to send. tests/fuzz/test_fuzz.py fails when a URL of the console
is missing from it, so a new view is fuzzed from its first commit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import strategies as st

# Values that have broken web apps before: control characters, lone
# surrogates (sent as the bytes a hostile client can put in a URL), numbers
# out of every range, NaN and Infinity, deep and broken JSON, markup.
HOSTILE_TEXT = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\r\n",
    "line one\r\nSet-Cookie: x=1",
    "\n",
    "\t",
    "\x7f",
    "\x85",
    "\ud800",
    "a\udfffb",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1",
    "0",
    "00",
    "²",
    "٣",
    "1.5",
    "9" * 25,
    "1" * 5000,
    "-" + "9" * 40,
    "true",
    "false",
    "null",
    "on",
    "{}",
    "[]",
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": -Infinity}',
    '{"a": 1e999}',
    '"\\ud800"',
    '{"x": "\\udc00"}',
    "[" * 3000 + "]" * 3000,
    '{"a":' * 200 + "1" + "}" * 200,
    '{"order": 42}',
    "{order: 42",
    "x" * 70_000,
    "<script>alert(1)</script>",
    "\"'><b>",
    "../../etc/passwd",
    "/v1/me",
    "https://evil.example/",
    "//evil.example",
    "%00",
    "%0d%0a",
    "?a=1&b=2#c",
    "a/b",
    "🙂",
    "\u202e",
    "\ufeff",
    "fields-0",
    "fields-999999999999",
    "fields-0:0",
    "fields-0:99",
    "-updated_at",
    "created_at",
    "approve",
    "reject",
    "website",
    "row",
    "runs",
    "1",
    "2",
]

UUIDS = ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]


def hostile_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(HOSTILE_TEXT),
        st.text(max_size=30),
        st.from_regex(r"-?[0-9]{1,30}", fullmatch=True),
        st.sampled_from(UUIDS),
    )


def encode(value: str) -> bytes:
    # Lone surrogates travel as the UTF-8-like bytes a raw client can send.
    return value.encode("utf-8", "surrogatepass")


def urlencoded(pairs: list[tuple[str, str]]) -> str:
    return urlencode([(encode(name), encode(value)) for name, value in pairs])


@dataclass(frozen=True)
class Target:
    """One URL of the console as the fuzzer drives it."""

    methods: tuple[str, ...] = ("GET",)
    query: tuple[str, ...] = ()
    form: tuple[str, ...] = ()
    examples: int | None = None
    # Also send each field of the seeded objects: as `f.<key>` filters
    # ("query") or as the record form's values ("form").
    record_fields: str = ""


PAGER = ("cursor", "back")
RECORDS_QUERY = ("q", "empty", "sort", "limit", *PAGER)
OBJECT_FORM = ("singular_name", "plural_name", "description", "icon", "color", "idempotency_key")
FIELD_ROWS = (
    "fields-TOTAL_FORMS",
    "fields-INITIAL_FORMS",
    "fields-MIN_NUM_FORMS",
    "fields-MAX_NUM_FORMS",
    "fields-0-label",
    "fields-0-key",
    "fields-0-type",
    "fields-0-required",
    "fields-0-original_key",
    "fields-0-DELETE",
    "fields-0-option_id",
    "fields-0-option_label",
    "fields-0-option_color",
    "fields-1-label",
    "fields-1-type",
    "fields-1-original_key",
    "title_row",
    "add_field",
    "remove_field",
    "add_option",
    "remove_option",
)

FUZZ_TABLE: dict[str, Target] = {
    "home": Target(),
    "healthz": Target(examples=3),
    "login": Target(methods=("GET", "POST"), query=("next",), form=("username", "password", "next")),
    "logout": Target(methods=("POST",), form=("next",), examples=3),
    "account": Target(),
    "keys:list": Target(),
    "keys:add": Target(methods=("GET", "POST"), form=("label", "secret")),
    "keys:activate": Target(methods=("POST",), form=("key", "next")),
    "keys:check": Target(methods=("POST",)),
    "keys:delete": Target(methods=("GET", "POST")),
    "live:index": Target(),
    "live:detail": Target(),
    "live:status": Target(query=("view",)),
    "studio:index": Target(query=("studio", "conversation_id", "artifact_id")),
    "studio:start": Target(
        methods=("POST",), form=("studio", "message", "artifact_id", "conversation_id", "auto", "idempotency_key")
    ),
    "studio:turn": Target(),
    "studio:reply": Target(methods=("POST",), form=("message", "answer_0", "answer_1", "idempotency_key")),
    "agents:index": Target(query=("status", *PAGER)),
    "agents:create": Target(methods=("POST",), form=("name", "message", "auto", "idempotency_key")),
    "agents:detail": Target(query=("status", "region", *PAGER)),
    "agents:activate": Target(methods=("POST",), form=("idempotency_key",)),
    "agents:pause": Target(methods=("POST",), form=("idempotency_key",)),
    "agents:rename": Target(methods=("POST",), form=("name", "idempotency_key")),
    "agents:change": Target(methods=("POST",), form=("message", "auto", "answer_0", "idempotency_key")),
    "agents:webhook": Target(),
    "agents:chat": Target(query=("thread",)),
    "agents:chat_send": Target(methods=("POST",), form=("message", "payload", "thread_id", "idempotency_key")),
    "agents:run": Target(),
    "agents:approvals": Target(query=("status", "agent", *PAGER)),
    "agents:approval_decide": Target(
        methods=("POST",),
        form=("decision", "note", "risk", "agent_id", "agent_name", "key_approve", "key_reject", "key_always", "next"),
    ),
    "audit:index": Target(query=("person", "area", "kind", "since", "until", *PAGER)),
    "audit:export": Target(query=("person", "area", "kind", "since", "until")),
    "objects:index": Target(query=("kind", *PAGER)),
    "objects:new": Target(),
    "objects:create": Target(methods=("POST",), form=OBJECT_FORM + FIELD_ROWS),
    "objects:key_preview": Target(query=("plural_name",)),
    "objects:field_row": Target(query=("fields-TOTAL_FORMS", "title")),
    "objects:field_row_remove": Target(query=("index",)),
    "objects:field_option": Target(query=("prefix", "fields-0-option_label")),
    "objects:settings": Target(),
    "objects:settings_save": Target(methods=("POST",), form=(*OBJECT_FORM, "title_field", *FIELD_ROWS)),
    "objects:field_remove": Target(),
    "objects:field_remove_confirmed": Target(methods=("POST",), form=("idempotency_key",)),
    "objects:records": Target(query=RECORDS_QUERY, record_fields="query"),
    "objects:records_columns": Target(methods=("POST",), form=("shown", "query")),
    "objects:records_export": Target(query=RECORDS_QUERY, record_fields="query"),
    "objects:record_new": Target(methods=("GET", "POST"), form=("idempotency_key",), record_fields="form"),
    "objects:record": Target(),
    "objects:record_edit": Target(methods=("GET", "POST"), form=("idempotency_key",), record_fields="form"),
    "objects:record_delete": Target(methods=("GET", "POST"), form=("idempotency_key",)),
    "objects:relationship_new": Target(
        methods=("GET", "POST"),
        form=(
            "relation_key",
            "target_object",
            "target_search",
            "target_pick",
            "target_id",
            "label",
            "metadata",
            "idempotency_key",
        ),
    ),
    "objects:relationship_picker": Target(query=("target_object", "target_search")),
}

# URL namespaces the console does not own (Django's admin is Django's).
NOT_FUZZED_NAMESPACES = frozenset({"admin"})

_PARAM = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


@dataclass(frozen=True)
class Route:
    name: str
    route: str  # e.g. "objects/<remote_id:object_key>/records/"

    @property
    def parameters(self) -> list[str]:
        return [match.group("name") for match in _PARAM.finditer(self.route)]

    def path(self, values: dict[str, str]) -> str:
        """The URL path with each parameter percent-encoded whole (as a browser sends it)."""
        return "/" + _PARAM.sub(lambda m: quote(encode(values[m.group("name")]), safe=""), self.route)


def console_routes() -> list[Route]:
    """Every named URL of the console, from the root URLconf."""
    routes: list[Route] = []

    def walk(patterns, prefix: str, namespace: str | None) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = entry.namespace or namespace
                if inner in NOT_FUZZED_NAMESPACES:
                    continue
                walk(entry.url_patterns, prefix + str(entry.pattern), inner)
            elif isinstance(entry, URLPattern):
                name = f"{namespace}:{entry.name}" if namespace and entry.name else (entry.name or str(entry.pattern))
                routes.append(Route(name=name, route=prefix + str(entry.pattern)))

    walk(get_resolver().url_patterns, "", None)
    return routes
