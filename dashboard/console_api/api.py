"""The console's own API (`/api/v1/`, OpenAPI 3.1 at /api/v1/openapi.json,
rendered at /api/v1/docs): what the console adds over the service (the inbox,
approvals through the console's decision flow, ...), for scripts and
assistants, authenticated by personal access tokens (dashboard/tokens).

django-ninja does the serialisation and the schema. The core defines the API
and its plumbing (scopes, errors in the one body of dashboard/web/api_answers.py);
areas add their routers through `Area(api_routers=...)`, as they add pages.
Every guard of a page applies: the token's person and role at this moment,
the workspace's working key (the key gate), the service's own refusals."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern
from django.views.defaults import page_not_found
from ninja import NinjaAPI, Router
from ninja.errors import ValidationError

from dashboard.api import errors
from dashboard.audit.feed import audit_record
from dashboard.audit.selectors import FEED_LIMIT_DEFAULT, FEED_LIMIT_MOST, BadFeedCursor, audit_entries_after
from dashboard.audit.wording import entries_in_words
from dashboard.frame.areas import areas
from dashboard.frame.permissions import write_refusal
from dashboard.inbox.selectors import inbox_item_record, inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.keys.errors import KeyDecryptionError, KeyRefusedError, NoActiveKeyError
from dashboard.tokens.scopes import AUDIT, READ, scope_refusal, scopes_in_force
from dashboard.web.api_answers import api_error


class ApiRefusal(Exception):
    """A refusal of the console's own (a scope, a role, bad input), in words."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def require_scope(request: HttpRequest, scope: str) -> None:
    """Refuse (403, in words) unless the token holds `scope` and the person's role allows it now."""
    token = request.access_token  # type: ignore[attr-defined]
    refusal = scope_refusal(
        user=request.user, granted=list(token.scopes), needed=scope, workspace_id=token.workspace_id
    )
    if refusal:
        raise ApiRefusal(403, "scope_refused", refusal)


def require_write(request: HttpRequest, explanation: str) -> None:
    """The pages' write guard (a read-only role or member key refused, in the same words)."""
    message = write_refusal(request.workspace, explanation)  # type: ignore[attr-defined]
    if message:
        raise ApiRefusal(403, "write_refused", message)


# The longest Idempotency-Key a write takes (the service's own limit).
MAX_IDEMPOTENCY_KEY = 128


def require_idempotency_key(request: HttpRequest, *, one_per: str = "write") -> str:
    """The write's Idempotency-Key header: one per logical action, the same on every retry of it
    (the service then makes it once); refused in words (400) when missing or too long."""
    key = str(request.headers.get("Idempotency-Key") or "").strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY:
        raise ApiRefusal(
            400,
            "idempotency_key_required",
            f"Send an Idempotency-Key header (at most {MAX_IDEMPOTENCY_KEY} characters), one per {one_per}, "
            "the same on every retry of it.",
        )
    return key


def token_of(request: HttpRequest) -> Any:
    return request.access_token  # type: ignore[attr-defined]


def via_token(request: HttpRequest) -> str:
    """How the audit trail names this path: "token <name>"."""
    return f"token {token_of(request).name}"


api = NinjaAPI(
    title="Workspace Console API",
    version="1",
    description=(
        "The console's own API: what the console adds over the Workspace service, under the console's roles, "
        "audit trail and approvals. Authenticate with a personal access token: `Authorization: Bearer wsc_…`."
    ),
    urls_namespace="console_api",
    docs_url="/docs",
)


@api.exception_handler(ApiRefusal)
def _refusal(request: HttpRequest, exc: ApiRefusal):
    return api_error(exc.status, exc.code, exc.message)


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError):
    # A body or a parameter of the wrong shape: the one error body too, naming each place and why.
    said = "; ".join(
        f"{'.'.join(str(part) for part in error.get('loc', ()))}: {error.get('msg', 'not valid')}"
        for error in exc.errors[:10]
    )
    return api_error(422, "invalid_request", f"Nothing was done: {said}.")


@api.exception_handler(Http404)
def _gone(request: HttpRequest, exc: Http404):
    return api_error(404, "not_found", str(exc) or "No such address in the console's API: see /api/v1/docs.")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The console's 404 (urls.py handler404): an address under /api/ that is no route (an empty or
    malformed id: the pages' converters) answers the API's one error body; every page, Django's page."""
    if request.path.startswith("/api/"):
        return api_error(404, "not_found", "No such address in the console's API: see /api/v1/docs.")
    return page_not_found(request, exception or Http404())


@api.exception_handler(KeyRefusedError)
def _key_refused(request: HttpRequest, exc: KeyRefusedError):
    return api_error(403, "key_refused", "The service refuses your key of this workspace.", request_id=exc.request_id)


@api.exception_handler(NoActiveKeyError)
def _no_key(request: HttpRequest, exc: NoActiveKeyError):
    return api_error(403, "no_key", "You hold no key of this token's workspace any more: add it on the Keys page.")


@api.exception_handler(KeyDecryptionError)
def _unreadable(request: HttpRequest, exc: KeyDecryptionError):
    return api_error(503, "key_unreadable", "The console cannot read your stored key (its encryption keys changed).")


@api.exception_handler(errors.ApiError)
def _service(request: HttpRequest, exc: errors.ApiError):
    # The service's own refusal keeps its status (404, 409, 422, 429); its outages are a 502 of ours.
    status = exc.status if isinstance(exc.status, int) and 400 <= exc.status < 500 and exc.status != 401 else 502
    return api_error(status, "service_error", f"The service said: {exc.message}", request_id=exc.request_id or "")


core = Router(tags=["console"])


@core.get("/me", summary="Who the token acts as, where, and what it may do now")
def me(request: HttpRequest) -> dict[str, Any]:
    token = token_of(request)
    workspace = request.workspace  # type: ignore[attr-defined]
    key = workspace.require_key()
    return {
        "person": request.user.get_username(),
        "workspace": {"id": key.workspace_id, "name": key.workspace_name},
        "token": {
            "name": token.name,
            "prefix": token.shown_prefix,
            "expires_at": token.expires_at.isoformat(),
            "scopes_granted": list(token.scopes),
            "scopes_in_force": sorted(
                scopes_in_force(user=request.user, granted=list(token.scopes), workspace_id=token.workspace_id)
            ),
        },
    }


@core.get("/inbox", summary="Everything waiting for the token's person in its workspace (the console's database)")
def inbox(request: HttpRequest) -> dict[str, Any]:
    require_scope(request, READ)
    viewer = InboxViewer(user=request.user, workspace_id=request.workspace.id)  # type: ignore[attr-defined]
    return {
        "data": [
            {**inbox_item_record(item), "url": request.build_absolute_uri(item.url)}
            for item in inbox_items(viewer=viewer)
        ]
    }


@core.get("/audit", summary="The audit trail oldest first, after a cursor (for a security team's log system)")
def audit(request: HttpRequest, after: str = "", limit: int = FEED_LIMIT_DEFAULT) -> dict[str, Any]:
    require_scope(request, AUDIT)
    workspace_id = request.workspace.id  # type: ignore[attr-defined]
    limit = max(1, min(limit, FEED_LIMIT_MOST))
    try:
        entries, cursor = audit_entries_after(workspace_id=workspace_id, cursor=after, limit=limit)
    except BadFeedCursor as exc:
        raise ApiRefusal(
            400, "bad_cursor", "This cursor was not made by this console: start again without `after`."
        ) from exc
    entries_in_words(entries, workspace_id=workspace_id)
    # The same records as the audit feed (/audit/feed) and its log lines: one shape for a log system.
    return {"entries": [audit_record(entry) for entry in entries], "next": cursor, "more": len(entries) == limit}


api.add_router("/", core)
_built = False


def console_api_urls() -> Any:
    """The API's addresses with every area's routers (once: urls.py calls it).
    Its document and the page rendering it are open to anyone (they say
    nothing of a workspace); every other address needs a token."""
    global _built
    if not _built:
        for area in areas():
            for prefix, router in area.api_routers:
                api.add_router(prefix, router)
        _built = True
    urls = api.urls
    for pattern in urls[0]:
        if isinstance(pattern, URLPattern) and pattern.name in ("openapi-json", "openapi-view"):
            pattern.callback.login_required = False  # type: ignore[attr-defined]  # as login_not_required sets
    return urls
