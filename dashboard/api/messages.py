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

Translations: the catalogue holds the English words, marked with
gettext_noop (collected by `make messages`, not translated at import), and
`meaning_of` returns them translated into the active language at call time:
the page's language in a request, English in a worker (a job's outcome and
an operation's stored message are written there). The service's words
(`said_by_service`) are never translated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext

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


# Most specific class first: ApiTimeoutError is an ApiConnectionError.
CATALOGUE: list[tuple[type[errors.ApiError], ErrorMeaning]] = [
    (
        errors.AuthenticationError,
        ErrorMeaning(
            kind="authentication",
            title=gettext_noop("The service refused your API key"),
            advice=gettext_noop(
                "The key may have been revoked or mistyped. Add a new key of your workspace to continue."
            ),
            page_status=401,
            checking_key=gettext_noop(
                "The service refused this key. Check that you copied all of it and that it has not been revoked."
            ),
            following=gettext_noop(
                "The service refused the API key this was started with. Add a new key to follow new work."
            ),
            stops_following=True,
        ),
    ),
    (
        errors.InsufficientCreditsError,
        ErrorMeaning(
            kind="insufficient_credits",
            title=gettext_noop("Your workspace has run out of credits"),
            advice=gettext_noop(
                "Top up credits in the workspace's billing settings, then try again. Nothing was charged for this attempt."
            ),
            page_status=402,
            checking_key=gettext_noop("The service says this workspace has run out of credits."),
            following=gettext_noop("The workspace ran out of credits; this stopped."),
            stops_following=True,
        ),
    ),
    (
        errors.PermissionDeniedError,
        ErrorMeaning(
            kind="permission",
            title=gettext_noop("This API key may not do this"),
            advice=gettext_noop("Ask a workspace admin for access, or use a key of a member who may."),
            page_status=403,
            checking_key=gettext_noop("The service says this key may not read its own account."),
            following=gettext_noop("The API key this was started with may not read this operation."),
            stops_following=True,
        ),
    ),
    (
        errors.NotFoundError,
        ErrorMeaning(
            kind="not_found",
            title=gettext_noop("Not found"),
            advice=gettext_noop("It may have been deleted, or it belongs to another workspace."),
            page_status=404,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service no longer knows this operation (not found)."),
            stops_following=True,
        ),
    ),
    (
        errors.ConflictError,
        ErrorMeaning(
            kind="conflict",
            title=gettext_noop("It changed meanwhile"),
            advice=gettext_noop(
                "Someone or something changed this while you were working. Reload it to see the current state, then try again."
            ),
            page_status=409,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service reported a conflict on this operation; trying again shortly."),
        ),
    ),
    (
        errors.RateLimitedError,
        ErrorMeaning(
            kind="rate_limited",
            title=gettext_noop("The service is rate-limiting requests"),
            advice=gettext_noop(
                "It is busy with this workspace's requests and asked the console to wait. Try again in a moment."
            ),
            page_status=429,
            checking_key=gettext_noop("The service is busy right now; try again in a moment."),
            following=gettext_noop("The service asked us to slow down; the next check waits as long as it asked."),
        ),
    ),
    (
        errors.ApiTimeoutError,
        ErrorMeaning(
            kind="slow",
            title=gettext_noop("The service is slow to answer"),
            advice=gettext_noop("It did not answer in time. Try again in a moment."),
            page_status=502,
            checking_key=gettext_noop("The service was too slow to answer the key check. Try again in a moment."),
            following=gettext_noop("The service is slow to answer; trying again shortly."),
        ),
    ),
    (
        errors.ApiConnectionError,
        ErrorMeaning(
            kind="unreachable",
            title=gettext_noop("The service is unreachable right now"),
            advice=gettext_noop("The console could not connect to it. Try again in a moment."),
            page_status=502,
            checking_key=gettext_noop("The service could not be reached to check this key. Try again in a moment."),
            following=gettext_noop("The service is unreachable right now; trying again shortly."),
        ),
    ),
    (
        errors.ServerError,
        ErrorMeaning(
            kind="server_error",
            title=gettext_noop("The service had a problem"),
            advice=gettext_noop("It answered with a server error; nothing you sent was wrong. Try again in a moment."),
            page_status=502,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service had a problem answering; trying again shortly."),
        ),
    ),
    (
        errors.StreamError,
        ErrorMeaning(
            kind="stream",
            title=gettext_noop("The operation failed"),
            advice=gettext_noop("The service stopped the operation."),
            page_status=502,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service stopped the operation."),
            stops_following=True,
        ),
    ),
    (
        errors.InvalidRequestError,
        ErrorMeaning(
            kind="invalid",
            title=gettext_noop("The service did not accept this request"),
            advice=gettext_noop("Check the values and try again."),
            page_status=400,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service refused to report on this operation."),
            stops_following=True,
        ),
    ),
    (
        errors.UnprocessableError,
        ErrorMeaning(
            kind="invalid",
            title=gettext_noop("The service did not accept this request"),
            advice=gettext_noop("Check the values and try again."),
            page_status=422,
            checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
            following=gettext_noop("The service refused to report on this operation."),
            stops_following=True,
        ),
    ),
]

FALLBACK = ErrorMeaning(
    kind="error",
    title=gettext_noop("The service answered with an error"),
    advice=gettext_noop("Try again in a moment."),
    page_status=502,
    checking_key=gettext_noop("The service could not check this key right now. Try again in a moment."),
    following=gettext_noop("The last check failed; trying again shortly."),
)


def meaning_of(exc: errors.ApiError) -> ErrorMeaning:
    """The catalogue's entry for `exc` in the active language, with the wait filled in for a 429."""
    meaning = next((entry for cls, entry in CATALOGUE if isinstance(exc, cls)), None)
    if meaning is None:
        status = exc.status if exc.status and 400 <= exc.status < 500 else 502
        return translated(replace(FALLBACK, page_status=status))
    if isinstance(exc, errors.RateLimitedError) and (seconds := retry_after_seconds(exc)):
        return replace(
            translated(meaning),
            advice=ngettext(
                "It is busy with this workspace's requests and asked the console to wait. "
                "Try again in %(count)s second.",
                "It is busy with this workspace's requests and asked the console to wait. "
                "Try again in %(count)s seconds.",
                seconds,
            )
            % {"count": seconds},
            checking_key=ngettext(
                "The service is busy right now; try again in %(count)s second.",
                "The service is busy right now; try again in %(count)s seconds.",
                seconds,
            )
            % {"count": seconds},
        )
    return translated(meaning)


def stored_meaning_of(exc: errors.ApiError) -> ErrorMeaning:
    """`meaning_of` in the console's default language (English), whoever asks:
    for words kept in a row (an operation's last error, a job's stop message)
    that the poller compares with the catalogue and operators read in logs,
    so they read the same whether a worker or a request wrote them."""
    with translation.override(settings.LANGUAGE_CODE):
        return meaning_of(exc)


def catalogue_entry(cls: type[errors.ApiError]) -> ErrorMeaning:
    """The catalogue's entry for `cls` as written (English, not translated):
    safe at import time, before the translations are ready."""
    return next((entry for known, entry in CATALOGUE if issubclass(cls, known)), FALLBACK)


def translated(meaning: ErrorMeaning) -> ErrorMeaning:
    """`meaning`'s words in the active language (the catalogue holds them in English)."""
    return replace(
        meaning,
        title=gettext(meaning.title),
        advice=gettext(meaning.advice),
        checking_key=gettext(meaning.checking_key),
        following=gettext(meaning.following),
    )


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
    if not exc.request_id:
        return text
    return gettext("%(text)s (request id %(request_id)s)") % {"text": text, "request_id": exc.request_id}


# --- a form sent again with other values (Back, edit, send) ---------------------------
# The service refuses a reused Idempotency-Key with another body (409): nothing
# is made twice, which is right, and its words ("Idempotency key: was used
# with a different body or path") are not for people. Recognised tolerantly:
# a 409 whose details or message name the key, however another implementation
# spells it.

_KEY_NAMES = re.compile(r"idempoten", re.IGNORECASE)


# What a write made, by the last collection of its remote path (POST) or the
# collection its item sits in (PATCH, PUT, DELETE). Unknown collections: "it".
# Words in the active language at call time (a noun phrase the sentence of
# `already_sent_words` puts after its verb: German and French need the article).
def _made_words() -> dict[str, str]:
    record, run, decision = (
        pgettext("made by a form", "a record"),
        pgettext("made by a form", "a run"),
        pgettext("made by a form", "a decision"),
    )
    conversation = pgettext("made by a form", "a conversation")
    return {
        "records": record,
        "objects": pgettext("made by a form", "an object"),
        "fields": pgettext("made by a form", "a field"),
        "relationships": pgettext("made by a form", "a link"),
        "agents": pgettext("made by a form", "an agent"),
        "runs": run,
        "threads": conversation,
        "messages": pgettext("made by a form", "a message"),
        "turns": pgettext("made by a form", "a turn"),
        "conversations": conversation,
        "invocations": run,
        "approvals": decision,
        "decisions": decision,
        "approve": decision,
        "reject": decision,
        "boards": pgettext("made by a form", "a board"),
        "collections": pgettext("made by a form", "a collection"),
        "imports": pgettext("made by a form", "an import"),
        "jobs": pgettext("made by a form", "a job"),
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
        made = _made_words()
        return made.get(parts[-1], "") or (made.get(parts[-2], "") if len(parts) > 1 else "")
    return ""


def already_sent_words(*, method: str = "POST", made: str = "") -> tuple[str, str, str]:
    """The sentence before and after what was made: "This form was already sent
    with other values and made", "a record", ". Send again to make another.".
    In the active language: the part after may begin with the rest of the verb
    (German: "… und hat", "einen Datensatz", " angelegt. …")."""
    if method.upper() in ("PATCH", "PUT"):
        return (
            gettext("This form was already sent with other values and"),
            pgettext("a form sent again", "saved them"),
            gettext(". Send again to save these."),
        )
    if method.upper() == "DELETE":
        return (
            gettext("This form was already sent and"),
            pgettext("a form sent again", "did what it asked"),
            gettext(". Nothing was done twice."),
        )
    return (
        gettext("This form was already sent with other values and made"),
        made or pgettext("a form sent again", "what it asked for"),
        gettext(". Send again to make another."),
    )
