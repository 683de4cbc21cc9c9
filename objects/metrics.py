"""What the Objects area adds to the metrics (dashboard/metrics): object jobs
by kind and state, read at scrape time in one grouped query (registered in
ObjectsConfig.ready(), since the core names no area). Rows per second come
from the counter `console_object_job_rows_total`, counted as each step is
stored (objects/jobs.py)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count

from dashboard.metrics import registry
from dashboard.metrics.collect import Gauge
from dashboard.metrics.initial import Series
from objects.models import ObjectJob


def job_gauges() -> Iterator[Gauge]:
    kinds = {kind for kind, _ in ObjectJob.KINDS}
    states = {state for state, _ in ObjectJob.STATUSES}
    counts = {(kind, state): 0.0 for kind in sorted(kinds) for state in sorted(states)}
    for row in ObjectJob.objects.values("kind", "status").annotate(n=Count("id")).order_by():
        if (row["kind"], row["status"]) in counts:
            counts[(row["kind"], row["status"])] = float(row["n"])
    yield Gauge(
        "console_object_jobs",
        "Object jobs (bulk edits, bulk deletes, CSV imports, restores from the trash, undos) by kind and state.",
        ("kind", "state"),
        list(counts.items()),
    )


def job_row_series() -> Iterator[Series]:
    """Rows handled by kind and phase (a job's active states), at zero from the first scrape."""
    for kind, _ in ObjectJob.KINDS:
        for phase in sorted(ObjectJob.ACTIVE):
            yield registry.object_job_rows, (kind, phase)
