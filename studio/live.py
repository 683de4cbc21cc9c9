"""The Studio turn as a tracked operation (kind `studio.turn`).

A background turn answers 202 with its id; the live poller then reads
`GET /v1/turns/{id}` until the turn is `completed`, `needs_input` or `failed`.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from dashboard.api.paths import api_path
from dashboard.live.registry import OperationKind
from dashboard.web.reading import as_dict, as_list, error_message, others, read_questions, text
from studio.models import TURN_KIND
from studio.reading import read_event, read_image, read_outline, read_pending_request, read_skipped, safe_link
from studio.versions import document_versions_keep

FINAL_TURN_STATUSES = frozenset({"completed", "needs_input", "failed"})

# Members of a turn the page shows in their own place; anything else is
# shown in the generic JSON view (the contract leaves a turn's shape open).
KNOWN_TURN_MEMBERS = frozenset(
    {
        "id",
        "object",
        "status",
        "studio",
        "artifact",
        "conversation_id",
        "message",
        "questions",
        "outline",
        "job",
        "images",
        "video",
        "error",
        "created_at",
        "completed_at",
    }
)


def fetch_turn(client, op) -> dict:
    return client.get(api_path("/v1/turns/{}", op.remote_id))


def turn_page_url(op) -> str:
    return reverse("studio:turn", args=[op.pk])


def read_turn(op, snapshot: dict) -> dict[str, Any]:
    """What a turn shows, read tolerantly from the stored snapshot (and what
    the console sent, for what the service has not said yet)."""
    context = as_dict(op.context)
    artifact = as_dict(snapshot.get("artifact"))
    job = as_dict(snapshot.get("job"))
    video = as_dict(snapshot.get("video"))
    error = snapshot.get("error")
    outline = snapshot.get("outline")
    has_outline = outline not in (None, "", [], {})
    return {
        "studio": text(snapshot.get("studio") or context.get("studio")),
        "status": text(snapshot.get("status") or op.status),
        "asked": text(context.get("message")) or op.title,
        "auto": bool(context.get("auto")),
        "message": text(snapshot.get("message")),
        "questions": read_questions(snapshot.get("questions")),
        "outline": outline,
        "has_outline": has_outline,
        "outline_read": read_outline(outline) if has_outline else None,
        "artifact": artifact,
        "artifact_name": text(artifact.get("name")) or text(artifact.get("id")),
        "artifact_url": safe_link(artifact.get("url")),
        "artifact_public_url": safe_link(artifact.get("public_url")),
        "job": job,
        "job_status": text(job.get("status")),
        "job_stage": text(job.get("stage")),
        "job_error": job.get("error"),
        "images": [image for item in as_list(snapshot.get("images")) if (image := read_image(item))],
        "video": video,
        "operations_applied": text(video.get("operations_applied")),
        "skipped": [read_skipped(item) for item in as_list(video.get("operations_skipped"))],
        "pending": [read_pending_request(item) for item in as_list(video.get("pending_requests"))],
        "error": error,
        "error_message": error_message(error),
        "error_request_id": text(as_dict(error).get("request_id")) or text(context.get("request_id")),
        "events": [
            read_event(text(as_dict(e).get("event")), as_dict(e).get("data")) for e in as_list(context.get("events"))
        ],
        "conversation_id": text(snapshot.get("conversation_id") or context.get("conversation_id")),
        "other": others(snapshot, KNOWN_TURN_MEMBERS),
    }


# Error types (and the HTTP status) that mean the workspace ran out of
# credits: sending the same again is refused the same way until credits are
# added, so nothing offers to retry it (spec, "Errors": 402 insufficient_credits).
OUT_OF_CREDITS = frozenset({"insufficient_credits", "402"})


def failure_kind(*, status: str, errors_seen: list[Any]) -> str:
    """What a finished piece of work's failure offers the person: "" (it did
    not fail), "credits" (it ran out of credits: no retry can help) or
    "failed" (trying the same again may work). `errors_seen` are the error
    members the service gave (a turn's, its build job's)."""
    if status != "failed":
        return ""
    for error in map(as_dict, errors_seen):
        if {text(error.get("type")), text(error.get("code")), text(error.get("status"))} & OUT_OF_CREDITS:
            return "credits"
    return "failed"


def turn_failure(op, read: dict[str, Any]) -> str:
    """How a turn failed, read from its row (see failure_kind). A turn still
    running, or one the console only stopped following (it may still be
    working at the service), offers nothing: a retry would be a second turn
    beside a live one."""
    if not op.is_final:
        return ""
    status = "failed" if "failed" in (read["status"], op.status, read["job_status"]) else read["status"]
    return failure_kind(status=status, errors_seen=[read["error"], read["job_error"]])


def app_run_failure(run) -> str:
    """How a Content App run failed (see failure_kind): its tracked shot's
    status when it has one (the run row keeps the first answer), else the
    run's. A shot still being made offers nothing."""
    op = run.operation
    if op is not None and not op.is_final:
        return ""
    snapshot = op.snapshot if op is not None and isinstance(op.snapshot, dict) else as_dict(run.result)
    status = text(op.status if op is not None else run.status)
    job = as_dict(snapshot.get("job"))
    if "failed" in (text(snapshot.get("status")), text(job.get("status"))):
        status = "failed"
    return failure_kind(status=status, errors_seen=[snapshot.get("error"), job.get("error")])


def turn_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    return {"turn": read_turn(op, snapshot)}


def turns_final(op_ids: list[int]) -> None:
    """After turns are stored final: keep each completed document turn's
    content as a version (studio/versions.py)."""
    document_versions_keep(op_ids)


STUDIO_TURN = OperationKind(
    name=TURN_KIND,
    title="Studio turn",
    fetch=fetch_turn,
    final_statuses=FINAL_TURN_STATUSES,
    template="studio/turn_snapshot.html",
    context=turn_context,
    page_url=turn_page_url,
    person_needed=lambda snapshot: snapshot.get("status") == "needs_input",
    on_final=turns_final,
)


# --- Content App video shots (kind `studio.app_shot`) ------------------------------

SHOT_KIND = "studio.app_shot"
FINAL_SHOT_STATUSES = frozenset({"complete", "completed", "succeeded", "failed", "needs_input", "cancelled"})


def fetch_shot(client, op) -> dict:
    """A video shot is followed by repeating the very request that started it
    with the same Idempotency-Key (spec, "Video content-app shot"): the
    service answers its current state and never starts or charges a second job."""
    context = as_dict(op.context)
    response = client.request(
        "POST",
        api_path("/v1/studio/{}/apps/{}", text(context.get("studio")) or "video", text(context.get("app"))),
        json=as_dict(context.get("body")),
        idempotency_key=text(context.get("idempotency_key")),
    )
    return response.data if isinstance(response.data, dict) else {"value": response.data}


def shot_status(snapshot: dict) -> str | None:
    status = text(snapshot.get("status")) or text(as_dict(snapshot.get("job")).get("status"))
    return status or None


def shot_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    from studio.reading import read_result

    return {"result": read_result(snapshot), "run_id": as_dict(op.context).get("run")}


def shot_page_url(op) -> str:
    run_id = as_dict(op.context).get("run")
    return reverse("studio:app_run", args=[run_id]) if isinstance(run_id, int) else reverse("live:detail", args=[op.pk])


def shots_final(op_ids: list[int]) -> None:
    """After shots are stored final: keep what each was charged on its run
    (the cost line of the app's form, studio/costs.py). One query to read,
    one update per run that said a charge."""
    from dashboard.live.models import TrackedOperation
    from studio.costs import charged_of
    from studio.models import AppRun

    snapshots = dict(TrackedOperation.objects.filter(pk__in=op_ids).values_list("pk", "snapshot"))
    for run_id, op_id in AppRun.objects.filter(operation_id__in=op_ids).values_list("pk", "operation_id"):
        charged = charged_of(snapshots.get(op_id))
        if charged is not None:
            AppRun.objects.filter(pk=run_id).update(credits_charged=charged)


APP_SHOT = OperationKind(
    name=SHOT_KIND,
    title="Video shot",
    fetch=fetch_shot,
    final_statuses=FINAL_SHOT_STATUSES,
    read_status=shot_status,
    template="studio/shot_snapshot.html",
    context=shot_context,
    page_url=shot_page_url,
    on_final=shots_final,
)
