from __future__ import annotations

from django import forms


class DirectoryTokenForm(forms.Form):
    name = forms.CharField(
        label="Directory",
        max_length=100,
        help_text="Which directory uses it: “Okta”, “Entra ID”. The audit trail names it for every change it makes.",
    )
