"""Two runs compared (pure: no database, no remote call): their steps
aligned by name and order, inputs and outputs diffed in words with the
unchanged parts folded, and duration, cost and approval waits side by side.

Both runs come as `agents.run_reading.read_run` reads them, so a run of
another implementation of the service that lacks optional members (no step
times, no cost, no approvals) compares without error: what is unknown is
said as "not known", never guessed as zero.

Rules the page states:
- A step's name is its label, else its kind; steps are aligned by name in
  their order (a longest common subsequence, `difflib`), so a step added in
  the middle does not shift every later one. A step whose name is on one
  side only is "only in the first run" or "only in the second run".
- JSON is compared member by member, lists item by item; a change names its
  place ("customer › email", "items › item 2") and both values.
- An approval's wait is from asked to decided; a pending one is "still waiting".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from agents.run_reading import duration_words, seconds_between
from dashboard.web.local_formats import dollars, integer

MAX_DEPTH = 12
MAX_CHANGES = 200  # per diff: past it the rest is counted, not listed
VALUE_WORDS = 80

CHANGED, ADDED, REMOVED = "changed", "added", "removed"
BOTH, FIRST_ONLY, SECOND_ONLY = "both", "first", "second"

_MISSING = object()


@dataclass(frozen=True)
class Change:
    kind: str  # CHANGED, ADDED or REMOVED
    place: str  # "customer › email"; "" for the whole value
    before: str
    after: str

    @property
    def words(self) -> str:
        where = f"“{self.place}”" if self.place else "The value"
        if self.kind == ADDED:
            return f"{where} added: {self.after}"
        if self.kind == REMOVED:
            return f"{where} removed (was {self.before})"
        return f"{where} changed from {self.before} to {self.after}"


@dataclass
class JsonDiff:
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0  # values (leaves) equal on both sides, folded
    more: int = 0  # changes past MAX_CHANGES, counted only

    @property
    def same(self) -> bool:
        return not self.changes and not self.more

    @property
    def unchanged_words(self) -> str:
        if not self.unchanged:
            return ""
        return "1 unchanged value" if self.unchanged == 1 else f"{integer(self.unchanged)} unchanged values"


def value_words(value: Any) -> str:
    """A JSON value as a short phrase: text in quotes, numbers as they are,
    nothing as "nothing", objects and lists as compact JSON, cut to 80 characters."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= VALUE_WORDS else value[: VALUE_WORDS - 1] + "…"
        return f"“{shown}”"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    try:
        shown = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "), default=str)
    except (TypeError, ValueError):
        shown = str(value)
    return shown if len(shown) <= VALUE_WORDS else shown[: VALUE_WORDS - 1] + "…"


def _leaves(value: Any, depth: int = 0) -> int:
    if depth < MAX_DEPTH and isinstance(value, dict) and value:
        return sum(_leaves(inner, depth + 1) for inner in value.values())
    if depth < MAX_DEPTH and isinstance(value, list) and value:
        return sum(_leaves(inner, depth + 1) for inner in value)
    return 1


def _join(place: str, part: str) -> str:
    return f"{place} › {part}" if place else part


def _walk(before: Any, after: Any, place: str, depth: int) -> Iterator[Change | int]:
    """Changes between two values, and ints counting equal leaves."""
    if before is _MISSING and after is _MISSING:
        return
    if before is _MISSING:
        yield Change(ADDED, place, "", value_words(after))
        return
    if after is _MISSING:
        yield Change(REMOVED, place, value_words(before), "")
        return
    if type(before) is type(after) and before == after:
        yield _leaves(before)
        return
    if depth < MAX_DEPTH and isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [key for key in after if key not in before]:
            yield from _walk(before.get(key, _MISSING), after.get(key, _MISSING), _join(place, str(key)), depth + 1)
        return
    if depth < MAX_DEPTH and isinstance(before, list) and isinstance(after, list):
        for index in range(max(len(before), len(after))):
            yield from _walk(
                before[index] if index < len(before) else _MISSING,
                after[index] if index < len(after) else _MISSING,
                _join(place, f"item {index + 1}"),
                depth + 1,
            )
        return
    yield Change(CHANGED, place, value_words(before), value_words(after))


def json_diff(before: Any, after: Any) -> JsonDiff:
    """What changed from `before` to `after`, in words; equal parts counted."""
    diff = JsonDiff()
    for item in _walk(before, after, "", 0):
        if isinstance(item, int):
            diff.unchanged += item
        elif len(diff.changes) < MAX_CHANGES:
            diff.changes.append(item)
        else:
            diff.more += 1
    return diff


@dataclass(frozen=True)
class Side:
    """One measure of both runs side by side, and the difference in words."""

    label: str
    first: str
    second: str
    delta: str

    @property
    def same(self) -> bool:
        return self.first == self.second


def _signed_seconds(delta: float) -> str:
    words = duration_words(abs(delta))
    return ("+" if delta > 0 else "−") + words


def seconds_side(label: str, first: float | None, second: float | None) -> Side:
    delta = ""
    if first is not None and second is not None:
        delta = "same" if round(first, 1) == round(second, 1) else _signed_seconds(second - first)
    return Side(label, duration_words(first) or "not known", duration_words(second) or "not known", delta)


def money_words(value: float) -> str:
    """Dollars; below a dollar with four places (runs often cost cents, and
    two costs of "$0.01" would hide the difference being compared)."""
    if 0 < abs(value) < 1:
        return dollars(value, places=4)
    return dollars(value)


def cost_side(first: float | None, second: float | None) -> Side:
    delta = ""
    if first is not None and second is not None:
        change = second - first
        delta = "same" if abs(change) < 0.00005 else ("+" if change > 0 else "−") + money_words(abs(change))
    return Side(
        "Cost",
        money_words(first) if first is not None else "not known",
        money_words(second) if second is not None else "not known",
        delta,
    )


def approval_waits(run: dict[str, Any]) -> tuple[float | None, int, int]:
    """(seconds the decided approvals waited, summed, or None; approvals; pending)."""
    approvals = run.get("approvals") or []
    waits = [seconds_between(item.get("requested_at"), item.get("decided_at")) for item in approvals]
    known = [wait for wait in waits if wait is not None]
    pending = sum(1 for item in approvals if item.get("status") == "pending")
    return (sum(known) if known else None), len(approvals), pending


def _waits_words(run: dict[str, Any]) -> str:
    seconds, count, pending = approval_waits(run)
    if not count:
        return "no approvals"
    parts = [f"{count} approval" + ("" if count == 1 else "s")]
    if seconds is not None:
        parts.append(f"waited {duration_words(seconds)}")
    if pending:
        parts.append(f"{pending} still waiting")
    return ", ".join(parts)


def waits_side(first: dict[str, Any], second: dict[str, Any]) -> Side:
    a, b = approval_waits(first)[0], approval_waits(second)[0]
    delta = ""
    if a is not None and b is not None:
        delta = "same" if round(a, 1) == round(b, 1) else _signed_seconds(b - a)
    return Side("Approval waits", _waits_words(first), _waits_words(second), delta)


def step_name(step: dict[str, Any]) -> str:
    return str(step.get("label") or step.get("kind") or "step")


@dataclass(frozen=True)
class StepPair:
    """One row of the aligned steps: a step of both runs (its diffs), or of one."""

    name: str
    where: str  # BOTH, FIRST_ONLY, SECOND_ONLY
    first: dict[str, Any] | None
    second: dict[str, Any] | None
    input: JsonDiff | None = None
    result: JsonDiff | None = None
    error: Side | None = None
    duration: Side | None = None

    @property
    def same(self) -> bool:
        if self.where != BOTH:
            return False
        return bool(self.input and self.input.same and self.result and self.result.same and not self.error)


def _error_side(first: dict[str, Any], second: dict[str, Any]) -> Side | None:
    a, b = first.get("error_message") or "", second.get("error_message") or ""
    if a == b:
        return None
    return Side("Error", a or "no error", b or "no error", "")


def _pair(first: dict[str, Any], second: dict[str, Any]) -> StepPair:
    return StepPair(
        name=step_name(first),
        where=BOTH,
        first=first,
        second=second,
        input=json_diff(first.get("input"), second.get("input")),
        result=json_diff(first.get("result"), second.get("result")),
        error=_error_side(first, second),
        duration=seconds_side("Took", first.get("seconds"), second.get("seconds")),
    )


def align_steps(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[StepPair]:
    """Both runs' steps in one list, aligned by name and order."""
    names_a, names_b = [step_name(step) for step in first], [step_name(step) for step in second]
    rows: list[StepPair] = []
    matcher = SequenceMatcher(None, names_a, names_b, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [_pair(first[a], second[b]) for a, b in zip(range(a1, a2), range(b1, b2), strict=True)]
            continue
        rows += [StepPair(names_a[a], FIRST_ONLY, first[a], None) for a in range(a1, a2)]
        rows += [StepPair(names_b[b], SECOND_ONLY, None, second[b]) for b in range(b1, b2)]
    return rows


def _woken_with(run: dict[str, Any]) -> Any:
    """What woke the run, as one value: its message and its payload."""
    if run.get("event_payload") is not None:
        return {"message": run.get("event_message") or None, "payload": run.get("event_payload")}
    return run.get("event_message") or None


@dataclass(frozen=True)
class Comparison:
    sides: list[Side]
    input: JsonDiff
    answer: JsonDiff
    steps: list[StepPair]

    @property
    def summary(self) -> str:
        """One sentence of what differs, for the page's top."""
        both = [row for row in self.steps if row.where == BOTH]
        differ = sum(1 for row in both if not row.same)
        first_only = sum(1 for row in self.steps if row.where == FIRST_ONLY)
        second_only = sum(1 for row in self.steps if row.where == SECOND_ONLY)
        parts = []
        if both:
            parts.append(
                f"{differ} of {len(both)} shared steps differ" if differ else f"all {len(both)} shared steps match"
            )
        else:
            parts.append("no step in common")
        if first_only:
            parts.append(f"{first_only} only in the first run")
        if second_only:
            parts.append(f"{second_only} only in the second run")
        parts.append("the input is the same" if self.input.same else "the input differs")
        parts.append("the answer is the same" if self.answer.same else "the answer differs")
        sentence = "; ".join(parts)
        return sentence[0].upper() + sentence[1:] + "."


def compare_runs(first: dict[str, Any], second: dict[str, Any]) -> Comparison:
    """Two runs (as `read_run` reads them) compared."""
    status = Side(
        "Outcome",
        first.get("status") or "not known",
        second.get("status") or "not known",
        "",
    )
    steps_count = Side("Steps", str(len(first.get("steps") or [])), str(len(second.get("steps") or [])), "")
    return Comparison(
        sides=[
            status,
            seconds_side("Duration", first.get("seconds"), second.get("seconds")),
            cost_side(first.get("cost_usd"), second.get("cost_usd")),
            waits_side(first, second),
            steps_count,
        ],
        input=json_diff(_woken_with(first), _woken_with(second)),
        answer=json_diff(first.get("answer") or None, second.get("answer") or None),
        steps=align_steps(first.get("steps") or [], second.get("steps") or []),
    )
