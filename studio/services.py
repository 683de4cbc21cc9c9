"""Writes of the Studio: start a turn and track it, follow its progress, run a Content App."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.live.pushed import LeaseKeeper, operation_lease, operation_push, operation_release, stream_lease_seconds
from dashboard.live.services import operation_track
from dashboard.live.storable import storable
from dashboard.outbox.services import outbox_send
from dashboard.web.reading import as_dict, text
from studio.costs import charged_of
from studio.live import FINAL_SHOT_STATUSES, SHOT_KIND, TURN_KIND, read_turn, shot_status
from studio.models import AppRun

logger = logging.getLogger("studio")

# A follow task that waited this long in the broker is dropped unread: the
# poller has the turn's state by then, and the events are history.
FOLLOW_EXPIRES = 300
FOLLOW_TASK = "studio.follow_turn"  # studio/tasks.py


def turn_start(
    *,
    key: ApiKey,
    studio: str,
    message: str,
    idempotency_key: str,
    artifact_id: UUID | str | None = None,
    conversation_id: UUID | str | None = None,
    auto: bool = False,
) -> TrackedOperation:
    """Send one message to a studio's director and record the turn for the
    live poller. The turn opens as a stream read up to its id (then a worker
    follows its progress events); with STUDIO_TURN_PROGRESS off, in
    background mode (202 and its id).

    The form's Idempotency-Key goes with it: posting the same form twice is
    answered with the same turn, which is the same tracked row.
    """
    body: dict[str, Any] = {"message": message, "auto": bool(auto)}
    if artifact_id:
        body["artifact_id"] = str(artifact_id)
    if conversation_id:
        body["conversation_id"] = str(conversation_id)
    client = key.client()
    path = api_path("/v1/studio/{}/turns", studio)
    events: list[dict[str, Any]] = []
    if progress_enabled():
        answer, events, request_id = _turn_opened(client, path, body, idempotency_key)
    else:
        response = client.request(
            "POST", path, json={**body, "background": True}, idempotency_key=idempotency_key, slow=True
        )
        answer = response.data if isinstance(response.data, dict) else {}
        request_id = response.request_id
    # The background (202) body is "not shown beyond the turn id": where the id sits is read tolerantly.
    turn_id = text(answer.get("id") or answer.get("turn_id") or as_dict(answer.get("turn")).get("id"))
    if not turn_id:
        raise errors.ServerError(
            "The service accepted the turn but did not say which turn it is.", status=200, request_id=request_id
        )
    with transaction.atomic():  # the row and its follower's task together (the outbox)
        op = operation_track(
            owner_key=key,
            kind=TURN_KIND,
            remote_id=turn_id,
            title=message,
            snapshot=answer,
            context={
                "studio": studio,
                # The whole message (the title is cut short): the conversation shows it as sent.
                "message": message,
                "artifact_id": body.get("artifact_id", ""),
                "conversation_id": body.get("conversation_id", "") or text(answer.get("conversation_id")),
                "auto": bool(auto),
                "request_id": request_id or "",
                # What the progress follower repeats (studio/tasks.py): the same body, the same key.
                "body": body if events else {},
                "idempotency_key": idempotency_key if events else "",
                "events": events,
            },
        )
        if events and op.context.get("events") == events:
            follow_progress(op)
    return op


def progress_enabled() -> bool:
    """Whether turns open as a stream, so the director's `turn`, `plan` and
    `status` events can be shown as they come (STUDIO_TURN_PROGRESS)."""
    return bool(settings.STUDIO_TURN_PROGRESS)


def _turn_opened(client, path: str, body: dict, idempotency_key: str) -> tuple[dict, list[dict], str | None]:
    """Open the turn as a stream and read it up to its `turn` event (the
    turn's id: it is claimed), then let go; a worker follows the rest.
    Refusals (402, 404, 400...) are HTTP errors before any event, raised
    here, so the form shows them in place. A service that answers as a
    waiting call gives its result at once (no events to follow)."""
    stream = client.stream(path, json=body, idempotency_key=idempotency_key)
    events: list[dict[str, Any]] = []
    try:
        for event in stream:
            if event.event == "result":
                return as_dict(event.data), [], None
            events.append({"event": event.event, "data": storable(event.data)})
            if event.event == "turn":
                data = as_dict(event.data)
                return {"status": "building", **data}, events, None
    finally:
        stream.close()
    raise errors.ServerError("The service closed the turn's stream before saying which turn it is.", status=200)


def follow_progress(op: TrackedOperation) -> None:
    """Send the worker that reads the rest of the turn's stream, through the
    outbox in the row's transaction: a broker that is down keeps the task
    there (the poller follows the turn meanwhile) and never fails the request."""
    outbox_send(task=FOLLOW_TASK, args=[op.pk], expires=FOLLOW_EXPIRES, about=op)


MAX_EVENTS = 50  # progress events kept on a row (the newest)


def turn_follow(*, operation_id: int) -> int:
    """Read a turn's stream to its end through the live seam for pushed
    states: the row is leased (the poller leaves it alone), each `plan` and
    `status` event is pushed to it as it arrives (appended to
    `context.events`), and the `result` is stored at once as the turn's state
    (the poller takes over only what is still building, such as a website's
    build). The stream is the same request with the same Idempotency-Key (a
    replay: nothing new is started or charged). Followed once."""
    op = TrackedOperation.objects.select_related("owner_key").filter(pk=operation_id, kind=TURN_KIND).first()
    context = as_dict(op.context) if op is not None else {}
    if op is None or op.is_final or not context.get("idempotency_key") or context.get("following"):
        return 0
    # A short lease, renewed while this worker lives (LeaseKeeper): a killed
    # worker's turn goes back to the poller within LIVE_STREAM_LEASE_SECONDS.
    token = operation_lease(operation_id=op.pk, seconds=stream_lease_seconds())
    if token is None:
        return 0  # a poll holds it right now: the turn is followed by polls alone
    state: dict[str, Any] = {
        "snapshot": as_dict(op.snapshot),
        "events": [e for e in context.get("events") or [] if isinstance(e, dict)],
    }

    def push(event: dict | None = None, *, result: dict | None = None, following: str = "reading") -> bool:
        if event is not None:
            state["events"] = [*state["events"], event][-MAX_EVENTS:]
        if result is not None:
            state["snapshot"] = result
        return operation_push(
            operation_id=operation_id,
            lease_token=token,
            snapshot=state["snapshot"],
            context={"events": state["events"], "following": following},
            release=following == "done",
        )

    stored = 0
    if not push():
        return 0
    try:
        stream = op.owner_key.client(max_retries=0).stream(
            api_path("/v1/studio/{}/turns", text(context.get("studio")) or "website"),
            json=as_dict(context.get("body")),
            idempotency_key=text(context.get("idempotency_key")),
        )
        try:
            with LeaseKeeper(operation_id=operation_id, lease_token=token) as lease:
                for event in stream:
                    if not lease.renew():
                        return stored  # the poller has the row now: it writes, this task stops
                    if event.event == "turn":
                        continue  # its id is known
                    if event.event == "result":
                        push(result=as_dict(event.data) or state["snapshot"], following="done")
                        return stored
                    if not push({"event": event.event, "data": event.data}):
                        return stored  # the lease is no longer ours
                    stored += 1
        finally:
            stream.close()
    except errors.StreamError as exc:
        push({"event": "error", "data": {"message": exc.message, "request_id": exc.request_id}})
        stored += 1
        message = ""
    except Exception as exc:
        logger.warning("studio: following the progress of turn %s stopped", operation_id, exc_info=True)
        message = "The director's progress could not be followed to the end; the turn is checked instead."
        if isinstance(exc, errors.ApiError):
            message = f"{message} ({exc.message})"
    else:
        message = ""
    # No result came: the poller reads the turn now.
    push(following="done-without-result")
    operation_release(operation_id=operation_id, lease_token=token, message=message)
    return stored


def turn_continue(
    *, key: ApiKey, turns: list[TrackedOperation], message: str, idempotency_key: str, auto: bool = False
) -> TrackedOperation:
    """A further turn in the conversation of `turns` (oldest first), sent with
    the acting person's own key: the same conversation and the artifact it
    works on, both read from the stored turns, never from the browser."""
    latest = turns[-1]
    snapshot = latest.snapshot if isinstance(latest.snapshot, dict) else {}
    read = read_turn(latest, snapshot)
    artifact_id = ""
    for op in reversed(turns):
        artifact_id = text(as_dict(as_dict(op.snapshot).get("artifact")).get("id")) or text(
            as_dict(op.context).get("artifact_id")
        )
        if artifact_id:
            break
    return turn_start(
        key=key,
        studio=read["studio"] or "website",
        message=message,
        idempotency_key=idempotency_key,
        conversation_id=read["conversation_id"] or None,
        artifact_id=artifact_id or None,
        auto=auto,
    )


def turn_try_again(
    *, key: ApiKey, turns: list[TrackedOperation], failed: TrackedOperation, idempotency_key: str
) -> TrackedOperation:
    """A failed turn's message sent again as a new turn of its conversation
    ("Try again"): the message and "decide for me" as the failed turn
    recorded them, the conversation and artifact read from the turns up to
    the failed one. Only those turns are read, so the same key always sends
    the same body: a double click (or the box's Retry) is the same turn,
    even after the first click's turn was added to the conversation."""
    context = as_dict(failed.context)
    at = next((i for i, op in enumerate(turns) if op.pk == failed.pk), None)
    upto = turns[: at + 1] if at is not None else [failed]
    return turn_continue(
        key=key,
        turns=upto,
        message=text(context.get("message")) or failed.title,
        idempotency_key=idempotency_key,
        auto=bool(context.get("auto")),
    )


def app_run_start(
    *,
    key: ApiKey,
    studio: str,
    app: str,
    label: str,
    body: dict[str, Any],
    idempotency_key: str,
    asked: list[dict[str, Any]] | None = None,
) -> AppRun:
    """Run a Content App once and keep the run (its inputs, for "run again with
    changes"; its answer). Image apps and `generate` without a project answer
    when done; a video shot answers 202 and is followed by a tracked
    operation that repeats this same request with this same Idempotency-Key.
    Posting the same form twice is one run (one row, one remote job)."""
    from django.db import IntegrityError

    from dashboard.live.storable import storable_text

    existing = AppRun.objects.filter(owner_key=key, idempotency_key=idempotency_key).first()
    path = api_path("/v1/studio/{}/apps/{}", studio, app)
    response = key.client().request("POST", path, json=body, idempotency_key=idempotency_key, slow=True)
    answer = response.data if isinstance(response.data, dict) else {"value": response.data}
    status = shot_status(answer) or ("building" if response.status_code == 202 else "complete")
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            run = AppRun.objects.create(
                owner_key=key,
                started_by_id=key.user_id,
                studio=studio,
                app=app,
                label=storable_text(label)[:200],
                inputs=storable(body),
                asked=storable(asked or []),
                idempotency_key=idempotency_key,
                http_status=response.status_code,
                status=storable_text(status)[:40],
                result=storable(answer),
                credits_charged=charged_of(answer),
                request_id=storable_text(response.request_id or "")[:128],
            )
    except IntegrityError:
        return AppRun.objects.get(owner_key=key, idempotency_key=idempotency_key)
    if response.status_code == 202 or status not in FINAL_SHOT_STATUSES:
        job = as_dict(answer.get("job"))
        run.operation = operation_track(
            owner_key=key,
            kind=SHOT_KIND,
            remote_id=text(job.get("id")) or idempotency_key,
            title=f"{label}: {text(body.get('prompt') or body.get('product'))}".strip(": "),
            snapshot=answer,
            context={"studio": studio, "app": app, "body": body, "idempotency_key": idempotency_key, "run": run.pk},
        )
        run.save(update_fields=["operation"])
    return run


def app_run_try_again(*, key: ApiKey, run: AppRun, idempotency_key: str) -> AppRun:
    """A Content App run sent again with the very inputs it had ("Try again"
    of a failed run, "another take" of one that made something): a new run with its own Idempotency-Key, so posting the
    button twice is one run. The inputs were checked against the app's
    schema when first sent; a refusal now is the service's to say."""
    return app_run_start(
        key=key,
        studio=run.studio,
        app=run.app,
        label=run.label or run.app,
        body=as_dict(run.inputs),
        asked=run.asked if isinstance(run.asked, list) else [],
        idempotency_key=idempotency_key,
    )
