"""Agent runs and background chat messages as tracked operations.

- `agents.run`: the poller reads `GET /v1/runs/{id}` until the run is
  `completed`, `failed` or `cancelled` (a `waiting` run keeps being followed:
  an approval decided elsewhere resumes it).
- `agents.invocation`: a chat message sent with `background: true`. The spec's
  way to poll it is to repeat the same request with the same Idempotency-Key
  (202 while it runs, then the finished invocation), so the row keeps the
  body and the key (neither is a secret) and the poller sends them again;
  the service answers from the first run and never runs the agent twice.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from django.urls import reverse

from agents.reading import INVOCATION_FINAL_STATUSES, RUN_FINAL_STATUSES, read_invocation, read_run
from dashboard.live.registry import OperationKind, register

RUN_KIND = "agents.run"
INVOCATION_KIND = "agents.invocation"


def fetch_run(client, op) -> dict:
    return client.get(f"/v1/runs/{quote(op.remote_id, safe='')}")


def fetch_invocation(client, op) -> dict:
    context = op.context or {}
    # The same body as the first request, in the same key order (parsing the
    # stored text keeps it), so the service sees the very same request.
    body = json.loads(context.get("body_json") or "{}")
    response = client.request(
        "POST",
        f"/v1/agents/{quote(str(context.get('agent_id', '')), safe='')}/runs",
        json=body,
        idempotency_key=context.get("idempotency_key") or op.remote_id,
    )
    return response.data if isinstance(response.data, dict) else {}


def run_page_url(op) -> str:
    return reverse("agents:run", args=[op.remote_id])


def invocation_page_url(op) -> str:
    context = op.context or {}
    url = reverse("agents:chat", args=[context.get("agent_id", "")])
    thread_id = (op.snapshot or {}).get("thread_id") or context.get("thread_id")
    return f"{url}?{urlencode({'thread': thread_id})}" if thread_id else url


def run_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    return {"run": read_run(snapshot)}


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
)

AGENT_INVOCATION = OperationKind(
    name=INVOCATION_KIND,
    title="Message to an agent",
    fetch=fetch_invocation,
    final_statuses=INVOCATION_FINAL_STATUSES,
    template="agents/invocation_snapshot.html",
    context=invocation_context,
    page_url=invocation_page_url,
)


def register_kinds() -> None:
    register(AGENT_RUN)
    register(AGENT_INVOCATION)
