"""One column of each of the 15 field types of the benchmark's object
(sandbox/fixtures.py EVERY_TYPE_FIELDS), with the created/updated columns the
records page also shows."""

from __future__ import annotations

from django.db import models

STATUSES = [("open", "Open"), ("lost", "Lost")]
STAGES = [("lead", "Lead"), ("won", "Won")]


class Deal(models.Model):
    name = models.CharField(max_length=200)  # text
    notes = models.TextField(blank=True)  # long_text
    seats = models.IntegerField(null=True)  # number
    amount = models.DecimalField(max_digits=14, decimal_places=2, null=True)  # currency
    close_date = models.DateField(null=True)  # date
    meeting_at = models.DateTimeField(null=True)  # datetime
    active = models.BooleanField(default=False)  # boolean
    email = models.EmailField(blank=True)  # email
    phone = models.CharField(max_length=40, blank=True)  # phone
    website = models.URLField(blank=True)  # url
    status = models.CharField(max_length=20, choices=STATUSES, blank=True)  # select
    tags = models.JSONField(default=list, blank=True)  # multi_select
    stage = models.CharField(max_length=20, choices=STAGES, blank=True)  # stage
    # image: a FileField, as ImageField needs Pillow; the changelist shows both as a link.
    logo = models.FileField(blank=True)
    contract = models.FileField(blank=True)  # file
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name
