"""An Approver's decision on an assistant request."""

from __future__ import annotations

from django import forms

from dashboard.web.counted import CountedCharField


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])
    note = CountedCharField(limit=2000, noun="A note", required=False)
    # Approving a destructive or spend request: a fresh second factor (dashboard/accounts/step_up.py).
    step_up_code = forms.CharField(required=False, max_length=64, strip=True)
