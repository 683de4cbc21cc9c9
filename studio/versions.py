"""A document's versions (issue #21, item 4).

The service keeps only a document's latest content, so after each completed
document turn the console reads `GET /v1/documents/{id}` once and keeps what
it says (`DocumentVersion`). Where a `studio.turn` row becomes final, the
live seam's `on_final` hook of the kind (which both the poller's batch and
the stream follower's pushed result call) sends the named task
`studio.keep_document_version` through the outbox; the task reads the
document once and, when the service or the network fails, sends itself
again with a growing wait (`keep_backoff`), up to KEEP_ATTEMPTS reads. It is
idempotent: a (document, turn) that already has its version makes no remote
call and no row (a unique constraint settles a race), so a retried batch, a
task delivered twice or a read that failed before keeps one version.

Websites and apps have no content the contract shows, so the same task
keeps what a person can recognise of each state instead (`TurnResult`: the
screenshot, the public address and the product's address as they were, and
who asked for what), read once from `GET /v1/websites/{id}` or
`GET /v1/apps/{id}` after each completed turn; their history page lists them
and "go back to this" asks the director for that state again
(studio/rollback.py).
"""

from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.keys.errors import NoActiveKeyError
from dashboard.live.models import TrackedOperation
from dashboard.live.storable import storable_text
from dashboard.outbox.services import outbox_send
from dashboard.web.local_formats import integer
from dashboard.web.reading import as_dict, text
from dashboard.web.word_diff import ADDED, REMOVED, WordChange, word_changes
from studio.documents import document_source
from studio.models import TURN_KIND, DocumentVersion, TurnResult
from studio.preview import screenshot
from studio.reading import safe_link

logger = logging.getLogger(__name__)

# Unchanged lines shown around a change; a longer unchanged run is folded
# into "N unchanged lines" so a small revision of a long document reads as one.
DIFF_CONTEXT = 2
# Lines compared at most: difflib is quadratic in the worst case, and a
# request must stay bounded whatever a document's length.
DIFF_MAX_LINES = 5000


# The studios whose state after a turn is kept: a document's content, a site's or app's look.
KEPT_STUDIOS = ("document", "website", "app")
READ_PATH = {"document": "/v1/documents/{}", "website": "/v1/websites/{}", "app": "/v1/apps/{}"}


def _kept_of(op: TrackedOperation) -> tuple[str, str]:
    """(studio, artifact id) of a completed turn whose result is kept, or ("", "")."""
    snapshot, context = as_dict(op.snapshot), as_dict(op.context)
    studio = text(snapshot.get("studio") or context.get("studio"))
    if studio not in KEPT_STUDIOS or text(snapshot.get("status")) != "completed":
        return "", ""
    artifact_id = text(as_dict(snapshot.get("artifact")).get("id")) or text(context.get("artifact_id"))
    return (studio, artifact_id) if artifact_id else ("", "")


def _document_of(op: TrackedOperation) -> str:
    """The document a completed document turn wrote, or "" (another studio,
    not completed, no artifact)."""
    studio, artifact_id = _kept_of(op)
    return artifact_id if studio == "document" else ""


# The read of a version is a named task sent through the outbox (stored with
# nothing else to lose, published when the broker answers), retried with a
# growing wait when the service or the network fails, and idempotent per turn.
KEEP_TASK = "studio.keep_document_version"
KEEP_ATTEMPTS = 8  # reads of one version at most (about 1.5 hours from the first to the last)
KEEP_BACKOFF_SECONDS = 30
KEEP_BACKOFF_MAX_SECONDS = 1800
# Worth another read later: the service or the way to it failed, not the request.
_TRANSIENT = (errors.ServerError, errors.ApiConnectionError, errors.RateLimitedError, errors.StreamError)


def keep_backoff(attempt: int, retry_after: float | None = None) -> int:
    """Seconds before read number `attempt + 1` (30 s, 60 s, 2 min... at most
    30 min), never sooner than the service's Retry-After."""
    wait = min(KEEP_BACKOFF_MAX_SECONDS, KEEP_BACKOFF_SECONDS * 2**attempt)
    return int(max(wait, retry_after or 0))


def document_version_keep(*, op: TrackedOperation) -> DocumentVersion | None:
    """The version a completed document turn made, read from the service
    once and kept; None when the turn made none. A failed read raises the
    transport's ApiError (the task decides whether to read again). One
    attempt per call: the task's next run is the retry, a worker never sleeps."""
    document_id = _document_of(op)
    if not document_id:
        return None
    existing = DocumentVersion.objects.filter(document_id=document_id, turn=op).first()
    if existing is not None:
        return existing
    body = as_dict(op.owner_key.client(max_retries=0).get(api_path("/v1/documents/{}", document_id)))
    content, content_format = document_source(body)
    try:
        with transaction.atomic():
            return DocumentVersion.objects.create(
                workspace_id=op.owner_key.workspace_id,
                document_id=document_id[:200],
                turn=op,
                asked_by_id=op.started_by_id,
                asked=storable_text(text(as_dict(op.context).get("message")) or op.title),
                name=storable_text(text(body.get("name") or body.get("title")))[:300],
                revision=storable_text(text(body.get("revision")))[:40],
                content_format=storable_text(content_format)[:20],
                content=storable_text(content),
            )
    except IntegrityError:  # kept meanwhile by another run of the task
        return DocumentVersion.objects.filter(document_id=document_id, turn=op).first()


def turn_result_keep(*, op: TrackedOperation) -> TurnResult | None:
    """What a completed website or app turn left, read once and kept (as
    `document_version_keep`, one attempt per call); None for another turn."""
    studio, artifact_id = _kept_of(op)
    if studio not in ("website", "app"):
        return None
    existing = TurnResult.objects.filter(artifact_id=artifact_id, turn=op).first()
    if existing is not None:
        return existing
    body = as_dict(op.owner_key.client(max_retries=0).get(api_path(READ_PATH[studio], artifact_id)))
    artifact = as_dict(as_dict(op.snapshot).get("artifact"))
    try:
        with transaction.atomic():
            return TurnResult.objects.create(
                workspace_id=op.owner_key.workspace_id,
                studio=studio,
                artifact_id=artifact_id[:200],
                turn=op,
                asked_by_id=op.started_by_id,
                asked=storable_text(text(as_dict(op.context).get("message")) or op.title),
                name=storable_text(text(body.get("name") or body.get("title") or artifact.get("name")))[:300],
                screenshot_url=screenshot(body)[:2000],
                public_url=(safe_link(body.get("public_url")) or safe_link(artifact.get("public_url")))[:2000],
                open_url=(safe_link(body.get("url")) or safe_link(artifact.get("url")))[:2000],
            )
    except IntegrityError:  # kept meanwhile by another run of the task
        return TurnResult.objects.filter(artifact_id=artifact_id, turn=op).first()


def document_versions_keep(op_ids: list[int]) -> int:
    """The `on_final` hook of `studio.turn`: for each completed document,
    website or app turn among `op_ids` whose result is not kept yet, send
    the task that reads it (through the outbox). Returns the tasks sent. The
    poll batch and the stream follower may both call it for one turn: the
    task is idempotent."""
    ops = TrackedOperation.objects.filter(id__in=op_ids, kind=TURN_KIND, is_final=True)
    kept = set(DocumentVersion.objects.filter(turn_id__in=op_ids).values_list("turn_id", flat=True))
    kept |= set(TurnResult.objects.filter(turn_id__in=op_ids).values_list("turn_id", flat=True))
    sent = 0
    for op in ops:
        if op.pk in kept or not _kept_of(op)[0]:
            continue
        outbox_send(task=KEEP_TASK, args=[op.pk], about=op)
        sent += 1
    return sent


def document_version_keep_attempt(*, operation_id: int, attempt: int = 0) -> str:
    """One read of a turn's version (the task `studio.keep_document_version`):
    "kept" (now or before), "none" (not a completed document turn, or gone),
    "later" (a transient failure: the same task sent again after
    `keep_backoff`, through the outbox, so the schedule is a row) or
    "given up" (a refusal, or KEEP_ATTEMPTS failures: logged; the turn stands,
    only its version is missing)."""
    op = (
        TrackedOperation.objects.select_related("owner_key")
        .filter(pk=operation_id, kind=TURN_KIND, is_final=True)
        .first()
    )
    if op is None or not _kept_of(op)[0]:
        return "none"
    keep = document_version_keep if _document_of(op) else turn_result_keep
    try:
        return "kept" if keep(op=op) is not None else "none"
    except _TRANSIENT as exc:
        if attempt + 1 >= KEEP_ATTEMPTS:
            logger.warning(
                "studio: gave up reading the version of document turn %s after %d attempts (%s)",
                op.pk,
                attempt + 1,
                type(exc).__name__,
            )
            return "given up"
        wait = keep_backoff(attempt, exc.retry_after)
        logger.info(
            "studio: the version of document turn %s could not be read (%s); reading again in %d s",
            op.pk,
            type(exc).__name__,
            wait,
        )
        outbox_send(task=KEEP_TASK, args=[op.pk], kwargs={"attempt": attempt + 1}, countdown=wait, about=op)
        return "later"
    except (errors.ApiError, NoActiveKeyError) as exc:
        # Refused (the document is gone, the key revoked or unreadable): reading again changes nothing.
        logger.warning("studio: the version of document turn %s cannot be read (%s)", op.pk, type(exc).__name__)
        return "given up"


# --- reads -------------------------------------------------------------------------


def document_versions(*, workspace_id: str, document_id: str) -> list[DocumentVersion]:
    """A document's versions kept in this workspace, newest first."""
    if not workspace_id:
        return []
    return list(
        DocumentVersion.objects.select_related("asked_by")
        .filter(workspace_id=workspace_id, document_id=document_id)
        .order_by("-created_at", "-id")
    )


def document_version_get(*, workspace_id: str, version_id: int) -> DocumentVersion:
    """A version of the viewer's workspace; 404 for any other, with no hint it exists."""
    version = (
        DocumentVersion.objects.select_related("asked_by").filter(id=version_id, workspace_id=workspace_id).first()
        if workspace_id
        else None
    )
    if version is None:
        raise Http404("No such version.")
    return version


RESULTS_SHOWN = 100  # a site's history page lists the newest results only (one query, whatever its age)


def turn_results(*, workspace_id: str, artifact_id: str, limit: int = RESULTS_SHOWN) -> list[TurnResult]:
    """A website's or app's kept results in this workspace, newest first, at most `limit`."""
    if not workspace_id:
        return []
    return list(
        TurnResult.objects.select_related("asked_by")
        .filter(workspace_id=workspace_id, artifact_id=artifact_id)
        .order_by("-created_at", "-id")[:limit]
    )


def turn_results_after(*, result: TurnResult) -> list[TurnResult]:
    """The results kept after `result` (the requests a going back undoes), oldest first."""
    later = Q(created_at__gt=result.created_at) | Q(created_at=result.created_at, id__gt=result.pk)
    return list(
        TurnResult.objects.filter(workspace_id=result.workspace_id, artifact_id=result.artifact_id)
        .filter(later)
        .order_by("created_at", "id")
    )


def turn_result_get(*, workspace_id: str, result_id: int) -> TurnResult:
    """A kept result of the viewer's workspace; 404 for any other."""
    found = (
        TurnResult.objects.select_related("asked_by").filter(id=result_id, workspace_id=workspace_id).first()
        if workspace_id
        else None
    )
    if found is None:
        raise Http404("No such result.")
    return found


def artifact_latest_turn(*, workspace_id: str, artifact_id: str) -> TrackedOperation | None:
    """The newest turn of this workspace about an item (what the service
    answered, or what the console sent): its conversation is the item's
    turn history, the version list of a website or an app."""
    if not workspace_id or not artifact_id:
        return None
    return (
        TrackedOperation.objects.filter(kind=TURN_KIND, owner_key__workspace_id=workspace_id)
        .filter(Q(snapshot__artifact__id=artifact_id) | Q(context__artifact_id=artifact_id))
        .order_by("-created_at", "-id")
        .first()
    )


def version_filename(version: DocumentVersion) -> str:
    """A safe file name for the download: the document's name in plain
    letters, its revision, `.md` (or `.html`/`.txt` for those formats)."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", version.name).strip("-").lower()[:80] or "document"
    suffix = {"html": "html", "text": "txt", "plain": "txt"}.get(version.content_format.lower(), "md")
    revision = f"-revision-{version.revision}" if re.fullmatch(r"[0-9]{1,9}", version.revision) else ""
    return f"{stem}{revision}.{suffix}"


# --- the comparison -------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    change: str  # "same", "added", "removed" or "folded" (text says how many lines)
    text: str
    # A changed line paired with the line that replaced it: its words, the
    # changed ones marked (dashboard/web/word_diff.py); () to mark the whole line.
    words: tuple[WordChange, ...] = ()


# A removed and an added line are marked word by word when this much of them is alike.
WORDS_ALIKE = 0.4


def _paired(removed: list[str], added: list[str]) -> tuple[list[DiffLine], list[DiffLine]]:
    """The removed lines and the lines that replaced them, the pairs alike
    enough (in order) marked word by word."""
    old = [DiffLine("removed", line) for line in removed]
    new = [DiffLine("added", line) for line in added]
    for index in range(min(len(removed), len(added))):
        before, after = removed[index], added[index]
        if difflib.SequenceMatcher(a=before.split(), b=after.split(), autojunk=False).ratio() < WORDS_ALIKE:
            continue
        pieces = word_changes(before, after)
        old[index] = DiffLine("removed", before, tuple(p for p in pieces if p.kind != ADDED))
        new[index] = DiffLine("added", after, tuple(p for p in pieces if p.kind != REMOVED))
    return old, new


def versions_diff(older: str, newer: str) -> list[DiffLine]:
    """`older` -> `newer` line by line (paragraphs are lines in markdown):
    removed lines before the lines that replaced them, unchanged runs folded
    beyond DIFF_CONTEXT lines around a change."""
    before = older.splitlines()[:DIFF_MAX_LINES]
    after = newer.splitlines()[:DIFF_MAX_LINES]
    lines: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    opcodes = matcher.get_opcodes()
    for index, (tag, a_start, a_end, b_start, b_end) in enumerate(opcodes):
        if tag == "equal":
            same = before[a_start:a_end]
            head = DIFF_CONTEXT if index > 0 else 0
            tail = DIFF_CONTEXT if index < len(opcodes) - 1 else 0
            if len(same) > head + tail + 1:
                lines += [DiffLine("same", line) for line in same[:head]]
                folded = len(same) - head - tail
                lines.append(DiffLine("folded", f"{integer(folded)} unchanged line{'' if folded == 1 else 's'}"))
                lines += [DiffLine("same", line) for line in same[len(same) - tail :]]
            else:
                lines += [DiffLine("same", line) for line in same]
            continue
        removed, added = _paired(before[a_start:a_end], after[b_start:b_end])
        lines += removed + added
    return lines


def diff_counts(lines: list[DiffLine]) -> dict[str, int]:
    return {
        "added": sum(1 for line in lines if line.change == "added"),
        "removed": sum(1 for line in lines if line.change == "removed"),
    }
