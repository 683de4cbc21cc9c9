"""Tolerant readers of runs: a run, its steps and tasks, what it waits for,
its timeline, and a background invocation's answer. The spec leaves steps,
tasks and outcomes open ("not shown"): these take what the pages need and
never raise on an odd shape (agents/reading.py holds the readers of agents,
plans, builds and approvals; the generic readers are the web layer's)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents.reading import read_approval, tool_name
from dashboard.web.reading import as_dict, as_list, error_message, number, others, text, when

RUN_FINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
# A background invocation is over when its run is: a `waiting` one (for an
# approval, a time or an event) is followed through its run until it ends.
INVOCATION_FINAL_STATUSES = RUN_FINAL_STATUSES


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
            tools.append({"name": tool_name(tool), "calls": calls})
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
