"""The columns every stepped job shares (dashboard/jobs/engine.py).

Abstract: each kind keeps its own table (an ObjectJob, a RecordTally, an
ApprovalBatch, a ZipJob) with its own status values and domain columns; the
engine reads and writes only these, and the status the kind names.
"""

from __future__ import annotations

from django.db import models


class SteppedJob(models.Model):
    # Each kind states its own statuses (choices, default) in its model; the
    # engine reads them through its JobKind (active, done, stopped...).
    status = models.CharField(max_length=16)
    # What the job's page says of a stop (a kind may keep it shorter).
    message = models.TextField(blank=True)
    # The core's one lease shape (dashboard/live/leases.py): the step holding
    # the row, short and renewed while its chunk works. A wait (a 429, a
    # failing service) keeps `lease_until` at its countdown with no token.
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=64, blank=True)
    transient_errors = models.PositiveIntegerField(default=0, help_text="Chunks in a row the service failed.")
    # Asked by a person; the next step ends the job (never written by a step).
    cancel_requested = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
