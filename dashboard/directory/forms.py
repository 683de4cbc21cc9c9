from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy


class DirectoryTokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Directory"),
        max_length=100,
        help_text=gettext_lazy(
            "Which directory uses it: “Okta”, “Entra ID”. The audit trail names it for every change it makes."
        ),
    )
