"""Agent insights in numbers: what a run's facts are, and a window's summary.

Pure (no database, no remote call): `run_fact` reads one run body of the
runs list (or `GET /v1/runs/{id}`) into the facts the console keeps
(`agents.models.RunFact`); `insights_summary` turns facts into the days and
totals the insights pages show; `insights_charts` lays those out with
dashboard/web/charts.py. The refresh that keeps the facts is `agents/services.py`
(`insights_refresh`), the read is `agents/selectors.py` (`insights_facts`).

Words and rules the pages state in their captions:
- A run belongs to the day it started, in the workspace's time zone.
- Outcomes: completed, failed, cancelled (a rejected approval cancels), and
  "running or waiting" for a run not over yet.
- Success rate: completed runs among the runs that are over.
- Duration: start to end of the runs that are over (p50, p95 by nearest rank).
- Cost: the runs' `cost_usd`, summed on the day they started.
- Approvals: the runs' approvals; how long a decided one waited (asked to
  decided), summed per run; a pending one counts as still waiting.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from agents.reading import read_approval
from agents.run_reading import RUN_FINAL_STATUSES, duration_words, seconds_between
from agents.run_search import run_words
from dashboard.web import charts
from dashboard.web.local_formats import dollars
from dashboard.web.reading import as_dict, as_list, number, text, when

# The windows people choose between (days, today included).
WINDOWS = (7, 30)
DEFAULT_WINDOW = 7

COMPLETED, FAILED, CANCELLED, IN_PROGRESS = "completed", "failed", "cancelled", "in_progress"
# Stacking order, bottom up: what went well first.
OUTCOMES = (COMPLETED, FAILED, CANCELLED, IN_PROGRESS)
OUTCOME_WORDS = {
    COMPLETED: "Completed",
    FAILED: "Failed",
    CANCELLED: "Cancelled",
    IN_PROGRESS: "Running or waiting",
}


def outcome_of(status: str) -> str:
    """The chart's outcome of a run status; anything not over (running,
    waiting, a status the contract doesn't name yet) is in progress."""
    return status if status in RUN_FINAL_STATUSES else IN_PROGRESS


@dataclass(frozen=True)
class Fact:
    """What the console keeps of one run (a RunFact row, without the workspace)."""

    run_id: str
    agent_id: str
    started_at: datetime
    ended_at: datetime | None
    status: str
    cost_usd: float | None
    approvals: int
    approvals_waiting: int
    approval_wait_seconds: float | None
    # What the run said (agents/run_search.py), kept for the runs search.
    words: str | None = None

    @property
    def final(self) -> bool:
        return self.status in RUN_FINAL_STATUSES

    @property
    def seconds(self) -> float | None:
        return seconds_between(self.started_at, self.ended_at) if self.final else None


def _utc(moment: datetime | None) -> datetime | None:
    """A time without an offset is UTC (the contract's timestamps are)."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def run_fact(body: Any, *, agent_id: str = "") -> Fact | None:
    """The facts of one run body, read tolerantly (the spec leaves approvals'
    inner fields open); None for a body without an id or a start time: it
    can't be placed on a day, and it is not counted rather than guessed."""
    run = as_dict(body)
    run_id = text(run.get("id") or run.get("run_id"))
    started = _utc(when(run.get("created_at") or run.get("started_at")))
    if not run_id or started is None:
        return None
    status = text(run.get("status"))
    ended = _utc(when(run.get("completed_at") or run.get("ended_at"))) if status in RUN_FINAL_STATUSES else None
    approvals = [read_approval(item) for item in as_list(run.get("approvals")) if isinstance(item, dict)]
    waits = [seconds_between(item["requested_at"], item["decided_at"]) for item in approvals]
    known_waits = [wait for wait in waits if wait is not None]
    pending = sum(1 for item in approvals if item["status"] == "pending")
    waiting_for = as_dict(run.get("waiting_for"))
    if not approvals and status == "waiting" and text(waiting_for.get("kind")) == "approval":
        # Waiting for an approval the body doesn't list: still one approval waited on.
        pending = 1
    cost = number(run.get("cost_usd"))
    return Fact(
        run_id=run_id[:128],
        agent_id=(text(run.get("agent_id")) or agent_id)[:128],
        started_at=started,
        ended_at=ended,
        status=status[:32],
        cost_usd=float(cost) if cost is not None and math.isfinite(cost) else None,
        approvals=max(len(approvals), pending),
        approvals_waiting=pending,
        approval_wait_seconds=sum(known_waits) if known_waits else None,
        words=run_words(run),
    )


def percentile(values: Iterable[float], share: float) -> float | None:
    """Nearest-rank percentile (`share` 0.5 is the median, 0.95 the p95):
    always one of the values, so "p95 3 min" is a run that took 3 min. None
    for no values."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def window_days(*, days: int, now: datetime, zone: tzinfo) -> list[date]:
    """The window's days, oldest first, today (in the workspace's zone) last."""
    today = now.astimezone(zone).date()
    return [today - timedelta(days=back) for back in range(days - 1, -1, -1)]


def window_start(*, days: int, now: datetime, zone: tzinfo) -> datetime:
    """The first moment of the window: midnight of its first day in the zone."""
    return datetime.combine(window_days(days=days, now=now, zone=zone)[0], time.min, tzinfo=zone)


class Figures:
    """A day's or a window's cost and durations in words (both show them alike)."""

    cost_usd: float
    p50_seconds: float | None
    p95_seconds: float | None

    @property
    def cost_words(self) -> str:
        return money(self.cost_usd)

    @property
    def p50_words(self) -> str:
        return duration_words(self.p50_seconds) or "—"

    @property
    def p95_words(self) -> str:
        return duration_words(self.p95_seconds) or "—"


@dataclass
class Day(Figures):
    day: date
    counts: dict[str, int]
    cost_usd: float
    p50_seconds: float | None
    p95_seconds: float | None

    @property
    def runs(self) -> int:
        return sum(self.counts.values())

    @property
    def label(self) -> str:
        return f"{self.day:%b} {self.day.day}"


@dataclass
class Summary(Figures):
    days: list[Day]
    counts: dict[str, int]
    cost_usd: float
    p50_seconds: float | None
    p95_seconds: float | None
    approvals: int
    approvals_waiting: int
    runs_that_waited: int
    wait_seconds: float
    wait_p50_seconds: float | None
    wait_longest_seconds: float | None

    @property
    def runs(self) -> int:
        return sum(self.counts.values())

    @property
    def finished(self) -> int:
        return self.counts[COMPLETED] + self.counts[FAILED] + self.counts[CANCELLED]

    @property
    def success_rate(self) -> float | None:
        """Completed among the runs that are over (None: none is over)."""
        return self.counts[COMPLETED] / self.finished if self.finished else None

    @property
    def success_words(self) -> str:
        rate = self.success_rate
        return "—" if rate is None else f"{rate * 100:.0f}%"

    @property
    def wait_words(self) -> str:
        return duration_words(self.wait_seconds) if self.runs_that_waited else "—"

    @property
    def wait_p50_words(self) -> str:
        return duration_words(self.wait_p50_seconds) or "—"

    @property
    def wait_longest_words(self) -> str:
        return duration_words(self.wait_longest_seconds) or "—"

    @property
    def outcome_rows(self) -> list[tuple[str, str, int]]:
        return [(key, OUTCOME_WORDS[key], self.counts[key]) for key in OUTCOMES]


def money(value: float) -> str:
    """Dollars with cents; a fraction of a cent keeps four places (agent runs
    often cost less than a cent, and "$0.00" would say they were free)."""
    if 0 < abs(value) < 0.01:
        return dollars(value, places=4)
    return dollars(value)


def insights_summary(facts: Iterable[Fact], *, days: int, now: datetime, zone: tzinfo) -> Summary:
    """The window's days and totals from the facts of runs that started in it
    (facts outside the window are passed over)."""
    calendar = window_days(days=days, now=now, zone=zone)
    index = {day: position for position, day in enumerate(calendar)}
    counts = [dict.fromkeys(OUTCOMES, 0) for _ in calendar]
    costs = [0.0 for _ in calendar]
    durations: list[list[float]] = [[] for _ in calendar]
    waits: list[float] = []
    approvals = waiting = 0
    for fact in facts:
        position = index.get(fact.started_at.astimezone(zone).date())
        if position is None:
            continue
        counts[position][outcome_of(fact.status)] += 1
        costs[position] += fact.cost_usd or 0.0
        if fact.seconds is not None:
            durations[position].append(fact.seconds)
        approvals += fact.approvals
        waiting += fact.approvals_waiting
        if fact.approval_wait_seconds is not None:
            waits.append(fact.approval_wait_seconds)
    every_duration = [seconds for day in durations for seconds in day]
    return Summary(
        days=[
            Day(day, counts[i], costs[i], percentile(durations[i], 0.5), percentile(durations[i], 0.95))
            for i, day in enumerate(calendar)
        ],
        counts={key: sum(day[key] for day in counts) for key in OUTCOMES},
        cost_usd=sum(costs),
        p50_seconds=percentile(every_duration, 0.5),
        p95_seconds=percentile(every_duration, 0.95),
        approvals=approvals,
        approvals_waiting=waiting,
        runs_that_waited=len(waits),
        wait_seconds=sum(waits),
        wait_p50_seconds=percentile(waits, 0.5),
        wait_longest_seconds=max(waits, default=None),
    )


# --- the charts ---------------------------------------------------------------------------


def _count_label(value: float) -> str:
    return f"{value:g}"


def money_labeller(step: float) -> Callable[[float], str]:
    """Money on an axis of steps of `step` dollars, every tick with the same
    decimals ("$0.000, $0.005, $0.010": never "$0.01" twice)."""
    decimals = 0 if step >= 1 else charts.decimals_for(step, least=2)

    def label(value: float) -> str:
        return dollars(value, places=decimals)

    return label


@dataclass
class Charts:
    frame: charts.Frame
    slots: list[charts.Slot]
    runs_axis: charts.Axis
    runs: list[charts.Column]
    cost_axis: charts.Axis
    cost: list[charts.Column]
    duration_axis: charts.Axis
    durations: list[charts.Line]


def insights_charts(summary: Summary) -> Charts:
    """The three charts of a summary: runs per day stacked by outcome, cost
    per day (bars: a day's cost is a sum, and a bar of 0 reads as none), and
    duration p50/p95 per day (lines, broken on days with no finished run)."""
    days: Sequence[Day] = summary.days
    slots = charts.slots([day.label for day in days])
    runs_axis = charts.axis(max((day.runs for day in days), default=0), _count_label, whole=True)
    costliest = max((day.cost_usd for day in days), default=0.0)
    cost_axis = charts.axis(costliest, money_labeller(charts.tick_step(costliest)))
    longest = max((day.p95_seconds or 0.0 for day in days), default=0.0)
    # Durations in one unit per axis, from round steps (charts.SECOND_STEPS): "2 d", never "6.94444 d".
    step = charts.tick_step(longest, steps=charts.SECOND_STEPS)
    duration_axis = charts.axis(longest, charts.time_labeller(step), steps=charts.SECOND_STEPS)
    return Charts(
        frame=charts.FRAME,
        slots=slots,
        runs_axis=runs_axis,
        runs=charts.stacked_columns(
            [{key: float(day.counts[key]) for key in OUTCOMES} for day in days],
            OUTCOMES,
            scale=runs_axis.scale,
            slots_=slots,
            describe=lambda i, key, value: f"{days[i].label}: {value:g} {OUTCOME_WORDS[key].lower()}",
        ),
        cost_axis=cost_axis,
        cost=charts.stacked_columns(
            [{"cost": day.cost_usd} for day in days],
            ("cost",),
            scale=cost_axis.scale,
            slots_=slots,
            describe=lambda i, key, value: f"{days[i].label}: {money(value)}",
        ),
        duration_axis=duration_axis,
        durations=[
            charts.line(
                "p50",
                [day.p50_seconds for day in days],
                scale=duration_axis.scale,
                slots_=slots,
                describe=lambda i, value: f"{days[i].label}: p50 {duration_words(value)}",
            ),
            charts.line(
                "p95",
                [day.p95_seconds for day in days],
                scale=duration_axis.scale,
                slots_=slots,
                describe=lambda i, value: f"{days[i].label}: p95 {duration_words(value)}",
            ),
        ],
    )
