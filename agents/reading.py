"""Tolerant readers of the Agents resources.

The spec leaves the inner fields of plan nodes, edges, profile, deployments,
issues, steps, tasks, approvals and outcomes open ("not shown"). These
functions take what the pages need from a remote body, never raise on an odd
shape, and keep everything they don't know for a generic JSON view
(docs/design/core-pages.md, "Reading what the service sends"). The generic
readers (`as_dict`, `text`, `when`...) are the web layer's.
"""

from __future__ import annotations

from datetime import datetime
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


def _issue_node(issue: dict) -> str:
    """The plan node an issue is about, wherever it says so."""
    for name in ("node_id", "node"):
        value = issue.get(name)
        if isinstance(value, dict):
            value = value.get("id") or value.get("node_id")
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
            return text(value)
    return ""


def read_issue(issue: Any) -> dict[str, Any]:
    if isinstance(issue, dict):
        message = text(issue.get("message") or issue.get("code") or "")
        node_id = _issue_node(issue)
        where = ", ".join(
            f"{label} {value}" for label, value in (("node", node_id), ("field", text(issue.get("field")))) if value
        )
        return {
            "message": message or pretty_json(issue),
            "code": text(issue.get("code")),
            "where": where,
            "node_id": node_id,
        }
    return {"message": text(issue), "code": "", "where": "", "node_id": ""}


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


SCHEDULE_WORDS = ("description", "summary", "label", "name", "rule", "cron", "every", "interval", "at", "rrule")


def _rule_words(value: Any) -> str:
    """A schedule rule in words: text as given; an object as `key value` pairs
    (`every 1 week, day monday, at 09:00`), never a Python dict."""
    if isinstance(value, dict):
        return ", ".join(f"{str(key).replace('_', ' ')} {_rule_words(inner)}" for key, inner in value.items())
    if isinstance(value, list):
        return ", ".join(_rule_words(inner) for inner in value)
    return text(value)


def read_schedule(raw: Any) -> list[dict[str, Any]]:
    """Schedule entries of any shape: objects (`next_run_at` and whatever
    describes the rule), plain strings, or one object instead of a list."""
    if isinstance(raw, dict):
        raw = raw.get("entries") or raw.get("items") or [raw]
    items: list[dict[str, Any]] = []
    for item in as_list(raw):
        if isinstance(item, str):
            parsed = when(item)
            items.append(
                {
                    "description": "" if parsed else item,
                    "next_run_at": parsed,
                    "next_run_text": "",
                    "timezone": "",
                    "other": {},
                }
            )
            continue
        if not isinstance(item, dict):
            continue
        described = next((name for name in SCHEDULE_WORDS if item.get(name) not in (None, "", {}, [])), None)
        next_run = item.get("next_run_at") or item.get("next_run") or item.get("next_at")
        known = {described, "next_run_at", "next_run", "next_at", "timezone", "time_zone", "wakeup_id", "id"}
        items.append(
            {
                "description": _rule_words(item[described]) if described else text(item.get("wakeup_id")),
                "next_run_at": when(next_run),
                "next_run_text": "" if when(next_run) else text(next_run),
                "timezone": text(item.get("timezone") or item.get("time_zone")),
                "other": {key: value for key, value in item.items() if key not in known},
            }
        )
    return items


def read_versions(raw: Any) -> list[dict[str, Any]]:
    """Published versions where the service lists them (the contract doesn't
    show their fields): newest first as given, each with what it names."""
    versions = []
    for item in as_list(raw):
        if isinstance(item, dict):
            versions.append(
                {
                    "id": text(item.get("id") or item.get("version_id")),
                    "number": text(item.get("version") or item.get("number")),
                    "created_at": when(item.get("created_at") or item.get("published_at")),
                    "note": text(item.get("message") or item.get("summary") or item.get("note")),
                    "other": others(
                        item,
                        {
                            "id",
                            "version_id",
                            "version",
                            "number",
                            "created_at",
                            "published_at",
                            "message",
                            "summary",
                            "note",
                        },
                    ),
                }
            )
        elif item not in (None, ""):
            versions.append({"id": text(item), "number": "", "created_at": None, "note": "", "other": {}})
    return versions


def activation_state(*, status: str, active_version_id: str, version: Any) -> dict[str, str]:
    """Whether the agent runs a published version, in words, from `status`
    and `active_version_id` together (an active agent is never "never
    activated", whatever else the body leaves out)."""
    number = text(version) if isinstance(version, (int, str)) and not isinstance(version, bool) else ""
    named = f"version {number}" if number else "a published version"
    if status == "active":
        return {
            "state": "live",
            "words": f"Active: runs {named}"
            + (" (changes to the draft are not live until published)" if active_version_id or number else ""),
        }
    if status == "paused":
        return {
            "state": "paused",
            "words": f"Paused: wake-ups are off; {named} is kept" if (active_version_id or number) else "Paused",
        }
    if status == "archived":
        return {"state": "archived", "words": "Archived"}
    if active_version_id or number:
        return {"state": "published", "words": f"Draft changes on top of {named}"}
    return {"state": "never", "words": "Never activated: a draft"}


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
        "versions",
        "builder_status",
    }
)


def read_agent(agent: dict, *, asked_id: str = "") -> dict[str, Any]:
    """An agent; under `asked_id` (the id the page was asked for) when the
    body names none, since the page's links are built from it."""
    agent = as_dict(agent)
    validation = as_dict(agent.get("validation"))
    pending = agent.get("pending_approvals")
    summary = read_agent_summary(agent)
    return {
        **summary,
        "id": summary["id"] or asked_id,
        "version": agent.get("version") if isinstance(agent.get("version"), (int, str)) else None,
        "versions": read_versions(agent.get("versions")),
        "has_versions": isinstance(agent.get("versions"), list),
        "activation": activation_state(
            status=summary["status"], active_version_id=summary["active_version_id"], version=agent.get("version")
        ),
        "profile": read_profile(agent.get("profile")),
        "plan": read_plan(agent.get("plan")),
        "plan_raw": agent.get("plan"),
        "wakeups": read_wakeups(agent.get("wakeups")),
        "schedule": read_schedule(agent.get("schedule")),
        "ready": validation.get("ready") is True,
        "has_validation": bool(validation),
        "issues": read_issues(validation.get("issues")),
        "pending_approvals": pending if isinstance(pending, int) else 0,
        "builder_needs_input": agent.get("builder_status") == "needs_input",
        "other": others(agent, KNOWN_AGENT_MEMBERS),
    }


def build_agent_id(build: dict) -> str:
    """The draft's id wherever the answer carries it: `agent.id` (the
    contract), `agent_id`, `agent` given as the id itself, or the answer's own
    `id` when the answer is the agent; "" when none is given."""
    agent = build.get("agent")
    for value in (
        as_dict(agent).get("id"),
        build.get("agent_id"),
        agent,
        as_dict(build.get("draft")).get("id"),
        build.get("id"),
    ):
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return ""


def read_build(build: dict) -> dict[str, Any]:
    """An agent build: `built` with the agent and the builder's summary, or
    `needs_input` with questions."""
    build = as_dict(build)
    questions = read_questions(build.get("questions"))
    status = text(build.get("status")) or ("needs_input" if questions else "")
    return {
        "status": status,
        "message": text(build.get("message")),
        "questions": questions,
        "agent_id": build_agent_id(build),
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
        # The body as the service sent it: who decided may be in it (agents/queue.py reads it tolerantly).
        "raw": item,
    }


# --- runs ------------------------------------------------------------------------


STEP_START = ("started_at", "start", "created_at", "at")
STEP_END = ("finished_at", "completed_at", "ended_at", "end")


def _first_time(item: dict, names: tuple[str, ...]):
    return next((when(item[name]) for name in names if when(item.get(name)) is not None), None)


def seconds_between(start, end) -> float | None:
    if start is None or end is None:
        return None
    seconds = (end - start).total_seconds()
    return seconds if seconds >= 0 else None


def duration_words(seconds: float | None) -> str:
    """`0.4 s`, `12 s`, `3 min 5 s`, `2 h 4 min`; "" when unknown."""
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f} s".replace(".0 s", " s")
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def read_step(step: Any, index: int) -> dict[str, Any]:
    # A step that is not an object is shown as its own label (and result).
    step = step if isinstance(step, dict) else {"label": text(step)[:200], "result": step}
    known = {"id", "node_id", "kind", "label", "input", "result", "error", *STEP_START, *STEP_END, "duration_ms"}
    started, finished = _first_time(step, STEP_START), _first_time(step, STEP_END)
    seconds = seconds_between(started, finished)
    if seconds is None and number(step.get("duration_ms")) is not None and step["duration_ms"] >= 0:
        seconds = step["duration_ms"] / 1000
    return {
        "number": index + 1,
        "id": text(step.get("id")),
        "node_id": text(step.get("node_id")),
        "started_at": started,
        "finished_at": finished,
        "seconds": seconds,
        "duration": duration_words(seconds),
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
        "started_at",
        "completed_at",
    }
)


WAITING_WORDS = {
    "approval": "a person to decide an approval",
    "input": "a person's answer",
    "answer": "a person's answer",
    "human": "a person",
    "person": "a person",
    "time": "a time",
    "timer": "a time",
    "delay": "a delay to pass",
    "sleep": "a delay to pass",
    "event": "an event",
    "webhook": "a webhook call",
}


def _waiting_for(raw: Any) -> dict[str, Any] | None:
    """What a waiting run waits for, in words: `waiting for a person to
    decide an approval`, `a time (until 9 Dec, 09:00)`; any other kind by its
    own name; the rest of the object stays for the JSON view."""
    if raw in (None, "", {}, []):
        return None
    data = raw if isinstance(raw, dict) else {}
    kind = text(data.get("kind") or data.get("type") or data.get("reason")) if data else text(raw)
    until = when(data.get("until") or data.get("resume_at") or data.get("at")) if data else None
    event = text(data.get("event") or data.get("event_kind")) if data else ""
    words = WAITING_WORDS.get(kind.lower(), kind.replace("_", " ") or "something")
    if event and kind.lower() in ("event", "webhook"):
        words = f"{words} ({event.replace('_', ' ')})"
    return {
        "kind": kind or "something",
        "words": words,
        "until": until,
        "approval_id": text(data.get("approval_id")) if data else "",
        "other": others(
            data, {"kind", "type", "reason", "until", "resume_at", "at", "event", "event_kind", "approval_id"}
        ),
        "raw": raw,
    }


def read_task(task: Any) -> dict[str, Any]:
    """A delegated sub-task with the tools it called (inner fields not shown
    by the contract: read where recognisable, the rest as JSON)."""
    data = as_dict(task) if isinstance(task, dict) else {"title": text(task)}
    tools = []
    for tool in as_list(data.get("tools") or data.get("tool_calls")):
        if isinstance(tool, dict):
            calls = number(tool.get("calls") if "calls" in tool else tool.get("count"))
            tools.append({"name": _tool_name(tool), "calls": calls})
        elif tool not in (None, ""):
            tools.append({"name": text(tool), "calls": None})
    return {
        "title": text(data.get("title") or data.get("name") or data.get("summary") or data.get("id")) or "A task",
        "status": text(data.get("status")),
        "tools": tools,
        "other": others(data, {"id", "title", "name", "summary", "status", "tools", "tool_calls"}),
    }


def read_run(run: dict) -> dict[str, Any]:
    run = as_dict(run)
    event = run.get("event")
    cost = run.get("cost_usd")
    steps = [read_step(step, index) for index, step in enumerate(as_list(run.get("steps")))]
    created, completed = when(run.get("created_at") or run.get("started_at")), when(run.get("completed_at"))
    seconds = seconds_between(created, completed)
    event_data = as_dict(event)
    return {
        "id": text(run.get("id") or run.get("run_id")),
        "agent_id": text(run.get("agent_id")),
        "thread_id": text(run.get("thread_id")),
        "status": text(run.get("status")),
        "is_final": text(run.get("status")) in RUN_FINAL_STATUSES,
        "waiting_for": _waiting_for(run.get("waiting_for")),
        "event": event,
        "event_kind": text(event_data.get("kind") or event_data.get("type"))
        or (text(event) if isinstance(event, str) else ""),
        "event_message": text(event_data.get("message")) if isinstance(event_data.get("message"), str) else "",
        "event_payload": event_data.get("payload") if isinstance(event_data.get("payload"), dict) else None,
        "steps": steps,
        "tasks": [read_task(task) for task in as_list(run.get("tasks"))],
        "approvals": [read_approval(item) for item in as_list(run.get("approvals")) if isinstance(item, dict)],
        "cost_usd": number(cost),
        "answer": text(run.get("answer")),
        "error": run.get("error"),
        "error_message": error_message(run.get("error")),
        "created_at": created,
        "completed_at": completed,
        "seconds": seconds,
        "duration": duration_words(seconds),
        "other": others(run, KNOWN_RUN_MEMBERS),
    }


TIMELINE_WIDTH = 1000


def _waits(run: dict[str, Any], now: datetime | None) -> list[dict[str, Any]]:
    """The run's waits for a person, from its approvals' times: asked
    (`requested_at`) to decided (`decided_at`), or to now while pending."""
    waits = []
    for approval in run["approvals"]:
        start = approval["requested_at"]
        end = approval["decided_at"] or (now if approval["status"] == "pending" else None)
        if start is None or end is None or end < start:
            continue
        waits.append({"start": start, "end": end, "approval": approval, "pending": approval["decided_at"] is None})
    return waits


def _bar(offset: float, length: float, span: float) -> tuple[float, float]:
    x = round(offset / span * TIMELINE_WIDTH, 1)
    width = max(round(length / span * TIMELINE_WIDTH, 1), 4.0)  # an instant stays visible
    return min(x, TIMELINE_WIDTH - width), width


def run_timeline(run: dict[str, Any], *, now: datetime | None = None) -> dict[str, Any]:
    """The run on one time axis (0 to TIMELINE_WIDTH), for an SVG drawn by the
    server: its steps and its waits for a person (an approval asked at 10:00
    and decided at 12:00 is a bar of 2 h), in time order as `entries`, each
    with its place and length in words for the list screen readers read.
    `timed` is False when the service gives no times: the steps are then
    shown in order alone, never at made-up times."""
    steps = run["steps"]
    waits = _waits(run, now)
    starts = [step["started_at"] for step in steps if step["started_at"]]
    ends = [moment for step in steps for moment in (step["finished_at"], step["started_at"]) if moment]
    ends += [wait["end"] for wait in waits]
    origin = run["created_at"] or min([*starts, *(wait["start"] for wait in waits)], default=None)
    finish = max([*ends, *([run["completed_at"]] if run["completed_at"] else [])], default=None)
    span = seconds_between(origin, finish) if origin and finish else None
    if not starts or span is None:
        return {"timed": False, "entries": [], "span": ""}
    span = max(span, 0.001)
    entries = []
    for step in steps:
        if not step["started_at"]:
            continue
        offset = max(seconds_between(origin, step["started_at"]) or 0.0, 0.0)
        length = step["seconds"] or 0.0
        x, width = _bar(offset, length, span)
        entries.append(
            {
                "kind": "step",
                "step": step,
                "number": step["number"],
                "at": step["started_at"],
                "x": x,
                "width": width,
                "offset": duration_words(offset),
                "duration": duration_words(length) if length > 0 else "",
            }
        )
    for wait in waits:
        offset = max(seconds_between(origin, wait["start"]) or 0.0, 0.0)
        length = seconds_between(wait["start"], wait["end"]) or 0.0
        x, width = _bar(offset, length, span)
        entries.append(
            {
                "kind": "wait",
                "approval": wait["approval"],
                "pending": wait["pending"],
                "at": wait["start"],
                "x": x,
                "width": width,
                "offset": duration_words(offset),
                "duration": duration_words(length),
            }
        )
    # In time order; a wait asked at the moment a step ran comes after that step (the
    # step asked for it), and the steps it held back start when it ends, after it.
    entries.sort(key=lambda entry: (entry["at"], entry["kind"] == "wait", entry.get("number", 0)))
    return {"timed": True, "entries": entries, "span": duration_words(span), "width": TIMELINE_WIDTH}


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
