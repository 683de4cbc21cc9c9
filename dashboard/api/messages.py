"""What each typed remote error means to a person: the one message catalogue.

Pages (the error page and the message box), forms, the key check and the
live poller all word a failure from here, so the same error reads the same
everywhere. Each entry has:

- `title` and `advice`: the message box (the page's heading and what to do);
- `page_status`: the status of a full error page (mirrors the remote one;
  502 when the service failed or could not be reached);
- `checking_key`: what the key form says when `GET /v1/me` failed this way;
- `following`: what a followed operation (a turn, a run) says when a poll
  failed this way; `stops_following` says whether polling ends there
  (another poll can't help) or goes on.

The service's own message is shown beside these, never instead of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from dashboard.api import errors


@dataclass(frozen=True)
class ErrorMeaning:
    kind: str
    title: str
    advice: str
    page_status: int
    checking_key: str
    following: str
    stops_following: bool = False


_TRY_AGAIN = "Try again in a moment."

# Most specific class first: ApiTimeoutError is an ApiConnectionError.
CATALOGUE: list[tuple[type[errors.ApiError], ErrorMeaning]] = [
    (
        errors.AuthenticationError,
        ErrorMeaning(
            kind="authentication",
            title="The service refused your API key",
            advice="The key may have been revoked or mistyped. Add a new key of your workspace to continue.",
            page_status=401,
            checking_key="The service refused this key. Check that you copied all of it and that it has not been revoked.",
            following="The service refused the API key this was started with. Add a new key to follow new work.",
            stops_following=True,
        ),
    ),
    (
        errors.InsufficientCreditsError,
        ErrorMeaning(
            kind="insufficient_credits",
            title="Your workspace has run out of credits",
            advice="Top up credits in the workspace's billing settings, then try again. Nothing was charged for this attempt.",
            page_status=402,
            checking_key="The service says this workspace has run out of credits.",
            following="The workspace ran out of credits; this stopped.",
            stops_following=True,
        ),
    ),
    (
        errors.PermissionDeniedError,
        ErrorMeaning(
            kind="permission",
            title="This API key may not do this",
            advice="Ask a workspace admin for access, or use a key of a member who may.",
            page_status=403,
            checking_key="The service says this key may not read its own account.",
            following="The API key this was started with may not read this operation.",
            stops_following=True,
        ),
    ),
    (
        errors.NotFoundError,
        ErrorMeaning(
            kind="not_found",
            title="Not found",
            advice="It may have been deleted, or it belongs to another workspace.",
            page_status=404,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service no longer knows this operation (not found).",
            stops_following=True,
        ),
    ),
    (
        errors.ConflictError,
        ErrorMeaning(
            kind="conflict",
            title="It changed meanwhile",
            advice="Someone or something changed this while you were working. Reload it to see the current state, then try again.",
            page_status=409,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service reported a conflict on this operation; trying again shortly.",
        ),
    ),
    (
        errors.RateLimitedError,
        ErrorMeaning(
            kind="rate_limited",
            title="The service is rate-limiting requests",
            advice="It is busy with this workspace's requests and asked the console to wait. Try again {wait}.",
            page_status=429,
            checking_key="The service is busy right now; try again {wait}.",
            following="The service asked us to slow down; the next check waits as long as it asked.",
        ),
    ),
    (
        errors.ApiTimeoutError,
        ErrorMeaning(
            kind="slow",
            title="The service is slow to answer",
            advice="It did not answer in time. " + _TRY_AGAIN,
            page_status=502,
            checking_key="The service was too slow to answer the key check. " + _TRY_AGAIN,
            following="The service is slow to answer; trying again shortly.",
        ),
    ),
    (
        errors.ApiConnectionError,
        ErrorMeaning(
            kind="unreachable",
            title="The service is unreachable right now",
            advice="The console could not connect to it. " + _TRY_AGAIN,
            page_status=502,
            checking_key="The service could not be reached to check this key. " + _TRY_AGAIN,
            following="The service is unreachable right now; trying again shortly.",
        ),
    ),
    (
        errors.ServerError,
        ErrorMeaning(
            kind="server_error",
            title="The service had a problem",
            advice="It answered with a server error; nothing you sent was wrong. " + _TRY_AGAIN,
            page_status=502,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service had a problem answering; trying again shortly.",
        ),
    ),
    (
        errors.StreamError,
        ErrorMeaning(
            kind="stream",
            title="The operation failed",
            advice="The service stopped the operation.",
            page_status=502,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service stopped the operation.",
            stops_following=True,
        ),
    ),
    (
        errors.InvalidRequestError,
        ErrorMeaning(
            kind="invalid",
            title="The service did not accept this request",
            advice="Check the values and try again.",
            page_status=400,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service refused to report on this operation.",
            stops_following=True,
        ),
    ),
    (
        errors.UnprocessableError,
        ErrorMeaning(
            kind="invalid",
            title="The service did not accept this request",
            advice="Check the values and try again.",
            page_status=422,
            checking_key="The service could not check this key right now. " + _TRY_AGAIN,
            following="The service refused to report on this operation.",
            stops_following=True,
        ),
    ),
]

FALLBACK = ErrorMeaning(
    kind="error",
    title="The service answered with an error",
    advice=_TRY_AGAIN,
    page_status=502,
    checking_key="The service could not check this key right now. " + _TRY_AGAIN,
    following="The last check failed; trying again shortly.",
)


def meaning_of(exc: errors.ApiError) -> ErrorMeaning:
    """The catalogue's entry for `exc`, with the wait filled in for a 429."""
    meaning = next((entry for cls, entry in CATALOGUE if isinstance(exc, cls)), None)
    if meaning is None:
        status = exc.status if exc.status and 400 <= exc.status < 500 else 502
        return replace(FALLBACK, page_status=status)
    if "{wait}" in meaning.advice or "{wait}" in meaning.checking_key:
        seconds = retry_after_seconds(exc)
        wait = (f"in {seconds} second" if seconds == 1 else f"in {seconds} seconds") if seconds else "in a moment"
        meaning = replace(
            meaning, advice=meaning.advice.format(wait=wait), checking_key=meaning.checking_key.format(wait=wait)
        )
    return meaning


def retry_after_seconds(exc: errors.ApiError) -> int | None:
    """Whole seconds the service asked to wait, if it said."""
    if exc.retry_after is None:
        return None
    return math.ceil(exc.retry_after)


def said_by_service(exc: errors.ApiError) -> str:
    """Only what the service itself said; a class's default text adds nothing."""
    if exc.message and exc.message != exc.default_message:
        return exc.message
    return ""


def with_request_id(text: str, exc: errors.ApiError) -> str:
    return f"{text} (request id {exc.request_id})" if exc.request_id else text


# --- a form sent again with other values (Back, edit, send) ---------------------------
# The service refuses a reused Idempotency-Key with another body (409): nothing
# is made twice, which is right, and its words ("Idempotency key: was used
# with a different body or path") are not for people. Recognised tolerantly:
# a 409 whose details or message name the key, however another implementation
# spells it.

_KEY_NAMES = re.compile(r"idempoten", re.IGNORECASE)

# What a write made, by the last collection of its remote path (POST) or the
# collection its item sits in (PATCH, PUT, DELETE). Unknown collections: "it".
_MADE = {
    "records": "a record",
    "objects": "an object",
    "fields": "a field",
    "relationships": "a link",
    "agents": "an agent",
    "runs": "a run",
    "threads": "a conversation",
    "messages": "a message",
    "turns": "a turn",
    "conversations": "a conversation",
    "invocations": "a run",
    "approvals": "a decision",
    "decisions": "a decision",
    "approve": "a decision",
    "reject": "a decision",
    "boards": "a board",
    "collections": "a collection",
    "imports": "an import",
    "jobs": "a job",
}


def key_reused(exc: errors.ApiError) -> bool:
    """Whether `exc` is the service refusing a reused Idempotency-Key with another body."""
    if not isinstance(exc, errors.ConflictError):
        return False
    return any(_KEY_NAMES.search(name) for name in exc.field_errors) or bool(_KEY_NAMES.search(exc.message or ""))


def made_by(method: str, path: str) -> str:
    """What a successful write of `method` to remote `path` made, in words ("a record")."""
    parts = [part for part in path.split("?", 1)[0].split("/") if part]
    if method.upper() == "POST" and parts:
        return _MADE.get(parts[-1], "") or (_MADE.get(parts[-2], "") if len(parts) > 1 else "")
    return ""


def already_sent_words(*, method: str = "POST", made: str = "") -> tuple[str, str, str]:
    """The sentence before and after what was made: "This form was already sent
    with other values and made", "a record", ". Send again to make another."."""
    if method.upper() in ("PATCH", "PUT"):
        return "This form was already sent with other values and", "saved them", ". Send again to save these."
    if method.upper() == "DELETE":
        return "This form was already sent and", "did what it asked", ". Nothing was done twice."
    return (
        "This form was already sent with other values and made",
        made or "what it asked for",
        ". Send again to make another.",
    )
