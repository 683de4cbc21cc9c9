"""Agents, runs, approvals and webhook wake-ups.

The builder is a pure function of the agent's brief (every message it was sent):
`build_plan(brief, auto=..., answering=...)` answers either questions or a
profile, plan and wake-ups, with validation issues (triggers in README.md).
Runs are decided when they start (`decide_run`) and stored with an absolute
`ready_at` from the scaled clock; `render_run` shows `running` until then and
the decided outcome after (completed, waiting for an approval, failed). An
approval decision moves its waiting run to `completed` (approve) or `cancelled`
(reject). Storage kinds: `agent`, `agent_version`, `run`, `approval`,
`webhook_deployment`.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sandbox.core import (
    PAGE_QUERY,
    UUID,
    Response,
    accepted,
    conflict,
    event_stream,
    invalid,
    not_both_true,
    not_found,
    one_of_fields,
    page_of,
    paginate,
    register_schema,
    replay_hook,
    route,
    unprocessable,
)
from sandbox.library import is_ready, name_from_message
from sandbox.seed import SeedContext, seed_hook

TAG = ["Agents"]
SHORT_BRIEF = 20  # characters; a shorter brief without `auto` gets questions
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

# Service seconds (scaled) and credits.
BUILD_SECONDS = 30
RUN_SECONDS = 20
DECIDE_SECONDS = 5
BUILD_CREDITS = 2
RUN_CREDITS = 1

# Action node kind -> the approval risk it carries when autonomy is `ask_first`.
RISKY_KINDS = {"email": "send", "update_record": "write", "delete_record": "destructive", "purchase": "spend"}
# Risks a person may allow for good (`always: true`); destructive and spending
# actions are asked every time.
ALWAYS_ALLOWABLE = {"send", "write"}


# --------------------------------------------------------------------------
# The builder (pure)
# --------------------------------------------------------------------------
def builder_questions() -> list[dict]:
    return [
        {
            "text": "What should the agent do?",
            "options": ["Qualify new leads", "Send a weekly report by email", "Answer questions about our deals"],
        },
        {
            "text": "When should it wake up?",
            "options": [
                "When someone messages it",
                "Every morning",
                "When a webhook is called",
                "When a record is created",
            ],
        },
    ]


def _schedule_rule(text: str) -> dict | None:
    if re.search(r"\b(every hour|hourly)\b", text):
        return {"every": "hour", "description": "Every hour, on the hour"}
    if re.search(r"\b(every monday|weekly|every week)\b", text):
        return {"every": "week", "hour": 8, "weekday": 0, "description": "Every Monday at 08:00"}
    if re.search(r"\b(every day|daily|every morning|each morning|schedule)\b", text):
        return {"every": "day", "hour": 8, "description": "Every day at 08:00"}
    return None


def next_run_at(rule: dict, timezone_name: str, now: datetime) -> str:
    """The next time a schedule fires, in UTC, computed in the workspace's time zone."""
    from sandbox.clock import iso

    zone = ZoneInfo(timezone_name or "UTC")
    local = now.astimezone(zone)
    if rule["every"] == "hour":
        nxt = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    else:
        nxt = local.replace(hour=rule.get("hour", 8), minute=0, second=0, microsecond=0)
        if rule["every"] == "week":
            nxt += timedelta(days=(rule.get("weekday", 0) - nxt.weekday()) % 7)
        if nxt <= local:
            nxt += timedelta(days=7 if rule["every"] == "week" else 1)
    return iso(nxt)


def build_plan(brief: str, *, auto: bool, answering: bool) -> dict:
    """The builder's answer for a brief: `{"status": "needs_input", "questions"}`
    or `{"status": "built", "profile", "plan", "wakeups", "issues", "summary"}`."""
    text = brief.lower()
    if len(brief.strip()) < SHORT_BRIEF and not auto and not answering:
        return {"status": "needs_input", "questions": builder_questions()}
    counter = iter(range(1, 100))

    def node_id(kind: str) -> str:
        return f"{kind}_{next(counter)}"

    wakeups = [{"id": "wake_chat", "kind": "chat", "config": {}}]
    if "webhook" in text:
        wakeups.append({"id": "wake_webhook", "kind": "webhook", "config": {"method": "POST"}})
    rule = _schedule_rule(text)
    if rule:
        wakeups.append({"id": "wake_schedule", "kind": "schedule", "config": rule})
    if re.search(r"\b(record is created|new record|is added|new lead|new contact|new deal)\b", text):
        wakeups.append({"id": "wake_created", "kind": "object_created", "config": {"object": _object_named(text)}})
    if re.search(r"\b(is updated|changes|record is updated)\b", text):
        wakeups.append({"id": "wake_updated", "kind": "object_updated", "config": {"object": _object_named(text)}})

    nodes, edges, issues = [], [], []
    triggers = []
    for wake in wakeups:
        trigger = {
            "id": node_id("trigger"),
            "kind": "trigger",
            "label": f"Wake-up: {wake['kind']}",
            "config": {"wakeup_id": wake["id"]},
        }
        nodes.append(trigger)
        triggers.append(trigger["id"])
    agent_node = {
        "id": node_id("agent"),
        "kind": "agent",
        "label": "Understand the request and plan",
        "config": {"model": "standard"},
    }
    nodes.append(agent_node)
    edges += [{"from": t, "to": agent_node["id"]} for t in triggers]
    last = agent_node["id"]
    if re.search(r"\b(decide|classify|qualif\w*|score|prioriti[sz]e)\b", text):
        decide = {
            "id": node_id("ai_decide"),
            "kind": "ai_decide",
            "label": "Decide what it deserves",
            "config": {"choices": ["yes", "no"]},
        }
        nodes.append(decide)
        edges.append({"from": last, "to": decide["id"]})
        last = decide["id"]
    if re.search(r"\b(if|otherwise|unless)\b", text):
        branch = {
            "id": node_id("branch"),
            "kind": "branch",
            "label": "Branch on the decision",
            "config": {"condition": "decision == 'yes'"},
        }
        nodes.append(branch)
        edges.append({"from": last, "to": branch["id"]})
        last = branch["id"]
    actions = []
    if re.search(r"\b(e-?mail|mail)\b", text):
        recipient = EMAIL_RE.search(brief)
        email = {
            "id": node_id("email"),
            "kind": "email",
            "label": "Send an email",
            "config": {
                "to": recipient.group(0) if recipient else None,
                "subject": name_from_message(brief, "Update from your agent"),
            },
        }
        actions.append(email)
        if not recipient:
            issues.append(
                {
                    "code": "missing_recipient",
                    "node_id": email["id"],
                    "field": "to",
                    "message": "The email step has no recipient: say who should receive it (an email address).",
                }
            )
    if re.search(r"\b(update|change|tag)\b.*\brecords?\b|\bupdate the (lead|deal|contact)", text):
        actions.append(
            {
                "id": node_id("update_record"),
                "kind": "update_record",
                "label": "Update the record",
                "config": {"object": _object_named(text)},
            }
        )
    if re.search(r"\b(delete|remove)\b", text):
        actions.append(
            {
                "id": node_id("delete_record"),
                "kind": "delete_record",
                "label": "Delete records",
                "config": {"object": _object_named(text)},
            }
        )
    if re.search(r"\b(buy|purchase|pay|spend)\b", text):
        actions.append(
            {"id": node_id("purchase"), "kind": "purchase", "label": "Spend money", "config": {"limit_usd": 50}}
        )
    for action in actions:
        nodes.append(action)
        edges.append({"from": last, "to": action["id"]})

    risky = any(a["kind"] in RISKY_KINDS for a in actions)
    if re.search(r"\b(ask first|ask me|check with me|approval)\b", text):
        autonomy = "ask_first"
    elif re.search(r"\b(automatic(ally)?|without asking|autonomous(ly)?|don't ask|do not ask)\b", text):
        autonomy = "automatic"
    else:
        autonomy = "ask_first" if risky else "automatic"
    tools = sorted(
        {
            {
                "email": "email.send",
                "update_record": "records.update",
                "delete_record": "records.delete",
                "purchase": "payments.charge",
            }[a["kind"]]
            for a in actions
        }
        | {"records.read"}
    )
    profile = {
        "purpose": name_from_message(brief, "A helpful agent"),
        "instructions": brief.strip(),
        "autonomy": autonomy,
        "model": "standard",
        "tools": [{"name": t, "granted": True} for t in tools],
    }
    summary = (
        f"I drafted a plan with {len(nodes)} steps and {len(wakeups)} wake-up(s); autonomy is "
        f"{autonomy.replace('_', ' ')}."
    )
    if issues:
        summary += " Before it can be activated: " + " ".join(i["message"] for i in issues)
    return {
        "status": "built",
        "profile": profile,
        "plan": {"nodes": nodes, "edges": edges},
        "wakeups": wakeups,
        "issues": issues,
        "summary": summary,
    }


def _object_named(text: str) -> str:
    for key in ("deals", "contacts", "companies", "leads"):
        if key[:-1] in text:
            return key
    return "contacts"


# --------------------------------------------------------------------------
# Agents: storing and rendering
# --------------------------------------------------------------------------
def apply_build(agent: dict, result: dict) -> None:
    agent["builder_status"] = result["status"]
    if result["status"] == "needs_input":
        agent["questions"] = result["questions"]
        return
    agent["questions"] = None
    always = (agent.get("profile") or {}).get("always_allowed", [])
    agent["profile"] = {**result["profile"], "always_allowed": always}
    agent["plan"] = result["plan"]
    agent["wakeups"] = result["wakeups"]
    agent["issues"] = result["issues"]
    agent["summary"] = result["summary"]


# "Stop always allowing send actions", "no longer allow write actions without asking": the
# builder takes back an `always` grant when a message says so (the contract: the profile's
# grants change through the builder like the rest of the draft).
WITHDRAW = re.compile(r"\b(?:stop|no longer|never again)\s+(?:always\s+)?allow(?:ing)?\s+(\w+)", re.IGNORECASE)


def withdraw_grants(agent: dict, message: str) -> None:
    risks = {match.lower() for match in WITHDRAW.findall(message or "")}
    profile = agent.get("profile")
    if not risks or not isinstance(profile, dict):
        return
    profile["always_allowed"] = [risk for risk in profile.get("always_allowed") or [] if risk not in risks]


def validation_of(agent: dict) -> dict:
    if not agent.get("plan"):
        return {
            "ready": False,
            "issues": [
                {
                    "code": "no_plan",
                    "node_id": None,
                    "field": None,
                    "message": "The agent has no plan yet: answer the builder's questions.",
                }
            ],
        }
    issues = agent.get("issues") or []
    return {"ready": not issues, "issues": issues}


def pending_approvals_count(req, agent_id: str) -> int:
    now = req.clock.now()
    return sum(
        1
        for a in req.store.list(
            "approval", workspace_id=req.workspace_id, where={"agent_id": agent_id, "status": "pending"}
        )
        if is_ready(a.get("requested_at"), now)
    )


def deployments_of(req, agent: dict) -> list[dict]:
    if agent["status"] != "active":
        return []
    return agent.get("deployments") or []


def render_deployment(req, deployment: dict) -> dict:
    out = {k: v for k, v in deployment.items() if k not in ("token", "rule")}
    if deployment["kind"] == "webhook":
        out["endpoint"] = f"{req.base_url}/v1/hooks/{deployment['token']}"
    if deployment["kind"] == "schedule":
        out["next_run_at"] = next_run_at(deployment["rule"], req.workspace.get("timezone"), req.clock.now())
    return out


def render_agent_summary(agent: dict) -> dict:
    return {
        "id": agent["id"],
        "object": "agent",
        "name": agent["name"],
        "status": agent["status"],
        "active_version_id": agent.get("active_version_id"),
        "created_at": agent["created_at"],
        "updated_at": agent["updated_at"],
    }


def render_agent(req, agent: dict) -> dict:
    body = render_agent_summary(agent)
    deployments = {d["wakeup_id"]: render_deployment(req, d) for d in deployments_of(req, agent)}
    timezone_name = (req.workspace or {}).get("timezone") or "UTC"
    wakeups = []
    schedule = []
    for wake in agent.get("wakeups") or []:
        wakeups.append({**wake, "deployment": deployments.get(wake["id"])})
        if wake["kind"] == "schedule":
            schedule.append(
                {
                    "wakeup_id": wake["id"],
                    "description": wake["config"].get("description"),
                    "timezone": timezone_name,
                    "next_run_at": next_run_at(wake["config"], timezone_name, req.clock.now()),
                }
            )
    profile = dict(
        agent.get("profile")
        or {
            "purpose": "",
            "instructions": "",
            "autonomy": "ask_first",
            "model": "standard",
            "tools": [],
            "always_allowed": [],
        }
    )
    body.update(
        {
            "version": agent.get("version"),
            "profile": profile,
            "plan": agent.get("plan") or {"nodes": [], "edges": []},
            "wakeups": wakeups,
            "schedule": schedule,
            "validation": validation_of(agent),
            "pending_approvals": pending_approvals_count(req, agent["id"]),
            "builder_status": agent.get("builder_status"),
        }
    )
    return body


def render_build(req, agent: dict, *, message: str | None = None) -> dict:
    if agent.get("builder_status") == "needs_input":
        return {
            "status": "needs_input",
            "questions": agent.get("questions") or builder_questions(),
            "message": message or "Before I draft the plan, a few questions.",
            "agent": render_agent(req, agent),
        }
    return {"status": "built", "agent": render_agent(req, agent), "message": message or agent.get("summary", "")}


def get_agent(req, agent_id: str) -> dict:
    agent = req.store.get("agent", agent_id, workspace_id=req.workspace_id)
    if agent is None:
        raise not_found("agent")
    return agent


def wait_seconds(req, service_seconds: float) -> None:
    """Hold the request open for `service_seconds` of (scaled) work, on the clock."""
    req.clock.sleep_until(req.clock.now() + timedelta(seconds=req.clock.real_seconds(service_seconds)))


# --------------------------------------------------------------------------
# Runs (pure decision + lazy rendering)
# --------------------------------------------------------------------------
def decide_run(*, text: str, plan: dict | None, profile: dict | None) -> dict:
    """`{"outcome": completed|waiting|failed, "risky_node": node or None}`:
    `fail` in the message or payload fails the run; an action whose risk is not
    always-allowed under `ask_first` makes it wait for an approval."""
    if "fail" in text.lower():
        return {"outcome": "failed", "risky_node": None}
    profile = profile or {}
    if profile.get("autonomy") == "ask_first":
        allowed = set(profile.get("always_allowed") or [])
        for node in (plan or {}).get("nodes", []):
            risk = RISKY_KINDS.get(node["kind"])
            if risk and risk not in allowed:
                return {"outcome": "waiting", "risky_node": node}
    return {"outcome": "completed", "risky_node": None}


def _step(node: dict, *, input: dict, result, error=None, at: str) -> dict:
    return {
        "id": str(uuid.uuid4()),
        "node_id": node["id"],
        "kind": node["kind"],
        "label": node.get("label"),
        "input": input,
        "result": result,
        "error": error,
        "started_at": at,
        "finished_at": at,
    }


def action_result(node: dict, event: dict) -> dict:
    if node["kind"] == "email":
        return {
            "sent": True,
            "to": node["config"].get("to"),
            "subject": node["config"].get("subject"),
            "message_id": f"msg_{uuid.uuid4().hex[:16]}",
        }
    if node["kind"] == "update_record":
        return {"updated": 1, "object": node["config"].get("object")}
    if node["kind"] == "delete_record":
        return {"deleted": 1, "object": node["config"].get("object")}
    if node["kind"] == "purchase":
        return {"charged_usd": 12.5}
    if node["kind"] == "ai_decide":
        return {"decision": "yes", "reason": "The request matches the agent's purpose."}
    if node["kind"] == "branch":
        return {"taken": "yes"}
    return {"ok": True}


def action_input(node: dict, event: dict) -> dict:
    if node["kind"] == "email":
        body = event.get("message") or json.dumps(event.get("payload") or {})
        return {"to": node["config"].get("to"), "subject": node["config"].get("subject"), "body": body[:2000]}
    return {**node.get("config", {}), "event": event.get("kind")}


def plan_steps(plan: dict, event: dict, decision: dict, at: str) -> tuple[list[dict], list[dict]]:
    """Steps the run takes up to its outcome, and the steps after an approval."""
    nodes = (plan or {}).get("nodes", [])
    trigger = next(
        (
            n
            for n in nodes
            if n["kind"] == "trigger" and n["config"].get("wakeup_id", "").endswith(event["kind"].split("_")[-1])
        ),
        None,
    )
    trigger = trigger or (nodes[0] if nodes else {"id": "chat", "kind": "trigger", "label": "Chat", "config": {}})
    before = [_step(trigger, input={"event": event["kind"]}, result={"woke": True}, at=at)]
    after: list[dict] = []
    waiting_on = decision.get("risky_node")
    for node in nodes:
        if node["kind"] == "trigger":
            continue
        if decision["outcome"] == "failed" and node["kind"] == "agent":
            before.append(
                _step(
                    node,
                    input={"message": event.get("message"), "payload": event.get("payload")},
                    result=None,
                    error={
                        "type": "agent_error",
                        "message": "The agent could not finish: the message asked it to fail.",
                    },
                    at=at,
                )
            )
            return before, after
        # Everything from the action that needs approval onwards runs only once it is approved.
        target = after if (waiting_on is not None and (node["id"] == waiting_on["id"] or after)) else before
        if node["kind"] == "agent":
            target.append(
                _step(
                    node,
                    input={"message": event.get("message"), "payload": event.get("payload")},
                    result={"plan": "follow the operating plan"},
                    at=at,
                )
            )
        else:
            target.append(_step(node, input=action_input(node, event), result=action_result(node, event), at=at))
    return before, after


def answer_for(outcome: str, agent: dict, event: dict) -> str:
    if outcome == "failed":
        return "I could not finish this: something failed."
    if outcome == "waiting":
        return "I need a person to approve the next action before I go on."
    if outcome == "cancelled":
        return "The action was rejected, so I stopped."
    if not agent.get("plan"):
        return "I don't have a plan yet; answer my builder's questions first. Meanwhile: noted."
    said = (event.get("message") or "").strip()
    return f"Done. {('You said: ' + said[:200]) if said else 'I handled the event.'}"


def start_run(
    req,
    agent: dict,
    *,
    event: dict,
    thread_id: str | None,
    idempotency_key: str | None,
    workspace_id: str | None = None,
) -> dict:
    """Create a run (and its approval when it will wait); charged once."""
    workspace_id = workspace_id or req.workspace_id
    use_version = agent["status"] == "active" and agent.get("active_version_id")
    if use_version:
        version = req.store.get("agent_version", agent["active_version_id"])
        plan, profile = (
            version["plan"],
            {**version["profile"], "always_allowed": agent.get("profile", {}).get("always_allowed", [])},
        )
    else:
        plan, profile = agent.get("plan"), agent.get("profile")
    text = (event.get("message") or "") + " " + json.dumps(event.get("payload") or {})
    decision = decide_run(text=text, plan=plan, profile=profile)
    started = req.clock.iso()
    ready_at = req.clock.at(started, RUN_SECONDS)
    before, after = plan_steps(plan, event, decision, ready_at)
    run = req.store.insert(
        "run",
        {
            "agent_id": agent["id"],
            "version_id": agent.get("active_version_id") if use_version else None,
            "thread_id": thread_id or str(uuid.uuid4()),
            "event": event,
            "outcome": decision["outcome"],
            "ready_at": ready_at,
            "steps_before": before,
            "steps_after": after,
            "resolution": None,
            "resolved_at": None,
            "approval_id": None,
            "idempotency_key": idempotency_key,
            "answer": answer_for(decision["outcome"], agent, event),
            "tasks": [
                {
                    "id": str(uuid.uuid4()),
                    "title": "Look up the context",
                    "status": "completed",
                    "tools": [{"name": "records.read", "calls": 1}],
                }
            ]
            if plan and plan.get("nodes")
            else [],
            "cost_usd": round(0.002 * (len(before) + len(after)) + 0.001, 4),
            "created_at": started,
        },
        workspace_id=workspace_id,
    )
    node = decision["risky_node"]
    if decision["outcome"] == "waiting" and node is not None:
        risk = RISKY_KINDS[node["kind"]]
        approval = req.store.insert(
            "approval",
            {
                "agent_id": agent["id"],
                "agent_name": agent["name"],
                "run_id": run["id"],
                "node_id": node["id"],
                "summary": approval_summary(node),
                "input": action_input(node, event),
                "risk": risk,
                "can_always_allow": risk in ALWAYS_ALLOWABLE,
                "status": "pending",
                "decision": None,
                "always": False,
                "decided_at": None,
                "requested_at": ready_at,
            },
            workspace_id=workspace_id,
        )
        run["approval_id"] = approval["id"]
        req.store.save("run", run, touch=False)
    return run


def approval_summary(node: dict) -> str:
    config = node.get("config", {})
    return {
        "email": f'Send the email "{config.get("subject", "")}" to {config.get("to") or "the recipient"}.',
        "update_record": f"Update a record in {config.get('object', 'records')}.",
        "delete_record": f"Delete records in {config.get('object', 'records')}.",
        "purchase": f"Spend up to ${config.get('limit_usd', 0)}.",
    }.get(node["kind"], "Run the next action.")


def run_status(run: dict, now: datetime) -> str:
    if not is_ready(run["ready_at"], now):
        return "running"
    if run["outcome"] == "waiting":
        return {"approved": "completed", "rejected": "cancelled"}.get(run.get("resolution"), "waiting")
    return run["outcome"]


def run_steps(run: dict, status: str) -> list[dict]:
    if status == "running":
        return run["steps_before"][:1]
    steps = list(run["steps_before"])
    if run.get("resolution") == "approved":
        # The steps after an approval run when it is decided, not when the run
        # first stopped: their times say so (a wait of 2 h shows as 2 h).
        resolved = run.get("resolved_at")
        steps += [
            {**step, "started_at": resolved, "finished_at": resolved} if resolved else step
            for step in run["steps_after"]
        ]
    return steps


def render_approval(req, approval: dict) -> dict:
    return {
        "id": approval["id"],
        "object": "approval",
        "agent_id": approval["agent_id"],
        "agent_name": approval.get("agent_name"),
        "run_id": approval["run_id"],
        "summary": approval["summary"],
        "input": approval["input"],
        "risk": approval["risk"],
        "can_always_allow": approval["can_always_allow"],
        "status": approval["status"],
        "decision": approval.get("decision"),
        "always": approval.get("always", False),
        "created_at": approval.get("requested_at") or approval["created_at"],
        "decided_at": approval.get("decided_at"),
        "decided_by": approval.get("decided_by"),
    }


def render_run(req, run: dict) -> dict:
    now = req.clock.now()
    status = run_status(run, now)
    body = {
        "id": run["id"],
        "object": "run",
        "agent_id": run["agent_id"],
        "version_id": run.get("version_id"),
        "thread_id": run["thread_id"],
        "status": status,
        "waiting_for": None,
        "event": run["event"],
        "steps": run_steps(run, status),
        "tasks": run.get("tasks", []) if status != "running" else [],
        "approvals": [],
        "cost_usd": run.get("cost_usd", 0) if status != "running" else 0,
        "answer": None,
        "error": None,
        "created_at": run["created_at"],
        "completed_at": None,
    }
    if run.get("approval_id") and status != "running":
        approval = req.store.get("approval", run["approval_id"])
        if approval:
            body["approvals"] = [render_approval(req, approval)]
    if status == "waiting":
        body["waiting_for"] = {"kind": "approval", "approval_id": run["approval_id"]}
    if status in ("completed", "failed", "cancelled", "waiting"):
        body["answer"] = run["answer"] if status != "cancelled" else answer_for("cancelled", {}, run["event"])
        if run.get("resolution") == "approved":
            body["answer"] = (
                "Approved and done: " + "; ".join(s.get("label") or s["kind"] for s in run["steps_after"]) + "."
            )
    if status == "failed":
        body["error"] = next(
            (s["error"] for s in body["steps"] if s.get("error")), {"type": "agent_error", "message": "The run failed."}
        )
    if status in ("completed", "failed", "cancelled"):
        body["completed_at"] = run.get("resolved_at") or run["ready_at"]
    return body


def render_invocation(req, run: dict) -> dict:
    full = render_run(req, run)
    body = {
        "object": "agent.invocation",
        "status": full["status"],
        "answer": full["answer"],
        "steps": full["steps"],
        "run_id": run["id"],
        "thread_id": run["thread_id"],
        "agent_id": run["agent_id"],
        "approvals": full["approvals"],
        "waiting_for": full["waiting_for"],
        "error": full["error"],
    }
    if run.get("idempotency_key"):
        body["idempotency_key"] = run["idempotency_key"]
    return body


def wait_for_run(req, run: dict) -> None:
    req.clock.sleep_until(run["ready_at"])


def run_events(req, run: dict, *, live: bool):
    yield "started", {"thread_id": run["thread_id"], "run_id": run["id"]}
    if live:
        wait_for_run(req, run)
    body = render_invocation(req, run)
    if body["status"] == "failed":
        yield "error", {"message": body["error"]["message"], "request_id": req.request_id, "run_id": run["id"]}
        return
    yield "result", body


# --------------------------------------------------------------------------
# OpenAPI schemas
# --------------------------------------------------------------------------
STAMPS = {"created_at": {"type": "string"}, "updated_at": {"type": "string"}}
AGENT_STATUS = {"type": "string", "enum": ["draft", "active", "paused", "archived"]}
AGENT_SUMMARY = register_schema(
    "AgentSummary",
    {
        "type": "object",
        "required": ["id", "object", "name", "status", "active_version_id", "created_at", "updated_at"],
        "properties": {
            "id": UUID,
            "object": {"const": "agent"},
            "name": {"type": "string"},
            "status": AGENT_STATUS,
            "active_version_id": {"type": ["string", "null"]},
            **STAMPS,
        },
    },
)
AGENT = register_schema(
    "Agent",
    {
        "type": "object",
        "required": [
            "id",
            "object",
            "name",
            "status",
            "active_version_id",
            "profile",
            "plan",
            "wakeups",
            "schedule",
            "validation",
            "pending_approvals",
        ],
        "properties": {
            "id": UUID,
            "object": {"const": "agent"},
            "name": {"type": "string"},
            "status": AGENT_STATUS,
            "active_version_id": {"type": ["string", "null"]},
            "version": {"type": ["integer", "null"]},
            "profile": {
                "type": "object",
                "required": ["autonomy"],
                "properties": {"autonomy": {"type": "string", "enum": ["automatic", "ask_first"]}},
            },
            "plan": {
                "type": "object",
                "required": ["nodes", "edges"],
                "properties": {
                    "nodes": {"type": "array", "items": {"type": "object", "required": ["id", "kind"]}},
                    "edges": {"type": "array"},
                },
            },
            "wakeups": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "kind"],
                    "properties": {"deployment": {"type": ["object", "null"]}},
                },
            },
            "schedule": {"type": "array", "items": {"type": "object", "required": ["next_run_at"]}},
            "validation": {
                "type": "object",
                "required": ["ready", "issues"],
                "properties": {"ready": {"type": "boolean"}, "issues": {"type": "array"}},
            },
            "pending_approvals": {"type": "integer", "minimum": 0},
            **STAMPS,
        },
    },
)
BUILD = register_schema(
    "AgentBuild",
    {
        "type": "object",
        "required": ["status", "agent"],
        "properties": {
            "status": {"type": "string", "enum": ["built", "needs_input"]},
            "agent": AGENT,
            "message": {"type": "string"},
            "questions": {"type": "array", "items": {"type": "object", "required": ["text", "options"]}},
        },
    },
)
ACTIVATION = register_schema(
    "AgentActivation",
    {
        "type": "object",
        "required": ["status", "version", "version_id", "deployments"],
        "properties": {
            "status": {"const": "active"},
            "version": {"type": "integer"},
            "version_id": UUID,
            "deployments": {"type": "array", "items": {"type": "object", "required": ["id", "kind"]}},
        },
    },
)
APPROVAL = register_schema(
    "Approval",
    {
        "type": "object",
        "required": ["id", "object", "agent_id", "run_id", "summary", "input", "risk", "can_always_allow", "status"],
        "properties": {
            "id": UUID,
            "object": {"const": "approval"},
            "agent_id": UUID,
            "run_id": UUID,
            "summary": {"type": "string"},
            "input": {"type": "object"},
            "risk": {"type": "string", "enum": ["write", "send", "spend", "destructive"]},
            "can_always_allow": {"type": "boolean"},
            "status": {"type": "string", "enum": ["pending", "approved", "rejected"]},
        },
    },
)
RUN_STATUS = {"type": "string", "enum": ["running", "waiting", "completed", "failed", "cancelled"]}
RUN = register_schema(
    "Run",
    {
        "type": "object",
        "required": [
            "id",
            "object",
            "agent_id",
            "thread_id",
            "status",
            "event",
            "steps",
            "tasks",
            "approvals",
            "cost_usd",
            "answer",
        ],
        "properties": {
            "id": UUID,
            "object": {"const": "run"},
            "agent_id": UUID,
            "thread_id": UUID,
            "status": RUN_STATUS,
            "waiting_for": {"type": ["object", "null"]},
            "event": {"type": "object", "required": ["kind"]},
            "steps": {"type": "array", "items": {"type": "object", "required": ["kind", "input", "result", "error"]}},
            "tasks": {"type": "array"},
            "approvals": {"type": "array", "items": APPROVAL},
            "cost_usd": {"type": "number"},
            "answer": {"type": ["string", "null"]},
        },
    },
)
INVOCATION = register_schema(
    "AgentInvocation",
    {
        "type": "object",
        "required": ["status", "thread_id"],
        "properties": {
            "status": {"type": "string", "enum": ["running", "waiting", "completed", "failed", "cancelled"]},
            "answer": {"type": ["string", "null"]},
            "steps": {"type": "array"},
            "run_id": UUID,
            "thread_id": UUID,
            "idempotency_key": {"type": "string"},
        },
    },
)

ID_PATH = {"id": UUID}


def activate_agent(req, agent: dict, *, token: str | None = None) -> tuple[dict, list[dict]]:
    """Publish the draft as a new immutable version and set up its wake-ups
    (a webhook gets a fresh private endpoint; the old one stops answering)."""
    number = (agent.get("version") or 0) + 1
    version = req.store.insert(
        "agent_version",
        {
            "agent_id": agent["id"],
            "number": number,
            "plan": agent["plan"],
            "profile": agent["profile"],
            "wakeups": agent["wakeups"],
        },
        workspace_id=agent["workspace_id"],
    )
    deployments = []
    for wake in agent["wakeups"]:
        deployment = {
            "id": str(uuid.uuid4()),
            "wakeup_id": wake["id"],
            "kind": wake["kind"],
            "status": "live",
            "version_id": version["id"],
            "created_at": req.clock.iso(),
        }
        if wake["kind"] == "webhook":
            deployment["token"] = token or "wh_" + secrets.token_urlsafe(24)
        if wake["kind"] == "schedule":
            deployment["rule"] = wake["config"]
        deployments.append(deployment)
    req.store.delete_where("webhook_deployment", where={"agent_id": agent["id"]})
    for deployment in deployments:
        if deployment["kind"] == "webhook":
            req.store.insert(
                "webhook_deployment",
                {"token": deployment["token"], "agent_id": agent["id"], "deployment_id": deployment["id"]},
                workspace_id=agent["workspace_id"],
            )
    agent.update(
        status="active",
        active_version_id=version["id"],
        version=number,
        deployments=deployments,
        updated_at=req.clock.iso(),
    )
    req.store.save("agent", agent, touch=False)
    return version, deployments


# --------------------------------------------------------------------------
# Agent routes
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/agents",
    operation_id="agents_list",
    summary="Agents, oldest first",
    tags=TAG,
    query={"status": AGENT_STATUS, **PAGE_QUERY},
    responses={200: page_of(AGENT_SUMMARY)},
)
def agents_list(req):
    """Archived agents are left out unless `status=archived`."""
    status = req.params.get("status")
    agents = req.store.list("agent", workspace_id=req.workspace_id)
    agents = [a for a in agents if (a["status"] == status if status else a["status"] != "archived")]
    return paginate(req, agents, render=render_agent_summary)


@route(
    "POST",
    "/v1/agents",
    operation_id="agents_create",
    summary="Draft a new agent from a message",
    tags=TAG,
    body={
        "type": "object",
        "required": ["message"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 120},
            "message": {"type": "string", "minLength": 1, "maxLength": 20000},
            "auto": {"type": "boolean", "default": False},
        },
    },
    responses={200: BUILD},
    slow=True,
)
def agents_create(req):
    """The draft exists whether the builder answers `built` or `needs_input`."""
    req.check_credits(BUILD_CREDITS)
    body = req.body
    result = build_plan(body["message"], auto=bool(body.get("auto")), answering=False)
    agent = {
        "name": body.get("name") or name_from_message(body["message"], "New agent"),
        "status": "draft",
        "active_version_id": None,
        "version": None,
        "brief": [body["message"]],
        "deployments": [],
        "profile": None,
        "plan": None,
        "wakeups": [],
        "issues": [],
    }
    apply_build(agent, result)
    agent = req.store.insert("agent", agent, workspace_id=req.workspace_id)
    req.charge(BUILD_CREDITS)
    wait_seconds(req, BUILD_SECONDS)
    return render_build(req, agent)


@route(
    "GET",
    "/v1/agents/{id}",
    operation_id="agents_get",
    summary="The full agent",
    description="The full agent: profile (purpose, instructions, autonomy, model, tools, always-allowed risks), the plan's nodes and edges, wake-ups with their live deployments, the schedule (`next_run_at` in UTC), validation (`ready` and the issues to fix) and the number of pending approvals.",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: AGENT},
)
def agents_get(req):
    return render_agent(req, get_agent(req, req.path_params["id"]))


@route(
    "PATCH",
    "/v1/agents/{id}",
    operation_id="agents_update",
    summary="Rename, or change the draft by message",
    tags=TAG,
    path_params=ID_PATH,
    body={
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 120},
            "message": {"type": "string", "minLength": 1, "maxLength": 20000},
            "auto": {"type": "boolean", "default": False},
        },
        "minProperties": 1,
        **one_of_fields("message", "name", message="send a name, a message or both"),
    },
    responses={200: BUILD},
    slow=True,
)
def agents_update(req):
    """`name` alone renames (free). `message` runs a builder turn on the draft (also how questions are
    answered); an active agent keeps running its activated version until activated again."""
    body = req.body
    with req.store.lock:
        agent = get_agent(req, req.path_params["id"])
        if agent["status"] == "archived":
            raise conflict("This agent is archived and cannot be changed.")
        if "message" in body:
            req.check_credits(BUILD_CREDITS)
        if body.get("name"):
            agent["name"] = body["name"]
        note = f"Renamed the agent to {agent['name']}." if "message" not in body else None
        if "message" in body:
            answering = agent.get("builder_status") == "needs_input"
            agent["brief"] = agent.get("brief", []) + [body["message"]]
            apply_build(agent, build_plan("\n".join(agent["brief"]), auto=bool(body.get("auto")), answering=answering))
            withdraw_grants(agent, body["message"])
            req.charge(BUILD_CREDITS)
        agent = req.store.save("agent", agent)
    if "message" in body:
        wait_seconds(req, BUILD_SECONDS)
    return render_build(req, agent, message=note)


@route(
    "POST",
    "/v1/agents/{id}/activate",
    operation_id="agents_activate",
    summary="Publish a version and turn the agent on",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: ACTIVATION},
    slow=True,
)
def agents_activate(req):
    """422 with `error.details.issues` when the plan is not ready. Every activation publishes a new
    immutable version and sets up the wake-ups (a webhook gets a fresh private endpoint)."""
    with req.store.lock:
        agent = get_agent(req, req.path_params["id"])
        if agent["status"] == "archived":
            raise conflict("This agent is archived and cannot be activated.")
        validation = validation_of(agent)
        if not validation["ready"]:
            raise unprocessable(
                "The plan is not ready to activate: " + " ".join(i["message"] for i in validation["issues"]),
                {"issues": validation["issues"]},
            )
        version, deployments = activate_agent(req, agent)
    wait_seconds(req, 5)
    return {
        "status": "active",
        "version": version["number"],
        "version_id": version["id"],
        "deployments": [render_deployment(req, d) for d in deployments],
    }


@route(
    "POST",
    "/v1/agents/{id}/pause",
    operation_id="agents_pause",
    summary="Stop listening for wake-ups",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: AGENT},
)
def agents_pause(req):
    """Tears down every wake-up (a webhook endpoint answers 404 after); runs in flight finish. Pausing a
    paused agent is harmless; a draft was never on (409)."""
    with req.store.lock:
        agent = get_agent(req, req.path_params["id"])
        if agent["status"] in ("draft", "archived"):
            raise conflict(
                f"A {agent['status']} agent is not running, so it cannot be paused.", {"status": [agent["status"]]}
            )
        if agent["status"] == "active":
            agent.update(status="paused", deployments=[])
            req.store.delete_where("webhook_deployment", where={"agent_id": agent["id"]})
            agent = req.store.save("agent", agent)
    return render_agent(req, agent)


# --------------------------------------------------------------------------
# Run routes
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/agents/{id}/runs",
    operation_id="agents_runs_list",
    summary="An agent's runs, newest first",
    description="The agent's runs, newest first; `status` and `thread_id` narrow them (a background run shows up here under its thread).",
    tags=TAG,
    path_params=ID_PATH,
    query={"status": RUN_STATUS, "thread_id": UUID, **PAGE_QUERY},
    responses={200: page_of(RUN)},
)
def agents_runs_list(req):
    agent = get_agent(req, req.path_params["id"])
    where = {"agent_id": agent["id"]}
    if req.params.get("thread_id"):
        where["thread_id"] = req.params["thread_id"]
    runs = req.store.list("run", workspace_id=req.workspace_id, where=where)
    if req.params.get("status"):
        now = req.clock.now()
        runs = [r for r in runs if run_status(r, now) == req.params["status"]]
    return paginate(req, runs, descending=True, render=lambda r: render_run(req, r))


@route(
    "POST",
    "/v1/agents/{id}/runs",
    operation_id="agents_runs_create",
    summary="Talk to an agent or send it an event",
    tags=TAG,
    path_params=ID_PATH,
    body={
        "type": "object",
        "properties": {
            "message": {"type": "string", "minLength": 1, "maxLength": 20000},
            "payload": {"type": "object"},
            "thread_id": UUID,
            "stream": {"type": "boolean", "default": False},
            "background": {"type": "boolean", "default": False},
        },
        "allOf": [
            one_of_fields("message", "payload", message="send a message, a payload or both"),
            not_both_true("stream", "background", message="cannot be combined with stream; choose one"),
        ],
    },
    responses={200: INVOCATION, 202: INVOCATION},
    stream=["started", "result", "error"],
    slow=True,
)
def agents_runs_create(req):
    """Waits by default; `stream: true` answers `started` then `result` or `error`; `background: true`
    answers 202 with `status: running`, `thread_id` and `idempotency_key` (repeat with that key to poll)."""
    body = req.body
    agent = get_agent(req, req.path_params["id"])
    if agent["status"] == "archived":
        raise conflict("This agent is archived.")
    req.check_credits(RUN_CREDITS)
    key = req.ensure_idempotency_key() if body.get("background") else req.idempotency_key
    event = {"kind": "chat", "message": body.get("message"), "payload": body.get("payload")}
    run = start_run(req, agent, event=event, thread_id=body.get("thread_id"), idempotency_key=key)
    req.charge(RUN_CREDITS)
    ref_value = {
        "run_id": run["id"],
        "mode": "stream" if body.get("stream") else "background" if body.get("background") else "wait",
    }
    if body.get("stream"):
        return event_stream(run_events(req, run, live=True), replay=("agent_run", ref_value))
    if body.get("background"):
        return accepted(
            {
                "object": "agent.invocation",
                "status": "running",
                "run_id": run["id"],
                "thread_id": run["thread_id"],
                "agent_id": agent["id"],
                "idempotency_key": key,
                "answer": None,
                "steps": [],
            },
            replay=("agent_run", ref_value),
        )
    wait_for_run(req, run)
    return Response(render_invocation(req, run), replay=("agent_run", ref_value))


@replay_hook("agent_run")
def replay_agent_run(req, ref_value):
    """The same request with the same key never runs the agent again: it polls
    the first run (202 while running, then the finished invocation)."""
    run = req.store.get("run", ref_value["run_id"])
    if run is None:
        raise not_found("run")
    if ref_value.get("mode") == "stream":
        return event_stream(run_events(req, run, live=False))
    body = render_invocation(req, run)
    if body["status"] == "running":
        return accepted(body)
    return Response(body)


@route(
    "GET",
    "/v1/runs/{id}",
    operation_id="runs_get",
    summary="A run with its steps",
    description="One run: the event that woke it, every step in order (kind, input, result, error), delegated tasks, approvals, cost and, for a conversation, the agent's answer. Poll while `running` or `waiting` (`waiting_for` says what it waits for).",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: RUN},
)
def runs_get(req):
    run = req.store.get("run", req.path_params["id"], workspace_id=req.workspace_id)
    if run is None:
        raise not_found("run")
    return render_run(req, run)


# --------------------------------------------------------------------------
# Approvals
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/approvals",
    operation_id="approvals_list",
    summary="Actions waiting for a person",
    tags=TAG,
    query={
        "status": {"type": "string", "enum": ["pending", "approved", "rejected", "all"], "default": "pending"},
        "agent_id": UUID,
        **PAGE_QUERY,
    },
    responses={200: page_of(APPROVAL)},
)
def approvals_list(req):
    """Pending first, first-come-first; then decided ones, oldest first."""
    where = {"agent_id": req.params["agent_id"]} if req.params.get("agent_id") else None
    status = req.params.get("status", "pending")
    now = req.clock.now()
    items = [
        a
        for a in req.store.list("approval", workspace_id=req.workspace_id, where=where)
        if is_ready(a.get("requested_at"), now) and (status == "all" or a["status"] == status)
    ]
    return paginate(
        req,
        items,
        key=lambda a: [0 if a["status"] == "pending" else 1, a["_seq"]],
        render=lambda a: render_approval(req, a),
    )


@route(
    "POST",
    "/v1/approvals/{id}",
    operation_id="approvals_decide",
    summary="Approve or reject an action",
    tags=TAG,
    path_params=ID_PATH,
    body={
        "type": "object",
        "required": ["decision"],
        "properties": {
            "decision": {"type": "string", "enum": ["approve", "reject"]},
            "always": {"type": "boolean", "default": False},
        },
        # `always: true` goes only with `approve` (whether the approval can be always allowed
        # is its own state: 400 on `always` from the handler).
        "anyOf": [{"properties": {"decision": {"const": "approve"}}}, {"properties": {"always": {"const": False}}}],
        "x-error": {"at": "always", "message": "only goes with decision approve"},
    },
    responses={
        200: {
            "type": "object",
            "required": ["approval", "outcome"],
            "properties": {"approval": APPROVAL, "outcome": {"type": "object"}},
        }
    },
    slow=True,
)
def approvals_decide(req):
    """Approve runs the action exactly as in `input` and resumes the run (`outcome` is the resumed run);
    reject cancels the run. A second decision answers 409. `always: true` only with `approve` and only
    where `can_always_allow` (otherwise 400 on `always`)."""
    decision = req.body["decision"]
    always = bool(req.body.get("always"))
    with req.store.lock:
        approval = req.store.get("approval", req.path_params["id"], workspace_id=req.workspace_id)
        if approval is None or not is_ready(approval.get("requested_at"), req.clock.now()):
            raise not_found("approval")
        if approval["status"] != "pending":
            # Who decided it: an inner field the contract leaves open (a second implementation may not say).
            details = {"status": [approval["status"]]}
            if approval.get("decided_by"):
                details["decided_by"] = [approval["decided_by"]]
            raise conflict(f"This approval was already decided ({approval['status']}).", details)
        if always and not approval["can_always_allow"]:
            raise invalid(
                {"always": [f"{approval['risk']} actions cannot be always allowed; approve this one without always"]}
            )
        now = req.clock.iso()
        approval.update(
            status="approved" if decision == "approve" else "rejected",
            decision=decision,
            always=always,
            decided_at=now,
            decided_by=(req.member or {}).get("name"),
        )
        req.store.save("approval", approval)
        run = req.store.get("run", approval["run_id"])
        if run is not None:
            run.update(resolution=approval["status"], resolved_at=now)
            req.store.save("run", run)
        if always:
            agent = req.store.get("agent", approval["agent_id"])
            if agent is not None:
                profile = agent.get("profile") or {}
                profile["always_allowed"] = sorted(set(profile.get("always_allowed") or []) | {approval["risk"]})
                agent["profile"] = profile
                req.store.save("agent", agent)
    if decision == "approve":
        wait_seconds(req, DECIDE_SECONDS)  # the action runs now
    outcome = render_run(req, run) if run is not None else None
    return {"approval": render_approval(req, approval), "outcome": outcome}


# --------------------------------------------------------------------------
# Webhook wake-ups
# --------------------------------------------------------------------------
@route(
    "POST",
    "/v1/hooks/{token}",
    operation_id="agents_webhook",
    summary="Wake an active agent with a JSON event",
    tags=TAG,
    auth=False,
    path_params={"token": {"type": "string", "maxLength": 200}},
    body={"type": ["object", "array", "string", "number", "boolean", "null"]},
    body_required=False,
    responses={
        202: {
            "type": "object",
            "required": ["run_id", "status"],
            "properties": {"run_id": UUID, "status": {"const": "running"}, "agent_id": UUID},
        }
    },
)
def agents_webhook(req):
    """The endpoint of an active agent's webhook deployment; the address is the secret (no key). 404 once
    the agent is paused. The JSON body becomes the run's `event.payload` (`event.kind: webhook`)."""
    hook = req.store.find_one("webhook_deployment", token=req.path_params["token"])
    agent = req.store.get("agent", hook["agent_id"]) if hook else None
    if hook is None or agent is None or agent["status"] != "active":
        raise not_found("webhook endpoint")
    # The hook's workspace pays for the run.
    req.workspace_id = agent["workspace_id"]
    req.workspace = req.store.get("workspace", agent["workspace_id"])
    req.check_credits(RUN_CREDITS)
    event = {"kind": "webhook", "message": None, "payload": req.body}
    run = start_run(req, agent, event=event, thread_id=None, idempotency_key=None)
    req.charge(RUN_CREDITS)
    return accepted({"run_id": run["id"], "status": "running", "agent_id": agent["id"]})


# --------------------------------------------------------------------------
# Demo data (through the core's seed hook)
# --------------------------------------------------------------------------
class SeedClock:
    """The real clock, except that "now" is a fixed moment in the past, so
    seeded runs and approvals look like history and are already settled."""

    def __init__(self, clock, at: datetime):
        self.clock, self.moment = clock, at

    def now(self) -> datetime:
        return self.moment

    def iso(self, dt=None) -> str:
        from sandbox.clock import iso

        return iso(dt or self.moment)

    def at(self, started_at: str, service_seconds: float) -> str:
        return self.clock.at(started_at, service_seconds)

    def real_seconds(self, service_seconds: float) -> float:
        return self.clock.real_seconds(service_seconds)


class SeedRequest:
    """Just enough of a Request for the builder, activation and runs."""

    def __init__(self, ctx: SeedContext, workspace_id: str, at: datetime):
        self.store, self.clock, self.workspace_id = ctx.store, SeedClock(ctx.clock, at), workspace_id
        self.workspace = ctx.store.get("workspace", workspace_id)


SEED_AGENTS = [
    # (name, brief, final status, past chat messages)
    (
        "Lead qualifier",
        "When a new lead is added, qualify it and if it looks promising email a summary to "
        "sales@acme.example. Ask first.",
        "active",
        [
            "Qualify the lead Jane Doe from Northwind",
            "please fail on this one",
            "Qualify the lead Omar Haddad from Contoso",
        ],
    ),
    (
        "Weekly pipeline report",
        "Every Monday, email the pipeline report to team@acme.example automatically. "
        "Also accept a webhook from our CRM.",
        "active",
        ["Send this week's report now"],
    ),
    (
        "Stale deal cleaner",
        "Delete deals that were lost more than a year ago; ask first.",
        "paused",
        ["Clean up the lost deals from 2025"],
    ),
    (
        "Customer FAQ helper",
        "Answer customer questions about our products and pricing in chat.",
        "draft",
        ["What does the Pro plan cost?"],
    ),
    ("Welcome emails", "Email every new customer a friendly welcome message.", "draft", []),
]


@seed_hook("studio_agents", order=110)
def seed_agents(ctx: SeedContext) -> None:
    rng = ctx.rng("studio_agents")
    workspace_id = ctx.demo_workspace_id
    start = ctx.clock.now() - timedelta(days=6)
    for index, (name, brief, status, messages) in enumerate(SEED_AGENTS):
        at = start + timedelta(hours=index * 5)
        req = SeedRequest(ctx, workspace_id, at)
        agent = {
            "id": ctx.uuid(rng),
            "name": name,
            "status": "draft",
            "active_version_id": None,
            "version": None,
            "brief": [brief],
            "deployments": [],
            "profile": None,
            "plan": None,
            "wakeups": [],
            "issues": [],
            "created_at": req.clock.iso(),
            "updated_at": req.clock.iso(),
        }
        apply_build(agent, build_plan(brief, auto=True, answering=False))
        agent = ctx.store.insert("agent", agent, workspace_id=workspace_id)
        if status in ("active", "paused"):
            activate_agent(req, agent, token=f"wh_demo_{rng.getrandbits(96):024x}")
        for number, message in enumerate(messages):
            req.clock.moment = at + timedelta(hours=1 + number * 7)
            start_run(
                req,
                agent,
                event={"kind": "chat", "message": message, "payload": None},
                thread_id=ctx.uuid(rng),
                idempotency_key=None,
            )
        if status == "paused":
            agent = ctx.store.get("agent", agent["id"])
            agent.update(status="paused", deployments=[])
            ctx.store.delete_where("webhook_deployment", where={"agent_id": agent["id"]})
            ctx.store.save("agent", agent, touch=False)
    # One of the Lead qualifier's approvals was decided already (history).
    decided = next((a for a in ctx.store.list("approval", workspace_id=workspace_id)), None)
    if decided is not None:
        decided_at = ctx.clock.iso(start + timedelta(hours=3))
        decided.update(status="approved", decision="approve", decided_at=decided_at)
        ctx.store.save("approval", decided, touch=False)
        run = ctx.store.get("run", decided["run_id"])
        run.update(resolution="approved", resolved_at=decided_at)
        ctx.store.save("run", run, touch=False)
