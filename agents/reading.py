"""Tolerant readers of the Agents resources.

The spec leaves the inner fields of plan nodes, edges, profile, deployments,
issues, steps, tasks, approvals and outcomes open ("not shown"). These
functions take what the pages need from a remote body, never raise on an odd
shape, and keep everything they don't know for a generic JSON view
(docs/architecture.md, "Reading what the service sends"). The generic
readers (`as_dict`, `text`, `when`...) are the web layer's.
"""

from __future__ import annotations

from typing import Any

from dashboard.web.reading import (
    as_dict,
    as_list,
    error_message,
    number,
    others,
    pretty_json,
    read_questions,
    text,
    when,
)

RISKS = ("write", "send", "spend", "destructive")
RUN_FINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
# A background invocation is over when its run is: a `waiting` one (for an
# approval, a time or an event) is followed through its run until it ends.
INVOCATION_FINAL_STATUSES = RUN_FINAL_STATUSES


# --- agents ------------------------------------------------------------------


def read_agent_summary(item: dict) -> dict[str, Any]:
    item = as_dict(item)
    return {
        "id": text(item.get("id")),
        "name": text(item.get("name")) or "(unnamed agent)",
        "status": text(item.get("status")),
        "active_version_id": text(item.get("active_version_id")),
        "created_at": when(item.get("created_at")),
        "updated_at": when(item.get("updated_at")),
    }


def read_issue(issue: Any) -> dict[str, Any]:
    if isinstance(issue, dict):
        message = text(issue.get("message") or issue.get("code") or "")
        where = ", ".join(
            f"{name.replace('_', ' ')} {text(issue[name])}" for name in ("node_id", "field") if issue.get(name)
        )
        return {"message": message or pretty_json(issue), "code": text(issue.get("code")), "where": where}
    return {"message": text(issue), "code": "", "where": ""}


def read_issues(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, dict):
        raw = raw.get("issues", [raw])
    if not isinstance(raw, list):
        raw = [raw] if raw not in (None, "") else []
    return [read_issue(issue) for issue in raw]


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        return text(tool.get("name") or tool.get("id") or tool.get("tool") or pretty_json(tool))
    return text(tool)


def read_profile(raw: Any) -> dict[str, Any]:
    profile = as_dict(raw)
    known = {"purpose", "instructions", "autonomy", "model", "tools", "always_allowed"}
    tools = profile.get("tools")
    return {
        "purpose": text(profile.get("purpose")),
        "instructions": text(profile.get("instructions")),
        "autonomy": text(profile.get("autonomy")),
        "model": text(profile.get("model"))
        if not isinstance(profile.get("model"), dict)
        else pretty_json(profile["model"]),
        "tools": [_tool_name(tool) for tool in as_list(tools)] if isinstance(tools, list) else [],
        "tools_raw": tools if tools is not None and not isinstance(tools, list) else None,
        "always_allowed": [text(risk) for risk in as_list(profile.get("always_allowed"))],
        "other": {key: value for key, value in profile.items() if key not in known},
    }


def read_plan(raw: Any) -> dict[str, Any]:
    """Plan nodes grouped by kind (in the order kinds first appear), and edges
    named by their nodes' labels where the ids match."""
    plan = as_dict(raw)
    nodes = [node for node in as_list(plan.get("nodes")) if isinstance(node, dict)]
    labels = {text(node.get("id")): text(node.get("label") or node.get("kind") or node.get("id")) for node in nodes}
    groups: dict[str, list[dict]] = {}
    for node in nodes:
        kind = text(node.get("kind")) or "other"
        groups.setdefault(kind, []).append(
            {
                "id": text(node.get("id")),
                "label": text(node.get("label")) or text(node.get("name")) or kind.replace("_", " "),
                "config": node.get("config"),
            }
        )
    edges = []
    for edge in as_list(plan.get("edges")):
        if isinstance(edge, dict):
            source = text(edge.get("from") or edge.get("source"))
            target = text(edge.get("to") or edge.get("target"))
            edges.append({"from": labels.get(source, source), "to": labels.get(target, target)})
    return {
        "node_count": len(nodes),
        "groups": [{"kind": kind, "nodes": items} for kind, items in groups.items()],
        "edges": edges,
    }


def read_deployment(raw: Any) -> dict[str, Any] | None:
    """A deployment without its webhook endpoint: whoever holds that address
    can wake the agent, so pages say only that one is configured."""
    if not isinstance(raw, dict):
        return None
    endpoint = raw.get("endpoint")
    return {
        "status": text(raw.get("status")),
        "version_id": text(raw.get("version_id")),
        "has_endpoint": bool(endpoint),
        "next_run_at": when(raw.get("next_run_at")),
        "other": {
            k: v
            for k, v in raw.items()
            if k not in {"endpoint", "status", "version_id", "next_run_at", "id", "wakeup_id", "kind"}
        },
    }


def read_wakeups(raw: Any) -> list[dict[str, Any]]:
    wakeups = []
    for wake in as_list(raw):
        if not isinstance(wake, dict):
            continue
        config = wake.get("config")
        wakeups.append(
            {
                "id": text(wake.get("id")),
                "kind": text(wake.get("kind")) or "wake-up",
                "config": config if config not in (None, {}, []) else None,
                "deployment": read_deployment(wake.get("deployment")),
            }
        )
    return wakeups


def webhook_endpoints(agent: dict) -> list[str]:
    """The webhook addresses of an active agent's deployments (private: shown
    only on the page that reveals them)."""
    endpoints = []
    for wake in as_list(as_dict(agent).get("wakeups")):
        deployment = as_dict(as_dict(wake).get("deployment"))
        if isinstance(deployment.get("endpoint"), str) and deployment["endpoint"]:
            endpoints.append(deployment["endpoint"])
    return endpoints


def read_schedule(raw: Any) -> list[dict[str, Any]]:
    items = []
    for item in as_list(raw):
        if isinstance(item, dict):
            items.append(
                {
                    "description": text(item.get("description") or item.get("rule") or item.get("wakeup_id")),
                    "next_run_at": when(item.get("next_run_at")),
                    "timezone": text(item.get("timezone")),
                }
            )
    return items


KNOWN_AGENT_MEMBERS = frozenset(
    {
        "id",
        "object",
        "name",
        "status",
        "active_version_id",
        "created_at",
        "updated_at",
        "profile",
        "plan",
        "wakeups",
        "schedule",
        "validation",
        "pending_approvals",
        "version",
        "builder_status",
    }
)


def read_agent(agent: dict) -> dict[str, Any]:
    agent = as_dict(agent)
    validation = as_dict(agent.get("validation"))
    pending = agent.get("pending_approvals")
    return {
        **read_agent_summary(agent),
        "version": agent.get("version"),
        "profile": read_profile(agent.get("profile")),
        "plan": read_plan(agent.get("plan")),
        "wakeups": read_wakeups(agent.get("wakeups")),
        "schedule": read_schedule(agent.get("schedule")),
        "ready": validation.get("ready") is True,
        "has_validation": bool(validation),
        "issues": read_issues(validation.get("issues")),
        "pending_approvals": pending if isinstance(pending, int) else 0,
        "builder_needs_input": agent.get("builder_status") == "needs_input",
        "other": others(agent, KNOWN_AGENT_MEMBERS),
    }


def read_build(build: dict) -> dict[str, Any]:
    """An agent build: `built` with the agent and the builder's summary, or
    `needs_input` with questions."""
    build = as_dict(build)
    return {
        "status": text(build.get("status")),
        "message": text(build.get("message")),
        "questions": read_questions(build.get("questions")),
        "agent_id": text(as_dict(build.get("agent")).get("id")),
    }


# --- approvals -----------------------------------------------------------------

# Approving these asks "exactly this?" first: they can't be taken back.
CONFIRM_RISKS = frozenset({"destructive", "spend"})
EMAIL_PARTS = (("to", "To"), ("cc", "Cc"), ("bcc", "Bcc"), ("subject", "Subject"), ("body", "Body"))


def read_approval_input(value: Any) -> dict[str, Any] | None:
    """The exact input in words where its shape is recognisable: an email as
    To, Subject, Body; a record write as object, record and field = value.
    None for any other shape (the page shows the JSON)."""
    data = as_dict(value)
    if "to" in data and ("subject" in data or "body" in data):
        return {"kind": "email", "rows": [(label, text(data[key])) for key, label in EMAIL_PARTS if key in data]}
    object_key = text(data.get("object") or data.get("object_key"))
    values = data.get("values")
    if object_key and (isinstance(values, dict) or "field" in data):
        rows = [("Object", object_key)]
        record = text(data.get("record_id") or data.get("id"))
        if record:
            rows.append(("Record", record))
        if isinstance(values, dict):
            rows += [(text(field), text(new)) for field, new in values.items()]
        else:
            rows.append((text(data.get("field")), text(data.get("value"))))
        return {"kind": "record", "rows": rows}
    return None


def read_approval(item: dict) -> dict[str, Any]:
    item = as_dict(item)
    risk = text(item.get("risk"))
    return {
        "id": text(item.get("id")),
        "summary": text(item.get("summary")) or (f"A {risk} action" if risk else "An action"),
        "agent_id": text(item.get("agent_id")),
        "agent_name": text(item.get("agent_name")),
        "run_id": text(item.get("run_id")),
        "risk": risk,
        "risk_known": risk in RISKS,
        "input": item.get("input"),
        "input_json": pretty_json(item.get("input")),
        "input_read": read_approval_input(item.get("input")),
        "needs_confirmation": risk in CONFIRM_RISKS,
        "can_always_allow": item.get("can_always_allow") is True,
        "status": text(item.get("status")) or "pending",
        "always": item.get("always") is True,
        "requested_at": when(item.get("created_at") or item.get("requested_at")),
        "decided_at": when(item.get("decided_at")),
    }


# --- runs ------------------------------------------------------------------------


def read_step(step: Any, index: int) -> dict[str, Any]:
    step = as_dict(step) if isinstance(step, dict) else {"result": step}
    known = {"id", "node_id", "kind", "label", "input", "result", "error"}
    return {
        "number": index + 1,
        "kind": text(step.get("kind")) or "step",
        "label": text(step.get("label")),
        "input": step.get("input"),
        "result": step.get("result"),
        "error": step.get("error"),
        "error_message": error_message(step.get("error")),
        "other": others(step, known),
    }


KNOWN_RUN_MEMBERS = frozenset(
    {
        "id",
        "object",
        "agent_id",
        "version_id",
        "thread_id",
        "status",
        "waiting_for",
        "event",
        "steps",
        "tasks",
        "approvals",
        "cost_usd",
        "answer",
        "error",
        "created_at",
        "completed_at",
    }
)


def _waiting_for(raw: Any) -> dict[str, Any] | None:
    if raw in (None, "", {}):
        return None
    if isinstance(raw, dict):
        kind = text(raw.get("kind") or raw.get("type"))
        return {"kind": kind or "something", "approval_id": text(raw.get("approval_id")), "raw": raw}
    return {"kind": text(raw), "approval_id": "", "raw": raw}


def read_run(run: dict) -> dict[str, Any]:
    run = as_dict(run)
    event = run.get("event")
    cost = run.get("cost_usd")
    return {
        "id": text(run.get("id") or run.get("run_id")),
        "agent_id": text(run.get("agent_id")),
        "thread_id": text(run.get("thread_id")),
        "status": text(run.get("status")),
        "is_final": text(run.get("status")) in RUN_FINAL_STATUSES,
        "waiting_for": _waiting_for(run.get("waiting_for")),
        "event": event,
        "event_kind": text(as_dict(event).get("kind")),
        "event_message": text(as_dict(event).get("message")),
        "steps": [read_step(step, index) for index, step in enumerate(as_list(run.get("steps")))],
        "tasks": as_list(run.get("tasks")),
        "approvals": [read_approval(item) for item in as_list(run.get("approvals")) if isinstance(item, dict)],
        "cost_usd": number(cost),
        "answer": text(run.get("answer")),
        "error": run.get("error"),
        "error_message": error_message(run.get("error")),
        "created_at": when(run.get("created_at")),
        "completed_at": when(run.get("completed_at")),
        "other": others(run, KNOWN_RUN_MEMBERS),
    }


def read_invocation(body: dict) -> dict[str, Any]:
    body = as_dict(body)
    return {
        "status": text(body.get("status")),
        "answer": text(body.get("answer")),
        "run_id": text(body.get("run_id")),
        "thread_id": text(body.get("thread_id")),
        "steps": [read_step(step, index) for index, step in enumerate(as_list(body.get("steps")))],
        "waiting_for": _waiting_for(body.get("waiting_for")),
        "error_message": error_message(body.get("error")),
    }
