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
RECORDS_QUERY = ("q", "empty", "sort", "limit", "view", "group", "footers", "agg.seats", *PAGER)
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
    # The home page's "Running now" poll and its "New record" picker (dashboard/home, objects/views/home.py).
    "home_running": Target(query=("v",)),
    "home_getting_started": Target(methods=("POST",), form=("hide",)),
    # "What needs you", polled while the home page is open (204 unchanged).
    "home_needs_you": Target(query=("v",)),
    "home_sections": Target(query=("v",)),
    "objects:home_picker": Target(examples=3),
    # The command palette's results (dashboard/palette): any text, a run's id shape, hostile bytes.
    "palette": Target(query=("q",)),
    "healthz": Target(examples=3),
    # The service worker and the web app manifest, fetched by the browser without login.
    "service_worker": Target(examples=3),
    "manifest": Target(examples=3),
    # static/js's strings in German or French, without login (any other language: 404).
    "javascript_catalog": Target(examples=3),
    "metrics": Target(examples=3),
    "metrics_state": Target(examples=3),
    "livez": Target(examples=3),
    "readyz": Target(examples=3),
    "system:status": Target(),
    "system:status_live": Target(query=("v",)),
    "login": Target(methods=("GET", "POST"), query=("next",), form=("username", "password", "next")),
    "logout": Target(methods=("POST",), form=("next",), examples=3),
    # Sign-in (dashboard/accounts): the second step, password reset, two-factor sign-in, the policy.
    "login_code": Target(methods=("GET", "POST"), form=("code",)),
    "login_two_factor_setup": Target(methods=("GET", "POST"), form=("code",)),
    "password_reset": Target(methods=("GET", "POST"), form=("email",)),
    "password_reset_done": Target(examples=3),
    "password_reset_confirm": Target(methods=("GET", "POST"), form=("new_password1", "new_password2")),
    "password_reset_complete": Target(examples=3),
    "two_factor": Target(),
    "two_factor_enable": Target(methods=("POST",), form=("code",)),
    # One's own account while signed in (dashboard/accounts/views_self.py): name, password, sessions.
    "own_account": Target(),
    "own_name": Target(methods=("POST",), form=("name",)),
    "own_language": Target(methods=("POST",), form=("language",)),
    "own_password": Target(methods=("POST",), form=("old_password", "new_password1", "new_password2"), examples=5),
    "own_sessions_sign_out": Target(methods=("POST",), examples=3),
    "recovery_codes_new": Target(methods=("POST",), form=("new-code",)),
    "two_factor_turn_off": Target(methods=("POST",), form=("off-code",)),
    "sign_in_policy": Target(methods=("GET", "POST"), form=("roles",)),
    "two_factor_reset": Target(methods=("GET", "POST"), query=("next",), form=("next",)),
    # Passkeys (dashboard/accounts/views_passkeys.py): options for the browser, answers in a hidden field.
    "login_passkey_options": Target(methods=("POST",), form=("purpose",)),
    "login_code_passkey": Target(methods=("POST",), form=("credential",)),
    "login_passkey": Target(methods=("POST",), form=("credential", "next")),
    "login_passkey_setup": Target(methods=("GET", "POST"), form=("name", "credential")),
    "own_passkey_options": Target(methods=("POST",), form=("purpose",)),
    "own_passkey_add": Target(methods=("POST",), form=("name", "credential")),
    "own_passkey_remove": Target(methods=("GET", "POST"), form=("credential", "remove-code"), examples=5),
    "step_up_passkey": Target(methods=("GET", "POST"), query=("next",), form=("credential", "next"), examples=5),
    # People (dashboard/people): the page, invitations, one person, accepting, development mail.
    # Personal access tokens (dashboard/tokens): the page, a token made, one revoked.
    "tokens:list": Target(),
    "tokens:new": Target(
        methods=("POST",), form=("name", "workspace_id", "scopes", "days", "allowed_from", "ask_first")
    ),
    "tokens:revoke": Target(methods=("POST",), examples=3),
    "tokens:policy": Target(methods=("POST",), form=("max_days",)),
    # Directory provisioning (dashboard/directory): the Administrators' token page, a token made, one revoked.
    "directory:tokens": Target(),
    "directory:token_new": Target(methods=("POST",), form=("name",)),
    "directory:token_revoke": Target(methods=("POST",), examples=3),
    # SCIM for a directory (a session is not a directory token: refused in SCIM's error body, never a 500;
    # with a token, tests/directory/test_scim_fuzz.py sends hostile bodies).
    "scim:service_provider_config": Target(examples=3),
    "scim:resource_types": Target(examples=3),
    "scim:resource_type": Target(examples=3),
    "scim:schemas": Target(examples=3),
    "scim:schema": Target(examples=3),
    "scim:users": Target(methods=("GET", "POST"), query=("filter", "startIndex", "count"), examples=5),
    "scim:user": Target(methods=("GET", "POST"), examples=3),
    "scim:groups": Target(methods=("GET", "POST"), query=("filter", "startIndex", "count"), examples=5),
    "scim:group": Target(methods=("GET", "POST"), examples=3),
    # The console's API (a session is not a token: refused in its JSON body, never a 500).
    "console_api:api-root": Target(),
    "console_api:openapi-json": Target(),
    "console_api:openapi-view": Target(),
    "console_api:me": Target(),
    "console_api:inbox": Target(),
    "console_api:approvals_waiting": Target(),
    "console_api:audit": Target(query=("after", "limit")),
    "console_api:approval_decide": Target(methods=("POST",), form=("decision", "note"), examples=5),
    "console_api:runs_list": Target(query=("status", "agent", "thread", "cursor")),
    "console_api:run_one": Target(examples=5),
    "console_api:insights": Target(query=("days",)),
    "console_api:agent_insights": Target(query=("days",), examples=5),
    "console_api:records_list": Target(methods=("GET", "POST"), query=RECORDS_QUERY, form=("values",), examples=5),
    "console_api:record_one": Target(examples=5),
    "console_api:trash_rows": Target(examples=5),
    "console_api:trash_restore": Target(methods=("POST",), examples=3),
    "console_api:job_one": Target(examples=3),
    "console_api:job_undo_begin": Target(methods=("POST",), examples=3),
    "console_api:record_create": Target(methods=("POST",), form=("values",), examples=3),
    "console_api:record_change": Target(examples=3),
    "console_api:record_delete": Target(examples=3),
    "console_api:preferences_get": Target(examples=3),
    "console_api:preferences_put": Target(examples=3),
    # The MCP server (a session is not a token: refused in the API's body) and the Assistant requests page.
    "mcp": Target(methods=("GET", "POST")),
    "assistants:requests": Target(),
    "assistants:decide": Target(methods=("POST",), form=("decision", "note"), examples=5),
    "reach:webhook_resume": Target(methods=("POST",), examples=3),
    "people:index": Target(query=("q", *PAGER)),
    "people:invite": Target(methods=("POST",), form=("emails", "role")),
    "people:invitation_resend": Target(methods=("POST",), examples=3),
    "people:invitation_link": Target(methods=("POST",), examples=3),
    "people:invitation_revoke": Target(methods=("POST",), examples=3),
    "people:accept": Target(methods=("GET", "POST"), form=("name", "password1", "password2")),
    "people:accept_sso": Target(methods=("POST",), form=("via",), examples=3),
    "people:mail": Target(examples=3),
    "people:person": Target(),
    "people:role": Target(methods=("POST",), form=("role", "confirm")),
    "people:workspace_role": Target(methods=("POST",), form=("workspace_id", "role")),
    "people:deactivate": Target(methods=("POST",), form=("confirm",)),
    "people:reactivate": Target(methods=("POST",), examples=3),
    "people:keys_delete": Target(methods=("POST",), form=("confirm",)),
    "people:theme": Target(methods=("POST",), form=("theme", "next")),
    "account": Target(),
    "keys:list": Target(),
    "keys:add": Target(methods=("GET", "POST"), form=("label", "secret")),
    "keys:activate": Target(methods=("POST",), form=("key", "next")),
    "keys:check": Target(methods=("POST",)),
    "keys:delete": Target(methods=("GET", "POST")),
    "live:index": Target(),
    "live:detail": Target(),
    "live:status": Target(query=("view",)),
    "inbox:index": Target(query=("kind", "agent")),
    "inbox:header": Target(query=("v",)),
    "inbox:refresh": Target(methods=("POST",), examples=3),
    "inbox:dismiss": Target(methods=("POST",), form=("key", "next")),
    # Notifications outside the tab (dashboard/reach): preferences, webhooks, the log, claims.
    "reach:preferences": Target(
        methods=("GET", "POST"),
        form=("approval_risks", "cadence", "time_zone", "quiet_from", "quiet_until", "away_until", "delegate"),
    ),
    "reach:webhook_add": Target(methods=("POST",), form=("kind", "label", "url")),
    "reach:workspace_webhook_add": Target(methods=("POST",), form=("kind", "label", "url")),
    "reach:webhook_remove": Target(methods=("POST",), examples=3),
    "reach:log": Target(examples=3),
    "reach:retry": Target(methods=("POST",), examples=3),
    "reach:claim": Target(methods=("POST",), form=("item_key", "action", "assignee", "next")),
    # Web Push (dashboard/reach/views_push.py): a browser's subscription posted, a device turned off.
    "reach:push_subscribe": Target(methods=("POST",), form=("endpoint", "p256dh", "auth")),
    "reach:push_unsubscribe": Target(methods=("POST",), examples=3),
    # Decisions from a message: the confirmation page (its token fuzzed as a path value), Slack's clicks.
    "reach:decide": Target(methods=("GET", "POST"), query=("d",), form=("decision",)),
    "reach:slack_interactivity": Target(methods=("POST",), form=("payload",)),
    "studio:index": Target(query=("studio", "artifact_id", "from_turn")),
    "studio:start": Target(methods=("POST",), form=("studio", "message", "artifact_id", "auto", "idempotency_key")),
    "studio:turn": Target(),
    "studio:conversation_live": Target(query=("ids", "v")),
    "studio:artifact_pane": Target(),
    "studio:reply": Target(methods=("POST",), form=("message", "auto", "idempotency_key")),
    "studio:try_again": Target(methods=("POST",), form=("idempotency_key",)),
    "studio:take_turn_new": Target(methods=("GET", "POST"), form=("message", "idempotency_key")),
    "studio:takes": Target(query=("take",)),
    "studio:takes_live": Target(query=("take", "v")),
    "studio:takes_compare": Target(query=("a", "b")),
    "studio:take_keep": Target(methods=("POST",), form=("take", "from", "a", "b")),
    "studio:apps": Target(),
    "studio:app": Target(
        methods=("GET", "POST"),
        query=("board_id", "project_id", "prompt", "rerun"),
        form=(
            "prompt",
            "count",
            "aspect",
            "board_id",
            "reference_asset_ids",
            "source_asset_id",
            "show_board",
            "idempotency_key",
        ),
    ),
    "studio:app_run": Target(),
    "studio:app_run_try_again": Target(methods=("POST",), form=("idempotency_key",)),
    "studio:app_run_take_again": Target(methods=("POST",), form=("idempotency_key",)),
    "studio:library": Target(query=("board", "q", "sort", "type", *PAGER)),
    "studio:library_zip": Target(
        methods=("GET", "POST"), query=("image", "selection", "collection", "board"), form=("image", "idempotency_key")
    ),
    "studio:selection": Target(),
    "studio:selection_update": Target(methods=("POST",), form=("shown", "image", "all", "then", "next")),
    "studio:selection_add_all": Target(methods=("POST",), form=("source", "board", "collection", "q", "sort", "next")),
    "studio:selection_clear": Target(methods=("POST",), form=("next",)),
    "studio:zip_job": Target(),
    "studio:zip_job_live": Target(query=("v",)),
    "studio:zip_download": Target(),
    "studio:library_favourites": Target(),
    "studio:library_favourite": Target(methods=("POST",), form=("name", "picture", "next")),
    "studio:library_item": Target(),
    "studio:briefs": Target(query=("q",)),
    "studio:brief_new": Target(methods=("POST",), form=("name", "studio", "text", "shared")),
    "studio:brief": Target(),
    "studio:brief_use": Target(methods=("POST",), form=("v0", "v1")),
    "studio:brief_edit": Target(methods=("POST",), form=("name", "studio", "text", "shared")),
    "studio:brief_delete": Target(methods=("POST",)),
    "studio:collections": Target(),
    "studio:collection_new": Target(methods=("POST",), form=("name",)),
    "studio:collection_add": Target(
        methods=("GET", "POST"),
        query=("image", "kind", "item", "name", "picture", "collection"),
        form=("image", "kind", "item", "name", "picture", "collection", "to"),
    ),
    "studio:collection": Target(query=("kind",)),
    "studio:collection_rename": Target(methods=("POST",), form=("name",)),
    "studio:collection_delete": Target(methods=("POST",)),
    "studio:collection_remove": Target(methods=("POST",), form=("kind", "item", "name")),
    "studio:document_versions": Target(query=("older", "newer", "layout")),
    "studio:artifact_history": Target(),
    "studio:document_version": Target(),
    "studio:document_version_download": Target(),
    "studio:document_version_restore": Target(),
    "studio:document_version_restore_send": Target(methods=("POST",), form=("idempotency_key",)),
    "studio:artifact_go_back": Target(),
    "studio:artifact_go_back_send": Target(methods=("POST",), form=("idempotency_key",)),
    # Share links: the maker's pages, and the public page (its token is fuzzed as a path value).
    "studio:shares": Target(),
    "studio:share_images": Target(methods=("GET", "POST"), query=("selection", "collection"), form=("days",)),
    "studio:share_new": Target(methods=("GET", "POST"), query=("version",), form=("days",)),
    "studio:share_revoke": Target(methods=("POST",)),
    "studio:shared": Target(),
    "agents:index": Target(query=("status", "q", "sort", "page")),
    "agents:create": Target(
        methods=("POST",), form=("name", "message", "auto", "asked", "answer_0", "idempotency_key")
    ),
    "agents:detail": Target(query=("status", "region", "thread", "node", *PAGER)),
    "agents:activate": Target(methods=("POST",), form=("idempotency_key",)),
    "agents:pause": Target(methods=("POST",), form=("idempotency_key",)),
    "agents:rename": Target(methods=("POST",), form=("name", "idempotency_key")),
    "agents:change": Target(methods=("POST",), form=("message", "auto", "answer_0", "idempotency_key")),
    "agents:webhook": Target(),
    "agents:chat": Target(query=("thread", "sent")),
    "agents:chat_send": Target(methods=("POST",), form=("message", "payload", "thread_id", "after", "idempotency_key")),
    "agents:threads": Target(query=PAGER),
    "agents:insights": Target(query=("days",)),
    "agents:agent_insights": Target(query=("days",)),
    # The insights region's poll while a refresh is on its way (204 unchanged, 286 once read).
    "agents:insights_poll": Target(query=("days", "v")),
    "agents:agent_insights_poll": Target(query=("days", "v"), examples=5),
    "agents:run": Target(query=("region", "step")),
    "agents:run_rerun": Target(methods=("POST",), form=("idempotency_key",)),
    "agents:run_step": Target(query=("region",)),
    "agents:run_follow": Target(methods=("POST",), form=("following",)),
    "agents:runs": Target(query=("status", "agent", "thread", "q", "region", *PAGER)),
    "agents:runs_compare": Target(query=("run",)),
    # Rerun with changes, and the failed runs of a window rerun as one job (agents/views/reruns.py).
    "agents:run_rerun_edit": Target(),
    "agents:run_rerun_edited": Target(methods=("POST",), form=("message", "payload", "reviewed", "idempotency_key")),
    "agents:runs_rerun_failed": Target(query=("agent", "since")),
    "agents:runs_rerun_failed_start": Target(methods=("POST",), form=("agent", "since", "run", "idempotency_key")),
    "agents:rerun_batch": Target(),
    "agents:rerun_batch_status": Target(query=("v",)),
    "agents:rerun_batch_cancel": Target(methods=("POST",)),
    "agents:run_view_new": Target(methods=("POST",), form=("name", "shared", "make_default", "query")),
    "agents:run_view_default": Target(methods=("POST",)),
    "agents:run_view_remove": Target(methods=("POST",)),
    # Outbound events (dashboard/events): Administrators' endpoints and the delivery log.
    "events:endpoints": Target(methods=("GET", "POST"), form=("label", "url", "event_types", "enabled")),
    "events:endpoint": Target(methods=("GET", "POST"), form=("label", "url", "event_types", "enabled")),
    "events:enable": Target(methods=("POST",), form=("enabled",)),
    "events:test": Target(methods=("POST",)),
    "events:secret": Target(methods=("POST",)),
    "events:log": Target(query=("status", "endpoint", "cursor")),
    "events:again": Target(methods=("POST",)),
    "agents:run_row": Target(query=("v", "agent", "name", "compare")),
    "agents:approvals": Target(query=("status", "agent", "risk", "age", "approval", *PAGER)),
    "agents:approvals_news": Target(query=("v", "shown", "status", "agent", "risk", "age")),
    "agents:approval": Target(),
    "agents:approval_batch_start": Target(
        methods=("POST",),
        form=("decision", "approval", "idempotency_key", "next", "matching", "agent", "risk", "age"),
    ),
    "agents:approval_batch": Target(),
    "agents:approval_batch_status": Target(query=("v",)),
    "agents:approval_reinstruct": Target(
        methods=("GET", "POST"), form=("message", "run_id", "agent_id", "key_reject", "key_message")
    ),
    "agents:policy": Target(examples=5),
    "agents:grant_revoke": Target(methods=("POST",), form=("risk", "understood", "idempotency_key")),
    "agents:deadlines": Target(methods=("GET", "POST"), form=("agent_id", "risk", "minutes")),
    "agents:rules": Target(
        methods=("GET", "POST"),
        form=(
            "agent_id",
            "risk",
            "approvals_needed",
            "approver_roles",
            "approver_ids",
            "starter_may_approve",
            "at_deadline",
        ),
    ),
    "agents:rule_remove": Target(methods=("POST",), form=("rule",)),
    "agents:alerts": Target(
        methods=("GET", "POST"), form=("agent_id", "measure", "threshold", "window_hours", "min_runs")
    ),
    "agents:alert": Target(
        methods=("GET", "POST"), form=("agent_id", "measure", "threshold", "window_hours", "min_runs")
    ),
    "agents:alert_delete": Target(methods=("POST",)),
    "agents:approval_decide": Target(
        methods=("POST",),
        form=(
            "decision",
            "note",
            "risk",
            "agent_id",
            "agent_name",
            "key_approve",
            "key_reject",
            "key_always",
            "step_up_code",
            "next",
        ),
    ),
    "audit:index": Target(query=("person", "area", "kind", "since", "until", *PAGER)),
    "audit:export": Target(query=("person", "area", "kind", "since", "until")),
    "audit:feed": Target(query=("after", "limit")),
    "objects:index": Target(query=("kind", *PAGER)),
    "objects:new": Target(),
    "objects:create": Target(methods=("POST",), form=OBJECT_FORM + FIELD_ROWS),
    "objects:key_preview": Target(query=("plural_name",)),
    "objects:address_preview": Target(query=("kind", "field", "id", "logo")),
    "objects:field_row": Target(query=("fields-TOTAL_FORMS", "title")),
    "objects:field_row_remove": Target(query=("index",)),
    "objects:field_option": Target(query=("prefix", "fields-0-option_label")),
    "objects:settings": Target(),
    "objects:settings_save": Target(methods=("POST",), form=(*OBJECT_FORM, "title_field", *FIELD_ROWS)),
    "objects:field_remove": Target(),
    "objects:field_remove_confirmed": Target(methods=("POST",), form=("idempotency_key",)),
    "objects:computed": Target(),
    "objects:computed_add": Target(
        methods=("POST",), form=("name", "kind", "formula", "relation_key", "field_key", "function")
    ),
    "objects:computed_remove": Target(methods=("POST",)),
    "objects:access": Target(),
    "objects:access_save": Target(
        methods=("POST",),
        form=(
            "rule-0-who",
            "rule-0-person",
            "rule-0-field",
            "rule-0-op",
            "rule-0-value",
            "rule-0-me",
            "rule-0-and1-field",
            "rule-0-and1-op",
            "rule-0-and1-value",
            "rule-0-and1-me",
            "field-name-hidden",
            "field-name-read_only",
        ),
    ),
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
    # Objects: saved views, inline cell edit, duplicate, undo.
    "objects:view_save": Target(methods=("POST",), form=("name", "shared", "make_default", "query")),
    "objects:view_open": Target(),
    "objects:view_default": Target(methods=("POST",)),
    "objects:view_delete": Target(methods=("POST",)),
    "objects:record_duplicate": Target(methods=("GET", "POST"), form=("idempotency_key",), record_fields="form"),
    "objects:record_cell": Target(
        methods=("GET", "POST"),
        form=("idempotency_key", "shown_values", "resolve.name", "seen.name"),
        record_fields="form",
    ),
    "objects:comment_post": Target(methods=("POST",), form=("body",)),
    "objects:comment_edit": Target(methods=("GET", "POST"), form=("edit-1-body", "body")),
    "objects:comment_delete": Target(methods=("POST",)),
    "objects:record_watch": Target(methods=("POST",), form=("on",)),
    "objects:mention_people": Target(query=("q",)),
    "objects:record_undo": Target(methods=("GET", "POST"), form=("idempotency_key", "resolve.name", "seen.name")),
    "objects:record_put_back": Target(methods=("GET", "POST"), form=("idempotency_key",)),
    "objects:record_timeline": Target(query=("kind",)),
    "objects:record_then": Target(
        methods=("GET", "POST"),
        form=("idempotency_key", "shown_values", "put_back", "when", "resolve.name", "seen.name"),
    ),
    # Bulk actions, CSV import, jobs and the kanban board.
    "objects:bulk": Target(
        methods=("GET", "POST"),
        query=("ids", "scope", "query", "action", "field"),
        form=("ids", "scope", "query", "action", "field", "value", "step", "checked", "idempotency_key"),
    ),
    "objects:grid_paste": Target(
        methods=("POST",),
        form=("mode", "tsv", "ids", "keys", "labels", "query", "step", "checked", "idempotency_key"),
    ),
    "objects:import": Target(methods=("GET", "POST"), form=("file", "idempotency_key")),
    "objects:import_map": Target(methods=("GET", "POST"), form=("col_0", "col_1", "match_key", "match_mode")),
    "objects:jobs": Target(),
    "objects:job": Target(),
    "objects:job_status": Target(query=("v",)),
    "objects:job_cancel": Target(methods=("POST",)),
    "objects:job_run": Target(methods=("POST",)),
    "objects:job_report": Target(),
    "objects:job_undo": Target(methods=("POST",), form=("idempotency_key",)),
    "objects:trash": Target(),
    "objects:trash_restore": Target(methods=("POST",), form=("scope", "ids", "idempotency_key")),
    "objects:trash_purge": Target(methods=("POST",), form=("scope", "ids", "idempotency_key")),
    "objects:trash_restore_one": Target(methods=("GET", "POST"), form=("idempotency_key",)),
    # Find and merge duplicates.
    "objects:duplicates": Target(query=("field", "mode", "of")),
    "objects:merge": Target(query=("ids", "kept", "review", "use.name", "use.seats")),
    "objects:merge_run": Target(methods=("POST",), form=("ids", "kept", "use.name", "shown_values", "idempotency_key")),
    "objects:kanban": Target(query=("by", "card", "sum", "view", "q", "empty"), record_fields="query"),
    "objects:records_count": Target(query=("v",)),  # a filtered table's total, polled
    # A long table's next rows as one scrolls (static/js/objects_window.js).
    "objects:records_rows": Target(query=(*RECORDS_QUERY, "at", "start"), record_fields="query"),
    # Presence: the region's poll (the page's heartbeat) and the beacon of a page left.
    "objects:presence": Target(methods=("POST",), query=("of", "v"), form=("token", "record", "field")),
    "objects:presence_leave": Target(methods=("POST",), form=("token",)),
    # The table's footers over every record, polled (its query: the table's).
    "objects:records_footers": Target(query=("v", "group", "footers", "agg.seats", "view"), record_fields="query"),
    "objects:kanban_counts": Target(query=("by", "sum", "shown1", "more1", "out1", "v")),
    "objects:kanban_move": Target(methods=("POST",), form=("record_id", "field", "option", "idempotency_key")),
    "objects:kanban_column": Target(query=("by", "option", "cursor", "shown", "q", "empty"), record_fields="query"),
    # More ways to look: calendar, gallery, chart.
    "objects:calendar": Target(query=("date", "month", "budget", "view", "q", "empty"), record_fields="query"),
    "objects:gallery": Target(query=("image", "view", "q", *PAGER), record_fields="query"),
    "objects:chart": Target(
        query=("group", "bucket", "measure", "value", "recount", "view", "q"), record_fields="query"
    ),
    "objects:chart_status": Target(query=("group", "bucket", "measure", "value", "v")),
}

# URL namespaces the console does not own (Django's admin is Django's).
# URLs that exist only when an optional sign-in is configured (SAML_IDP_METADATA:
# dashboard/accounts/saml.py), so not in the root URLconf the fuzz suite walks:
# tests/accounts/test_saml.py sends them hostile values with SAML on.
OPTIONAL_FUZZ_TABLE: dict[str, Target] = {
    "saml2_login": Target(query=("next", "idp", "scoping", "RelayState")),
    "saml2_acs": Target(methods=("POST",), form=("SAMLResponse", "RelayState")),
    "saml2_metadata": Target(),
}

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
