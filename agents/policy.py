"""The policy center: what each agent may do without asking a person.

The service keeps an agent's "always allowed" grants in its profile (the
spec: `approve` with `always: true` lets the agent take "this kind of action
without asking again"); their shape is not shown, so they are read
tolerantly: a list of risk words, of objects naming a risk (`risk`, `kind`,
`action`, `name`), or one word. Who granted one through the console, and
when, is the audit trail's (decisions with `always`).

A grant is taken back only through the builder: a PATCH with a message,
which costs credits and changes the draft (an active agent may keep its
activated version until activated again). So the page says so before, and
after it re-reads the agent and says whether the grant is gone.

"Reject and re-instruct" is the honest substitute for editing an approval's
input, which the API cannot do: reject it, then send the corrected
instruction into the run's thread, each its own audited write.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from agents import selectors, services
from agents.decisions import ALREADY, DECIDED, VIA_REINSTRUCT, DecisionAsked, approval_decision
from agents.queue import stored_agent_names
from agents.reading import read_agent_summary
from agents.run_reading import read_run
from dashboard.api import ServiceClient, errors
from dashboard.api.messages import meaning_of
from dashboard.audit.selectors import always_allow_grants
from dashboard.audit.services import audit_write_words
from dashboard.idempotency import new_idempotency_key
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import as_dict, as_list, text

# How many agents the page reads (one list page, then one read per agent).
POLICY_AGENTS = 50
GRANT_NAMES = ("risk", "kind", "action", "name", "type")


def read_grants(agent: Any) -> list[str]:
    """The agent's always-allowed grants as words, whatever their shape."""
    agent = as_dict(agent)
    profile = as_dict(agent.get("profile"))
    raw = profile.get("always_allowed", agent.get("always_allowed"))
    if isinstance(raw, str):
        raw = [raw]
    grants: list[str] = []
    for item in as_list(raw):
        if isinstance(item, dict):
            word = next((text(item.get(name)) for name in GRANT_NAMES if text(item.get(name))), "")
        else:
            word = text(item)
        if word and word not in grants:
            grants.append(word)
    return grants


@dataclass(frozen=True)
class Grant:
    agent_id: str
    agent_name: str
    risk: str
    granted_by: str  # "" when not through this console (or before its audit trail)
    granted_at: datetime | None
    note: str

    @cached_property
    def revoke_key(self) -> str:
        """The "Stop allowing" form's Idempotency-Key: fresh per rendered
        form (as IdempotencyKeyField mints it), posted back on a retry."""
        return new_idempotency_key()

    @property
    def key(self) -> str:
        """Which grant a form is about (a failed one comes back in place)."""
        return f"{self.agent_id}:{self.risk}"


@dataclass(frozen=True)
class AgentPolicy:
    agent_id: str
    name: str
    status: str
    autonomy: str
    grants: list[Grant]
    problem: str = ""  # the agent could not be read


def _granted_through_console(workspace_id: str) -> dict[tuple[str, str], Any]:
    """(agent id, risk) -> the latest audit entry of a decision with `always`."""
    latest: dict[tuple[str, str], Any] = {}
    for entry in always_allow_grants(workspace_id=workspace_id, limit=500):
        details = as_dict(entry.details)
        latest.setdefault((text(details.get("agent_id")), text(details.get("risk"))), entry)
    return latest


def policy_agents(*, client: ServiceClient, workspace_id: str) -> list[AgentPolicy]:
    """Every agent (one page of up to POLICY_AGENTS) with its grants, each read
    again in full; an agent whose read fails is a line saying so."""
    page = selectors.agent_list(client=client, status=None, cursor=None, limit=POLICY_AGENTS)
    through_console = _granted_through_console(workspace_id)
    rows: list[AgentPolicy] = []
    for summary in map(read_agent_summary, page.items):
        if not summary["id"]:
            continue
        try:
            agent = selectors.agent_get(client=client, agent_id=summary["id"])
        except errors.ApiError as exc:
            rows.append(
                AgentPolicy(summary["id"], summary["name"], summary["status"], "", [], problem=meaning_of(exc).title)
            )
            continue
        grants = []
        for risk in read_grants(agent):
            entry = through_console.get((summary["id"], risk))
            grants.append(
                Grant(
                    agent_id=summary["id"],
                    agent_name=summary["name"],
                    risk=risk,
                    granted_by=(entry.username or "the console") if entry else "",
                    granted_at=entry.created_at if entry else None,
                    note=entry.note if entry else "",
                )
            )
        profile = as_dict(as_dict(agent).get("profile"))
        rows.append(
            AgentPolicy(summary["id"], summary["name"], summary["status"], text(profile.get("autonomy")), grants)
        )
    return rows


def revoke_message(risk: str) -> str:
    """What the builder is told (the page shows it before it is sent)."""
    return (
        f"Stop always allowing {risk} actions: ask a person to approve every {risk} action again. Change nothing else."
    )


@dataclass(frozen=True)
class RevokeOutcome:
    agent_name: str
    risk: str
    gone: bool
    builder_says: str
    grants_now: list[str]


def grant_revoke(*, client: ServiceClient, agent_id: str, risk: str, idempotency_key: str) -> RevokeOutcome:
    """Ask the builder to take the grant back (PATCH with a message, `auto`:
    draft now, ask nothing), then read the agent again: the re-read, not the
    answer, says whether the grant is gone."""
    answer = services.agent_change(
        client=client, agent_id=agent_id, message=revoke_message(risk), auto=True, idempotency_key=idempotency_key
    )
    agent = selectors.agent_get(client=client, agent_id=agent_id)
    grants = read_grants(agent)
    name = text(as_dict(agent).get("name"))
    audit_write_words(
        idempotency_key=idempotency_key,
        summary=f"Asked the builder to stop always allowing {risk} actions of {name or 'an agent'}"
        + ("" if risk not in grants else " (still allowed when read again)"),
        details={"revoked_risk": risk, "agent_id": agent_id, "agent_name": name[:200]},
    )
    return RevokeOutcome(
        agent_name=name,
        risk=risk,
        gone=risk not in grants,
        builder_says=text(as_dict(answer).get("message")),
        grants_now=grants,
    )


def run_thread(*, client: ServiceClient, run_id: str) -> tuple[str, str]:
    """The run's agent and conversation (thread) ids, read from the service."""
    run = read_run(selectors.run_get(client=client, run_id=run_id))
    return run["agent_id"], run["thread_id"]


def reject_and_reinstruct(
    *,
    key: ApiKey,
    approval_id: str,
    run_id: str,
    agent_id: str,
    message: str,
    reject_key: str,
    message_key: str,
) -> tuple[dict, TrackedOperation]:
    """Reject the approval, then send `message` into the run's thread: two
    writes, each with its own Idempotency-Key (reused on a retry of the
    form), each in the audit trail through the write hook. A reject already
    made (409 on a retry after the first half went through) does not stop the
    instruction; one decided otherwise (approved by someone) does: the
    action ran, and a correction sent now would be about nothing.
    Raises the service's error of the first write that fails."""
    client = key.client()
    asked = DecisionAsked(
        approval_id=approval_id,
        decision="reject",
        idempotency_key=reject_key,
        agent_id=agent_id,
        # The name the console keeps (display only: the audit line names the agent).
        agent_name=stored_agent_names(workspace_id=key.workspace_id).get(agent_id, ""),
        via=VIA_REINSTRUCT,
    )
    decided = approval_decision(key=key, client=client, asked=asked)
    rejected_before = decided.approval is not None and decided.approval["status"] == "rejected"
    if decided.outcome == ALREADY and decided.conflict is not None and not rejected_before:
        raise decided.conflict  # approved by someone: the action ran, a correction now is about nothing
    answer = {"approval": decided.approval} if decided.outcome == DECIDED else {}
    run = read_run(decided.run) if isinstance(decided.run, dict) and decided.run else None
    if run is not None and run["thread_id"]:
        thread_agent, thread_id = run["agent_id"], run["thread_id"]
    else:
        thread_agent, thread_id = run_thread(client=client, run_id=run_id) if run_id else ("", "")
    operation = services.invocation_start(
        key=key,
        agent_id=agent_id or thread_agent,
        message=message,
        thread_id=thread_id or None,
        idempotency_key=message_key,
    )
    return as_dict(answer), operation
