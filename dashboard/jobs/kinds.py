"""The kinds of stepped jobs: what an area (or a core app) plugs into the engine.

An area declares its kinds on its `Area` (dashboard/frame/areas.py,
`job_kinds=`); a core app calls `register_job_kind` in its ready(). The engine
(dashboard/jobs/engine.py) finds a kind by its name, the one thing a step
message carries besides the row's id, so it never imports an area.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dashboard.jobs.models import SteppedJob


@dataclass(frozen=True)
class Step:
    """What a chunk did: more to do, finished (or on to `next_status`), wait, or stop."""

    more: bool = False
    done: bool = False
    wait_seconds: float | None = None
    stop_message: str = ""
    next_status: str = ""
    # Some of the work got its outcome before the wait: the count of waits in a row starts again.
    progressed: bool = False


MORE = Step(more=True)


@dataclass(frozen=True)
class JobKind:
    """One kind of job: its table, its statuses, and its chunk.

    `chunk(job)` does ONE bounded piece of work on the row (read at the start
    of the step, with `select_related`), changes the row's own columns in
    memory and says what comes next as a `Step`. A remote error it lets
    through is the engine's: 429 and 5xx wait, the rest stop in words. The
    engine writes the row (guarded by the step's lease) and sends the next step.
    """

    name: str  # "objects.job": what the step message names
    model: type[SteppedJob]
    chunk: Callable[[Any], Step]
    active: Collection[str]  # statuses a step works on (and the watch looks at)
    done: str  # a chunk that says done, with no next status
    stopped: str  # a stop: an error no retry fixes, or too many in a row
    cancelled: str = ""  # a cancel asked by a person ("" when the kind has none: stopped)
    cancelled_message: str = "Cancelled."
    kept_failing: str = "The service kept failing."
    unexpected: str = "The job stopped on an unexpected error."
    max_transient_errors: int = 6  # waits in a row before the job stops
    lease_seconds: float | None = None  # None: settings.JOBS_LEASE_SECONDS
    select_related: tuple[str, ...] = ()
    # Columns a step never writes (a person's, or too large to write every step).
    unwritten: frozenset[str] = frozenset()
    # (job as the step read it, job as written): after a write that held the lease (metrics).
    written: Callable[[Any, Any], None] | None = None
    # Before a stop is written (Objects: remember what Resume goes back to).
    stopping: Callable[[Any], None] | None = None
    # Its end is a workspace's outbound event "job.finished" (dashboard/events); False for
    # work nobody asked for as a job (a table's count).
    finished_event: bool = True


_kinds: dict[str, JobKind] = {}


def register_job_kind(kind: JobKind) -> JobKind:
    """Add a kind (again: harmless)."""
    existing = _kinds.get(kind.name)
    if existing is not None and existing != kind:
        raise ValueError(f"job kind {kind.name!r} is already registered")
    _kinds[kind.name] = kind
    return kind


def job_kind(name: str) -> JobKind:
    return _kinds[name]


def job_kinds() -> list[JobKind]:
    return sorted(_kinds.values(), key=lambda kind: kind.name)


def job_kind_of(model: type) -> JobKind:
    """The kind whose table is `model` (a start sends its first step by it)."""
    return next(kind for kind in _kinds.values() if kind.model is model)


def unregister_job_kind(name: str) -> None:
    """For tests that register a throwaway kind."""
    _kinds.pop(name, None)
