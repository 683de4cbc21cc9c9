"""What the Objects area adds to the System status page (the core's area
registry, `StatusPart`): the backlog of bulk jobs and imports, read from the
console's own rows, one grouped query."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from objects.models import ObjectJob

# Jobs a worker still has to move (ACTIVE), then those waiting for a person.
OPEN_STATUSES = (ObjectJob.COLLECTING, ObjectJob.CHECKING, ObjectJob.RUNNING, ObjectJob.MAPPING, ObjectJob.CHECKED)
# An active job nothing moved for this long is worth a look: the engine's watch
# (jobs.watch, dashboard/jobs) resends a lost step after JOBS_STALLED_SECONDS
# (a minute), so five means the workers are not taking it.
QUIET_AFTER = timedelta(minutes=5)


def job_backlog() -> list[tuple[str, int | str]]:
    """(status, jobs) for every status with jobs that are not over, then the
    active jobs that have not moved for QUIET_AFTER."""
    labels = dict(ObjectJob.STATUSES)
    quiet_since = timezone.now() - QUIET_AFTER
    counts = {
        row["status"]: row
        for row in ObjectJob.objects.filter(status__in=OPEN_STATUSES)
        .values("status")
        .annotate(jobs=Count("id"), quiet=Count("id", filter=Q(updated_at__lt=quiet_since)))
        .order_by()
    }
    rows: list[tuple[str, int | str]] = [
        (labels[status], counts[status]["jobs"]) for status in OPEN_STATUSES if status in counts
    ]
    quiet = sum(counts[status]["quiet"] for status in ObjectJob.ACTIVE if status in counts)
    if quiet:
        rows.append(("Active but not moved for 5 minutes", quiet))
    return rows
