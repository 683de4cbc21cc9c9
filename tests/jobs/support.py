"""Every step message lost: the engine's watch alone moves a job to its end.

`finish_by_the_watch` drops every step message a job sends (as a broker
restart or an outbox row never published would), lets the time pass that
makes a job "not moved for a while" (and a wait's countdown run out), runs
the engine's watch (`jobs_watch`, the beat task's body) and the steps IT
sends, until the job is final. Used by each kind's own tests."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from dashboard.jobs import engine
from dashboard.jobs.kinds import job_kind_of


def finish_by_the_watch(monkeypatch, row, *, limit: int = 200) -> int:
    """Run `row`'s job by the watch alone, every other message lost; returns how many watches it took."""
    kind = job_kind_of(type(row))
    sent: list[tuple[str, int]] = []
    monkeypatch.setattr(engine, "send_step", lambda name, job_id, countdown=None: sent.append((name, job_id)))
    rows = kind.model._default_manager.filter(pk=row.pk)
    for watches in range(limit):
        row.refresh_from_db()
        if row.status not in kind.active:
            return watches
        sent.clear()  # what the last step sent is lost
        long_ago = timezone.now() - timedelta(seconds=settings.JOBS_STALLED_SECONDS + 1)
        rows.filter(lease_token="").update(updated_at=long_ago, lease_until=None)  # a wait's countdown is over
        assert engine.jobs_watch() >= 1
        assert (kind.name, row.pk) in sent, "the watch did not send the lost step"
        engine.job_step(kind.name, row.pk)
    raise AssertionError(f"{kind.name} {row.pk} never ended")
