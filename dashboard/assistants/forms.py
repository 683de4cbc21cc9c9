"""An Approver's decision on an assistant request."""

from __future__ import annotations

from django import forms

from dashboard.web.counted import CountedCharField


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    note = CountedCharField(limit=2000, noun="A note", required=False)
