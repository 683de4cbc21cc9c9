"""Agent runs and background chat messages as tracked operations.

- `agents.run`: the poller reads `GET /v1/runs/{id}` until the run is
  `completed`, `failed` or `cancelled` (a `waiting` run keeps being followed:
  an approval decided elsewhere resumes it).
- `agents.invocation`: a chat message sent with `background: true`. The spec's
  way to poll it is to repeat the same request with the same Idempotency-Key
  (202 while it runs, then the finished invocation), so the row keeps the
  body and the key (neither is a secret) and the poller sends them again;
  the service answers from the first run and never runs the agent twice.
  Once the invocation is `waiting` (for an approval, a time, an event), the
  poller follows its run (`GET /v1/runs/{id}`) until the run ends.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from agents.events import messages_failed, runs_failed
from agents.run_reading import INVOCATION_FINAL_STATUSES, RUN_FINAL_STATUSES, read_invocation, read_run, run_timeline
from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.live.registry import OperationKind

RUN_KIND = "agents.run"
INVOCATION_KIND = "agents.invocation"
# What a waiting run can wait for that only a person gives.
PERSON_WAITS = frozenset({"approval", "input", "answer", "human", "person"})


def fetch_run(client, op) -> dict:
    return client.get(api_path("/v1/runs/{}", op.remote_id))


def fetch_invocation(client, op) -> dict:
    context = op.context or {}
    snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
    run_id = str(snapshot.get("run_id") or context.get("run_id") or "")
    if snapshot.get("status") == "waiting" and run_id:
        # Waiting hands over to the run: re-read the run itself (a read, not
        # the write again) until it resumes and ends, so the message does not
        # stay "Waiting" after an approval let it finish.
        run = client.get(api_path("/v1/runs/{}", run_id))
        run = run if isinstance(run, dict) else {}
        return {**run, "run_id": run_id, "thread_id": run.get("thread_id") or snapshot.get("thread_id")}
    # The same body as the first request, in the same key order (parsing the
    # stored text keeps it), so the service sees the very same request.
    body = json.loads(context.get("body_json") or "{}")
    if context.get("mode") == "stream":
        # A streamed message the poller took over (its stream broke, or its
        # worker died): the run where known, else the same streamed call with
        # the same key, which the service answers from the first run.
        if run_id:
            run = client.get(api_path("/v1/runs/{}", run_id))
            run = run if isinstance(run, dict) else {}
            return {**run, "run_id": run_id, "thread_id": run.get("thread_id") or snapshot.get("thread_id")}
        answer: dict = {}
        try:
            for event in client.stream(
                api_path("/v1/agents/{}/runs", context.get("agent_id", "")),
                json=body,
                idempotency_key=context.get("idempotency_key") or op.remote_id,
            ):
                if event.event == "result" and isinstance(event.data, dict):
                    answer = event.data
        except errors.StreamError as exc:  # the run's own failure, told as an event: final
            return {**snapshot, "status": "failed", "error": {"message": exc.message, "request_id": exc.request_id}}
        return answer or {**snapshot, "status": snapshot.get("status") or "running"}
    response = client.request(
        "POST",
        api_path("/v1/agents/{}/runs", context.get("agent_id", "")),
        json=body,
        idempotency_key=context.get("idempotency_key") or op.remote_id,
    )
    return response.data if isinstance(response.data, dict) else {}


def waits_for_a_person(snapshot: dict) -> bool:
    """A run or invocation `waiting` for an approval or an answer (not for a
    time or an event, which come by themselves)."""
    if snapshot.get("status") != "waiting":
        return False
    waiting_for = snapshot.get("waiting_for")
    kind = waiting_for.get("kind") or waiting_for.get("type") if isinstance(waiting_for, dict) else waiting_for
    return str(kind or "").lower() in PERSON_WAITS


def is_followed(op) -> bool:
    """Whether the person chose to follow this run ("Follow this run"): the
    rows a runs list or a run page track only to show it live tell nobody
    anything (their own messages' runs are told through the message)."""
    return bool(isinstance(op.context, dict) and op.context.get("followed"))


def run_page_url(op) -> str:
    return reverse("agents:run", args=[op.remote_id])


def invocation_page_url(op) -> str:
    context = op.context or {}
    url = reverse("agents:chat", args=[context.get("agent_id", "")])
    thread_id = (op.snapshot or {}).get("thread_id") or context.get("thread_id")
    return f"{url}?{urlencode({'thread': thread_id})}" if thread_id else url


def run_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    run = read_run(snapshot)
    run["id"] = run["id"] or op.remote_id
    return {"run": run, "timeline": run_timeline(run, now=timezone.now()), "zone": op.owner_key.zone}


def invocation_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    invocation = read_invocation(snapshot)
    invocation["run_id"] = invocation["run_id"] or str((op.context or {}).get("run_id") or "")
    return {"invocation": invocation}


AGENT_RUN = OperationKind(
    name=RUN_KIND,
    title="Agent run",
    fetch=fetch_run,
    final_statuses=RUN_FINAL_STATUSES,
    template="agents/run_snapshot.html",
    context=run_context,
    page_url=run_page_url,
    person_needed=waits_for_a_person,
    announced=is_followed,
    # A run is tracked to show it live (a list, its page, "Follow"): whoever woke it, never the viewer.
    started_by_person=False,
    # A run the poller finds failed is an outbound event of its workspace (agents/events.py).
    on_final=runs_failed,
)

AGENT_INVOCATION = OperationKind(
    name=INVOCATION_KIND,
    title="Message to an agent",
    fetch=fetch_invocation,
    final_statuses=INVOCATION_FINAL_STATUSES,
    template="agents/invocation_snapshot.html",
    context=invocation_context,
    page_url=invocation_page_url,
    person_needed=waits_for_a_person,
    # A streamed answer is written to the row the moment it arrives: the page
    # looks every second, so it shows within a second and a half of the
    # service finishing (bench/answer_latency.py).
    watch_seconds=1.0,
    on_final=messages_failed,
)
