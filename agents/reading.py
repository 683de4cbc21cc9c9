"""Tolerant readers of the Agents resources.

The spec leaves the inner fields of plan nodes, edges, profile, deployments,
issues and approvals open ("not shown"). These
functions take what the pages need from a remote body, never raise on an odd
shape, and keep everything they don't know for a generic JSON view
(docs/design/core-pages.md, "Reading what the service sends"). The generic
readers (`as_dict`, `text`, `when`...) are the web layer's; the readers of
runs (steps, tasks, waits, the timeline) are agents/run_reading.py.
"""

from __future__ import annotations

from typing import Any

from dashboard.web.reading import (
    as_dict,
    as_list,
    others,
    pretty_json,
    read_questions,
    text,
    when,
)

RISKS = ("write", "send", "spend", "destructive")


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
            "field": text(issue.get("field")),
        }
    return {"message": text(issue), "code": "", "where": "", "node_id": "", "field": ""}


def read_issues(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, dict):
        raw = raw.get("issues", [raw])
    if not isinstance(raw, list):
        raw = [raw] if raw not in (None, "") else []
    return [read_issue(issue) for issue in raw]


def tool_name(tool: Any) -> str:
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
        "tools": [tool_name(tool) for tool in as_list(tools)] if isinstance(tools, list) else [],
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
